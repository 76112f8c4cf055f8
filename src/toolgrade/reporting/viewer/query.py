"""What the list page asks of the index: filters, free-text search, a page of the matches.

The matches of one set of filters are computed once and kept (a few recent sets), so paging
through them costs a slice, not another pass over 100,000 rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from toolgrade.errors import ToolgradeError
from toolgrade.models.check_names import registered_names as check_names
from toolgrade.reporting.viewer.index import NO_AGENT, RunIndex, RunRow

#: The list's page size unless the query says, and the largest it may ask for.
PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
STATUSES = ("pass", "fail", "unscored", "n/a")
#: Orders the list can be sorted in: results order, or the lowest aggregate score first.
SORTS = ("index", "score")


class QueryError(ToolgradeError, ValueError):
    """A query parameter with a value the viewer cannot use (the message names it)."""


@dataclass(frozen=True)
class Query:
    """The list page's parameters (all optional): filters, search text, page and sort."""

    q: str = ""
    agent: str = ""
    check: str = ""
    status: str = ""
    failure: str = ""
    sort: str = "index"
    page: int = 1
    size: int = PAGE_SIZE

    @property
    def filters(self) -> tuple[str, ...]:
        """What decides the matches (not the page): the key of the match cache."""
        return (self.q.strip().lower(), self.agent, self.check, self.status, self.failure,
                self.sort)

    def params(self, **changes: Any) -> dict[str, str]:
        """This query's non-default parameters (with `changes`), for a link's query string."""
        query = replace(self, **changes)
        default = Query()
        return {name: str(getattr(query, name)) for name in _FIELDS
                if getattr(query, name) != getattr(default, name)}


_FIELDS = ("q", "agent", "check", "status", "failure", "sort", "page", "size")


def _whole(name: str, values: Sequence[str], default: int, low: int, high: int) -> int:
    if not values or not values[-1].strip():
        return default
    try:
        number = int(values[-1])
    except ValueError:
        raise QueryError(f"{name}: expected a whole number, got {values[-1]!r}") from None
    if not low <= number <= high:
        raise QueryError(f"{name}: expected {low} to {high}, got {number}")
    return number


def _choice(name: str, values: Sequence[str], allowed: Sequence[str]) -> str:
    value = values[-1] if values else ""
    if value and value not in allowed:
        raise QueryError(f"{name}: expected one of {', '.join(allowed)}, got {value!r}")
    return value


def parse_query(params: Mapping[str, Sequence[str]]) -> Query:
    """A Query from URL parameters (`urllib.parse.parse_qs`); raises QueryError on a bad one.

    Unknown parameters are ignored; an agent or failure name the folder does not hold is not
    an error (it matches nothing, and the page says so).
    """
    def last(name: str) -> str:
        values = params.get(name) or [""]
        return values[-1]

    return Query(
        q=last("q"), agent=last("agent"), failure=last("failure"),
        check=_choice("check", params.get("check") or [], check_names()),
        status=_choice("status", params.get("status") or [], STATUSES),
        sort=_choice("sort", params.get("sort") or [], SORTS) or "index",
        page=_whole("page", params.get("page") or [], 1, 1, 10**9),
        size=_whole("size", params.get("size") or [], PAGE_SIZE, 1, MAX_PAGE_SIZE),
    )


def _sort_key(row: RunRow) -> tuple[float, int]:
    # Unscored aggregates (None) after every scored one; ties in results order.
    return (row.score if row.score is not None else math.inf, row.index)


@dataclass(frozen=True)
class Page:
    """One page of the runs that match a query."""

    query: Query
    rows: list[RunRow]
    matched: int
    total: int  # runs in the folder (records read)

    @property
    def pages(self) -> int:
        """How many pages the matches fill (1 when there are none)."""
        return max(1, math.ceil(self.matched / self.query.size))

    @property
    def first(self) -> int:
        """The 1-based position of this page's first match (0 when there are none)."""
        return (self.query.page - 1) * self.query.size + 1 if self.rows else 0


class Searcher:
    """Answers queries over one index, keeping the matches of the last few filter sets."""

    def __init__(self, index: RunIndex, cached: int = 32) -> None:
        """`cached`: how many filter sets keep their matches."""
        self.index = index
        self._matching = lru_cache(maxsize=cached)(self._compute)

    def _compute(self, filters: tuple[str, ...]) -> tuple[int, ...]:
        # One pass per filter given, each a bare comprehension: at 100,000 rows a pass costs
        # milliseconds, where one pass testing every filter per row cost a tenth of a second.
        q, agent, check, status, failure, sort = filters
        rows = [r for r in self.index.rows if r is not None]
        if status:
            rows = [r for r in rows if r.status == status]
        if agent:
            none = agent == NO_AGENT
            rows = [r for r in rows if r.agent == agent or (none and r.agent is None)]
        if check:
            rows = [r for r in rows if check in r.failed_checks]
        if failure:
            rows = [r for r in rows if failure in r.failures]
        for term in q.split():
            rows = [r for r in rows if term in r.search]
        if sort == "score":
            rows.sort(key=_sort_key)
        return tuple(r.index for r in rows)

    def page(self, query: Query) -> Page:
        """The page `query` asks for; a page past the last is clamped to the last."""
        matching = self._matching(query.filters)
        pages = max(1, math.ceil(len(matching) / query.size))
        if query.page > pages:
            query = replace(query, page=pages)
        start = (query.page - 1) * query.size
        rows = [self.index.rows[i] for i in matching[start:start + query.size]]
        return Page(query=query, rows=[r for r in rows if r is not None],
                    matched=len(matching), total=self.index.runs)

    def neighbours(self, query: Query, index: int) -> tuple[int | None, int | None, int | None]:
        """The matches before and after run `index` under `query`'s filters (None at an end)
        and its 0-based place among them; all None when the run does not match them."""
        matching = self._matching(query.filters)
        try:
            at = matching.index(index)
        except ValueError:
            return None, None, None
        before = matching[at - 1] if at > 0 else None
        after = matching[at + 1] if at + 1 < len(matching) else None
        return before, after, at
