"""The shape of `summary.json` the reports read, checked before `toolgrade report` renders it.

The reports read a few typed fields of the summary; a hand-edited or foreign file would
otherwise render nonsense ("cases x") or fail deep inside a table. Only what the reports read is
checked, strictly (no "0.9" for 0.9), and anything else the summary holds is allowed through.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolgrade.loaders.locate import dotted

_OPEN = ConfigDict(extra="allow", strict=True)


class _Aggregate(BaseModel):
    model_config = _OPEN
    pass_rate: float | None = None
    mean_score: float | None = None


class _Gate(BaseModel):
    model_config = _OPEN
    check: str
    metric: str
    value: float | None
    threshold: float
    passed: bool


class _Agent(BaseModel):
    model_config = _OPEN
    trajectories: int
    pass_rate: float | None = None
    mean_score: float | None = None
    checks: dict[str, dict[str, Any]] = Field(default_factory=dict)


class _Summary(BaseModel):
    model_config = _OPEN
    cases: int
    trajectories: int
    errors: int = 0
    checks: dict[str, dict[str, Any]]
    aggregate: _Aggregate
    failures: dict[str, int] = Field(default_factory=dict)
    agents: dict[str, _Agent] = Field(default_factory=dict)
    reliability: dict[str, dict[str, Any]] = Field(default_factory=dict)
    judges: dict[str, dict[str, Any]] = Field(default_factory=dict)
    gates: list[_Gate] = Field(default_factory=list)
    cases_without_runs: list[str] = Field(default_factory=list)


def summary_problems(summary: Any) -> list[str]:
    """`field: reason` for each way `summary` is not shaped like a toolgrade summary."""
    if not isinstance(summary, dict):
        return ["expected a JSON object"]
    try:
        _Summary.model_validate(summary)
    except ValidationError as exc:
        out = []
        for err in exc.errors():
            where = dotted(tuple(p for p in err["loc"] if isinstance(p, str | int)))
            out.append(f"{where}: {str(err['msg']).removeprefix('Value error, ')}")
        return out
    return []
