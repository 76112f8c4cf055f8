"""The arguments check and its parts: did the agent fill each call correctly?

- `check`: the check itself (pairing reference calls with agent calls, field results, score);
- `pairing`: the optimal assignment of agent calls to reference calls;
- `comparators` and `dates`: how a reference value is compared with what the agent passed;
- `schema` and `schema_fastpath`: validity against the tool's JSON Schema, kept apart from
  wrong values;
- `grounding`: values the agent could only have made up (`ungrounded_value`);
- `validation`: checking a suite's argument expectations when it loads;
- `figures`: the suite-level accumulation of per-field accuracy;
- `memo`: per-case caches shared by the parts.

Names are imported on first use (PEP 562), so loading a suite (which needs `validation`) does
not load the check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolgrade.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolgrade.checks.arguments.check import ArgumentsCheck, call_agreement

_WHERE = {
    "ArgumentsCheck": "toolgrade.checks.arguments.check",
    "call_agreement": "toolgrade.checks.arguments.check",
}

__getattr__ = lazy_attributes(__name__, _WHERE)

__all__ = ["ArgumentsCheck", "call_agreement"]
