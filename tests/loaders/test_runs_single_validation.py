"""Plain steps are validated once, straight into ToolCall: same calls, same errors as before."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.adapters import AdapterError, decode_arguments
from toolgrade.loaders import runs
from toolgrade.models import ToolCall

ODD = st.sampled_from([1, 1.5, True, None, "", "x", ["x"], {"k": 1}])
RESULTS = st.none() | st.fixed_dictionaries(
    {}, optional={"status": st.sampled_from(["ok", "error", "OK", 1]), "content": ODD, "x": ODD}
)


def two_step(raw: dict[str, Any]) -> ToolCall | tuple[str, str]:
    """The former path: _StepCall first, then ToolCall; an error as (field, reason)."""
    try:
        return runs._normalised_step_validated(raw, 4)
    except AdapterError as exc:
        return exc.field, exc.reason


def current(raw: dict[str, Any]) -> ToolCall | tuple[str, str]:
    """What loading does now; an error as (field, reason)."""
    try:
        step = runs._normalised_step(raw, 4)
    except AdapterError as exc:
        return exc.field, exc.reason
    assert isinstance(step, ToolCall)
    return step


@settings(max_examples=400, deadline=None)
@given(
    st.fixed_dictionaries(
        {"tool": st.sampled_from(["t", ""]) | ODD},
        optional={
            "args": ODD | st.sampled_from(['{"a": 1}', "oops"]),
            "id": st.sampled_from(["c1"]) | ODD,
            "result": RESULTS | ODD,
            "group": st.integers(0, 3) | ODD,
            "colour": ODD,
        },
    )
)
def test_steps_load_as_with_two_validations(raw: dict[str, Any]) -> None:
    before, now = two_step(raw), current(raw)
    assert now == before
    if isinstance(now, ToolCall):
        assert isinstance(before, ToolCall)
        assert now.model_fields_set == before.model_fields_set
        assert now.model_dump_json() == before.model_dump_json()


def test_a_plain_step_skips_the_step_model() -> None:
    raw = {"tool": "t", "args": '{"a": 1}', "result": {"status": "error", "content": "503"}}
    assert runs._plain_call(raw)
    call = runs._normalised_step(raw, 0)
    assert call == ToolCall(tool="t", args={"a": 1}, result={"status": "error", "content": "503"})
    assert decode_arguments("oops") == ({}, "oops")
    assert not runs._plain_call({**raw, "group": True})  # a bool is left to the step model


@settings(max_examples=200, deadline=None)
@given(
    st.fixed_dictionaries(
        {"tool": st.just("t"), "result": RESULTS | ODD},
        optional={"id": st.just("c1"), "group": st.integers(0, 3) | st.just("m1")},
    )
)
def test_results_load_as_with_two_validations(raw: dict[str, Any]) -> None:
    assert current(raw) == two_step(raw)
