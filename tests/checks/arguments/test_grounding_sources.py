"""Searching the sources one by one finds what a search of their joined text finds."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.checks.arguments.grounding import (
    _digits,
    _Known,
    _leaves,
    _Seen,
    _shown,
    _squash,
    _text,
)
from toolgrade.jsonio.leaves import leaves

_NON_DIGIT = re.compile(r"[^0-9]")
_NON_ALNUM = re.compile(r"[^0-9a-z]")
_SOURCE = st.text(alphabet="aB1 2-#.\n@x", max_size=12)
_CONTENT = st.one_of(_SOURCE, st.dictionaries(st.sampled_from(["k", "id"]), _SOURCE, max_size=2))


def _joined_holds(known: str, contents: list[Any], value: Any, kind: str) -> bool:
    """The former rule: every source, folded, joined by line breaks into one text."""
    parts = [_text(c).casefold() for c in contents]
    text = "\n".join([known, *parts])
    if kind == "number":
        shown = re.escape(_shown(value))
        return re.search(rf"(?<![0-9.]){shown}(?![0-9])", text) is not None
    needle = str(value).strip().casefold()
    digits = "\n".join([_NON_DIGIT.sub("", known), *(_NON_DIGIT.sub("", p) for p in parts)])
    if kind == "phone":
        return _NON_DIGIT.sub("", needle) in digits
    alnum = "\n".join([_NON_ALNUM.sub("", known), *(_NON_ALNUM.sub("", p) for p in parts)])
    return needle in text or (kind == "id" and _NON_ALNUM.sub("", needle) in alnum)


@settings(max_examples=300, deadline=None)
@given(
    _SOURCE.map(str.casefold),
    st.lists(_CONTENT, max_size=4),
    st.lists(st.tuples(st.text(alphabet="aB1 2-#.@x", min_size=1, max_size=5),
                       st.sampled_from(["id", "email", "phone"])), min_size=1, max_size=4),
)
def test_same_verdicts_as_the_joined_text(known: str, contents: list[Any],
                                          values: list[tuple[str, str]]) -> None:
    # Tested values never hold whitespace (see value_kind); the rule relies on it.
    values = [(v.replace(" ", ""), k) for v, k in values if v.strip() and " " not in v.strip()]
    seen = _Seen(_Known(known))
    for content in contents:
        seen.add(content)
    for value, kind in values:
        assert seen.holds(value, kind) == _joined_holds(known, contents, value, kind)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="12.5 x\n", max_size=8), max_size=4),
       st.sampled_from([1, 2, 12, 25, 2.5, 1.25, 125.0]))
def test_numbers_same_as_the_joined_text(contents: list[str], value: float) -> None:
    seen = _Seen(_Known("refund 25"))
    for content in contents:
        seen.add(content)
    assert seen.holds(value, "number") == _joined_holds("refund 25", contents, value, "number")


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=30)
       | st.text(alphabet="aZ09 -#\u00df\u00c5\u0130\u0131\u212a\n.", max_size=30))
def test_byte_translation_removes_what_the_patterns_removed(text: str) -> None:
    assert _squash(text) == _NON_ALNUM.sub("", text)
    assert _digits(text) == _NON_DIGIT.sub("", text)


_NESTED = st.recursive(
    st.sampled_from([1, "A123", None, True]),
    lambda inner: st.lists(inner, max_size=2)
    | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(_NESTED)
def test_argument_leaves_are_the_walker_s(value: Any) -> None:
    assert list(_leaves(value, "")) == [(leaf.path, leaf.value) for leaf in leaves(value)]
