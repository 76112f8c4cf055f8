"""Builders for judge-engine tests: inputs per dimension, settings, and engines on a fake client."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from toolgrade.judging import JudgeEngine
from toolgrade.judging.client import ChatRequest
from toolgrade.judging.scripted import FakeClient
from toolgrade.judging.settle import settle
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension, JudgeRequest
from toolgrade.settings import JudgeSettings

MODEL = "fake/judge-1"

#: Which input of each dimension carries agent-controlled (untrusted) text in the probes.
UNTRUSTED_FIELD: dict[JudgeDimension, str] = {
    "argument_equivalence": "actual",
    "alternate_route": "actual_route",
    "recovery_quality": "transcript",
    "result_interpretation": "final_answer",
}


def inputs_for(dimension: JudgeDimension, **overrides: Any) -> dict[str, Any]:
    """A realistic, complete set of template inputs for `dimension`."""
    base: dict[JudgeDimension, dict[str, Any]] = {
        "argument_equivalence": {
            "task": "Find me cheap flights from NYC to London next Friday",
            "tool": "search_flights",
            "field": "query",
            "expected": "cheap flights NYC to London",
            "actual": "low-cost flights New York to London",
            "rubric": None,
        },
        "alternate_route": {
            "task": "Refund order A123, it arrived broken",
            "expected_routes": [["lookup_order", "verify_identity", "refund"]],
            "actual_route": ["search_orders", "verify_identity", "refund"],
            "tool_descriptions": {
                "lookup_order": "Look up an order by id",
                "search_orders": "Search orders by customer and text",
                "verify_identity": "Verify the customer's identity",
                "refund": "Refund an order",
            },
        },
        "recovery_quality": {
            "task": "Refund order A123",
            "fault": {"tool": "lookup_order", "nth": 1, "kind": "error", "content": "503"},
            "stage": "recovered",
            "transcript": [
                {"step": 1, "tool": "lookup_order", "args": {"order_id": "A123"}, "status": "ok"},
                {"step": 2, "role": "assistant", "content": "The refund is on its way."},
            ],
        },
        "result_interpretation": {
            "task": "Cancel my subscription",
            "tool_results": [
                {"step": 0, "tool": "cancel", "status": "error", "content": "403 forbidden"}
            ],
            "final_answer": "I could not cancel it: the service refused (403).",
            "findings": ["fault on cancel was not recovered"],
        },
    }
    return {**base[dimension], **overrides}


def request_for(dimension: JudgeDimension, **overrides: Any) -> JudgeRequest:
    """A judge request with `inputs_for(dimension, **overrides)`."""
    return JudgeRequest(dimension=dimension, inputs=inputs_for(dimension, **overrides))


def all_requests() -> list[JudgeRequest]:
    """One default request per dimension."""
    return [request_for(dim) for dim in JUDGE_DIMENSIONS]


def settings(tmp_path: Path | None = None, **changes: Any) -> JudgeSettings:
    """Judge settings on the fake model; a disk cache only when `tmp_path` is given."""
    values: dict[str, Any] = {"model": MODEL, "use_cache": tmp_path is not None}
    if tmp_path is not None:
        values["cache_dir"] = tmp_path / "judge-cache"
    values.update(changes)
    return JudgeSettings(**values)


def no_sleep(seconds: float) -> None:
    """A retry sleep that returns at once and records nothing (tests must not wait)."""


def engine(client: FakeClient, tmp_path: Path | None = None, **changes: Any) -> JudgeEngine:
    """A judge engine on `client`, with retries that never sleep (`presettle=None`: every
    request reaches the client)."""
    presettle = changes.pop("presettle", settle)
    return JudgeEngine(settings(tmp_path, **changes), client, sleep=no_sleep, presettle=presettle)


def system_text(request: ChatRequest) -> str:
    """The system message of a chat request."""
    return next(m["content"] for m in request.messages if m["role"] == "system")


def user_text(request: ChatRequest) -> str:
    """The (first) user message of a chat request."""
    return next(m["content"] for m in request.messages if m["role"] == "user")


def delimiter_token(request: ChatRequest) -> str:
    """The per-call token announced in the system part."""
    found = re.search(r"<<DATA-([0-9a-f]{4})>>", system_text(request))
    assert found is not None, "the system part must name the delimiter token"
    return found.group(1)


def data_blocks(text: str, token: str) -> tuple[list[str], str]:
    """The contents of the fenced blocks in `text` (without the newlines around them) and the
    text outside every block."""
    opening, closing = f"<<DATA-{token}>>", f"<<END-DATA-{token}>>"
    blocks: list[str] = []
    outside: list[str] = []
    rest = text
    while opening in rest:
        before, _, after = rest.partition(opening)
        assert closing in after, "an opened data block must be closed"
        inside, _, rest = after.partition(closing)
        outside.append(before)
        blocks.append(inside.removeprefix("\n").removesuffix("\n"))
    outside.append(rest)
    return blocks, "".join(outside)
