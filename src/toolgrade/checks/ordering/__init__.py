"""The ordering check: load-bearing order constraints, sequence modes, loops and budgets.

Only the pairs a case names are asserted (`before: [[a, b]]`), so a correct run that orders its
independent calls differently still passes. Calls issued together in one parallel group are
unordered among themselves: a call of `a` in the same group as a call of `b` does not put `a`
before `b`; `a` must strictly precede `b`'s group. See docs/ordering.md for the user view.

The parts: `points` (where a constraint side matches: the run's calls by tool, the per-case
plan), `constraints` (`before` pairs and budgets), `sequence` (the whole-sequence modes),
`repeats` (loops and redundant calls) and `check` (the check itself and its summary block).
"""

from toolgrade.checks.ordering.check import OrderingAccumulator, OrderingBlock, OrderingCheck
from toolgrade.checks.ordering.constraints import budget_failure, check_before, validate_ordering
from toolgrade.checks.ordering.repeats import (
    call_identities,
    call_key,
    call_keys,
    find_loops,
    loop_failures,
    redundant_failures,
)
from toolgrade.checks.ordering.sequence import (
    ModeOutcome,
    aligned_names,
    aligned_order,
    check_mode,
    lcs_length,
)

__all__ = [
    "ModeOutcome",
    "OrderingAccumulator",
    "OrderingBlock",
    "OrderingCheck",
    "aligned_names",
    "aligned_order",
    "budget_failure",
    "call_identities",
    "call_key",
    "call_keys",
    "check_before",
    "check_mode",
    "find_loops",
    "lcs_length",
    "loop_failures",
    "redundant_failures",
    "validate_ordering",
]
