"""Verdict states of a check and of a run: pass, fail, unscored, n/a or error (docs/contract.md).

`unscored` is a state of its own: a check that did not pass, whose only shortfall is items no
judge or person decided (argument fields, an unlisted route), reads `unscored`, never FAIL,
and never counts as a pass. Everything here reads the JSON form of a result (a
`results.jsonl` check block), so the reports can say the same of a results file written
before the `status` key existed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from toolgrade.models.figures.record import CheckRecord, ChecksRecord, block_view, check_blocks
from toolgrade.models.figures.record import Status as Status
from toolgrade.vocabulary import CheckName

_STATES: tuple[Status, ...] = ("pass", "fail", "unscored", "n/a", "error")

#: The reason given when no judge was configured (checks and the judge engine say it so).
NO_JUDGE = "no judge configured"
#: The reason of an item a deciding judge under its kappa floor was not let decide.
AWAITING = "awaiting adjudication"


@dataclass(frozen=True)
class UnscoredItem:
    """One undecided item of a check: what it is (`field`, `route`), where, and why."""

    kind: Literal["field", "route", "recovery quality", "run"]
    where: str
    reason: str


def _reason(value: object) -> str:
    return str(value or "no verdict")


def unscored_items(check: str, record: CheckRecord) -> list[UnscoredItem]:
    """The undecided items of one check's result block (an empty list for most checks).
    A block read from a file may be of another version: each value's type is checked."""
    block = block_view(record)
    items: list[UnscoredItem] = []
    whole_run = block.get("unscored_run")
    if whole_run:
        return [UnscoredItem("run", "the run", str(whole_run))]
    for field in block.get("unscored_fields") or []:
        if isinstance(field, dict):
            where = f"{field.get('tool')}.{field.get('field')} at step {field.get('step')}"
            items.append(UnscoredItem("field", where, _reason(field.get("reason"))))
    if block.get("adjudicated") == "unscored":
        route = block.get("adjudicated_route")
        shown = ", ".join(map(str, route)) if isinstance(route, list) else "the run"
        kind: Literal["route", "recovery quality"] = (
            "route" if check == "selection" else "recovery quality")
        items.append(UnscoredItem(kind, shown, _reason(block.get("adjudication_reason"))))
    return items


def check_status(check: str, block: CheckRecord) -> Status:
    """A check's state: `unscored` when it did not pass only because items were undecided.

    Selection with an undecided route counts as unscored even though its deterministic
    failures are listed: they are exactly what an accepted route would override.
    """
    stated = block.get("status")
    for known in _STATES:
        if stated == known:
            return known
    if not block.get("applicable"):
        return "n/a"
    passed = block.get("passed")
    if passed is None:
        return "error"
    if passed:
        return "pass"
    undecided = unscored_items(check, block)
    if not undecided:
        return "fail"
    if check == "selection":
        return "unscored" if any(i.kind in ("route", "run") for i in undecided) else "fail"
    return "fail" if block.get("failures") else "unscored"


def aggregate_status(checks: Mapping[CheckName, CheckRecord] | ChecksRecord, passed: bool
                     ) -> Status:
    """A run's state: pass; else unscored when no applicable check failed or crashed and one
    is unscored; else fail (n/a when nothing was applicable)."""
    if passed:
        return "pass"
    # Every block of a ChecksRecord is a CheckRecord (each check's adds its figures).
    blocks = check_blocks(checks)
    states = [check_status(name, block) for name, block in blocks.items()]
    shown = [s for s in states if s != "n/a"]
    if not shown:
        return "n/a"
    if "unscored" in shown and not {"fail", "error"} & set(shown):
        return "unscored"
    return "fail"


def hint(reason: str) -> str:
    """What to do about items unscored for `reason` (empty when there is nothing to add)."""
    if reason.startswith(NO_JUDGE) or reason.startswith("no judge model"):
        return ("run with --judge-model MODEL or install the local judge "
                "(pip install 'toolgrade[local]')")
    if reason.startswith(AWAITING):
        return "decide them with `toolgrade adjudicate DIR`"
    if reason.startswith("judging is off"):
        return "enable that judge in the settings"
    return ""


_NOUNS = {"field": ("free-text field", "free-text fields"), "route": ("route", "routes"),
          "run": ("run", "runs"),
          "recovery quality": ("recovery verdict", "recovery verdicts")}


def describe(items: Iterable[UnscoredItem]) -> list[str]:
    """One line per (kind, reason): `2 free-text fields need a judge: run with ...`."""
    counts: Counter[tuple[str, str]] = Counter((i.kind, i.reason) for i in items)
    lines = []
    for (kind, reason), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(describe_count(kind, reason, n))
    return lines


def describe_count(kind: str, reason: str, n: int, hinted: bool = True) -> str:
    """`2 free-text fields need a judge: run with ...` for `n` items of one kind and reason
    (without the hint when not `hinted`: judging was switched off on purpose)."""
    one, many = _NOUNS.get(kind, (kind, kind + "s"))
    noun = one if n == 1 else many
    todo = hint(reason) if hinted else ""
    if reason.startswith(NO_JUDGE) or reason.startswith("no judge model"):
        need = f"{n} {noun} need{'s' if n == 1 else ''} a judge"
        return f"{need}: {todo}" if todo else f"{need} (judging is off)"
    return f"{n} {noun} unscored ({reason})" + (f": {todo}" if todo else "")
