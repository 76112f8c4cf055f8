"""The judge items of a run that no judge decided, listed once each for people to decide.

An item is one judge question of any dimension but alternate_route (routes are decided per case
and route, `adjudication.routes`): an argument pair, a recovery, a result interpretation. The
run records each item the first judge left `unscored` (uncertain, awaiting adjudication, no
judge, a failed call, an unparsed reply) with its id and the inputs the judge saw
(`scoring.grading`); the same item asked in several runs or cases is listed once. Items the
escalation judge decided are listed too, marked so, for people to confirm or overrule; items
still unscored after it are "left for people".
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypedDict

from toolgrade.jsonio.values import JsonObject
from toolgrade.models import HumanDecisions, ItemDecision, JudgeDimension
from toolgrade.models.adjudication import unscored_kind
from toolgrade.reporting.digest import clip, iter_records

#: Characters of one input value shown in the listing (`--json` shows them whole).
VALUE_CHARS = 400


class Escalated(TypedDict):
    """The escalation judge's verdict on an item, as the run recorded it (None: a record
    that lacks it)."""

    model: str
    verdict: str | None
    reason: str | None


class ItemJson(TypedDict):
    """A judge item as `toolgrade adjudicate --json` prints it."""

    number: int
    kind: Literal["item"]
    key: str
    dimension: JudgeDimension
    undecided: str
    judge_reason: str
    escalated: Escalated | None
    left_for_people: bool
    cases: list[str]
    runs: list[str]
    inputs: JsonObject
    #: The person's decision so far (`ItemDecision` without its inputs), or None.
    decision: JsonObject | None


@dataclass
class JudgeItem:
    """One undecided judge question, with where it was asked and what the judges said."""

    number: int
    item: str
    dimension: JudgeDimension
    inputs: JsonObject
    #: Why the first judge did not decide (`models.adjudication.unscored_kind`).
    undecided: str
    judge_reason: str
    cases: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    #: The escalation judge's verdict, when it gave one: {model, verdict, reason}.
    escalated: Escalated | None = None

    @property
    def left_for_people(self) -> bool:
        """True when no judge decided it (the escalation judge included)."""
        return self.escalated is None or self.escalated["verdict"] not in ("pass", "fail")

    def to_json(self, decisions: HumanDecisions) -> ItemJson:
        """The item as `--json` prints it."""
        decided = decisions.item(self.item)
        return {
            "number": self.number,
            "kind": "item",
            "key": self.item,
            "dimension": self.dimension,
            "undecided": self.undecided,
            "judge_reason": self.judge_reason,
            "escalated": self.escalated,
            "left_for_people": self.left_for_people,
            "cases": self.cases,
            "runs": self.runs,
            "inputs": self.inputs,
            "decision": decided.model_dump(mode="json", exclude_none=True,
                                           exclude={"inputs"}) if decided else None,
        }

    def describe(self, decisions: HumanDecisions) -> list[str]:
        """The item as the listing prints it: what was asked, what the judges said, the
        evidence, and the decision so far."""
        lines = [
            f"[{self.number}] {self.item}  {self.dimension}  undecided: {self.undecided}",
            f"    cases: {', '.join(self.cases)}   runs: {len(self.runs)} "
            f"({'; '.join(self.runs)})",
            f"    judge: {clip(self.judge_reason)}",
        ]
        if self.escalated is not None:
            e = self.escalated
            lines.append(f"    escalated to {e['model']}: {e['verdict']}"
                         + (f" - {clip(str(e['reason']))}" if e.get("reason") else ""))
        lines.append("    evidence:")
        lines += [f"      {key}: {_shown(value)}" for key, value in self.inputs.items()]
        decided = decisions.item(self.item)
        if decided is None:
            lines.append("    decision: none yet")
        else:
            why = f": {decided.reason}" if decided.reason else ""
            lines.append(f"    decision: {decided.decision} by {decided.by or '?'}{why}")
        return lines


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    shown = clip(text, VALUE_CHARS)
    return shown if len(shown) == len(" ".join(text.split())) else \
        f"{shown} ({len(text)} characters; --json shows all)"


def collect_items(results_path: Path, start: int = 1) -> list[JudgeItem]:
    """The undecided judge items in `results_path`, each once, numbered from `start` in the
    order dimensions are listed and items were first asked. An item a person's decision
    answered in that run is not listed: it is decided."""
    found: dict[str, JudgeItem] = {}
    for record in iter_records(results_path):
        case_id = str(record["case_id"])
        run = f"{case_id} {record.get('agent') or '-'}:{record.get('trial', 0)}"
        for dimension, entries in (record.get("judges") or {}).items():
            for entry in entries if isinstance(entries, list) else []:
                _add(found, dimension, entry, case_id, run)
    ordered = sorted(found.values(), key=lambda i: i.dimension)  # stable: first-asked order
    for number, item in enumerate(ordered, start=start):
        item.number = number
    return ordered


def _add(found: dict[str, JudgeItem], dimension: str, entry: Any, case_id: str, run: str
         ) -> None:
    if not isinstance(entry, dict) or "inputs" not in entry or "item" not in entry:
        return  # decided by the judge (or by a person), or not an item (a route)
    key = str(entry["item"])
    item = found.get(key)
    if item is None:
        escalated = None
        first_reason = str(entry.get("reason") or "")
        if entry.get("escalated"):
            model, _, first_reason = str(entry.get("escalated_from") or "").partition(": ")
            escalated = Escalated(model=entry.get("model") or model,
                                  verdict=entry.get("verdict"), reason=entry.get("reason"))
        item = found[key] = JudgeItem(
            number=0, item=key, dimension=dimension,  # type: ignore[arg-type]
            inputs=dict(entry["inputs"]), undecided=unscored_kind(first_reason),
            judge_reason=first_reason, escalated=escalated)
    if case_id not in item.cases:
        item.cases.append(case_id)
    item.runs.append(run)


def find_item(items: Iterable[JudgeItem], wanted: str) -> JudgeItem | None:
    """The item a user named: its number as listed, or its key (the item id)."""
    return next((i for i in items if wanted in (str(i.number), i.item)), None)


def decide_item(
    item: JudgeItem,
    decision: Literal["pass", "fail"],
    reason: str = "",
    by: str | None = None,
    label: str | None = None,
    now: datetime | None = None,
) -> ItemDecision:
    """A person's decision on `item`, stamped with who and when, carrying the inputs."""
    stamp = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    return ItemDecision(item=item.item, dimension=item.dimension, decision=decision,
                        label=label if decision == "fail" else None, reason=reason, by=by,
                        decided_at=stamp, case_ids=list(item.cases), undecided=item.undecided,
                        inputs=item.inputs)
