"""The judges' development sets (benchmarks/judge_dev/): they load, carry both labels, and never
share an item with the shipped calibration set of their dimension.

The shipped sets are for the figures; the development sets are for tuning. An item in both would
let tuning leak into a shipped figure, so no id and no `inputs` may be equal across the two.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolgrade.calibration.calibrate import load_set
from toolgrade.models import JUDGE_DIMENSIONS

DEV = Path(__file__).resolve().parent.parent / "benchmarks" / "judge_dev"


def _canonical(inputs: dict[str, object]) -> str:
    return json.dumps(inputs, sort_keys=True, ensure_ascii=False)


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_dev_set_loads_with_both_labels(dimension: str) -> None:
    dev = load_set(DEV / f"{dimension}.jsonl", dimension)
    labels = {item.label for item in dev.items}
    assert labels == {"pass", "fail"}
    assert len(dev.items) >= 40
    assert dev.provenance.get("dimension") == dimension
    assert all(item.id.startswith("dev-") for item in dev.items)
    # Every injection item is labelled fail (a value written to steer the judge never passes).
    injections = [item for item in dev.items if "injection" in item.tags]
    assert injections and all(item.label == "fail" for item in injections)


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_dev_set_shares_no_item_with_the_shipped_set(dimension: str) -> None:
    dev = load_set(DEV / f"{dimension}.jsonl", dimension)
    shipped = load_set(None, dimension)
    assert not {i.id for i in dev.items} & {i.id for i in shipped.items}
    shipped_inputs = {_canonical(i.inputs) for i in shipped.items}
    shared = [i.id for i in dev.items if _canonical(i.inputs) in shipped_inputs]
    assert shared == []


def test_every_dimension_has_a_dev_set() -> None:
    assert sorted(p.stem for p in DEV.glob("*.jsonl")) == sorted(JUDGE_DIMENSIONS)
