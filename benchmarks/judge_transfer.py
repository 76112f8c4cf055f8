"""Held-out transfer: a shipped record's judge (cut and combination) on a development set.

Judges every item of `benchmarks/judge_dev/<dimension>.jsonl` as a run with the record's
configuration does (its cut and combination, unchanged: nothing is fitted on the development
items), from P(pass) already in a verdict cache, and prints kappa with its item-bootstrap 95%
interval. Fill the cache first:

    toolgrade calibrate -d D --set benchmarks/judge_dev/D.jsonl \\
        --model local/qwen2.5-coder-1.5b --fit --cache-dir CACHE
    python benchmarks/judge_transfer.py D CACHE [RECORD]

RECORD defaults to the shipped record of the local model. Exits 2 if an item is not cached
(the model is never asked here).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from toolgrade.calibration import agreement as ag
from toolgrade.calibration.calibrate import load_set
from toolgrade.calibration.records import find_record, read_record, shipped_records_dir
from toolgrade.judging import build_judge
from toolgrade.judging.local import LOCAL_MODEL
from toolgrade.models import JudgeDimension, JudgeRequest
from toolgrade.settings import DimensionSettings, JudgeSettings


def main(argv: list[str] | None = None) -> int:
    """Print the transfer kappa of one dimension."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dimension")
    parser.add_argument("cache", type=Path)
    parser.add_argument("record", type=Path, nargs="?")
    args = parser.parse_args(argv)
    dim: JudgeDimension = args.dimension
    record = (read_record(args.record) if args.record
              else find_record(shipped_records_dir(), LOCAL_MODEL, dim))
    if record is None or record.cv_threshold is None:
        print(f"no fitted record for {dim}", file=sys.stderr)
        return 2
    # The record's own configuration, applied by the engine as a run applies it.
    table = DimensionSettings(mode="logprob", threshold=record.cv_threshold,
                              combination=record.combination)
    engine = build_judge(JudgeSettings(model=LOCAL_MODEL, cache_dir=args.cache,
                                       dimensions={dim: table}))
    assert engine is not None
    items = load_set(Path(__file__).parent / "judge_dev" / f"{dim}.jsonl", dim).items
    labels, verdicts = [], []
    for item in items:
        verdict = engine.judge(JudgeRequest(dimension=dim, inputs=item.inputs))
        if engine.usage()[dim]["calls"]:
            print(f"{item.id} is not in the cache {args.cache}; fill it first", file=sys.stderr)
            return 2
        labels.append(item.label == "pass")
        verdicts.append(verdict.verdict == "pass")
    rows = ag.paired_rows(labels, verdicts)
    ci, _ = ag.bootstrap_kappa_ci(rows)
    kappa = ag.cohen_kappa(rows.sum(axis=0).reshape(2, 2))
    interval = f"[{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "[undefined]"
    print(f"{dim}: {len(items)} development items, transfer kappa "
          f"{kappa if kappa is not None else float('nan'):.3f} {interval}, "
          f"judge pass rate {np.mean(verdicts):.2f}, human {np.mean(labels):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
