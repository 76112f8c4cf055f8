"""The adjudicated routes of a run, grouped so that each is decided once.

Two runs share a group when they took the same route (the same multiset of tools) in cases
that list the same routes: the same departure from the same reference. Trials of one case, and
cases written alike, are then decided together; the decision is recorded per (case, route).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TypedDict

from toolgrade.jsonio.values import JsonObject
from toolgrade.loaders import Suite
from toolgrade.models import HumanDecisions, RouteDecision, RouteKey, route_key
from toolgrade.models.figures import ResultRecord, SelectionRecord
from toolgrade.reporting.digest import clip, iter_records

#: Distinct judge reasons kept per group (the rest are only counted in the verdicts).
REASONS_SHOWN = 3


class RouteGroupJson(TypedDict):
    """A route group as `toolgrade adjudicate --json` prints it."""

    kind: Literal["route"]
    number: int
    key: str
    route: list[str]
    listed_routes: list[list[str]]
    cases: list[str]
    runs: list[str]
    #: How often the judge gave each verdict on the group's runs.
    judge: dict[str, int]
    reasons: list[str]
    free_calls: list[str]
    #: Each case's recorded decision (`RouteDecision`'s JSON form).
    decisions: dict[str, JsonObject]


@dataclass
class RouteGroup:
    """One route taken in one or more cases that list the same routes."""

    number: int
    key: str
    route: RouteKey
    listed: tuple[RouteKey, ...]
    cases: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    verdicts: Counter[str] = field(default_factory=Counter)
    reasons: list[str] = field(default_factory=list)
    #: Free calls (allowed, allow_reads) made beside the route in its runs: not part of the
    #: route a person decides on, but part of what the agent did.
    free: set[str] = field(default_factory=set)

    def decisions(self, decisions: HumanDecisions) -> dict[str, RouteDecision]:
        """The current human decision of each of the group's cases that has one."""
        found = {case: decisions.get(case, self.route) for case in self.cases}
        return {case: d for case, d in found.items() if d is not None}

    def to_json(self, decisions: HumanDecisions) -> RouteGroupJson:
        """The group as `--json` prints it."""
        return {
            "kind": "route",
            "number": self.number,
            "key": self.key,
            "route": list(self.route),
            "listed_routes": [list(r) for r in self.listed],
            "cases": self.cases,
            "runs": self.runs,
            "judge": dict(sorted(self.verdicts.items())),
            "reasons": self.reasons,
            "free_calls": sorted(self.free),
            "decisions": {
                case: d.model_dump(mode="json", exclude_none=True)
                for case, d in self.decisions(decisions).items()
            },
        }


def _group_key(listed: tuple[RouteKey, ...], route: RouteKey) -> str:
    text = repr((listed, route)).encode()
    return hashlib.sha256(text).hexdigest()[:8]


def _listed_routes(suite: Suite, case_id: str) -> tuple[RouteKey, ...]:
    spec = suite.cases[case_id].expected.selection
    if spec is None:
        return ()
    return tuple(sorted({route_key(r) for r in (spec.tools, *spec.alternatives)}))


def collect_groups(results_path: Path, suite: Suite) -> list[RouteGroup]:
    """The adjudicated routes in `results_path`, grouped, numbered from 1 in a stable order."""
    groups: dict[tuple[tuple[RouteKey, ...], RouteKey], RouteGroup] = {}
    for record in iter_records(results_path):
        case_id = str(record["case_id"])
        block = record["checks"].get("selection")
        figures: SelectionRecord = block if isinstance(block, dict) else {}
        route = figures.get("adjudicated_route")
        if route is None or case_id not in suite.cases:
            continue
        listed, key = _listed_routes(suite, case_id), route_key(route)
        group = groups.get((listed, key))
        if group is None:
            group = groups[(listed, key)] = RouteGroup(0, _group_key(listed, key), key, listed)
        _add_run(group, case_id, record, figures)
    ordered = sorted(groups.values(), key=lambda g: (g.cases[0], g.route))
    for number, group in enumerate(ordered, start=1):
        group.number = number
    return ordered


def _add_run(group: RouteGroup, case_id: str, record: ResultRecord,
             figures: SelectionRecord) -> None:
    if case_id not in group.cases:
        group.cases.append(case_id)
    group.runs.append(f"{case_id} {record.get('agent') or '-'}:{record.get('trial', 0)}")
    free = figures.get("free_per_tool")
    if isinstance(free, dict):
        group.free.update(str(name) for name, count in free.items() if count)
    verdict = figures.get("judge_route")
    if not isinstance(verdict, dict):
        return  # decided by a person on that run: no judge was asked
    group.verdicts[str(verdict.get("verdict"))] += 1
    reason = clip(str(verdict.get("reason") or ""))
    if reason and reason not in group.reasons and len(group.reasons) < REASONS_SHOWN:
        group.reasons.append(reason)


def find_group(groups: Iterable[RouteGroup], wanted: str) -> RouteGroup | None:
    """The group a user named: its number as listed, or its key."""
    for group in groups:
        if wanted in (str(group.number), group.key):
            return group
    return None


def decide_group(
    group: RouteGroup,
    decision: Literal["accept", "reject"],
    reason: str = "",
    by: str | None = None,
    now: datetime | None = None,
) -> list[RouteDecision]:
    """One decision per case of the group, stamped with who and when."""
    stamp = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    return [
        RouteDecision(case_id=case, route=list(group.route), decision=decision, reason=reason,
                      by=by, decided_at=stamp)
        for case in group.cases
    ]
