"""The chat-model interface the judge engine talks to, and its litellm implementation.

The engine never calls a provider directly: it hands a `ChatRequest` to a `ChatClient` and gets a
`ChatReply` back, so tests inject `scripted.FakeClient` and no test reaches the network. This is the
only module that imports litellm, lazily, and only after pointing litellm at its bundled cost map
so that the import itself makes no network request.

Between the engine's retries a server's `Retry-After` (HTTP 429 and 503) is honoured:
`RetryAfterWait` is a tenacity wait: when the failed attempt's exception carries a response
with a `Retry-After` header (seconds, fractions accepted, or an HTTP date), the engine waits
that long, capped at `[judge] max_retry_after_s`; otherwise it falls back to its exponential
backoff with jitter. A server asking for longer than the cap gets the cap: the attempt after it
may fail again, and after `max_attempts` the verdict is `unscored`, never waited on for ever.
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Protocol

from tenacity import RetryCallState
from tenacity.wait import wait_base

from toolgrade.errors import MissingKeyError, TransientError

#: Prefix of model strings served by the embedded local provider (in this process, not over
#: HTTP).
LOCAL_PREFIX = "local/"

#: Exception class names (anywhere in the MRO, from litellm or openai) worth retrying.
_TRANSIENT_NAMES: frozenset[str] = frozenset(
    {
        "RateLimitError",
        "Timeout",
        "APITimeoutError",
        "InternalServerError",
        "ServiceUnavailableError",
        "BadGatewayError",
        "APIConnectionError",
    }
)
_TRANSIENT_MODULES: tuple[str, ...] = ("litellm", "openai")

#: Exception class names (from litellm or openai) that say the credentials were refused.
_AUTH_NAMES: frozenset[str] = frozenset({"AuthenticationError", "PermissionDeniedError"})
#: What a provider says when no key was given at all: the OpenAI client's "Missing credentials"
#: reaches litellm as a server error (500), which would otherwise be retried.
_NO_KEY_TEXT = re.compile(
    r"missing credentials|missing [\w ]{0,30}api[ _]key|api_key client option must be set"
    r"|no api[ _]key|incorrect api[ _]key|invalid api[ _]key",
    re.IGNORECASE,
)


def is_auth_failure(exc: BaseException) -> bool:
    """True when the provider refused the credentials, or none were given: litellm's and
    openai's `AuthenticationError` and `PermissionDeniedError` (by class name, as for
    `is_transient`), an HTTP 401 or 403, or a message saying the key is missing or wrong."""
    for cls in type(exc).__mro__:
        if cls.__name__ in _AUTH_NAMES and cls.__module__.startswith(_TRANSIENT_MODULES):
            return True
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and status in (401, 403):
        return True
    return _NO_KEY_TEXT.search(str(exc)[:2000]) is not None


#: Providers whose SDK client refuses every call when no variable of its key is set (OpenAI's
#: "Missing credentials", Anthropic's "Missing Anthropic API Key"), whatever the model.
_KEY_VARIABLES = {
    "openai": ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
}


def unset_key_variable(model: str, extra: Mapping[str, Any]) -> str | None:
    """The key variable `model`'s provider needs when none of its variables is set and the
    call gives no key or endpoint of its own (`extra`), else None."""
    provider, slash, _ = model.partition("/")
    names = _KEY_VARIABLES.get(provider) if slash else None
    if not names or extra.get("api_key") or extra.get("api_base"):
        return None
    return None if any(os.environ.get(name) for name in names) else names[0]


def missing_keys(model: str) -> list[str]:
    """The environment variables litellm says `model`'s provider needs and are not set (none
    when it cannot tell); read from the environment only, no request made."""
    try:
        found = import_litellm().validate_environment(model=model)
    except Exception:  # an unknown provider: nothing to name
        return []
    keys = found.get("missing_keys") if isinstance(found, Mapping) else None
    return [str(k) for k in keys] if isinstance(keys, list) else []


def is_transient(exc: BaseException) -> bool:
    """True for rate limits, timeouts, server and connection errors; False for everything else.

    Recognised by class name in litellm's and openai's hierarchies (so this module need not
    import litellm to classify its errors), by an HTTP status of 408, 429 or 5xx, and for
    `TransientError`, `TimeoutError` and `ConnectionError`. A refused or missing credential
    (`is_auth_failure`) is never transient, whatever status it came with.
    """
    if is_auth_failure(exc):
        return False
    if isinstance(exc, TransientError | TimeoutError | ConnectionError):
        return True
    for cls in type(exc).__mro__:
        if cls.__name__ in _TRANSIENT_NAMES and cls.__module__.startswith(_TRANSIENT_MODULES):
            return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 429) or 500 <= status < 600)


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request, provider-neutral."""

    model: str
    messages: tuple[Mapping[str, str], ...]
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    response_format: Mapping[str, Any] | None = None
    logprobs: bool = False
    top_logprobs: int | None = None


@dataclass(frozen=True)
class TokenLogprobs:
    """One generated token and, when asked, the top alternatives at its position."""

    token: str
    top: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class ChatReply:
    """A completion: its text, usage and, when asked, the first token's top log-probabilities
    (`top_logprobs`) and every generated token's (`tokens`, for replies longer than a word)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    top_logprobs: tuple[tuple[str, float], ...] | None = None
    tokens: tuple[TokenLogprobs, ...] | None = None


class ChatClient(Protocol):
    """Anything that can answer a `ChatRequest` (may raise provider errors)."""

    def complete(self, request: ChatRequest) -> ChatReply:
        """Make one model call."""
        ...


def import_litellm() -> Any:
    """litellm, imported with its bundled cost map so the import makes no network request.

    Its debug banner ("Give Feedback / Get Help", printed to stdout on every provider error it
    maps) is switched off: the engine reports failures itself, and stdout carries the scorecard.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def _get(obj: Any, name: str) -> Any:
    """An attribute or a mapping key; litellm returns either depending on the provider."""
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _token_logprobs(choice: Any) -> tuple[TokenLogprobs, ...] | None:
    """Every generated token with its top alternatives; None when the provider sent none."""
    content = _get(_get(choice, "logprobs"), "content")
    if not content:
        return None
    return tuple(
        TokenLogprobs(
            token=str(_get(position, "token")),
            top=tuple((str(_get(t, "token")), float(_get(t, "logprob")))
                      for t in _get(position, "top_logprobs") or []),
        )
        for position in content
    )


def _cost(litellm: Any, response: Any) -> float:
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost")
    if cost is None:
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # unknown model prices are not an error: cost is just unknown
            cost = 0.0
    return float(cost or 0.0)


@dataclass
class LiteLLMClient:
    """A `ChatClient` over `litellm.completion` (any provider string litellm accepts).

    `mock_response` is passed through to litellm for offline tests: a string or an exception, or
    a sequence of them consumed one per call (the last one repeats). `extra` adds keyword
    arguments to every call (e.g. `api_base`).
    """

    mock_response: str | BaseException | Sequence[str | BaseException] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    _calls: int = field(default=0, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def complete(self, request: ChatRequest) -> ChatReply:
        """One `litellm.completion` call; provider errors propagate for the engine to retry."""
        unset = unset_key_variable(request.model, self.extra)
        if unset is not None and self.mock_response is None:
            raise MissingKeyError(request.model, unset)
        litellm = import_litellm()
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": [dict(m) for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "timeout": request.timeout_s,
            # Providers that lack a parameter (response_format, logprobs) drop it instead of
            # failing; the verdict parser copes with free text.
            "drop_params": True,
            # The engine's tenacity loop is the one retry layer: attempts are bounded and
            # counted in one place instead of multiplying with the SDK's own retries.
            "max_retries": 0,
            "num_retries": 0,
            **self.extra,
        }
        if request.response_format is not None:
            kwargs["response_format"] = dict(request.response_format)
        if request.logprobs:
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = request.top_logprobs
        mock = self._next_mock()
        if mock is not None:
            kwargs["mock_response"] = mock
        response = litellm.completion(**kwargs)
        choice = response.choices[0]
        usage = _get(response, "usage")
        tokens = _token_logprobs(choice)
        return ChatReply(
            text=str(_get(_get(choice, "message"), "content") or ""),
            prompt_tokens=int(_get(usage, "prompt_tokens") or 0),
            completion_tokens=int(_get(usage, "completion_tokens") or 0),
            cost_usd=_cost(litellm, response),
            top_logprobs=tokens[0].top if tokens else None,
            tokens=tokens,
        )

    def _next_mock(self) -> str | BaseException | None:
        mock = self.mock_response
        if mock is None or isinstance(mock, str | BaseException):
            return mock
        with self._lock:
            index = min(self._calls, len(mock) - 1)
            self._calls += 1
        return mock[index]


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
