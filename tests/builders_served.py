"""Builders for the served-judge tests: settings pointed at a stand-in server, an engine on
them with scaled-down backoff, and distinct judge items graded from several threads."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tenacity import wait_fixed

from builders_judging import request_for
from toolgrade.judging import JudgeEngine
from toolgrade.judging.client import RetryAfterWait
from toolgrade.judging.factory import litellm_client
from toolgrade.judging.standin import StandInServer
from toolgrade.models import JudgeRequest, Verdict
from toolgrade.settings import JudgeSettings

#: The environment variable the tests' settings read the stand-in's key from.
KEY_ENV = "TOOLGRADE_TEST_SERVED_KEY"


def served_settings(server: StandInServer, **changes: Any) -> JudgeSettings:
    """Judge settings serving `openai/stand-in` from `server`, no cache, short timeouts."""
    values: dict[str, Any] = {
        "model": "openai/stand-in",
        "api_base": server.url,
        "api_key_env": KEY_ENV,
        "use_cache": False,
        "timeout_s": 0.5,
        "max_attempts": 4,
        "max_retry_after_s": 1.0,
    }
    values.update(changes)
    return JudgeSettings(**values)


def served_engine(
    settings: JudgeSettings, sleep: Callable[[float], None] | None = None
) -> JudgeEngine:
    """An engine on the settings' litellm client, every request reaching the model, with a
    50 ms backoff where the server sends no Retry-After (the default waits seconds)."""
    wait = RetryAfterWait(wait_fixed(0.05), cap_s=settings.max_retry_after_s)
    extra: dict[str, Any] = {"sleep": sleep} if sleep is not None else {}
    return JudgeEngine(settings, litellm_client(settings), wait=wait, presettle=None, **extra)


def items(n: int) -> list[JudgeRequest]:
    """`n` distinct argument-equivalence questions (none memoised into another)."""
    return [request_for("argument_equivalence", actual=f"low-cost flights, offer {i}")
            for i in range(n)]


def grade_all(engine: JudgeEngine, requests: list[JudgeRequest], threads: int) -> list[Verdict]:
    """Every request judged from a pool of `threads`, verdicts in request order."""
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(engine.judge, requests))
