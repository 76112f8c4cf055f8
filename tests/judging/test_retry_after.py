"""Reading Retry-After from provider errors, and the tenacity wait that honours it."""

from __future__ import annotations

from email.utils import formatdate
from typing import Any

import httpx
import openai
import pytest
from tenacity import RetryCallState, Retrying, wait_fixed

from toolgrade.judging.client import RetryAfterWait, parse_retry_after, retry_after_s

NOW = 1_800_000_000.0


def status_error(status: int, headers: dict[str, str]) -> openai.APIStatusError:
    """An openai status error carrying a real httpx response with these headers."""
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(status, headers=headers, request=request)
    return openai.APIStatusError("stand-in", response=response, body=None)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("7", 7.0), (" 0.05 ", 0.05), (formatdate(NOW + 30, usegmt=True), 30.0),
     (formatdate(NOW - 30, usegmt=True), 0.0), ("soon", None), ("-3", None), ("nan", None)],
)
def test_parse_seconds_or_an_http_date(value: str, seconds: float | None) -> None:
    assert parse_retry_after(value, now=lambda: NOW) == seconds


def test_the_header_is_read_from_the_errors_response_in_any_case() -> None:
    assert retry_after_s(status_error(429, {"Retry-After": "2"})) == 2.0
    assert retry_after_s(status_error(503, {})) is None
    assert retry_after_s(ValueError("no response")) is None


def test_litellm_keeps_the_headers_of_its_own_errors() -> None:
    from toolgrade.judging.client import import_litellm

    litellm = import_litellm()
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(503, headers={"retry-after": "3"}, request=request)
    error = litellm.ServiceUnavailableError("503", llm_provider="openai", model="m",
                                            response=response)
    assert retry_after_s(error) == 3.0


def state_after(exc: BaseException) -> RetryCallState:
    """The retry state after one attempt that raised `exc`."""
    state = RetryCallState(Retrying(), fn=None, args=(), kwargs={})
    state.set_exception((type(exc), exc, None))
    return state


@pytest.mark.parametrize(("headers", "expected"), [
    ({"retry-after": "0.5"}, 0.5), ({"retry-after": "600"}, 10.0),
    ({"retry-after": formatdate(NOW + 4, usegmt=True)}, 4.0), ({}, 1.25)])
def test_the_wait_honours_the_header_capped_else_falls_back(
    headers: dict[str, Any], expected: float
) -> None:
    wait = RetryAfterWait(wait_fixed(1.25), cap_s=10.0, now=lambda: NOW)
    assert wait(state_after(status_error(429, headers))) == expected
