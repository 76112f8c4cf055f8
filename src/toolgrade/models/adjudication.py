"""People's decisions on adjudicated routes: one line of a suite's adjudications file.

A route is a multiset of tool names, so it is keyed by its sorted names: the same tools called
in another order are the same route (ordering is the ordering check's business).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RouteKey = tuple[str, ...]


def route_key(tools: Iterable[str]) -> RouteKey:
    """The key of a route: its tool names sorted (a multiset keeps its repeats)."""
    return tuple(sorted(tools))


class RouteDecision(BaseModel):
    """A person's decision on one route of one case: accept it as correct, or reject it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str = Field(min_length=1)
    route: list[str] = Field(description="The tool names of the route (a multiset).")
    decision: Literal["accept", "reject"]
    reason: str = ""
    by: str | None = Field(default=None, description="Who decided.")
    decided_at: str | None = Field(default=None, description="When (ISO 8601, UTC).")

    @property
    def key(self) -> tuple[str, RouteKey]:
        """(case id, route key): a later decision on the same key replaces an earlier one."""
        return self.case_id, route_key(self.route)

    @property
    def verdict(self) -> Literal["pass", "fail"]:
        """The decision as the check's outcome."""
        return "pass" if self.decision == "accept" else "fail"


class HumanDecisions:
    """The latest decision per (case, route), in the order the file gave them."""

    def __init__(self, decisions: Iterable[RouteDecision] = ()) -> None:
        self._by_key: dict[tuple[str, RouteKey], RouteDecision] = {}
        for decision in decisions:
            self._by_key.pop(decision.key, None)  # re-inserted last: the newest order
            self._by_key[decision.key] = decision

    def get(self, case_id: str, route: Iterable[str]) -> RouteDecision | None:
        """The decision on this case's route, or None when nobody decided it."""
        return self._by_key.get((case_id, route_key(route)))

    def __len__(self) -> int:
        return len(self._by_key)

    def __iter__(self) -> Iterator[RouteDecision]:
        return iter(self._by_key.values())
