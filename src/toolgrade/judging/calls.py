"""Every model call of one judge engine: retries, the first-call probe, concurrency, the
endpoint's gate, credentials refused once for all.

A call is retried on transient provider errors (tenacity, `client.is_transient`, honouring a
server's Retry-After through `client.RetryAfterWait`), bounded by the settings' `concurrency`
and, per endpoint, by the process-wide gate (`limits`). Until one call has been answered, calls
go one at a time, so a refused key meets one request rather than a whole first wave; a refused
key raises `ProviderAuthError` at once for every later call. Any other failure, after the last
try, becomes an unscored verdict carrying the error: a failure is never a pass.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from contextlib import nullcontext

from tenacity import Retrying, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_base

from toolgrade.errors import ProviderAuthError
from toolgrade.judging.client import (
    ChatClient,
    ChatReply,
    ChatRequest,
    is_auth_failure,
    is_transient,
    missing_keys,
    retry_after_s,
)
from toolgrade.judging.limits import RequestGate, gate_for
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension, Verdict
from toolgrade.settings import JudgeSettings

log = logging.getLogger(__name__)
#: Model-call failures shown per dimension before the rest are only counted.
FAILURES_SHOWN = 3

#: count(dimension, calls=1, errors=1, tokens=..., cost_usd=...): the engine's usage figures.
Counter = Callable[..., None]


class ModelCalls:
    """The calls one engine makes to its models (`models`: every model it may ask)."""

    def __init__(
        self,
        settings: JudgeSettings,
        client: ChatClient,
        models: Iterable[str],
        count: Counter,
        sleep: Callable[[float], None],
        wait: wait_base,
    ) -> None:
        self._settings = settings
        self._client = client
        self._count = count
        self._sleep = sleep
        self._wait = wait
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        # Shared with every engine of this process that serves from the same endpoint.
        self._gates: dict[str, RequestGate] = {
            model: gate_for(settings.api_base or model, settings.max_in_flight,
                            settings.requests_per_minute)
            for model in set(models)
        }
        self._lock = threading.Lock()
        #: Set at the first refused credential: no model is asked again through these calls.
        self._refused: ProviderAuthError | None = None
        self._first_call = threading.Lock()
        self._proven = False  # a model call has been answered: calls may go in parallel
        self._failures_shown: dict[JudgeDimension, int] = dict.fromkeys(JUDGE_DIMENSIONS, 0)

    def call(self, dim: JudgeDimension, request: ChatRequest) -> ChatReply | Verdict:
        """The reply, retried on transient errors; an unscored verdict after the last failure.
        A refused credential raises `ProviderAuthError`."""
        retrying = Retrying(
            stop=stop_after_attempt(self._settings.max_attempts),
            wait=self._wait,
            retry=retry_if_exception(is_transient),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            return retrying(self._complete_once, dim, request)
        except ProviderAuthError:
            raise
        except Exception as exc:  # provider failures of any kind end as unscored, never raise
            self._count(dim, errors=1)
            self._warn_failure(dim, exc)
            tries = retrying.statistics.get("attempt_number", 1)
            return Verdict.unscored(
                f"the judge model call failed ({tries} {'try' if tries == 1 else 'tries'}): "
                f"{type(exc).__name__}",
                error=f"{type(exc).__name__}: {exc}",
            )

    def _warn_failure(self, dim: JudgeDimension, exc: Exception) -> None:
        # An outage fails every call: the first few name the error, the rest are only counted
        # (the summary's judge `errors`), so a run's output is not a wall of the same line.
        with self._lock:
            self._failures_shown[dim] += 1
            shown = self._failures_shown[dim]
        if shown > FAILURES_SHOWN:
            return
        last = (
            f" (further failures of {dim} are counted in the summary, not shown)"
            if shown == FAILURES_SHOWN
            else ""
        )
        log.warning("judge %s: model call failed: %s: %s%s", dim, type(exc).__name__, exc, last)

    def _refuse(self, model: str, exc: BaseException) -> ProviderAuthError:
        """The error that stops the grading, made once: later requests raise the same."""
        with self._lock:
            if self._refused is None:
                known = getattr(exc, "variable", None)  # client.MissingKeyError says which
                keys = [known] if isinstance(known, str) else missing_keys(model)
                needs = (
                    f"set {self._settings.api_key_env} ([judge] api_key_env)"
                    if self._settings.api_key_env
                    else f"set {' or '.join(keys)}" if keys
                    else "check the provider's API key and its access to this model"
                )
                detail = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
                cut = detail if len(detail) <= 160 else detail[:157] + "..."
                self._refused = ProviderAuthError(model, needs, cut)
            return self._refused

    def _complete_once(self, dim: JudgeDimension, request: ChatRequest) -> ChatReply:
        if self._refused is not None:
            raise self._refused
        if not self._proven:
            # Until one call has been answered, calls go one at a time: a refused key is then
            # met by one request, not by every request of the first wave.
            with self._first_call:
                if self._refused is not None:
                    raise self._refused
                if not self._proven:
                    reply = self._ask_model(dim, request)
                    self._proven = True
                    return reply
        return self._ask_model(dim, request)

    def _ask_model(self, dim: JudgeDimension, request: ChatRequest) -> ChatReply:
        gate = self._gates.get(request.model)
        with self._slots, gate.request() if gate is not None else nullcontext():
            if self._refused is not None:  # refused while this request waited for a slot
                raise self._refused
            self._count(dim, calls=1)
            try:
                reply = self._client.complete(request)
            except Exception as exc:
                if is_auth_failure(exc):
                    self._count(dim, errors=1)
                    raise self._refuse(request.model, exc) from exc
                asked = retry_after_s(exc)
                if gate is not None and asked is not None:
                    # The server asked the whole process to wait, not only this request.
                    gate.pause(min(asked, self._settings.max_retry_after_s))
                raise
        self._count(
            dim, tokens=reply.prompt_tokens + reply.completion_tokens, cost_usd=reply.cost_usd
        )
        return reply
