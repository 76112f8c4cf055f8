"""A run's tool calls, listed once for all the checks that read them.

`Trajectory.calls` builds a new list on every read, and each of the four checks (and the
record) reads it: five lists a run where one does. `calls_of` keeps the last run's list, so a
run graded by the checks in turn builds it once. `index_of` keeps, beside that list, what
several checks look up in it (the calls of one tool), built on first use. Both are shared:
callers only read them.
"""

from __future__ import annotations

from toolgrade.models import Step, ToolCall, Trajectory


class RunCalls:
    """One run's tool calls, with their positions per tool name (built on first use)."""

    __slots__ = ("_by_tool", "_marked", "calls")

    def __init__(self, calls: list[tuple[int, ToolCall]]) -> None:
        #: `run.calls`: (step index, call) in run order.
        self.calls = calls
        self._by_tool: dict[str, list[int]] | None = None
        self._marked: frozenset[int] | None = None

    @property
    def by_tool(self) -> dict[str, list[int]]:
        """Each called tool's positions (indices into `calls`), in run order."""
        if self._by_tool is None:
            index: dict[str, list[int]] = {}
            for position, (_, call) in enumerate(self.calls):
                index.setdefault(call.tool, []).append(position)
            self._by_tool = index
        return self._by_tool

    @property
    def marked(self) -> frozenset[int]:
        """Positions of the calls the run marks as injected faults (`ToolCall.injected_fault`)."""
        if self._marked is None:
            self._marked = frozenset(
                p for p, (_, call) in enumerate(self.calls) if call.injected_fault
            )
        return self._marked

    def positions(self, tool: str) -> list[int]:
        """The positions of `tool`'s calls, in run order (empty when it was never called)."""
        return self.by_tool.get(tool, _NONE)


#: What `positions` returns for a tool never called: one shared, never modified, empty list.
_NONE: list[int] = []

#: The last run asked about: the run, its steps list and its length (so that a run whose steps
#: were changed in place is listed afresh), and its index.
_last: tuple[Trajectory, list[Step], int, RunCalls] | None = None


def index_of(run: Trajectory) -> RunCalls:
    """The run's calls and their index, built once per run while the checks grade it in turn.
    Do not modify them."""
    global _last
    last, steps = _last, run.steps
    if last is not None and last[0] is run and last[1] is steps and last[2] == len(steps):
        return last[3]
    index = RunCalls(run.calls)
    _last = (run, steps, len(steps), index)
    return index


def calls_of(run: Trajectory) -> list[tuple[int, ToolCall]]:
    """`run.calls`, built once per run while the checks grade it in turn. Do not modify it."""
    return index_of(run).calls
