"""toolgrade's closed vocabulary: check names, failure names, judge dimensions, the OTLP case
attribute. One module, importing nothing, so the command line can show these names (help
texts, defaults) without loading the pydantic models, and a renamed name is a type error
everywhere at once.
"""

from __future__ import annotations

from typing import Literal, get_args

CheckName = Literal["selection", "arguments", "ordering", "recovery"]
#: The four checks, in report order.
CHECK_NAMES: tuple[CheckName, ...] = ("selection", "arguments", "ordering", "recovery")

#: The failures each check reports (docs/contract.md).
SelectionFailure = Literal[
    "missing_tool", "extra_tool", "substitution", "forbidden_tool", "unauthorized_side_effect",
    "unknown_tool", "unexpected_tool_use"
]
ArgumentsFailure = Literal[
    "missing_required", "type_mismatch", "out_of_range", "hallucinated_param",
    "unparseable_arguments", "wrong_value", "missing_expected_arg", "ungrounded_value",
    "unparseable_call"
]
OrderingFailure = Literal[
    "order_violation", "loop", "redundant_call", "over_budget"
]
RecoveryFailure = Literal[
    "no_retry", "retry_loop", "wrong_fallback", "missing_escalation", "misread_result",
    "false_success_claim", "state_mismatch", "poor_recovery", "missing_mention"
]
#: Every failure a check reports.
FailureName = Literal[SelectionFailure, ArgumentsFailure, OrderingFailure, RecoveryFailure]
#: Which check reports each failure.
FAILURES_BY_CHECK: dict[CheckName, tuple[FailureName, ...]] = {
    "selection": get_args(SelectionFailure),
    "arguments": get_args(ArgumentsFailure),
    "ordering": get_args(OrderingFailure),
    "recovery": get_args(RecoveryFailure),
}

#: The tool name of a step holding model text that was meant as tool calls but could not be
#: read as any (docs/importers.md); the arguments check reports it as `unparseable_call`.
UNPARSED_TOOL = "(unparsed)"

JudgeDimension = Literal[
    "argument_equivalence", "alternate_route", "recovery_quality", "result_interpretation"
]
JUDGE_DIMENSIONS: tuple[JudgeDimension, ...] = (
    "argument_equivalence",
    "alternate_route",
    "recovery_quality",
    "result_interpretation",
)

#: The span or resource attribute holding an OTLP trace's case id, unless `--case-attribute`
#: says otherwise.
CASE_ATTRIBUTE = "toolgrade.case_id"
