"""The judge engine: one `JudgePort` serving all four dimensions, each with its own template.

For each request: in-run memo (identical requests are made once, even concurrently) -> verdict
cache (disk, Redis, or both: `[cache] backend`) -> render (delimiters derived from the content
and the installation's secret, `judging.prompts`) -> model call under a concurrency bound,
with tenacity retries on transient provider errors (`judging.calls`) -> parse; a reply that
does not parse is asked again once, then recorded `unscored`. `judge()` never raises for model
or provider failures, and never turns a failure into a pass.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any, Literal

from tenacity import wait_exponential_jitter
from tenacity.wait import wait_base

from toolgrade.errors import CacheStorageError, PromptError, ProviderAuthError
from toolgrade.jsonio.values import JsonObject
from toolgrade.judging.cache import Sampling, VerdictStore, cache_key
from toolgrade.judging.cache_shared import open_cache
from toolgrade.judging.calls import ModelCalls
from toolgrade.judging.checklist import (
    Checklist,
    Question,
    answer_checklist,
    combined_hash,
    load_checklist,
)
from toolgrade.judging.checklist_batch import (
    BatchAnswers,
    BatchForm,
    answer_checklist_batch,
    asks_in_one_request,
    batch_hash,
    batch_request,
    load_batch_form,
    read_batch,
)
from toolgrade.judging.client import (
    ChatClient,
    ChatReply,
    ChatRequest,
    RetryAfterWait,
)
from toolgrade.judging.combine import (
    NOTHING_DECIDED,
    abstain,
    apply_band,
    combine,
    decides_nothing,
)
from toolgrade.judging.examples import (
    ExamplePool,
    ExamplesLayout,
    WithExamples,
    examples_hash,
    load_layout,
    load_pool,
)
from toolgrade.judging.prompts import (
    EvidenceTemplate,
    PromptTemplate,
    RenderedPrompt,
    content_token,
    installation_secret,
    load_templates,
)
from toolgrade.judging.settle import Settler, settle
from toolgrade.judging.signals_judge import (
    SIGNALS_TEMPLATE_HASH,
    is_signals_model,
    signals_verdict,
)
from toolgrade.judging.verdict import p_pass_from_logprobs, parse_reply, reply_schema
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension, JudgeRequest, Verdict
from toolgrade.models.judge_usage import UsageByDimension
from toolgrade.settings import JudgeSettings

log = logging.getLogger(__name__)
#: How many alternatives are asked for in log-probability mode (OpenAI's maximum is 20).
TOP_LOGPROBS = 20

_CORRECTION = (
    "Your previous reply did not follow the required output format. Reply again, following the "
    "output format given in the system message exactly."
)


@dataclass
class _Usage:
    """Running figures of one dimension (mutated under the engine's lock)."""

    model: str | None
    calls: int = 0
    requests: int = 0
    cache_hits: int = 0
    memo_hits: int = 0
    settled: int = 0  # answered by the injection screen or deterministic evidence, no model
    unscored: int = 0
    errors: int = 0
    tokens: int = 0
    cost_usd: float = 0.0


class JudgeEngine:
    """Implements `JudgePort`; thread-safe, so the runner may call `judge()` from a pool.

    Identical requests in one engine are answered once (`memoises`): repeated calibration needs
    a fresh engine per repeat.

    `models` maps each dimension to its model (None: unconfigured, answered `unscored`); by
    default each dimension's `settings.for_dimension(dim).model`. `sleep` and `wait` control the
    retry backoff (tests pass a no-op sleep). `presettle` decides a request without the model
    where code can (the injection screen, decisive evidence); None asks the model about every
    request (tests of the prompt fencing use it). The verdict cache is opened from the settings
    (`open_cache`) unless one is given; `use_cache=False` disables it either way. `role` (e.g.
    "escalation") goes into the cache key, so a judge serving another role never shares entries
    with the first judge.
    """

    #: Identical requests are asked once per engine (the in-run memo), then replayed.
    memoises = True

    def __init__(
        self,
        settings: JudgeSettings,
        client: ChatClient,
        *,
        models: Mapping[JudgeDimension, str | None] | None = None,
        cache: VerdictStore | None = None,
        templates: Mapping[JudgeDimension, PromptTemplate] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        wait: wait_base | None = None,
        presettle: Settler | None = settle,
        role: str | None = None,
        delimiter_secret: bytes | None = None,
        checklists: Mapping[JudgeDimension, Checklist] | None = None,
        pools: Mapping[JudgeDimension, ExamplePool] | None = None,
        batch_form: BatchForm | None = None,
    ) -> None:
        self._settings = settings
        self._secret = delimiter_secret  # None: the installation's, read at the first render
        self._role = role  # part of the cache key (an escalation judge's verdicts stay its own)
        self._presettle = presettle
        self._client = client
        self._templates = dict(templates) if templates is not None else load_templates()
        # Resolved once: `for_dimension` copies the settings, and judge() runs per request.
        self._dim_settings = {dim: settings.for_dimension(dim) for dim in JUDGE_DIMENSIONS}
        # Loaded only for the dimensions judged by checklist (a broken file stops the build).
        given_lists = checklists or {}
        self._checklists: dict[JudgeDimension, Checklist] = {
            dim: given_lists.get(dim) or load_checklist(dim)
            for dim, s in self._dim_settings.items() if s.asks_checklist
        }
        # Nearest labelled examples: each showing dimension's pool, loaded (and checked) once.
        given_pools = pools or {}
        self._pools: dict[JudgeDimension, ExamplePool] = {
            dim: given_pools.get(dim) or load_pool(dim, s.examples_from)
            for dim, s in self._dim_settings.items() if s.examples > 0
        }
        self._layout: ExamplesLayout | None = load_layout() if self._pools else None
        given = models or {}
        self._models: dict[JudgeDimension, str | None] = {}
        for dim, dim_settings in self._dim_settings.items():
            model = given.get(dim, dim_settings.model)
            self._models[dim] = model if dim_settings.enabled else None
        # The checklists a served model is asked in one request per order (checklist_batch).
        self._batched: set[JudgeDimension] = {
            dim for dim in self._checklists
            if (model := self._models[dim]) is not None
            and asks_in_one_request(model, self._dim_settings[dim].checklist_requests)
        }
        self._batch_form = (batch_form or load_batch_form()) if self._batched else None
        if not settings.use_cache:
            cache = None
        elif cache is None:
            cache = open_cache(settings)
        self._cache = cache
        self._cache_warned = False
        self._batch_warned: set[JudgeDimension] = set()
        self._lock = threading.Lock()
        backoff = wait or RetryAfterWait(
            wait_exponential_jitter(initial=1.0, max=30.0, jitter=1.0),
            cap_s=settings.max_retry_after_s,
        )
        # Retries, concurrency, the endpoint's gate and refused credentials (judging.calls).
        self._calls = ModelCalls(settings, client, {m for m in self._models.values() if m},
                                 self._count, sleep, backoff)
        self._memo: dict[str, Future[Verdict]] = {}
        # Fixed for the engine's life, and read several times per request: hashed once.
        self._template_hashes = {dim: self._hash_of(dim) for dim in JUDGE_DIMENSIONS}
        self._usage = {dim: _Usage(model=self._models[dim]) for dim in JUDGE_DIMENSIONS}

    # -- public API -------------------------------------------------------------------------

    def judge(self, request: JudgeRequest) -> Verdict:
        """The verdict for one request; identical requests in this run are asked once.

        Never raises for a failure of the judging itself: a client that answers nothing usable,
        or judged content that cannot be encoded, gives an unscored verdict carrying the error,
        so the check asking keeps its deterministic result. A provider refusing the credentials
        is not such a failure: every later call would be refused too, so `ProviderAuthError`
        is raised at the first (and at once for every later request), to stop the grading.
        """
        try:
            return self._judge(request)
        except ProviderAuthError:
            raise
        except Exception as exc:  # judging failed: data for the record, never a crashed check
            self._count(request.dimension, unscored=1, errors=1)
            reason = f"the judge failed: {type(exc).__name__}"
            return Verdict.unscored(reason, error=str(exc))

    def _judge(self, request: JudgeRequest) -> Verdict:
        dim = request.dimension
        self._count(dim, requests=1)
        model = self._models[dim]
        if model is None:
            self._count(dim, unscored=1)
            if not self._dim_settings[dim].enabled:
                return Verdict.unscored(f"judging is off for {dim} in the settings")
            return Verdict.unscored(f"no judge model is configured for {dim}")
        settings = self._dim_settings[dim]
        settled = self._presettle(dim, request.inputs, settings.mode) if self._presettle else None
        if settled is not None:
            self._count(dim, settled=1)
            return settled.model_copy(
                update={"model": model, "template_hash": self.template_hash_for(dim)}
            )
        if is_signals_model(model):
            # No model is asked: the signals judge answers at once, inside its band unscored.
            verdict = apply_band(settings.band, signals_verdict(dim, settings, request.inputs))
            self._count(dim, unscored=int(not verdict.scored))
            return verdict
        if decides_nothing(settings):
            # A band over every P(pass): no answer of the model could be decided, so it is
            # not asked (the local model's seconds per item buy nothing).
            self._count(dim, unscored=1)
            return Verdict.unscored(NOTHING_DECIDED, model=model,
                                    template_hash=self.template_hash_for(dim))
        template, shown = self._with_examples(dim, self._templates[dim], request)
        key = cache_key(
            model=model,
            sampling=self._sampling(settings),
            mode=settings.mode,
            dimension=dim,
            template_hash=self.template_hash_for(dim),
            inputs=request.inputs,
            role=self._role,
            examples=shown,
        )
        with self._lock:
            future = self._memo.get(key)
            owner = future is None
            if future is None:
                future = self._memo[key] = Future()
        if not owner:
            verdict = future.result()
            self._count(dim, memo_hits=1, unscored=int(not verdict.scored))
            return verdict
        try:
            verdict = self._resolve(dim, settings, model, template, key, request.inputs)
            verdict = abstain(settings, combine(dim, settings, request.inputs, verdict))
        except BaseException as exc:  # free the waiters (they get the same error), re-raise
            future.set_exception(exc)
            raise
        future.set_result(verdict)
        self._count(dim, unscored=int(not verdict.scored))
        return verdict

    def usage(self) -> UsageByDimension:
        """Per dimension: model, calls, requests, cache_hits, memo_hits, settled (decided without
        the model), unscored, errors, tokens, cost_usd (`calls` counts every model call made,
        retries and re-asks included)."""
        with self._lock:
            return {
                dim: {
                    "model": u.model,
                    "calls": u.calls,
                    "requests": u.requests,
                    "cache_hits": u.cache_hits,
                    "memo_hits": u.memo_hits,
                    "settled": u.settled,
                    "unscored": u.unscored,
                    "errors": u.errors,
                    "tokens": u.tokens,
                    "cost_usd": round(u.cost_usd, 8),
                }
                for dim, u in self._usage.items()
            }

    def model_for(self, dimension: JudgeDimension) -> str:
        """The model judging `dimension` ("unconfigured" when none)."""
        return self._models[dimension] or "unconfigured"

    def template_hash_for(self, dimension: JudgeDimension) -> str:
        """The hash of the prompt template `dimension` is judged with (records keep theirs); in
        checklist mode, of the template and the checklist together (and the batch form, when a
        served model is asked the checklist in one request); showing examples, of those with
        K, the examples' pool and their layout."""
        return self._template_hashes[dimension]

    def _hash_of(self, dimension: JudgeDimension) -> str:
        if is_signals_model(self._models[dimension]):
            return SIGNALS_TEMPLATE_HASH
        template_hash = self._templates[dimension].template_hash
        checklist = self._checklists.get(dimension)
        if checklist is not None:
            template_hash = combined_hash(template_hash, checklist.checklist_hash)
            if self._batch_form is not None and dimension in self._batched:
                template_hash = batch_hash(template_hash, self._batch_form.form_hash)
        pool = self._pools.get(dimension)
        if pool is None or self._layout is None:
            return template_hash
        k = self._dim_settings[dimension].examples
        return examples_hash(template_hash, k, pool.sha256, self._layout)

    def examples_for(self, dimension: JudgeDimension) -> tuple[int, str | None]:
        """The nearest examples `dimension` shows per item (K) and the hash of their pool
        (0 and None when it shows none)."""
        pool = self._pools.get(dimension)
        if pool is None:
            return 0, None
        return self._dim_settings[dimension].examples, pool.sha256

    def _with_examples(
        self, dim: JudgeDimension, template: PromptTemplate, request: JudgeRequest
    ) -> tuple[EvidenceTemplate, list[str] | None]:
        """The template the request is rendered with, and the ids of the examples it shows
        (None when the dimension shows none: the cache key is then that of before)."""
        pool = self._pools.get(dim)
        if pool is None or self._layout is None:
            return template, None
        chosen = pool.nearest(request.inputs, self._dim_settings[dim].examples,
                              leave_out=request.item_id)
        return (WithExamples(template, self._layout, chosen, self.template_hash_for(dim)),
                [item.id for item in chosen])

    def close(self) -> None:
        """Close the verdict cache."""
        if self._cache is not None:
            self._cache.close()

    def __enter__(self) -> JudgeEngine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- one request --------------------------------------------------------------------------

    def _resolve(
        self,
        dim: JudgeDimension,
        settings: JudgeSettings,
        model: str,
        template: EvidenceTemplate,
        key: str,
        inputs: Mapping[str, Any],
    ) -> Verdict:
        if self._cache is not None:
            record = self._cache_get(key)
            if record is not None:
                cached = self._from_record(record, settings)
                if cached is not None:
                    self._count(dim, cache_hits=1)
                    return cached
        checklist = self._checklists.get(dim)
        if checklist is not None:
            verdict = self._ask_checklist(dim, settings, model, template, checklist, inputs)
            if verdict.scored and self._cache is not None:
                self._cache_set(key, verdict)
            return verdict
        stamp = {"model": model, "template_hash": template.template_hash}
        try:
            token = content_token(self._delimiter_secret(), template.template_hash,
                                  settings.mode, inputs)
            prompt = template.render(inputs, answer_mode=settings.mode, token=token)
        except PromptError as exc:
            self._count(dim, errors=1)
            return Verdict.unscored(
                "the judge prompt could not be rendered", error=str(exc), **stamp
            )
        verdict = self._ask(dim, settings, model, prompt)
        if verdict.scored and self._cache is not None:
            self._cache_set(key, verdict)
        return verdict

    def _ask_checklist(
        self,
        dim: JudgeDimension,
        settings: JudgeSettings,
        model: str,
        template: EvidenceTemplate,
        checklist: Checklist,
        inputs: Mapping[str, Any],
    ) -> Verdict:
        """The checklist verdict: each question a request sharing the evidence prefix, or, for a
        served model, one request per order asking them all."""
        stamp = {"model": model, "template_hash": self.template_hash_for(dim)}

        def token_for(order: Mapping[str, Any]) -> str:
            return content_token(self._delimiter_secret(), stamp["template_hash"], "checklist",
                                 order)

        def ask_one(prompt: RenderedPrompt) -> float | Verdict:
            reply = self._calls.call(dim, self._chat_request(dim, settings, model, prompt))
            if isinstance(reply, Verdict):
                return reply
            p_yes = p_pass_from_logprobs(reply.top_logprobs or ())
            if p_yes is None:
                return Verdict.unscored("the judge answered a checklist question with neither "
                                        "yes nor no", raw=reply.text)
            return p_yes

        def ask_batch(prompt: RenderedPrompt,
                      questions: Sequence[Question]) -> BatchAnswers | Verdict:
            one = self._chat_request(dim, settings, model, prompt)
            reply = self._calls.call(dim, batch_request(one, dim, questions))
            if isinstance(reply, Verdict):
                return reply
            read = read_batch(reply, [q.id for q in questions])
            if read.left:
                self._warn_batch(dim, read, len(questions))
            return read

        try:
            if self._batch_form is not None and dim in self._batched:
                verdict = answer_checklist_batch(checklist, self._batch_form, template, inputs,
                                                 token_for, ask_batch, ask_one,
                                                 settings.threshold)
            else:
                verdict = answer_checklist(checklist, template, inputs, token_for, ask_one,
                                           settings.threshold)
        except PromptError as exc:
            self._count(dim, errors=1)
            return Verdict.unscored("the judge prompt could not be rendered", error=str(exc),
                                    **stamp)
        return verdict.model_copy(update=stamp)

    def _delimiter_secret(self) -> bytes:
        if self._secret is None:
            self._secret = installation_secret()
        return self._secret

    def _cache_get(self, key: str) -> JsonObject | None:
        """The stored record; None when absent or when the cache cannot be read (a miss)."""
        assert self._cache is not None
        try:
            return self._cache.get(key)
        except CacheStorageError as exc:
            self._warn_cache(exc)
            return None

    def _cache_set(self, key: str, verdict: Verdict) -> None:
        """Store a scored verdict; a cache that cannot be written costs the entry, not the
        verdict (the model was asked and answered)."""
        assert self._cache is not None
        record = verdict.model_dump(mode="json", exclude={"cached", "raw", "error"})
        try:
            self._cache.set(key, record)
        except CacheStorageError as exc:
            self._warn_cache(exc)

    def _warn_cache(self, exc: CacheStorageError) -> None:
        with self._lock:
            if self._cache_warned:
                return
            self._cache_warned = True
        log.warning(
            "%s; verdicts are kept but not cached (further cache failures are not reported; "
            "use another --cache-dir or --no-cache)",
            exc,
        )

    def _warn_batch(self, dim: JudgeDimension, read: BatchAnswers, asked: int) -> None:
        # Once per dimension: a provider without log-probabilities would say it on every item.
        with self._lock:
            if dim in self._batch_warned:
                return
            self._batch_warned.add(dim)
        qid, why = next(iter(read.left.items()))
        log.warning("judge %s: %d of %d checklist questions are asked one per request, the "
                    "batch reply not being readable for them (%s: %s; further cases are not "
                    "reported)", dim, len(read.left), asked, qid, why)

    def _ask(
        self, dim: JudgeDimension, settings: JudgeSettings, model: str, prompt: RenderedPrompt
    ) -> Verdict:
        request = self._chat_request(dim, settings, model, prompt)
        stamp = {"model": model, "template_hash": prompt.template_hash}
        reply = self._calls.call(dim, request)
        if isinstance(reply, Verdict):
            return reply.model_copy(update=stamp)
        verdict = self._interpret(dim, settings, reply)
        if verdict is None:
            # One re-ask, showing the model its own reply and pointing back at the format.
            again = replace(
                request,
                messages=(
                    *request.messages,
                    {"role": "assistant", "content": reply.text},
                    {"role": "user", "content": _CORRECTION},
                ),
            )
            second = self._calls.call(dim, again)
            if isinstance(second, Verdict):
                return second.model_copy(update=stamp)
            verdict = self._interpret(dim, settings, second)
            if verdict is None:
                return Verdict.unscored(
                    "the judge's reply did not parse, twice", raw=second.text, **stamp
                )
        return verdict.model_copy(update=stamp)

    def _chat_request(
        self, dim: JudgeDimension, settings: JudgeSettings, model: str, prompt: RenderedPrompt
    ) -> ChatRequest:
        sampling = self._sampling(settings)
        logprob = settings.mode == "logprob"
        return ChatRequest(
            model=model,
            messages=tuple(prompt.messages()),
            temperature=settings.temperature,
            max_tokens=sampling["max_tokens"],
            timeout_s=settings.timeout_s,
            response_format=None if logprob else reply_schema(dim),
            logprobs=logprob,
            top_logprobs=TOP_LOGPROBS if logprob else None,
        )

    @staticmethod
    def _sampling(settings: JudgeSettings) -> Sampling:
        """The sampling parameters that shape the reply (and so belong in the cache key)."""
        if settings.mode == "logprob":
            return {
                "temperature": settings.temperature,
                "max_tokens": 1,
                "top_logprobs": TOP_LOGPROBS,
            }
        return {"temperature": settings.temperature, "max_tokens": settings.max_tokens}

    def _interpret(
        self, dim: JudgeDimension, settings: JudgeSettings, reply: ChatReply
    ) -> Verdict | None:
        """A scored verdict from the reply, or None when it does not parse."""
        if settings.mode == "logprob":
            p_pass = p_pass_from_logprobs(reply.top_logprobs or ())
            if p_pass is None:
                return None
            return _logprob_verdict(p_pass, settings.threshold)
        parsed = parse_reply(reply.text, dim)
        if parsed is None:
            return None
        return Verdict(verdict=parsed.verdict, reason=parsed.reason, label=parsed.label)

    def _from_record(self, record: JsonObject, settings: JudgeSettings) -> Verdict | None:
        try:
            verdict = Verdict.model_validate({**record, "cached": True})
        except ValueError:
            return None  # an unreadable entry is simply asked again
        if settings.mode == "logprob" and verdict.p_pass is not None:
            # The threshold is not part of the key: re-apply the current one to the stored P(pass).
            fresh = _logprob_verdict(verdict.p_pass, settings.threshold)
            verdict = verdict.model_copy(update={"verdict": fresh.verdict, "reason": fresh.reason})
        return verdict if verdict.scored else None

    def _count(self, dim: JudgeDimension, **deltas: float) -> None:
        with self._lock:
            usage = self._usage[dim]
            for name, delta in deltas.items():
                setattr(usage, name, getattr(usage, name) + delta)


def _logprob_verdict(p_pass: float, threshold: float) -> Verdict:
    verdict: Literal["pass", "fail"] = "pass" if p_pass >= threshold else "fail"
    return Verdict(
        verdict=verdict,
        reason=f"P(pass) = {p_pass:.3f} against threshold {threshold}",
        p_pass=p_pass,
    )
