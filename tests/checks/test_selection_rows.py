"""The per-tool figure written directly equals the counts it replaces, in the same order."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.checks.selection_figures import per_tool_counts, per_tool_rows


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=6),
       st.lists(st.sampled_from(["a", "b", "d"]), max_size=6))
def test_per_tool_rows_are_the_counts_written_out(route: list[str], called: list[str]) -> None:
    expected, actual = Counter(route), Counter(called)
    rows = {name: {"tp": c.tp, "fp": c.fp, "fn": c.fn}
            for name, c in per_tool_counts(expected, actual).items()}
    assert per_tool_rows(expected, actual) == rows
    assert list(per_tool_rows(expected, actual)) == list(rows)
