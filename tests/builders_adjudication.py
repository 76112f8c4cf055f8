"""Builders for adjudication tests: a copy of examples/adjudication and judges on a fake client."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from toolgrade.judging import JudgeEngine
from toolgrade.judging.client import ChatRequest
from toolgrade.judging.scripted import FakeClient, verdict_json
from toolgrade.settings import JudgeSettings

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "adjudication"

#: The routes of the example's three cases that no listed route matches.
REFUND_ROUTE = ["refund", "search_orders"]
ADDRESS_ROUTE = ["get_customer", "update_address"]
PARCEL_ROUTE = ["track_shipment"]


def copy_example(tmp_path: Path) -> Path:
    """A private copy of examples/adjudication (suite, runs, script, settings)."""
    target = tmp_path / "adjudication"
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("out", "*.adjudications.jsonl"))
    return target


def route_verdicts() -> Callable[[ChatRequest], str]:
    """A fake alternate_route judge for the example: pass for the refund case's route, fail
    for the address case's, an unparseable reply (unscored) for the parcel case's."""

    def answer(request: ChatRequest) -> str:
        data = next(str(m["content"]) for m in request.messages if m["role"] == "user")
        if "blender" in data:
            return verdict_json("pass", reason="an equivalent lookup")
        if "B77" in data:
            return verdict_json("fail", reason="skips verification")
        return "no idea"

    return answer


def fake_engine(client: FakeClient) -> JudgeEngine:
    """A judge engine on the fake client, no cache, no retry waits."""
    settings = JudgeSettings(model="fake/judge", use_cache=False)
    return JudgeEngine(settings, client, sleep=lambda seconds: None)
