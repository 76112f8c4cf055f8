"""Builders for calibration tests: items, fake judges (tiny JudgePorts) and sets on disk."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from toolgrade.calibration.calibrate import CalibrationItem
from toolgrade.calibration.records import CalibrationRecord, shipped_set_sha256
from toolgrade.models import JUDGE_INPUTS, JudgeDimension, JudgeRequest, Verdict


def inputs_for(dimension: JudgeDimension, marker: str = "x") -> dict[str, Any]:
    """Template inputs with exactly the dimension's keys; `marker` identifies the item."""
    return {key: f"{marker}:{key}" for key in JUDGE_INPUTS[dimension]}


def make_item(
    n: int,
    label: str,
    *,
    tags: Iterable[str] = (),
    labels: dict[str, str] | None = None,
    dimension: JudgeDimension = "argument_equivalence",
) -> CalibrationItem:
    """Item `it-<n>` whose inputs carry its id, so a fake judge can look it up."""
    return CalibrationItem(
        id=f"it-{n}",
        inputs=inputs_for(dimension, f"it-{n}"),
        label=label,  # type: ignore[arg-type]
        tags=list(tags),
        labels=labels or {},  # type: ignore[arg-type]
    )


def item_id(request: JudgeRequest) -> str:
    """The item id a `make_item` request carries."""
    first = next(iter(request.inputs.values()))
    return str(first).split(":", 1)[0]


class ScriptedJudge:
    """A JudgePort answering from a function of the request; records every request."""

    def __init__(self, answer: Callable[[JudgeRequest], Verdict]) -> None:
        self.answer = answer
        self.requests: list[JudgeRequest] = []

    def judge(self, request: JudgeRequest) -> Verdict:
        """Answer by the script (exceptions propagate, like a crashing judge)."""
        self.requests.append(request)
        return self.answer(request)


def by_id(verdicts: dict[str, str], p_pass: dict[str, float] | None = None) -> ScriptedJudge:
    """A judge answering each item id with the given verdict (and P(pass) when given)."""

    def answer(request: JudgeRequest) -> Verdict:
        key = item_id(request)
        value = verdicts[key]
        if value == "unscored":
            return Verdict.unscored("scripted")
        p = p_pass.get(key) if p_pass else None
        return Verdict(verdict=value, reason="scripted", p_pass=p, template_hash="tmpl-1")  # type: ignore[arg-type]

    return ScriptedJudge(answer)


def flip_on_hard(items: Iterable[CalibrationItem]) -> ScriptedJudge:
    """Answers each item's label, except on items tagged 'hard' where it answers the opposite."""
    table = {json.dumps(it.inputs, sort_keys=True): it for it in items}

    def answer(request: JudgeRequest) -> Verdict:
        it = table[json.dumps(request.inputs, sort_keys=True)]
        flipped = {"pass": "fail", "fail": "pass"}[it.label]
        return Verdict(verdict=flipped if "hard" in it.tags else it.label, reason="fake")  # type: ignore[arg-type]

    return ScriptedJudge(answer)


def write_set(path: Path, lines: Iterable[dict[str, Any] | str]) -> Path:
    """Write JSONL lines (dicts are dumped, strings written as they are)."""
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def floor_record(dimension: str, low: float, model: str = "openai/never-called"
                 ) -> CalibrationRecord:
    """A calibration record on the shipped set whose kappa interval starts at `low`."""
    return CalibrationRecord.model_validate(
        {
            "model": model,
            "dimension": dimension,
            "set_sha256": shipped_set_sha256(dimension),
            "n": 80,
            "observations": 80,
            "unscored": 0,
            "human_pass_rate": 0.5,
            "judge_pass_rate": 0.5,
            "confusion": {"pass": {"pass": 35, "fail": 5}, "fail": {"pass": 5, "fail": 35}},
            "agreement": 0.875,
            "kappa": 0.75,
            "kappa_ci": (low, 0.9),
            "ac1": 0.75,
            "catch_rate": 0.875,
            "false_pass_rate": 0.125,
            "flip_rate": None,
            "created_at": datetime.now(UTC).isoformat(),
        }
    )
