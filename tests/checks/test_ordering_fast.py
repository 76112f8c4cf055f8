"""Ordering's shortcuts give what the plain algorithms give: LCS and group alignment."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.checks.ordering import aligned_order, lcs_length
from toolgrade.checks.ordering.sequence import _blocks
from toolgrade.models import ToolCall

_NAMES = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=9)


def _table_lcs(x: Sequence[str], y: Sequence[str]) -> int:
    """The plain dynamic programme, the oracle."""
    row = [0] * (len(y) + 1)
    for a in x:
        prev_diag = 0
        for j, b in enumerate(y, start=1):
            keep = row[j]
            row[j] = prev_diag + 1 if a == b else max(row[j], row[j - 1])
            prev_diag = keep
    return row[len(y)]


def _plain_order(calls: Sequence[ToolCall], reference: Sequence[str]) -> list[int] | None:
    """The former alignment: every call claims its position, every block is sorted."""
    if all(c.group is None for c in calls):
        return None
    positions: dict[str, list[int]] = {}
    for pos, name in enumerate(reference):
        positions.setdefault(name, []).append(pos)
    used: Counter[str] = Counter()

    def claim(name: str) -> float:
        slots = positions.get(name, [])
        k = used[name]
        used[name] += 1
        return slots[k] if k < len(slots) else float("inf")

    out: list[int] = []
    for block in _blocks(calls):
        keyed = [(claim(calls[i].tool), i) for i in block]
        out += [i for _, i in sorted(keyed)]
    return out


@settings(max_examples=500, deadline=None)
@given(_NAMES, _NAMES)
def test_lcs_equals_the_table(x: list[str], y: list[str]) -> None:
    assert lcs_length(x, y) == _table_lcs(x, y)
    assert lcs_length(x + y, y) == len(y)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from([None, 1, 2])),
                max_size=9), _NAMES)
def test_alignment_equals_the_plain_one(raw: list[tuple[str, int | None]],
                                        reference: list[str]) -> None:
    calls = [ToolCall(tool=name, group=group) for name, group in raw]
    assert aligned_order(calls, reference) == _plain_order(calls, reference)
