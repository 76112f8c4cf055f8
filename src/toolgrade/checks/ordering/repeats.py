"""Repeated calls: loops (identical consecutive calls) and redundant calls (an identical call
after one that returned ok), by call identity."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Hashable
from typing import Any

from toolgrade.checks.call_identity import identity
from toolgrade.checks.ordering.points import Event, precedes
from toolgrade.models import (
    Failure,
    ToolCall,
)


def call_key(c: ToolCall) -> str:
    """A canonical identity of a call: tool and arguments (5 and 5.0 are the same argument)."""
    payload: Any = {"raw": c.raw_arguments} if c.raw_arguments is not None else _canon(c.args)
    return c.tool + "\x00" + _KEY_ENCODER.encode(payload)


#: What `json.dumps(payload, sort_keys=True, default=str)` builds on every call, built once.
_KEY_ENCODER = json.JSONEncoder(sort_keys=True, default=str)


def _canon(value: Any) -> Any:
    """Integral floats become ints so that equal numbers compare equal; bools stay bools."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {str(k): _canon(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canon(v) for v in value]
    return value


def call_keys(calls: list[tuple[int, ToolCall]]) -> list[str]:
    """A key per call such that two calls' keys are equal exactly when their `call_key`s are.

    A `call_key` starts with the tool name, so a call whose tool occurs once in the run cannot
    equal any other: it gets a placeholder no real key can equal (a real key's JSON part starts
    with `{`), and its arguments are never serialised.
    """
    counts = Counter(c.tool for _, c in calls)
    return [call_key(c) if counts[c.tool] > 1 else f"\x00{n}" for n, (_, c) in enumerate(calls)]


def call_identities(calls: list[tuple[int, ToolCall]]) -> list[Hashable]:
    """`call_keys` without the JSON: equal exactly when they are, and what grading uses.

    Computed once per grade and shared by the repeat detectors. A repeated tool's calls get
    their hashable `identity` (a tuple); a call whose tool occurs once gets a placeholder
    string, which no tuple equals, and its arguments are never read.
    """
    counts = Counter(c.tool for _, c in calls)
    return repeat_identities(calls, {tool for tool, n in counts.items() if n > 1})


def repeat_identities(
    calls: list[tuple[int, ToolCall]], repeated: Collection[str]
) -> list[Hashable]:
    """`call_identities`, with the tools called more than once (`repeated`) at hand."""
    return [identity(c) if c.tool in repeated else f"\x00{n}" for n, (_, c) in enumerate(calls)]


def find_loops(
    calls: list[tuple[int, ToolCall]],
    threshold: int,
    keys: list[Hashable] | None = None,
    faulted: Collection[int] = (),
) -> list[list[int]]:
    """Runs of `threshold` or more identical consecutive calls, as lists of their steps.

    A repeat that follows a failed identical call is a retry, graded by the recovery check
    against its retry ceiling, so it starts a new run instead of extending a loop. So does a
    repeat of a faulted call (`faulted`: positions into `calls`, see `recovery.
    faulted_positions`): an injected `empty` or `malformed` fault is recorded as ok, yet the
    recovery check counts the repeat as its retry. `keys`: the calls' `call_identities`, when the
    caller already has them.
    """
    keys = call_identities(calls) if keys is None else keys
    runs: list[list[int]] = []
    current: list[int] = []
    for n, (step, _) in enumerate(calls):
        if n and _repeats(calls[n - 1][1], n - 1 in faulted) and keys[n - 1] == keys[n]:
            current.append(step)
        else:
            if len(current) >= threshold:
                runs.append(current)
            current = [step]
    if len(current) >= threshold:
        runs.append(current)
    return runs


def _repeats(prev: ToolCall, faulted: bool) -> bool:
    """Whether an identical call after `prev` repeats it (rather than retrying a failure)."""
    return not prev.failed and not faulted


def loop_failures(
    calls: list[tuple[int, ToolCall]],
    threshold: int,
    keys: list[Hashable] | None = None,
    faulted: Collection[int] = (),
) -> tuple[list[Failure], set[int]]:
    """One `loop` failure per run of repeats, and the steps those runs cover."""
    tool_at = dict(calls)
    failures: list[Failure] = []
    covered: set[int] = set()
    for steps in find_loops(calls, threshold, keys, faulted):
        tool = tool_at[steps[0]].tool
        covered.update(steps)
        failures.append(
            Failure(
                name="loop",
                step=steps[0],
                message=f"{tool} called {len(steps)} times in a row with the same arguments",
                evidence={
                    "tool": tool,
                    "count": len(steps),
                    "first_step": steps[0],
                    "last_step": steps[-1],
                },
            )
        )
    return failures, covered


def redundant_failures(
    calls: list[tuple[int, ToolCall]],
    skip: set[int],
    keys: list[Hashable] | None = None,
    faulted: Collection[int] = (),
) -> list[Failure]:
    """`redundant_call`: a call identical to an earlier one that returned ok.

    The earlier call must strictly precede (not share the parallel group, whose results the
    agent had not seen). Steps inside a reported loop are skipped: the loop already says it.
    A faulted call (`faulted`, positions into `calls`) did not return ok, whatever its status.
    """
    keys = call_identities(calls) if keys is None else keys
    ok_at: dict[Hashable, Event] = {}
    failures: list[Failure] = []
    for n, (step, c) in enumerate(calls):
        key = keys[n]
        earlier = ok_at.get(key)
        # The call's event is built only when there is an earlier one to compare it with.
        if (
            earlier is not None
            and step not in skip
            and precedes(earlier, Event(step, c.tool, c.group))
        ):
            failures.append(
                Failure(
                    name="redundant_call",
                    step=step,
                    message=f"{c.tool} repeats the call at step {earlier.step}, which returned ok",
                    evidence={"tool": c.tool, "previous_step": earlier.step},
                )
            )
        returned_ok = c.result is not None and c.result.status == "ok" and n not in faulted
        if earlier is None and returned_ok:
            ok_at[key] = Event(step, c.tool, c.group)
    return failures
