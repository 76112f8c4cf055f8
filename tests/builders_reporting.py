"""Small fixed summaries and results records for the reporting tests (no grading involved)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from toolgrade.models.summary import RunSummary
from toolgrade.reporting.digest import Digest, iter_records

#: Agent text that must never become markup, break a table cell or an XML document.
HOSTILE = "<script>alert(1)</script> | **bold** [x](http://evil.example)\x1b[31m\nnext line"


def check(applicable: bool = True, passed: bool | None = True, score: float | None = 1.0,
          failures: list[dict[str, Any]] | None = None, **figures: Any) -> dict[str, Any]:
    """One check block of a results line."""
    if not applicable:
        return {"applicable": False, "score": None, "passed": None, "failures": []}
    return {"applicable": True, "score": score, "passed": passed, "failures": failures or [],
            **figures}


def failure(name: str, step: int | None = 0, message: str = "") -> dict[str, Any]:
    """One failure as written to results.jsonl."""
    return {"name": name, "step": step, "message": message or f"{name} happened"}


def record(case_id: str, trial: int = 0, agent: str | None = "bot", passed: bool = True,
           **checks: dict[str, Any]) -> dict[str, Any]:
    """A results.jsonl line; checks not given are not applicable."""
    blocks = {name: checks.get(name, check(applicable=False))
              for name in ("selection", "arguments", "ordering", "recovery")}
    return {"case_id": case_id, "trial": trial, "agent": agent, "checks": blocks,
            "aggregate": {"mode": "binary", "score": 1.0 if passed else 0.0, "passed": passed},
            "judges": {}, "n_calls": 2}


def small_records() -> list[dict[str, Any]]:
    """Three lines over two cases: a pass, a selection failure with hostile text, a crash."""
    lines = [
        record("refund-01", trial=0, selection=check(), arguments=check()),
        record("refund-01", trial=1, passed=False,
               selection=check(passed=False, score=0.5, failures=[
                   failure("substitution", 1, "expected lookup_order, called search_orders"),
                   failure("extra_tool", 2, HOSTILE)]),
               arguments=check(passed=False, score=0.5, failures=[
                   failure("wrong_value", 1, "refund.amount: 99 != 25")])),
        record("chat|02", agent=None, passed=False,
               selection=check(), ordering={"applicable": True, "score": None, "passed": None,
                                            "failures": [], "error": "RuntimeError: kaboom"}),
    ]
    lines[-1]["error"] = "ordering: RuntimeError: kaboom"  # the runner names crashes here too
    return lines


SMALL_SUMMARY: dict[str, Any] = {
    "cases": 2,
    "trajectories": 3,
    "checks": {
        "selection": {
            "precision": 0.8, "recall": 0.75, "f1": 0.7741935483870968, "pass_rate": 2 / 3,
            "applicable": 3, "tp": 3, "fp": 2, "fn": 1,
            "per_tool": {
                "refund": {"tp": 2, "fp": 1, "fn": 0, "precision": 2 / 3, "recall": 1.0, "f1": 0.8},
                "lookup_order": {"tp": 1, "fp": 0, "fn": 1, "precision": 1.0, "recall": 0.5,
                                 "f1": 2 / 3},
                "search_orders": {"tp": 0, "fp": 1, "fn": 0, "precision": 0.0, "recall": None,
                                  "f1": None},
            },
            "confusion": [
                {"expected": "refund", "actual": "refund", "count": 2},
                {"expected": "lookup_order", "actual": "lookup_order", "count": 1},
                {"expected": "lookup_order", "actual": "search_orders", "count": 1},
                {"expected": "none", "actual": "refund", "count": 1},
            ],
            "side_effect_extras": {"refund": 1},
            "per_kind": {"no_tool": {"n": 1, "pass_rate": 1.0},
                         "missing_required_info": {"n": 1, "pass_rate": 0.0}},
        },
        "arguments": {
            "pass_rate": 0.5, "applicable": 2, "exact_rate": 0.5, "field_accuracy": 0.75,
            "invalid": 0, "wrong": 1,
            "per_field": {
                "refund.amount": {"n": 2, "accuracy": 0.5, "precision": 0.5, "recall": 0.5,
                                  "f1": 0.5},
                "refund.order_id": {"n": 2, "accuracy": 1.0, "precision": 1.0, "recall": 1.0,
                                    "f1": 1.0},
                "refund.method": {"n": 4, "accuracy": 0.0, "precision": 0.0, "recall": 0.0,
                                  "f1": 0.0},
            },
            "field_precision": 0.4, "field_recall": 0.375, "field_f1": 0.3870967741935484,
            "given_selection": {"n": 1, "pass_rate": 1.0, "exact_rate": 1.0,
                                "field_accuracy": 1.0},
            "per_kind": {"missing_required_info": {"n": 1, "pass_rate": 0.0}},
            "ungrounded": {"values": 1, "runs": 1},
        },
        "coverage": {"no_tool": 1, "overlapping_tools": 0, "missing_required_info": 1,
                     "multi_turn": 0, "misleading_identifier": 0},
        "ordering": {"pass_rate": 1.0, "applicable": 1,
                     "efficiency": {"refund": 0.875, "chat": None},
                     "efficiency_n": {"refund": 2, "chat": 0}},
        "recovery": {"pass_rate": None, "applicable": 0, "stages": {"recovered": 3, "no_retry": 1},
                     "pass_at_k": {"1": 1 / 3}, "pass_hat_k": {"1": 1 / 3}},
    },
    "failures": {"substitution": 1, "extra_tool": 1, "wrong_value": 1},
    "aggregate": {"pass_rate": 1 / 3, "mean_score": 1 / 3},
    "agents": {"bot": {"trajectories": 2, "pass_rate": 0.5, "mean_score": 0.5,
                       "checks": {"selection": {"pass_rate": 0.5},
                                  "arguments": {"pass_rate": 0.5,
                                                "given_selection": {"n": 1, "pass_rate": 1.0}}}},
               "(unnamed)": {"trajectories": 1, "pass_rate": 0.0, "mean_score": 0.0,
                             "checks": {"selection": {"pass_rate": 1.0}}}},
    "reliability": {
        "refund-01": {"n": 2, "c": 1, "pass_at_k": {"1": 0.5, "2": 1.0},
                      "pass_hat_k": {"1": 0.5, "2": 0.0}},
        "chat|02": {"n": 1, "c": 0, "pass_at_k": {"1": 0.0}, "pass_hat_k": {"1": 0.0}},
    },
    "errors": 1,
    "judges": {
        "argument_equivalence": {"model": "local/qwen2.5-1.5b", "calls": 4, "cache_hits": 6,
                                 "unscored": 1, "errors": 0, "tokens": 2048, "cost_usd": 0.0,
                                 "calibration": {"kappa": 0.62, "kappa_ci": [0.41, 0.8], "n": 90}},
        "recovery_quality": {"model": "openai/gpt-4o-mini", "calls": 2, "cache_hits": 0,
                             "unscored": 0, "errors": 1, "tokens": 700, "cost_usd": 0.00042,
                             "calibration": None},
    },
    "gates": [
        {"check": "selection", "metric": "f1", "value": 0.7741935483870968, "threshold": 0.9,
         "passed": False},
        {"check": "aggregate", "metric": "pass_rate", "value": 1 / 3, "threshold": 0.2,
         "passed": True},
    ],
}


def small_summary() -> dict[str, Any]:
    """A fresh deep copy of SMALL_SUMMARY (tests may change it)."""
    return copy.deepcopy(SMALL_SUMMARY)


def as_summary(data: Any) -> RunSummary:
    """`data` (a summary's JSON form, possibly partial) as the `RunSummary` the reports read;
    blocks a test leaves out are empty. A `RunSummary` is returned as it is."""
    if isinstance(data, RunSummary):
        return data
    return RunSummary.model_validate({"cases": 0, "trajectories": 0, "checks": {},
                                      "aggregate": {}, **data})


def write_results(path: Path, records: list[dict[str, Any]]) -> Path:
    """Write results.jsonl lines."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def write_run_dir(folder: Path, records: list[dict[str, Any]] | None = None,
                  summary: dict[str, Any] | None = None) -> Path:
    """A `toolgrade run --out` folder holding results.jsonl and summary.json."""
    folder.mkdir(parents=True, exist_ok=True)
    write_results(folder / "results.jsonl", small_records() if records is None else records)
    (folder / "summary.json").write_text(json.dumps(summary or small_summary()), encoding="utf-8")
    return folder


def digest_results(results_path: Path) -> Digest:
    """The report digest of a results file, read once (as `write_reports` feeds it)."""
    digest = Digest()
    for line in iter_records(results_path):
        digest.add(line)
    return digest


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "helpdesk"


def graded_example(out_dir: Path, judge: Any = None) -> Path:
    """Grade examples/helpdesk (no judge unless given) into `out_dir` with every report, as
    `toolgrade run` writes them (transcripts.jsonl included); return the folder."""
    from toolgrade.reporting.files import ReportStream
    from toolgrade.scoring.runner import grade, validate_inputs

    inputs = validate_inputs(EXAMPLE / "suite.yaml", [EXAMPLE / "runs"])
    with ReportStream(cases=inputs.suite.cases) as stream:
        output = grade(inputs, out_dir, judge=judge, on_record=stream.add)
        stream.write(out_dir, output.summary)
    (out_dir / "summary.json").write_text(output.summary.to_json_text(), encoding="utf-8")
    return out_dir


def steps_record(case_id: str, steps: list[dict[str, Any]], trial: int = 0,
                 agent: str | None = "bot") -> dict[str, Any]:
    """A transcripts.jsonl line (a run in the normalised steps form)."""
    line: dict[str, Any] = {"case_id": case_id, "trial": trial, "format": "steps", "steps": steps}
    if agent is not None:
        line["agent"] = agent
    return line
