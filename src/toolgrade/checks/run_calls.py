"""A run's tool calls, listed once for all the checks that read them.

`Trajectory.calls` builds a new list on every read, and each of the four checks (and the
record) reads it: five lists a run where one does. `calls_of` keeps the last run's list, so a
run graded by the checks in turn builds it once. The list is shared: callers only read it.
"""

from __future__ import annotations

from toolgrade.models import Step, ToolCall, Trajectory

#: The last run asked about: the run, its steps list and its length (so that a run whose steps
#: were changed in place is listed afresh), and its calls.
_last: tuple[Trajectory, list[Step], int, list[tuple[int, ToolCall]]] | None = None


def calls_of(run: Trajectory) -> list[tuple[int, ToolCall]]:
    """`run.calls`, built once per run while the checks grade it in turn. Do not modify it."""
    global _last
    last, steps = _last, run.steps
    if last is not None and last[0] is run and last[1] is steps and last[2] == len(steps):
        return last[3]
    calls = run.calls
    _last = (run, steps, len(steps), calls)
    return calls
