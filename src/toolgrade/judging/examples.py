"""Nearest labelled examples: the pool of a dimension's labelled items and BM25 retrieval in it.

With `[judge] examples = K` (or per dimension), every judged item is shown the K items of the
dimension's labelled pool most like it, with their human labels, before it is asked about
(docs/local_judge.md, "Nearest labelled examples"). The pool is the set shipped for the
dimension followed by the `examples_from` sets (a team's exported adjudications, say: a folder
`toolgrade adjudicate --export-set` wrote gives its `<dimension>.jsonl`), so a team's labels
reach the judge at its next run or `calibrate`.

Similarity is BM25 (the `bm25s` package) over a flat text of each item's inputs: every value
serialised as the prompt shows it, lower-cased and cut into word tokens. An item never sees
itself: pool items whose inputs equal the request's (canonical JSON) are left out, and so is
the item named by the request's `item_id` (`calibrate` names each labelled item it judges),
with every pool item of the same task (its near-miss twins).
Ties are broken by position in the pool, so the choice is deterministic.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from toolgrade.calibration.calibrate import CalibrationItem, CalibrationSet, load_set
from toolgrade.errors import ConfigError, InputError
from toolgrade.judging.cache import canonical_json
from toolgrade.judging.prompts import serialise
from toolgrade.models import JudgeDimension

_WORD = re.compile(r"\w+")


def flat_text(inputs: Mapping[str, Any]) -> str:
    """One item's inputs as one text, in key order (what retrieval compares)."""
    return "\n".join(serialise(inputs[name]) for name in sorted(inputs))


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens of `text`."""
    return _WORD.findall(text.lower())


class ExamplePool:
    """A dimension's labelled items, indexed for BM25; `sha256` covers every set's bytes."""

    def __init__(self, dimension: JudgeDimension, sets: Sequence[CalibrationSet]) -> None:
        import bm25s  # lazily: only a judge showing examples pays for the import

        self.dimension: JudgeDimension = dimension
        self.items: tuple[CalibrationItem, ...] = tuple(i for s in sets for i in s.items)
        self.sources: tuple[str, ...] = tuple(s.source for s in sets)
        self.sha256 = hashlib.sha256(
            "\n".join(s.sha256 for s in sets).encode("ascii")).hexdigest()
        self._canonical = [canonical_json(item.inputs) for item in self.items]
        self._index = bm25s.BM25()
        self._index.index([tokens(flat_text(i.inputs)) or [""] for i in self.items],
                          show_progress=False)

    def scores(self, inputs: Mapping[str, Any]) -> np.ndarray[Any, np.dtype[np.float64]]:
        """Every pool item's BM25 score against `inputs` (0 where no word is shared)."""
        query = tokens(flat_text(inputs))
        if not query or not self.items:
            return np.zeros(len(self.items), dtype=np.float64)
        return np.asarray(self._index.get_scores(query), dtype=np.float64)

    def nearest(
        self, inputs: Mapping[str, Any], k: int, *, leave_out: str | None = None
    ) -> list[CalibrationItem]:
        """The `k` items most like `inputs`, best first; never one with the same inputs. With
        `leave_out` (the labelled item `calibrate` is judging), neither that item nor any item
        of the same task: labelled sets pair near-miss items on one task with opposite labels,
        so a twin shown with its label would give the answer away, and the calibration would
        promise what the judge cannot do on new tasks. Equal scores keep the pool's order."""
        if k <= 0:
            return []
        own = canonical_json(dict(inputs))
        task = inputs.get("task") if leave_out is not None else None
        scores = self.scores(inputs)
        candidates = [n for n, item in enumerate(self.items)
                      if self._canonical[n] != own and item.id != leave_out
                      and (task is None or item.inputs.get("task") != task)]
        candidates.sort(key=lambda n: (-float(scores[n]), n))
        return [self.items[n] for n in candidates[:k]]


def example_sets(dimension: JudgeDimension, extra: Sequence[Path]) -> list[Path]:
    """The files `extra` names for `dimension`: a file as it is; a folder (one `toolgrade
    adjudicate --export-set` wrote) by its `<dimension>.jsonl`, when it has one yet."""
    found: list[Path] = []
    for path in extra:
        if path.is_dir():
            own = path / f"{dimension}.jsonl"
            if own.is_file():
                found.append(own)
            continue
        found.append(path)
    return found


def load_pool(dimension: JudgeDimension, extra: Sequence[Path]) -> ExamplePool:
    """The shipped set of `dimension` and the `extra` sets (`example_sets`); ConfigError
    naming the file, line and field of every problem in them."""
    try:
        sets = [load_set(None, dimension),
                *(load_set(path, dimension) for path in example_sets(dimension, extra))]
    except InputError as exc:
        raise ConfigError(f"examples_from of {dimension}: {exc}") from exc
    return ExamplePool(dimension, sets)
