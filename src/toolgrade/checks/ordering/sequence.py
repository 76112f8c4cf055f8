"""The whole-sequence modes (`exact`, `in_order`, `any_order`): the run's calls aligned to the
reference (parallel groups are unordered) and compared with it."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from toolgrade.checks.run_calls import calls_of
from toolgrade.models import (
    Case,
    Failure,
    ToolCall,
    Trajectory,
)
from toolgrade.models.figures import OrderingFigures


def reference_sequence(case: Case) -> list[str] | None:
    """The sequence a mode compares with: `sequence`, else expected.selection.tools."""
    ordering = case.expected.ordering
    if ordering is not None and ordering.sequence is not None:
        return list(ordering.sequence)
    selection = case.expected.selection
    return list(selection.tools) if selection is not None else None


def aligned_names(calls: Sequence[ToolCall], reference: Sequence[str]) -> list[str]:
    """Tool names in call order, each parallel group's calls sorted to best follow `reference`.

    A group's calls were issued together, so their listed order means nothing. Each call takes
    the next unused position of its tool in the reference (calls outside groups take theirs
    too); within a group, calls are sorted by that position, with tools the reference does not
    hold (or holds fewer times) last, in their recorded order. When any order of the groups
    equals the reference, this one does.
    """
    tools = [c.tool for c in calls]
    return _in_order(tools, aligned_order(calls, reference))


def _in_order(tools: list[str], order: list[int] | None) -> list[str]:
    """The calls' `tools` in `order` (`aligned_order`); None: their own order (no group)."""
    return tools if order is None else [tools[i] for i in order]


def aligned_order(calls: Sequence[ToolCall], reference: Sequence[str]) -> list[int] | None:
    """The indices of `calls` in the order `aligned_names` lists them; None when no call is in
    a parallel group (the order is the calls' own)."""
    tools, groups = [c.tool for c in calls], [c.group for c in calls]
    return _aligned_order(tools, groups, reference_slots(reference))


def reference_slots(reference: Sequence[str]) -> dict[str, list[int]]:
    """Each tool's positions in the reference, in order."""
    positions: dict[str, list[int]] = {}
    for pos, name in enumerate(reference):
        positions.setdefault(name, []).append(pos)
    return positions


def _aligned_order(
    tools: list[str], groups: list[int | str | None], positions: dict[str, list[int]]
) -> list[int] | None:
    """`aligned_order` from the calls' tools and groups, with the reference's `reference_slots` at
    hand (not modified). Blocks as `_blocks` forms them: consecutive calls sharing a group."""
    if groups.count(None) == len(groups):
        return None
    used: dict[str, int] = {}
    out: list[int] = []
    start, n = 0, len(tools)
    while start < n:
        end, group = start + 1, groups[start]
        while group is not None and end < n and groups[end] == group:
            end += 1
        if end - start == 1:  # a call alone keeps its place; it still claims its position
            name = tools[start]
            used[name] = used.get(name, 0) + 1
            out.append(start)
        else:
            keyed = [(_claim(positions, used, tools[i]), i) for i in range(start, end)]
            out += [i for _, i in sorted(keyed)]
        start = end
    return out


def _claim(positions: dict[str, list[int]], used: dict[str, int], name: str) -> float:
    """The next unused reference position of `name`, or infinity when none is left."""
    k = used.get(name, 0)
    used[name] = k + 1
    slots = positions.get(name)
    return slots[k] if slots is not None and k < len(slots) else math.inf


def _blocks(calls: Sequence[ToolCall]) -> list[list[int]]:
    """Indices of consecutive calls sharing a non-None group form one block; other calls stand
    alone."""
    blocks: list[list[int]] = []
    for i, c in enumerate(calls):
        if blocks and c.group is not None and calls[blocks[-1][0]].group == c.group:
            blocks[-1].append(i)
        else:
            blocks.append([i])
    return blocks


def lcs_length(x: Sequence[str], y: Sequence[str]) -> int:
    """Length of the longest common subsequence (dynamic programming, one row of memory).

    When `y` is a subsequence of `x` (a run that holds the reference in order, the usual
    case), that is its length, found in one pass without the table."""
    if _is_subsequence(y, x):
        return len(y)
    row = [0] * (len(y) + 1)
    for a in x:
        prev_diag = 0
        for j, b in enumerate(y, start=1):
            keep = row[j]
            row[j] = prev_diag + 1 if a == b else max(row[j], row[j - 1])
            prev_diag = keep
    return row[len(y)]


def _is_subsequence(short: Sequence[str], long: Sequence[str]) -> bool:
    """Whether `short` occurs in `long` in order (greedy matching decides it)."""
    it = iter(long)
    return all(any(a == b for b in it) for a in short)


@dataclass(frozen=True)
class ModeOutcome:
    """Whether the whole-sequence mode holds, its failure if not, and its figures."""

    held: bool
    failure: Failure | None
    #: The mode's own figures (`in_order`: the LCS rates), the first of the check's.
    figures: OrderingFigures


def check_mode(
    mode: str,
    run: Trajectory,
    reference: list[str],
    calls: list[tuple[int, ToolCall]] | None = None,
) -> ModeOutcome:
    """Compare the whole call sequence with the reference by `exact`, `in_order` or `any_order`.

    `calls`: `run.calls`, when the caller already has them."""
    calls = calls_of(run) if calls is None else calls
    return mode_outcome(mode, calls, reference, reference_slots(reference), sorted(reference))


def mode_outcome(
    mode: str,
    calls: list[tuple[int, ToolCall]],
    reference: list[str],
    slots: dict[str, list[int]],
    ordered: list[str],
) -> ModeOutcome:
    """`check_mode` with the reference's `reference_slots` and its names sorted (`ordered`) at
    hand."""
    tools = [c.tool for _, c in calls]
    if mode == "any_order" and sorted(tools) == ordered:
        # The same multiset (the sorted names are equal): the order, aligned or not, is not
        # compared, so it is not worked out.
        return ModeOutcome(True, None, {})
    order = _aligned_order(tools, [c.group for _, c in calls], slots)
    actual = _in_order(tools, order)
    # Evidence is what the check found, shown as is (a failure's free-form keys); the
    # reference is copied, as it is the case's own. Built only for a failure.
    found: dict[str, object] = {}
    figures: OrderingFigures = {}
    step: int | None = None
    if mode == "any_order":  # the multisets differ (see above): the evidence counts how
        held = False
        expected, called = Counter(reference), Counter(actual)
        found = {"missing": dict(expected - called), "extra": dict(called - expected)}
    elif mode == "exact":
        held = actual == reference
        diverge = None if held else _first_difference(actual, reference)
        if diverge is not None and diverge < len(calls):
            # The step of the call at that place in the compared (aligned) order.
            step = calls[diverge if order is None else order[diverge]][0]
    else:
        lcs = lcs_length(actual, reference)
        figures = {
            "lcs_precision": lcs / len(actual) if actual else 1.0,
            "lcs_recall": lcs / len(reference) if reference else 1.0,
        }
        found = {"lcs_precision": figures["lcs_precision"], "lcs_recall": figures["lcs_recall"]}
        # in_order asks that the reference appear in order; extra calls lower precision only.
        held = lcs == len(reference)
    if held:
        return ModeOutcome(True, None, figures)
    evidence = {"mode": mode, "expected": list(reference), "actual": actual, **found}
    message = f"the call sequence does not match the reference in {mode} mode"
    failure = Failure(name="order_violation", step=step, message=message, evidence=evidence)
    return ModeOutcome(False, failure, figures)


def _first_difference(actual: Sequence[str], reference: Sequence[str]) -> int | None:
    """Index of the first position where the sequences differ, None when they are equal."""
    for i, (a, r) in enumerate(zip(actual, reference, strict=False)):
        if a != r:
            return i
    return None if len(actual) == len(reference) else min(len(actual), len(reference))
