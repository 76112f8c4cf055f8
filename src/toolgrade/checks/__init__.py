"""The four checks. Each imports only `toolgrade.models`, the standard library and scipy."""

from toolgrade.checks.arguments import ArgumentsCheck
from toolgrade.checks.base import Check, CheckAccumulator, GradeContext
from toolgrade.checks.ordering import OrderingCheck
from toolgrade.checks.recovery import RecoveryCheck
from toolgrade.checks.selection import SelectionCheck


def default_checks() -> list[Check]:
    """The four checks in report order."""
    return [SelectionCheck(), ArgumentsCheck(), OrderingCheck(), RecoveryCheck()]


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
