"""Turning what a person said (flags, a decisions file, a prompt) into recorded decisions.

What is decided is named as listed: the number `toolgrade adjudicate` shows, or the key (a
route group's key, a judge item's id). Routes are accepted or rejected; judge items pass or
fail; either word of a pair is understood for both (accept = pass, reject = fail).

A decisions file is JSON Lines, one decision a line:

    {"id": "7", "decision": "pass", "reason": "same meaning", "by": "ana"}
    {"id": "3fa2c1d09e7b", "decision": "fail", "label": "misread_result"}

Every bad line is reported (file:line: field: reason) and nothing is recorded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolgrade.adjudication.items import JudgeItem, decide_item, find_item
from toolgrade.adjudication.routes import RouteGroup, decide_group, find_group
from toolgrade.errors import InputError, InputProblem, ToolgradeError
from toolgrade.jsonio.lines import iter_jsonl
from toolgrade.loaders.locate import problems_from_validation
from toolgrade.models import ItemDecision, RouteDecision

Said = Literal["accept", "reject", "pass", "fail"]
Made = RouteDecision | ItemDecision
_POSITIVE = ("accept", "pass")


class _Line(BaseModel):
    """One line of a decisions file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, description="The number or key as listed.")
    decision: Said
    reason: str = ""
    by: str | None = None
    label: str | None = None


def known(groups: Sequence[RouteGroup], items: Sequence[JudgeItem]) -> str:
    """What may be named, for error messages."""
    names = [f"{g.number} ({g.key})" for g in groups] + [f"{i.number} ({i.item})" for i in items]
    return ", ".join(names) or "none"


def decide(target: RouteGroup | JudgeItem, said: Said, reason: str, by: str | None,
           label: str | None = None) -> list[Made]:
    """The decisions `said` makes on one route group (one per case) or judge item."""
    positive = said in _POSITIVE
    if isinstance(target, RouteGroup):
        return list(decide_group(target, "accept" if positive else "reject", reason, by))
    try:
        return [decide_item(target, "pass" if positive else "fail", reason, by, label)]
    except ValidationError as exc:  # a label where none fits
        reasons = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        raise ToolgradeError(f"judge item {target.item}: {reasons}") from exc


def target(groups: Sequence[RouteGroup], items: Sequence[JudgeItem], wanted: str
           ) -> RouteGroup | JudgeItem | None:
    """The route group or judge item named `wanted`, or None."""
    return find_group(groups, wanted) or find_item(items, wanted)


def from_flags(groups: Sequence[RouteGroup], items: Sequence[JudgeItem], wanted: Iterable[str],
               said: Said, reason: str, by: str, label: str | None = None) -> list[Made]:
    """The decisions of `--accept N` / `--reject N`; ToolgradeError naming an unknown one."""
    made: list[Made] = []
    for name in wanted:
        found = target(groups, items, name)
        if found is None:
            what = "adjudicated route or judge item" if items else "adjudicated route"
            raise ToolgradeError(f"--{said} {name}: no such {what}; known: {known(groups, items)}")
        made += decide(found, said, reason, by, label)
    return made


def from_file(path: Path, groups: Sequence[RouteGroup], items: Sequence[JudgeItem], by: str
              ) -> list[Made]:
    """The decisions in a decisions file; InputError listing every bad line."""
    if not path.is_file():
        raise InputError([InputProblem(str(path), None, "", "no such file")])
    made: list[Made] = []
    problems: list[InputProblem] = []
    for line, value, problem in iter_jsonl(path):
        if problem is not None:
            problems.append(problem)
            continue
        try:
            said = _Line.model_validate(value)
        except ValidationError as exc:
            problems += problems_from_validation(exc, data=value, file=str(path), default_line=line)
            continue
        found = target(groups, items, said.id)
        if found is None:
            problems.append(InputProblem(str(path), line, "id", f"no route or judge item "
                                         f"{said.id!r} is listed; known: {known(groups, items)}"))
            continue
        try:
            made += decide(found, said.decision, said.reason, said.by or by, said.label)
        except ToolgradeError as exc:
            problems.append(InputProblem(str(path), line, "label", str(exc)))
    if not made and not problems:
        problems.append(InputProblem(str(path), None, "", "no decisions"))
    if problems:
        raise InputError(problems)
    return made


def refuse_contradictions(made: Sequence[Made]) -> None:
    """One command may not both accept and reject a route, or pass and fail an item: recording
    both would leave the later line to win silently."""
    said: dict[tuple[str, ...], str] = {}
    for d in made:
        key = (d.item,) if isinstance(d, ItemDecision) else (d.case_id, *d.route)
        if said.setdefault(key, d.decision) == d.decision:
            continue
        if isinstance(d, ItemDecision):
            raise ToolgradeError(f"judge item {d.item} is both passed and failed in one "
                                 "command: nothing was recorded")
        route = ", ".join(d.route) or "(no tool)"
        raise ToolgradeError(f"route {route} of case {d.case_id!r} is both accepted and "
                             "rejected in one command: nothing was recorded")
