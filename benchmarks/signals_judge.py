"""The signals judge on held-out items: the shipped weights, cut and band levels on judge_dev.

The shipped signals-judge records (`calibration_records/*__signals.json`) were fitted on the
shipped sets; benchmarks/judge_dev holds real-length items kept apart from every fit. For each
dimension with signals this prints, on those items, what the judge `run` builds with that
record decides: the items the injection screen or the evidence settles, the items no signal
speaks about (never decided), kappa and agreement on the rest at the shipped cut, the ranking
AUC, the same at a few of the record's band levels, and the judge's time per item (no model:
milliseconds).

    python benchmarks/signals_judge.py [--sets benchmarks/judge_dev]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from toolgrade.calibration import agreement as ag
from toolgrade.calibration.calibrate import load_set
from toolgrade.calibration.records import CalibrationRecord, find_record, shipped_records_dir
from toolgrade.judging.judge import JudgeEngine
from toolgrade.judging.scripted import FakeClient
from toolgrade.models import JudgeDimension, JudgeRequest
from toolgrade.settings import DimensionSettings, JudgeSettings
from toolgrade.signals import EXTRACTORS

#: Band levels shown beside the plain cut.
LEVELS = (0.8, 0.6, 0.4)


def _figures(human: list[bool], verdicts: list[bool]) -> str:
    if not human:
        return "nothing decided"
    table = ag.confusion_table(human, verdicts)
    kappa = ag.cohen_kappa(table)
    shown = "n/a" if kappa is None else f"{kappa:.2f}"
    return f"kappa {shown}, agreement {ag.raw_agreement(table):.2f}"


def _engine(dimension: JudgeDimension, record: CalibrationRecord) -> JudgeEngine:
    """The signals judge as `run` builds it from `record`, without the band (the levels are
    applied below), answering from the signals alone: its client refuses any call."""
    table = DimensionSettings(model="signals", mode="logprob", threshold=record.cv_threshold,
                              combination=record.combination)
    settings = JudgeSettings(use_cache=False, dimensions={dimension: table})
    return JudgeEngine(settings, FakeClient(_refuse), models={dimension: "signals"})


def _refuse(request: object) -> str:
    raise AssertionError("the signals judge must ask no model")


def measure(dimension: JudgeDimension, record: CalibrationRecord, folder: Path) -> None:
    """Print the held-out figures of one dimension."""
    assert record.combination is not None and record.cv_threshold is not None
    items = load_set(folder / f"{dimension}.jsonl", dimension).items
    judge = _engine(dimension, record)
    scored: list[tuple[bool, float]] = []
    seconds: list[float] = []
    for item in items:
        start = time.perf_counter()
        verdict = judge.judge(JudgeRequest(dimension=dimension, inputs=item.inputs))
        seconds.append(time.perf_counter() - start)
        if verdict.p_pass is not None:  # settled items are decided fails at P(pass) 0
            scored.append((item.label == "pass", verdict.p_pass))
    usage = judge.usage()[dimension]
    settled, silent = usage["settled"], usage["unscored"]
    human = [h for h, _ in scored]
    cut = record.cv_threshold
    auc = ag.ranking_auc(human, [p for _, p in scored])
    print(f"{dimension}: {len(items)} items, {settled} settled, {silent} silent (never "
          f"decided); at cut {cut:.3f}: {_figures(human, [p >= cut for _, p in scored])} on "
          f"{len(scored)}; AUC {'n/a' if auc is None else f'{auc:.2f}'}; "
          f"{statistics.median(seconds) * 1000:.2f} ms per item")
    for level in record.band_levels:
        if level.level not in LEVELS or level.band is None:
            continue
        low, high = level.band
        kept = [(h, p) for h, p in scored if not low <= p <= high]
        print(f"  band level {level.level:.2f} [{low:.2f}, {high:.2f}]: decides {len(kept)} of "
              f"{len(items)}: {_figures([h for h, _ in kept], [p >= cut for _, p in kept])} "
              f"(cross-validated on the shipped set: coverage {level.cv_coverage:.2f} at "
              f"decided kappa {_shown(level.cv_decided_kappa)})")


def _shown(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    """Measure every dimension with signals on the given folder of sets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=Path, default=Path("benchmarks/judge_dev"))
    args = parser.parse_args(argv)
    for dimension in EXTRACTORS:
        record = find_record(shipped_records_dir(), "signals", dimension)
        if record is None or record.combination is None:
            print(f"{dimension}: no shipped signals-judge record")
            continue
        measure(dimension, record, args.sets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
