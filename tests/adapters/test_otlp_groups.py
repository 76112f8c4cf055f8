"""Parallel groups of tool spans: exactly the spans linked by a chain of overlapping times."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.adapters.otlp_spans import Span
from toolgrade.adapters.otlp_traces import _groups

_interval = st.tuples(st.integers(0, 30), st.integers(0, 10), st.sampled_from(["p", "q"]))


def _span(index: int, start: int, length: int, parent: str) -> Span:
    return Span(
        trace_id="t", span_id=f"s{index}", parent_id=parent, name="execute_tool x",
        start=start, end=start + length, attributes={}, resource={}, order=index,
    )


def _linked(a: Span, b: Span) -> bool:
    """Issued together: same parent, and times that overlap or start at the same instant."""
    overlap = a.start < b.end and b.start < a.end
    return a.parent_id == b.parent_id and (overlap or a.start == b.start)


def _components(spans: list[Span]) -> dict[str, str]:
    """Each span's component under `_linked` (union-find, the oracle)."""
    root = {s.span_id: s.span_id for s in spans}

    def find(x: str) -> str:
        while root[x] != x:
            x = root[x]
        return x

    for i, a in enumerate(spans):
        for b in spans[i + 1:]:
            if _linked(a, b):
                root[find(a.span_id)] = find(b.span_id)
    return {s.span_id: find(s.span_id) for s in spans}


@settings(max_examples=300, deadline=None)
@given(st.lists(_interval, min_size=1, max_size=8))
def test_groups_are_the_components_of_overlapping_siblings(raw: list[tuple[int, int, str]]) -> None:
    spans = [_span(i, start, length, parent) for i, (start, length, parent) in enumerate(raw)]
    clusters = _groups(list(spans))
    components = _components(spans)
    for a in spans:
        for b in spans:
            if a is b:
                continue
            together = a.span_id in clusters and clusters.get(a.span_id) == clusters.get(b.span_id)
            assert together == (components[a.span_id] == components[b.span_id])
    sizes = {c: sum(v == c for v in components.values()) for c in components.values()}
    assert all(sizes[components[s]] > 1 for s in clusters)  # a lone call has no group
