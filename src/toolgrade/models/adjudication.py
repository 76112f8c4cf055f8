"""People's decisions: one line of a suite's adjudications file, on a route or a judge item.

A route is a multiset of tool names, so it is keyed by its sorted names: the same tools called
in another order are the same route (ordering is the ordering check's business).

Any other judge question (an argument pair, a recovery, a result interpretation) is a *judge
item*, keyed by its dimension and inputs (`item_id`): the same question asked again, in this
case or another, gets the same answer, so a person decides it once.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from toolgrade.vocabulary import JudgeDimension

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


#: Why a judge left an item undecided, read from its unscored verdict's reason (the engine's own
#: wording, pinned by tests): the first prefix that matches names the kind.
_UNSCORED_KINDS: tuple[tuple[str, str], ...] = (
    ("uncertain", "uncertain"),
    ("awaiting adjudication", "awaiting adjudication"),
    ("judging is off", "off"),
    ("no judge", "no judge"),
    ("the judge's reply did not parse", "unparsed reply"),
    ("the judge", "failed call"),  # the model call failed, the judge failed, unrendered prompt
)


def unscored_kind(reason: str) -> str:
    """Why an unscored verdict is unscored: uncertain, awaiting adjudication, off, no judge,
    unparsed reply, failed call, else "other"."""
    folded = reason.strip().casefold()
    return next((kind for prefix, kind in _UNSCORED_KINDS if folded.startswith(prefix)), "other")


#: Hex digits of an item id: 48 bits, so ids typed by hand stay short and never collide in
#: practice (a suite's items number thousands, not millions).
ITEM_ID_LENGTH = 12


def item_id(dimension: str, inputs: Mapping[str, Any]) -> str:
    """The id of one judge question: a hash of its dimension and its inputs (canonical JSON)."""
    text = json.dumps({"dimension": dimension, "inputs": dict(inputs)}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:ITEM_ID_LENGTH]


#: The labels a person's result_interpretation fail may carry (the recovery check's failures).
RESULT_FAILURE_LABELS = ("misread_result", "false_success_claim")


class ItemDecision(BaseModel):
    """A person's verdict on one judge item, with the inputs the judge saw (so the decision
    can be exported as a labelled calibration item without the run it came from)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item: str = Field(min_length=1, description="The item id (`item_id` of dimension, inputs).")
    dimension: JudgeDimension
    decision: Literal["pass", "fail"]
    label: str | None = Field(
        default=None, description="result_interpretation fails: misread_result or "
        "false_success_claim (the failure the recovery check then reports).")
    reason: str = ""
    by: str | None = Field(default=None, description="Who decided.")
    decided_at: str | None = Field(default=None, description="When (ISO 8601, UTC).")
    case_ids: list[str] = Field(default_factory=list, description="The cases that asked it.")
    undecided: str | None = Field(
        default=None, description="Why the judge left it undecided (e.g. uncertain).")
    inputs: dict[str, Any]

    @model_validator(mode="after")
    def _label_fits(self) -> ItemDecision:
        if self.label is not None and (self.dimension != "result_interpretation"
                                       or self.decision != "fail"
                                       or self.label not in RESULT_FAILURE_LABELS):
            raise ValueError(f"label {self.label!r}: only a result_interpretation fail takes a "
                             f"label, one of {', '.join(RESULT_FAILURE_LABELS)}")
        return self

    @model_validator(mode="after")
    def _id_matches_inputs(self) -> ItemDecision:
        # A hand-edited line whose inputs no longer hash to its id would never apply: say so.
        expected = item_id(self.dimension, self.inputs)
        if self.item != expected:
            raise ValueError(f"item {self.item!r} does not match its dimension and inputs "
                             f"(they hash to {expected!r})")
        return self

    @property
    def verdict(self) -> Literal["pass", "fail"]:
        """The decision as the judge's verdict."""
        return self.decision


class HumanDecisions:
    """The latest decision per (case, route) and per judge item, in the order the file gave
    them."""

    def __init__(
        self, decisions: Iterable[RouteDecision] = (), items: Iterable[ItemDecision] = ()
    ) -> None:
        self._by_key: dict[tuple[str, RouteKey], RouteDecision] = {}
        for decision in decisions:
            self._by_key.pop(decision.key, None)  # re-inserted last: the newest order
            self._by_key[decision.key] = decision
        self._items: dict[str, ItemDecision] = {}
        for item in items:
            self._items.pop(item.item, None)
            self._items[item.item] = item

    def item(self, item: str) -> ItemDecision | None:
        """The decision on one judge item, or None when nobody decided it."""
        return self._items.get(item)

    @property
    def items(self) -> list[ItemDecision]:
        """Every judge item decided, the newest decisions last."""
        return list(self._items.values())

    def get(self, case_id: str, route: Iterable[str]) -> RouteDecision | None:
        """The decision on this case's route, or None when nobody decided it."""
        return self._by_key.get((case_id, route_key(route)))

    def __len__(self) -> int:
        # Both kinds: `decisions or HumanDecisions()` must keep a file of item decisions only.
        return len(self._by_key) + len(self._items)

    def __iter__(self) -> Iterator[RouteDecision]:
        return iter(self._by_key.values())
