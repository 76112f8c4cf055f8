"""The figure types cannot drift: the TypedDicts (models.figures) that the checks build and the
readers read, the pydantic results line (models.result_line) behind `schema --results`, and
what the checks really write, judged runs included."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import pytest
from pydantic import BaseModel
from typing_extensions import get_type_hints, is_typeddict

from toolgrade.checks import default_checks
from toolgrade.loaders import load_suite
from toolgrade.loaders.runs import load_runs, run_files
from toolgrade.models import CheckResult, JudgeRequest, Verdict
from toolgrade.models import figures as f
from toolgrade.models import result_line as line
from toolgrade.scoring.grading import _RECORDED, grade_trajectory

ROOT = Path(__file__).resolve().parents[2]

#: Each pydantic model of the line and the TypedDict of the same object.
PAIRS: list[tuple[type[BaseModel], Any]] = [
    (line.ResultLine, f.ResultRecord),
    (line.ChecksLine, f.ChecksRecord),
    (line.CheckLine, f.CheckRecord),
    (line.SelectionLine, f.SelectionRecord),
    (line.ArgumentsLine, f.ArgumentsRecord),
    (line.OrderingLine, f.OrderingRecord),
    (line.RecoveryLine, f.RecoveryRecord),
    (line.AggregateLine, f.AggregateRecord),
]


def keys(typed: Any) -> set[str]:
    """Every key a TypedDict declares, required or not."""
    return set(typed.__required_keys__) | set(typed.__optional_keys__)


@pytest.mark.parametrize(("model", "typed"), PAIRS, ids=[m.__name__ for m, _ in PAIRS])
def test_every_line_model_field_is_a_typed_key_and_back(model: type[BaseModel], typed: Any
                                                        ) -> None:
    assert set(model.model_fields) == keys(typed)


def test_each_check_block_is_the_common_keys_and_the_check_figures() -> None:
    common = keys(f.CheckRecord)
    for record, figures in ((f.SelectionRecord, f.SelectionFigures),
                            (f.ArgumentsRecord, f.ArgumentsFigures),
                            (f.OrderingRecord, f.OrderingFigures),
                            (f.RecoveryRecord, f.RecoveryFigures)):
        assert keys(record) == common | keys(figures)


def test_a_failure_is_its_three_keys_and_its_evidence() -> None:
    assert set(line.FailureLine.model_fields) == set(f.FailureRecord.__required_keys__)


def test_a_verdict_record_is_the_verdict_model() -> None:
    assert keys(f.VerdictRecord) == set(Verdict.model_fields)
    assert set(f.VerdictRecord.__required_keys__) == {"verdict", "reason"}


def test_a_judge_log_entry_is_what_the_recorder_writes() -> None:
    assert keys(f.JudgeLogEntry) == {"verdict", "reason", *_RECORDED, "cached", "item", "inputs"}


def test_figures_of_refuses_another_checks_result() -> None:
    result = CheckResult(check="ordering", applicable=True, figures={"n_calls": 2})
    assert f.figures_of(result, "ordering")["n_calls"] == 2
    with pytest.raises(ValueError, match="'ordering'"):
        f.figures_of(result, "selection")  # type: ignore[call-overload]
    assert f.decision_of(result) == {}


# -- what the checks write has the declared shape ----------------------------------------------


class AlwaysFails:
    """A judge that fails everything with a failure label: every judged figure is written."""

    def judge(self, request: JudgeRequest) -> Verdict:
        return Verdict(verdict="fail", reason="scripted", label="misread_result", model="m")


def conforms(value: object, hint: Any, where: str) -> list[str]:
    """Where `value` breaks `hint` (TypedDict keys and nesting; scalars by their JSON kind)."""
    if hint is Any or hint is object:
        return []
    if is_typeddict(hint):
        return _typed_dict(value, hint, where)
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        found = [conforms(value, a, where) for a in args]
        return [] if any(not p for p in found) else min(found, key=len)
    if origin is Literal:
        return [] if value in args else [f"{where}: {value!r} not in {args}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: expected a list"]
        return [p for i, v in enumerate(value) for p in conforms(v, args[0], f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: expected an object"]
        return [p for k, v in value.items() for p in conforms(v, args[1], f"{where}.{k}")]
    if hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, hint)
    return [] if ok else [f"{where}: {value!r} is not {hint}"]


def _typed_dict(value: object, hint: Any, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: expected an object"]
    hints = get_type_hints(hint)
    extra = set(value) - set(hints)
    missing = set(hint.__required_keys__) - set(value)
    problems = [f"{where}: undeclared keys {sorted(extra)}"] if extra else []
    problems += [f"{where}: missing keys {sorted(missing)}"] if missing else []
    for key, item in value.items():
        if key in hints:
            problems += conforms(item, hints[key], f"{where}.{key}")
    return problems


@pytest.fixture(scope="module")
def judged_lines() -> list[dict[str, Any]]:
    """The helpdesk and adjudication examples graded with a judge asked about everything."""
    lines = []
    for folder in ("helpdesk", "adjudication", "mcp"):
        example = ROOT / "examples" / folder
        suite = load_suite(example / "suite.yaml")
        for run in load_runs(run_files([example / "runs"])):
            case = suite.cases.get(run.case_id)
            if case is None:
                continue
            for judge in (None, AlwaysFails()):
                record = grade_trajectory(case, run, default_checks(), judge, example)
                lines.append(dict(record.to_json()))
    return lines


def test_every_figure_written_is_declared_with_its_type(judged_lines: list[dict[str, Any]]
                                                        ) -> None:
    problems: list[str] = []
    for n, data in enumerate(judged_lines):
        data = {**data, "checks": {name: _without_evidence(block)
                                   for name, block in data["checks"].items()}}
        problems += conforms(data, f.ResultRecord, f"line {n}")
    assert problems == []
    written = {key for data in judged_lines for block in data["checks"].values() for key in block}
    # The examples reach the judged figures too, so the check above covers them.
    assert {"judge_recovery", "judge_interpretation", "judge_route", "adjudicated",
            "per_tool", "calls", "faults", "state"} <= written


def _without_evidence(block: dict[str, Any]) -> dict[str, Any]:
    """A check block whose failures keep only their three keys (evidence is free-form)."""
    out = dict(block)
    for key in ("failures", "overridden_failures"):
        if key in out:
            out[key] = [{k: x[k] for k in ("name", "step", "message")} for x in out[key]]
    return out


def test_the_line_models_keep_every_judged_value(judged_lines: list[dict[str, Any]]) -> None:
    for data in judged_lines:
        assert line.ResultLine.model_validate(data).model_dump(
            mode="json", exclude_unset=True) == data
