"""The engine against litellm's real exception classes and `litellm.completion(mock_response=...)`.

No test here reaches the network: sockets are refused for the whole module, and litellm is
imported with its bundled cost map.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builders_judging import all_requests, no_sleep, request_for, settings
from toolgrade.errors import ProviderAuthError
from toolgrade.judging import JudgeEngine
from toolgrade.judging.client import LiteLLMClient, import_litellm, is_auth_failure, is_transient
from toolgrade.judging.scripted import FakeClient, verdict_json

litellm = import_litellm()
MODEL = "openai/gpt-4o-mini"


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("network access in a test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    yield


def provider_errors() -> list[BaseException]:
    """One of each transient litellm error."""
    kw = {"llm_provider": "openai", "model": MODEL}
    return [
        litellm.RateLimitError("429 slow down", **kw),
        litellm.Timeout("timed out", **kw),
        litellm.InternalServerError("500 boom", **kw),
        litellm.ServiceUnavailableError("503 unavailable", **kw),
        litellm.APIConnectionError("connection reset", **kw),
    ]


def make(client: Any, tmp_path: Path | None = None, **changes: Any) -> JudgeEngine:
    return JudgeEngine(settings(tmp_path, model=MODEL, **changes), client, sleep=no_sleep)


def test_litellm_import_did_not_fetch_the_cost_map() -> None:
    import os

    assert os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP") == "True"


@pytest.mark.parametrize("error", provider_errors(), ids=lambda e: type(e).__name__)
def test_transient_litellm_errors_are_retried(error: BaseException) -> None:
    assert is_transient(error)
    client = FakeClient([error, verdict_json("pass")])
    judge = make(client)
    assert judge.judge(request_for("alternate_route")).verdict == "pass"
    assert client.calls == 2


def auth_errors() -> list[BaseException]:
    """Refused or missing credentials as litellm raises them (the OpenAI client's "Missing
    credentials" reaches litellm as a 500)."""
    kw = {"llm_provider": "openai", "model": MODEL}
    return [
        litellm.AuthenticationError("bad key", **kw),
        litellm.PermissionDeniedError("no access to this model", response=_response(403), **kw),
        litellm.InternalServerError(
            "OpenAIException - Missing credentials. Please pass an `api_key`", **kw
        ),
    ]


def _response(status: int) -> Any:
    import httpx

    return httpx.Response(status, request=httpx.Request("POST", "http://127.0.0.1/v1"))


@pytest.mark.parametrize("error", auth_errors(), ids=lambda e: type(e).__name__)
def test_a_refused_credential_stops_at_the_first_call_naming_the_variable(
    error: BaseException, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert is_auth_failure(error) and not is_transient(error)
    client = FakeClient([error, verdict_json("pass")])
    judge = make(client)
    with pytest.raises(ProviderAuthError) as caught:
        judge.judge(request_for("alternate_route"))
    assert MODEL in str(caught.value) and "set OPENAI_API_KEY" in str(caught.value)
    with pytest.raises(ProviderAuthError):  # no other item is asked
        judge.judge(request_for("recovery_quality"))
    assert client.calls == 1


def test_no_key_through_real_litellm_stops_with_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The OpenAI client refuses before any connection (sockets are refused here anyway)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    judge = make(LiteLLMClient(), max_attempts=4)
    with pytest.raises(ProviderAuthError, match="set OPENAI_API_KEY"):
        judge.judge(request_for("alternate_route"))
    assert judge.usage()["alternate_route"]["calls"] == 1  # not retried


def test_mock_response_through_litellm_yields_the_verdict() -> None:
    client = LiteLLMClient(mock_response=verdict_json("fail", reason="different city"))
    judge = make(client)
    verdict = judge.judge(request_for("argument_equivalence"))
    assert (verdict.verdict, verdict.reason, verdict.model) == ("fail", "different city", MODEL)
    usage = judge.usage()["argument_equivalence"]
    assert usage["calls"] == 1 and usage["tokens"] > 0


def test_a_429_then_success_through_litellm_yields_the_verdict() -> None:
    rate_limited = litellm.RateLimitError("429", llm_provider="openai", model=MODEL)
    client = LiteLLMClient(mock_response=[rate_limited, verdict_json("pass")])
    judge = make(client)
    assert judge.judge(request_for("recovery_quality")).verdict == "pass"
    usage = judge.usage()["recovery_quality"]
    assert (usage["calls"], usage["errors"]) == (2, 0)


def test_a_provider_that_always_fails_completes_the_run_unscored() -> None:
    failing = litellm.ServiceUnavailableError("503", llm_provider="openai", model=MODEL)
    judge = make(LiteLLMClient(mock_response=failing), max_attempts=3)
    verdicts = [judge.judge(r) for r in all_requests()]
    assert [v.verdict for v in verdicts] == ["unscored"] * 4
    assert all("ServiceUnavailableError" in (v.error or "") for v in verdicts)
    usage = judge.usage()
    assert all(u["errors"] == 1 and u["calls"] == 3 for u in usage.values())


def test_garbage_through_litellm_is_never_a_pass() -> None:
    judge = make(LiteLLMClient(mock_response="PASS. Definitely pass."))
    verdict = judge.judge(request_for("result_interpretation"))
    assert verdict.verdict == "unscored" and verdict.raw == "PASS. Definitely pass."
    assert judge.usage()["result_interpretation"]["calls"] == 2


def test_a_second_run_through_litellm_makes_zero_calls(tmp_path: Path) -> None:
    with make(LiteLLMClient(mock_response=verdict_json("pass")), tmp_path) as judge:
        assert [judge.judge(r).verdict for r in all_requests()] == ["pass"] * 4
    failing = litellm.InternalServerError("must not be called", llm_provider="openai", model=MODEL)
    with make(LiteLLMClient(mock_response=failing), tmp_path) as judge:
        assert [judge.judge(r).verdict for r in all_requests()] == ["pass"] * 4
        assert all(u["calls"] == 0 and u["cache_hits"] == 1 for u in judge.usage().values())


def test_a_provider_error_prints_nothing_on_stdout(capfd: pytest.CaptureFixture[str]) -> None:
    # litellm prints a "Give Feedback / Get Help" banner to stdout for every provider error it
    # maps unless told not to: a failing provider must not interleave that with the scorecard.
    import httpx
    import openai

    response = httpx.Response(500, request=httpx.Request("POST", "http://127.0.0.1/v1"))
    error = openai.InternalServerError("boom", response=response, body=None)
    judge = make(LiteLLMClient(mock_response=error), max_attempts=2)
    verdict = judge.judge(request_for("alternate_route"))
    assert verdict.verdict == "unscored" and "InternalServerError" in (verdict.error or "")
    out, err = capfd.readouterr()
    assert "Give Feedback" not in out + err and "LiteLLM.Info" not in out + err
    assert out == ""


@pytest.mark.parametrize(
    ("model", "extra", "env", "unset"),
    [
        ("openai/gpt-4o-mini", {}, {}, "OPENAI_API_KEY"),
        ("anthropic/claude-x", {}, {}, "ANTHROPIC_API_KEY"),
        ("openai/gpt-4o-mini", {}, {"OPENAI_API_KEY": "sk"}, None),
        ("openai/served", {"api_base": "http://127.0.0.1:8000/v1"}, {}, None),  # a served model
        ("openai/gpt-4o-mini", {"api_key": "sk"}, {}, None),  # [judge] api_key_env
        ("gemini/gemini-2.0-flash", {}, {}, None),  # other providers: litellm says at the call
        ("gpt-4o-mini", {}, {}, None),
    ],
)
def test_a_provider_that_needs_a_key_is_known_without_litellm(
    monkeypatch: pytest.MonkeyPatch, model: str, extra: dict[str, str], env: dict[str, str],
    unset: str | None,
) -> None:
    from toolgrade.judging.client import unset_key_variable

    for name in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert unset_key_variable(model, extra) == unset
