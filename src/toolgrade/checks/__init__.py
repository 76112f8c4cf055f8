"""The four checks. Each imports only `toolgrade.models`, the standard library and scipy.

`selection.py`, `arguments/` (the heaviest: comparators, pairing, schema, grounding),
`ordering/` (constraints, sequence modes, repeats) and `recovery.py` (with `state.py` and
`mentions.py`); `base.py`, `memo.py` and `run_calls.py` are what they share; `registry.py`
lists them, one entry each, for everything that iterates the checks. The names below
are imported on first use (PEP 562): loading a suite needs `checks.arguments.validation` alone,
not every check (`toolgrade validate` without runs grades nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolgrade.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolgrade.checks.arguments import ArgumentsCheck
    from toolgrade.checks.base import Check, CheckAccumulator, GradeContext
    from toolgrade.checks.ordering import OrderingCheck
    from toolgrade.checks.recovery import RecoveryCheck
    from toolgrade.checks.selection import SelectionCheck

_WHERE = {
    "ArgumentsCheck": "toolgrade.checks.arguments.check",
    "Check": "toolgrade.checks.base",
    "CheckAccumulator": "toolgrade.checks.base",
    "GradeContext": "toolgrade.checks.base",
    "OrderingCheck": "toolgrade.checks.ordering",
    "RecoveryCheck": "toolgrade.checks.recovery",
    "SelectionCheck": "toolgrade.checks.selection",
}

__getattr__ = lazy_attributes(__name__, _WHERE)


def default_checks() -> list[Check]:
    """Every registered check (`checks.registry`), in report order: the four, then any added."""
    from toolgrade.checks.registry import entries

    return [entry.build() for entry in entries()]


__all__ = [
    "ArgumentsCheck",
    "Check",
    "CheckAccumulator",
    "GradeContext",
    "OrderingCheck",
    "RecoveryCheck",
    "SelectionCheck",
    "default_checks",
]
