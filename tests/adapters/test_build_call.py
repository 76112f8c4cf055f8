"""`build_call` skips the second validation only where it would change nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from toolgrade.adapters.common import build_call
from toolgrade.loaders.runs import parse_line
from toolgrade.models import ToolCall, ToolResult

ODD = st.sampled_from([1, 1.5, True, None, "x", b"x", ["x"], {"k": 1}])


def validated(**fields: Any) -> ToolCall | str:
    """What the validating constructor gives: the call, or its error text."""
    try:
        return ToolCall(**fields)
    except ValidationError as exc:
        return str(exc)


def built(**fields: Any) -> ToolCall | str:
    """What build_call gives: the call, or its error text."""
    try:
        return build_call(**fields)
    except ValidationError as exc:
        return str(exc)


@settings(max_examples=300, deadline=None)
@given(
    tool=st.sampled_from(["t", ""]) | ODD,
    args=st.dictionaries(st.sampled_from(["a", "b"]) | st.integers(0, 2), ODD, max_size=2),
    id=st.none() | st.sampled_from(["c1"]) | ODD,
    result=st.none() | st.just(ToolResult(status="error", content="503")) | ODD,
    group=st.none() | st.integers(0, 3) | st.sampled_from(["m1"]) | ODD,
    raw_arguments=st.none() | st.sampled_from(["{", "not json"]) | ODD,
)
def test_build_call_equals_the_validating_constructor(**fields: Any) -> None:
    expected, got = validated(**fields), built(**fields)
    assert got == expected
    if isinstance(got, ToolCall):
        assert isinstance(expected, ToolCall)
        assert got.model_fields_set == expected.model_fields_set
        assert got.model_dump_json() == expected.model_dump_json()


def test_loaded_steps_equal_fully_validated_models() -> None:
    line = {
        "case_id": "c1",
        "trial": 2,
        "agent": "a",
        "steps": [
            {"role": "user", "content": "hi"},
            {"tool": "t", "args": '{"x": 1}', "id": "c1", "group": 1},
            {"tool": "t", "args": "oops", "result": {"status": "error", "content": "503"}},
        ],
        "final_state": {"k": [1]},
    }
    trajectory, problems = parse_line(line, "r.jsonl", 1)
    assert problems == [] and trajectory is not None
    again = type(trajectory).model_validate(trajectory.model_dump())
    assert again == trajectory
    assert trajectory.steps[2] == ToolCall(
        tool="t", raw_arguments="oops", result=ToolResult(status="error", content="503")
    )
