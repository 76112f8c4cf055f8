"""Grounding's per-case probes, grown joined texts and one C encoder give the plain rule's
verdicts and texts: each value tested against every source it had seen, searched one by one."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.checks.arguments.grounding import (
    DEFAULT_KINDS,
    SOURCE_ROLES,
    _call_leaves,
    _encode,
    _leaves,
    _shown,
    _text,
    ungrounded_values,
    value_kind,
)
from toolgrade.models import Case, Message, ToolCall, ToolResult, Trajectory

_NON_DIGIT = re.compile(r"[^0-9]")
_NON_ALNUM = re.compile(r"[^0-9a-z]")

_WORDS = st.sampled_from(
    ["A123", "a123", "#W55", "w55", "jo@x.io", "JO@X.IO", "+1 555 010 2030", "5550102030",
     "12", "2.5", "TRK-9", "trk9", "hello", "ß@x.io", "SS@x.io", "A 123"]
)  # fmt: skip
_SCALAR = st.one_of(_WORDS, st.sampled_from([12, 2.5, 25.0, True, None, 0]))
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.lists(inner, max_size=2)
    | st.dictionaries(st.sampled_from(["id", "to"]), inner, max_size=2),
    max_leaves=4,
)
_KEYS = st.sampled_from(["order_id", "email", "amount", "items"])


@st.composite
def _steps(draw: st.DrawFn) -> list[ToolCall | Message]:
    # A few words the run's results and arguments share, so that a value is often grounded
    # by one source only, and whether that source was seen decides.
    pool = st.sampled_from(draw(st.lists(_WORDS, min_size=1, max_size=3)))
    value = st.one_of(pool, _VALUE)
    out: list[ToolCall | Message] = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            out.append(Message(role=draw(st.sampled_from(["user", "assistant", "system"])),
                               content=draw(pool)))
            continue
        content = draw(st.one_of(st.none(), pool, st.dictionaries(_KEYS, value, max_size=2)))
        result = None if content is None else ToolResult(content=content)
        out.append(ToolCall(tool=draw(st.sampled_from(["refund", "lookup"])),
                            args=draw(st.dictionaries(_KEYS, value, max_size=3)),
                            result=result, group=draw(st.sampled_from([None, 1, 2]))))
    return out


def _plain_holds(sources: list[str], value: Any, kind: str) -> bool:
    """The rule as written: the sources folded, each searched on its own."""
    if kind == "number":
        shown = re.escape(_shown(value))
        return any(re.search(rf"(?<![0-9.]){shown}(?![0-9])", s) for s in sources)
    needle = str(value).strip().casefold()
    if kind == "phone":
        return any(_NON_DIGIT.sub("", needle) in _NON_DIGIT.sub("", s) for s in sources)
    if any(needle in s for s in sources):
        return True
    squashed = _NON_ALNUM.sub("", needle)
    return kind == "id" and any(squashed in _NON_ALNUM.sub("", s) for s in sources)


def _plain_ungrounded(case: Case, run: Trajectory) -> list[tuple[Any, ...]]:
    """`ungrounded_values` the plain way: every source kept as folded text."""
    kinds = tuple(case.grounding.kinds) if case.grounding else DEFAULT_KINDS
    exempt = set(case.grounding.exempt) if case.grounding else set()
    sources = [_text(m["content"]).casefold() for m in case.input_messages()]
    for spec in case.tools.values():
        sources += [_text(p).casefold() for p in (spec.description, spec.parameters) if p]
    found, pending, group = [], [], None
    for step, item in enumerate(run.steps):
        if isinstance(item, Message) or item.group is None or item.group != group:
            sources += [_text(c).casefold() for c in pending]
            pending = []
        if isinstance(item, Message):
            if item.role in SOURCE_ROLES and item.content is not None:
                sources.append(_text(item.content).casefold())
            continue
        group = item.group
        for path, value in _leaves(item.args, ""):
            kind = value_kind(value, kinds)
            if kind is None or f"{item.tool}.{path}" in exempt:
                continue
            if not _plain_holds(sources, value, kind):
                found.append((step, item.tool, path, value, kind))
        if item.result is not None and item.result.content is not None:
            pending.append(item.result.content)
    return found


_CASE_INPUT = st.lists(_WORDS, max_size=3).map(" ".join)
_GROUNDING = st.one_of(
    st.none(),
    st.fixed_dictionaries({"kinds": st.lists(st.sampled_from(["id", "email", "phone", "number"]),
                                             min_size=1, unique=True),
                           "exempt": st.lists(st.sampled_from(["refund.order_id",
                                                               "lookup.email"]))}),
)


@settings(max_examples=400, deadline=None)
@given(_CASE_INPUT, _GROUNDING, st.lists(_steps(), min_size=1, max_size=3))
def test_same_findings_as_the_plain_rule(text: str, grounding: Any,
                                         runs: list[list[ToolCall | Message]]) -> None:
    case = Case.model_validate({
        "id": "c1", "input": text or None, "grounding": grounding,
        "tools": {"refund": {"description": "Refund an order like B777",
                             "parameters": {"type": "object"}}},
    })
    for steps in runs:  # several runs of one case: the per-case probes are reused
        run = Trajectory(case_id="c1", steps=steps)
        got = [(u.step, u.tool, u.field, u.value, u.kind) for u in ungrounded_values(case, run)]
        assert got == _plain_ungrounded(case, run)


_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=6)),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.one_of(st.text(max_size=4), st.integers(), st.booleans()), inner,
                      max_size=3),
    max_leaves=8,
)


@settings(max_examples=500, deadline=None)
@given(_JSON)
def test_the_one_encoder_writes_what_json_dumps_writes(value: Any) -> None:
    assert _encode(value) == json.dumps(value, ensure_ascii=False, default=str)


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text")


def test_an_encoding_error_leaves_no_marks_behind() -> None:
    content = {"a": [1, {"b": _Unprintable()}]}
    for _ in range(2):  # the same error each time, as json.dumps raises it
        try:
            _encode(content)
        except RuntimeError as exc:
            assert str(exc) == "no text"
    assert _encode({"a": [1, {"b": 2}]}) == '{"a": [1, {"b": 2}]}'
    looped: list[Any] = []
    looped.append(looped)
    try:
        _encode(looped)
    except ValueError as exc:
        assert "Circular reference" in str(exc)
    assert _encode([1, [2]]) == "[1, [2]]"


@settings(max_examples=300, deadline=None)
@given(_VALUE | st.dictionaries(st.sampled_from(["a", "b"]), _VALUE, max_size=3))
def test_flat_arguments_are_their_own_leaves(args: Any) -> None:
    assert list(_call_leaves(args)) == list(_leaves(args, ""))


def test_a_busy_encoder_is_not_shared() -> None:
    class Reentrant:
        """Encodes its own container once, from inside the encoding of it."""

        calls = 0

        def __str__(self) -> str:
            Reentrant.calls += 1
            return _encode(box) if Reentrant.calls % 2 else "inner"

    box: list[Any] = [Reentrant()]
    got = _encode({"box": box})
    assert got == json.dumps({"box": box}, ensure_ascii=False, default=str)
    assert got == '{"box": ["[\\"inner\\"]"]}'
