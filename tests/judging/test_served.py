"""The judge on a served model: litellm against a stand-in OpenAI-compatible server on
127.0.0.1 that injects faults and counts the requests it holds at once."""

from __future__ import annotations

import re
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import openai
import pytest

from builders_served import KEY_ENV, grade_all, items, served_engine, served_settings
from toolgrade.errors import ConfigError
from toolgrade.judging import JudgeEngine, build_judge, limits
from toolgrade.judging.factory import litellm_client
from toolgrade.judging.scripted import FakeClient, verdict_json
from toolgrade.judging.standin import FAULT_KINDS, FaultPlan, StandInServer
from toolgrade.settings import JudgeSettings, Settings


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "stand-in-key")


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """One call first: litellm's first request imports for seconds, which would otherwise fall
    inside the timed and timed-out tests below."""
    with pytest.MonkeyPatch.context() as patch, StandInServer() as server:
        patch.setenv(KEY_ENV, "stand-in-key")
        with served_engine(served_settings(server, timeout_s=60.0)) as engine:
            assert engine.judge(items(1)[0]).verdict == "pass"


def test_transient_faults_lose_no_verdict_and_the_cap_holds() -> None:
    plan = FaultPlan(rate=0.2, retry_after="0.05", hang_s=2.0, delay_s=0.02)
    with StandInServer(plan) as server:
        # A timeout of 1 s: only the hung replies (held 2 s) time out, even on a busy machine.
        settings = served_settings(server, max_in_flight=4, concurrency=8, timeout_s=1.0)
        with served_engine(settings) as engine:
            verdicts = grade_all(engine, items(40), threads=8)
            usage = engine.usage()["argument_equivalence"]
    assert [v.verdict for v in verdicts] == ["pass"] * 40  # made, none lost, none guessed
    assert server.answered == 40
    assert set(server.faults) == set(FAULT_KINDS)  # every kind was injected and survived
    assert sum(server.faults.values()) == server.requests - 40 >= 8  # 20% of the requests
    assert 2 <= server.max_in_flight <= 4
    assert (usage["calls"], usage["errors"], usage["unscored"]) == (server.requests, 0, 0)


def test_without_a_cap_the_server_sees_more_than_four() -> None:
    # The measurement can fail: the same load uncapped overlaps more than four requests.
    with (StandInServer(FaultPlan(delay_s=0.3)) as server,
          served_engine(served_settings(server, concurrency=8)) as engine):
        verdicts = grade_all(engine, items(16), threads=8)
    assert all(v.verdict == "pass" for v in verdicts)
    assert server.max_in_flight > 4


def test_the_cap_is_per_process_across_engines() -> None:
    with StandInServer(FaultPlan(delay_s=0.1)) as server:
        settings = served_settings(server, max_in_flight=2, concurrency=4)
        with (served_engine(settings) as first, served_engine(settings) as second,
              ThreadPoolExecutor(8) as pool):
            jobs = [pool.submit((first if i % 2 else second).judge, r)
                    for i, r in enumerate(items(16))]
            verdicts = [j.result() for j in jobs]
    assert all(v.verdict == "pass" for v in verdicts)
    assert server.max_in_flight <= 2


def test_a_permanent_fault_is_unscored_naming_the_error() -> None:
    with (StandInServer(FaultPlan(always=404)) as server,
          served_engine(served_settings(server)) as engine):
        verdict = engine.judge(items(1)[0])
    assert verdict.verdict == "unscored"
    assert verdict.reason == "the judge model call failed (1 try): NotFoundError"
    assert "permanent stand-in fault" in (verdict.error or "")
    assert server.requests == 1  # not retried


def test_a_server_that_stays_down_is_unscored_after_the_last_try() -> None:
    with (StandInServer(FaultPlan(always=503)) as server,
          served_engine(served_settings(server, max_attempts=3)) as engine):
        verdict = engine.judge(items(1)[0])
    assert verdict.verdict == "unscored"
    assert verdict.reason == "the judge model call failed (3 tries): ServiceUnavailableError"
    assert server.requests == 3


@pytest.mark.parametrize(("header", "cap", "waited"), [("0.05", 1.0, 0.05), ("120", 0.25, 0.25)])
def test_retry_after_is_waited_up_to_the_cap(header: str, cap: float, waited: float) -> None:
    slept: list[float] = []
    plan = FaultPlan(rate=1.0, kinds=("429",), retry_after=header, max_in_a_row=1)
    with StandInServer(plan) as server:
        settings = served_settings(server, max_retry_after_s=cap)
        with served_engine(settings, sleep=slept.append) as engine:
            assert engine.judge(items(1)[0]).verdict == "pass"
    assert slept == [waited]


def test_a_retry_after_pauses_the_other_engines_of_the_process() -> None:
    # Engine A is told to wait 0.3 s; engine B, on the same endpoint, must not start before.
    request = httpx.Request("POST", "http://pause.test/v1/chat/completions")
    throttled = openai.RateLimitError(
        "429", response=httpx.Response(429, headers={"retry-after": "0.3"}, request=request),
        body=None)
    settings = JudgeSettings(model="fake/served", api_base="http://pause.test/v1",
                             use_cache=False, max_attempts=1)
    first = JudgeEngine(settings, FakeClient([throttled]), presettle=None)
    second = JudgeEngine(settings, FakeClient([verdict_json("pass")]), presettle=None)
    began = time.monotonic()
    assert first.judge(items(1)[0]).verdict == "unscored"  # one try: no wait of its own
    assert second.judge(items(2)[1]).verdict == "pass"
    assert time.monotonic() - began >= 0.3


def test_requests_per_minute_bounds_starts_in_any_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits, "MINUTE_S", 1.0)  # a minute scaled down to a second
    with StandInServer() as server:
        settings = served_settings(server, requests_per_minute=3, concurrency=6)
        with served_engine(settings) as engine:
            began = time.monotonic()
            verdicts = grade_all(engine, items(6), threads=6)
            elapsed = time.monotonic() - began
    assert all(v.verdict == "pass" for v in verdicts)
    starts = server.starts
    # Starts are gated at the client; a window 0.4 s short of it absorbs the transit jitter.
    assert max(sum(1 for t in starts if s <= t < s + 0.6) for s in starts) <= 3
    assert elapsed >= 1.0  # six starts at three a window take two windows


def test_build_judge_sends_requests_to_the_api_base() -> None:
    with StandInServer() as server:
        engine = build_judge(served_settings(server))
        assert engine is not None
        with engine:
            assert engine.judge(items(1)[0]).verdict == "pass"
    assert server.answered == 1


def test_a_key_variable_that_is_not_set_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(KEY_ENV)
    with StandInServer() as server, pytest.raises(ConfigError, match=KEY_ENV):
        litellm_client(served_settings(server))


def test_the_documented_settings_load() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "served_judge.md"
    block = re.search(r"```toml\n(.*?)```", page.read_text(), re.S)
    assert block is not None
    judge = Settings.model_validate(tomllib.loads(block.group(1))).judge
    assert (judge.api_base, judge.max_in_flight, judge.requests_per_minute) == (
        "http://gpu-box:8000/v1", 8, 600)
