"""The shared call list is the run's own, and a run changed in place is listed afresh."""

from __future__ import annotations

from toolgrade.checks.run_calls import calls_of
from toolgrade.models import Message, ToolCall, Trajectory


def test_calls_of_is_run_calls_and_built_once_per_run() -> None:
    run = Trajectory(case_id="c", steps=[Message(role="user", content="hi"), ToolCall(tool="a")])
    first = calls_of(run)
    assert first == run.calls
    assert calls_of(run) is first
    other = Trajectory(case_id="c", steps=[ToolCall(tool="b")])
    assert calls_of(other) == other.calls
    assert calls_of(run) == run.calls


def test_a_run_whose_steps_grew_is_listed_afresh() -> None:
    run = Trajectory(case_id="c", steps=[ToolCall(tool="a")])
    calls_of(run)
    run.steps.append(ToolCall(tool="b"))
    assert calls_of(run) == run.calls
