"""Honouring a server's `Retry-After` (HTTP 429 and 503) between the engine's retries.

`RetryAfterWait` is a tenacity wait: when the failed attempt's exception carries a response
with a `Retry-After` header (seconds, fractions accepted, or an HTTP date), the engine waits
that long, capped at `[judge] max_retry_after_s`; otherwise it falls back to its exponential
backoff with jitter. A server asking for longer than the cap gets the cap: the attempt after it
may fail again, and after `max_attempts` the verdict is `unscored`, never waited on for ever.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from typing import Any

from tenacity import RetryCallState
from tenacity.wait import wait_base


def _headers_of(exc: BaseException) -> Mapping[str, str] | None:
    """The response headers an exception carries: litellm keeps them in
    `litellm_response_headers`, openai and httpx errors on `response.headers`."""
    headers: Any = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        headers = getattr(exc, "headers", None)
    return headers if isinstance(headers, Mapping) else None


def parse_retry_after(value: str, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait from a `Retry-After` value: delay-seconds or an HTTP date (a date in the
    past is 0); None when it is neither."""
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        return max(0.0, when.timestamp() - now())
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def retry_after_s(exc: BaseException, now: Callable[[], float] = time.time) -> float | None:
    """The wait an exception's `Retry-After` header asks for, or None without one."""
    headers = _headers_of(exc)
    if not headers:
        return None
    # httpx headers ignore case; a plain mapping from elsewhere may not.
    value = next((str(v) for k, v in headers.items() if str(k).lower() == "retry-after"), None)
    return parse_retry_after(value, now) if value is not None else None


class RetryAfterWait(wait_base):
    """Wait what the server's `Retry-After` says (at most `cap_s`), else `fallback`'s wait."""

    def __init__(
        self, fallback: wait_base, cap_s: float, now: Callable[[], float] = time.time
    ) -> None:
        self.fallback = fallback
        self.cap_s = cap_s
        self._now = now

    def __call__(self, retry_state: RetryCallState) -> float:
        """The seconds before the next attempt."""
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None and outcome.failed else None
        asked = retry_after_s(exc, self._now) if exc is not None else None
        if asked is None:
            return float(self.fallback(retry_state))
        return min(asked, self.cap_s)
