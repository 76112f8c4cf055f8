"""Grounding: argument values that appear in nothing the agent had seen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from builders_arguments import REFUND_SCHEMA, grade
from toolgrade.checks.arguments.grounding import ungrounded_values, value_kind
from toolgrade.errors import InputError
from toolgrade.loaders import load_suite
from toolgrade.models import Case, Message, ToolCall, ToolResult, Trajectory

KINDS = ("id", "email", "phone")


def make(**data: Any) -> Case:
    return Case.model_validate({"id": "c1", "tools": {"refund": {"parameters": REFUND_SCHEMA}},
                                **data})


def call(tool: str, args: dict[str, Any], content: Any = None, group: int | None = None
         ) -> ToolCall:
    result = None if content is None else ToolResult(content=content)
    return ToolCall(tool=tool, args=args, result=result, group=group)


def steps(*items: ToolCall | Message) -> Trajectory:
    return Trajectory(case_id="c1", steps=list(items))


@pytest.mark.parametrize(("value", "kind"), [
    ("A123", "id"), ("#W5442520", "id"), ("TRK-448812", "id"), ("jane@example.com", "email"),
    ("+44 20 7946 0958", "phone"), ("(555) 010-2030", "phone"),
    ("2025-03-05", None), ("10:30", None), ("express", None), ("item arrived damaged", None),
    ("1234567", None), (25, None), (True, None), ("ab", None),
])
def test_value_kinds(value: Any, kind: str | None) -> None:
    assert value_kind(value, KINDS) == kind


def test_numbers_only_when_asked() -> None:
    assert value_kind(25.0, (*KINDS, "number")) == "number"
    case = make(input="refund 25 euros", grounding={"kinds": ["number"]})
    run = steps(call("refund", {"amount": 25.0}), call("refund", {"amount": 250}))
    assert [u.value for u in ungrounded_values(case, run)] == [250]


def test_a_value_from_the_input_a_user_message_or_an_earlier_result_is_grounded() -> None:
    case = make(input="Order a123 please")
    run = steps(
        call("lookup_order", {"order_id": "A123"}, {"email": "jo@example.com", "ref": "R-9"}),
        Message(role="user", content="my phone is +1 555 010 2030"),
        call("refund", {"order_id": "A123", "email": "jo@example.com", "ref": "R-9",
                        "phone": "+15550102030"}),
    )
    assert ungrounded_values(case, run) == []


def test_a_made_up_id_is_ungrounded_and_an_assistant_message_does_not_ground_it() -> None:
    case = make(input="Refund my last order")
    run = steps(Message(role="assistant", content="I'll refund order Z999."),
                call("refund", {"order_id": "Z999", "items": [{"sku": "SKU-12"}]}))
    found = [u.to_json() for u in ungrounded_values(case, run)]
    assert found == [
        {"step": 1, "tool": "refund", "field": "order_id", "value": "Z999", "kind": "id"},
        {"step": 1, "tool": "refund", "field": "items[0].sku", "value": "SKU-12", "kind": "id"},
    ]


def test_a_result_of_the_same_parallel_group_was_not_seen_yet() -> None:
    case = make(input="hi")
    run = steps(call("lookup_order", {"q": "x"}, {"order_id": "B77"}, group=1),
                call("refund", {"order_id": "B77"}, group=1),
                call("refund", {"order_id": "B77"}))
    assert [u.step for u in ungrounded_values(case, run)] == [1]


def test_chat_message_input_grounds_its_values() -> None:
    case = make(input=[{"role": "user", "content": "Refund C42"},
                       {"role": "assistant", "content": "Which email?"},
                       {"role": "user", "content": "kim@example.com"}])
    run = steps(call("refund", {"order_id": "C42", "email": "kim@example.com"}))
    assert ungrounded_values(case, run) == []


def test_figure_on_every_run_and_failure_only_when_the_case_asks() -> None:
    run = steps(call("refund", {"order_id": "Z999", "amount": 5}))
    plain = grade(make(input="refund please"), run)
    assert not plain.applicable and plain.figures["ungrounded"][0]["value"] == "Z999"
    asked = grade(make(input="refund please", grounding={}), run)
    assert (asked.applicable, asked.passed, asked.score) == (True, False, 0.0)
    assert [f.name for f in asked.failures] == ["ungrounded_value"]
    exempt = make(input="refund please", grounding={"exempt": ["refund.order_id"]})
    assert grade(exempt, run).passed
    with_ref = make(input="refund Z999", grounding={},
                    expected={"arguments": [{"tool": "refund", "args": {"order_id": "Z999"}}]})
    graded = grade(with_ref, run)
    assert graded.passed and graded.figures["ungrounded"] == []


def test_suite_wide_grounding_reaches_cases_without_their_own(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "defaults: {grounding: {kinds: [id]}}\n"
        "cases:\n"
        "  - {id: a, input: hi}\n"
        "  - {id: b, input: hi, grounding: {kinds: [email]}}\n", encoding="utf-8")
    cases = load_suite(suite).cases
    assert cases["a"].grounding is not None and cases["a"].grounding.kinds == ["id"]
    assert cases["b"].grounding is not None and cases["b"].grounding.kinds == ["email"]
    suite.write_text("defaults: {grounding: {kinds: [ids]}}\ncases: [{id: a}]\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_suite(suite)
    [problem] = err.value.problems
    assert problem.line == 1 and problem.field.startswith("defaults.grounding.kinds")


def test_an_id_written_without_its_spaces_or_hash_is_grounded() -> None:
    case = make(input="Ship to SW1A 1AA, order #W5442520")
    run = steps(call("refund", {"postcode": "SW1A1AA", "order_id": "W5442520"}))
    assert ungrounded_values(case, run) == []
