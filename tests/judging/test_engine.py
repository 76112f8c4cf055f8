"""The judge engine on a fake client: cache, in-run memo, retries, garbage, logprob mode, usage."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from builders_judging import MODEL, all_requests, engine, request_for, settings, user_text
from toolgrade.errors import TransientError
from toolgrade.judging import JudgeEngine
from toolgrade.judging.cache import VerdictCache
from toolgrade.judging.client import ChatReply, ChatRequest
from toolgrade.judging.prompts import load_template
from toolgrade.judging.scripted import FakeClient, logprob_reply, verdict_json
from toolgrade.models import JudgeRequest
from toolgrade.settings import DimensionSettings


def test_a_scored_verdict_carries_model_reason_and_template_hash() -> None:
    client = FakeClient([verdict_json("pass", reason="same route, reworded")])
    verdict = engine(client).judge(request_for("argument_equivalence"))
    assert verdict.verdict == "pass"
    assert verdict.reason == "same route, reworded"
    assert verdict.model == MODEL
    assert verdict.template_hash == load_template("argument_equivalence").template_hash
    assert not verdict.cached
    request = client.requests[0]
    assert request.model == MODEL and request.temperature == 0.0
    assert request.response_format is not None
    assert request.response_format["json_schema"]["schema"]["required"] == ["reason", "verdict"]


def test_result_interpretation_keeps_its_label() -> None:
    client = FakeClient([verdict_json("fail", label="false_success_claim")])
    verdict = engine(client).judge(request_for("result_interpretation"))
    assert (verdict.verdict, verdict.label) == ("fail", "false_success_claim")


def test_a_second_run_makes_zero_model_calls(tmp_path: Path) -> None:
    first = FakeClient([verdict_json("pass")])
    with engine(first, tmp_path) as judge:
        verdicts = [judge.judge(r) for r in all_requests()]
    assert first.calls == 4

    second = FakeClient([RuntimeError("a second run must not call the model")])
    with engine(second, tmp_path) as judge:
        again = [judge.judge(r) for r in all_requests()]
        usage = judge.usage()
    assert second.calls == 0
    assert [v.verdict for v in again] == [v.verdict for v in verdicts] == ["pass"] * 4
    assert all(v.cached for v in again)
    assert all(u["cache_hits"] == 1 and u["calls"] == 0 for u in usage.values())


def test_cache_key_changes_with_model_and_sampling(tmp_path: Path) -> None:
    with engine(FakeClient([verdict_json("pass")]), tmp_path) as judge:
        judge.judge(request_for("alternate_route"))
    for change in ({"model": "fake/other"}, {"temperature": 0.7}, {"max_tokens": 64}):
        client = FakeClient([verdict_json("fail")])
        with engine(client, tmp_path, **change) as judge:
            assert judge.judge(request_for("alternate_route")).verdict == "fail"
        assert client.calls == 1, change


def test_unscored_verdicts_and_errors_are_not_cached(tmp_path: Path) -> None:
    with engine(FakeClient(["not json at all"]), tmp_path) as judge:
        assert judge.judge(request_for("recovery_quality")).verdict == "unscored"
    with engine(FakeClient([TransientError("503")]), tmp_path, max_attempts=2) as judge:
        assert judge.judge(request_for("alternate_route")).verdict == "unscored"
    client = FakeClient([verdict_json("pass")])
    with engine(client, tmp_path) as judge:
        assert judge.judge(request_for("recovery_quality")).verdict == "pass"
        assert judge.judge(request_for("alternate_route")).verdict == "pass"
    assert client.calls == 2


def test_no_cache_means_every_run_asks(tmp_path: Path) -> None:
    for _ in range(2):
        client = FakeClient([verdict_json("pass")])
        judge = engine(client, tmp_path, use_cache=False)
        judge.judge(request_for("argument_equivalence"))
        assert client.calls == 1
    assert not (tmp_path / "judge-cache").exists()


def test_identical_requests_in_one_run_are_made_once() -> None:
    client = FakeClient([verdict_json("fail")])
    judge = engine(client)
    verdicts = [judge.judge(request_for("argument_equivalence")) for _ in range(5)]
    assert client.calls == 1
    assert {v.verdict for v in verdicts} == {"fail"}
    usage = judge.usage()["argument_equivalence"]
    assert (usage["requests"], usage["memo_hits"], usage["calls"]) == (5, 4, 1)


def test_identical_concurrent_requests_are_made_once() -> None:
    started = threading.Event()

    def slow(request: ChatRequest) -> str:
        started.set()
        time.sleep(0.05)
        return verdict_json("pass")

    client = FakeClient(slow)
    judge = engine(client)
    results: list[str] = []
    threads = [
        threading.Thread(
            target=lambda: results.append(judge.judge(request_for("alternate_route")).verdict)
        )
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert client.calls == 1
    assert results == ["pass"] * 8


def test_concurrency_is_bounded() -> None:
    lock = threading.Lock()
    live = peak = 0

    def tracked(request: ChatRequest) -> str:
        nonlocal live, peak
        with lock:
            live += 1
            peak = max(peak, live)
        time.sleep(0.02)
        with lock:
            live -= 1
        return verdict_json("pass")

    client = FakeClient(tracked)
    judge = engine(client, concurrency=2)
    requests = [request_for("argument_equivalence", actual=f"value {i}") for i in range(8)]
    threads = [threading.Thread(target=judge.judge, args=(r,)) for r in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert client.calls == 8
    assert peak == 2


def test_a_rate_limit_then_success_yields_the_verdict() -> None:
    waits: list[float] = []
    client = FakeClient(
        [TransientError("429 Too Many Requests"), TimeoutError(), verdict_json("pass")]
    )
    judge = JudgeEngine(settings(), client, sleep=waits.append)
    verdict = judge.judge(request_for("recovery_quality"))
    assert verdict.verdict == "pass"
    assert client.calls == 3
    assert len(waits) == 2 and all(w > 0 for w in waits)  # backed off between attempts
    assert judge.usage()["recovery_quality"]["errors"] == 0


def test_a_provider_that_always_fails_yields_unscored_and_counts_the_error() -> None:
    client = FakeClient([TransientError("503 Service Unavailable")])
    judge = engine(client, max_attempts=3)
    verdict = judge.judge(request_for("result_interpretation"))
    assert verdict.verdict == "unscored"
    assert verdict.error is not None and "503" in verdict.error
    assert verdict.model == MODEL
    assert client.calls == 3
    usage = judge.usage()["result_interpretation"]
    assert (usage["errors"], usage["unscored"], usage["calls"]) == (1, 1, 3)


def test_a_non_transient_error_is_not_retried() -> None:
    # (A refused key is not retried either, but stops the grading: test_litellm.py.)
    client = FakeClient([ValueError("400 unknown parameter: top_k")])
    judge = engine(client, max_attempts=5)
    verdict = judge.judge(request_for("alternate_route"))
    assert verdict.verdict == "unscored" and "unknown parameter" in (verdict.error or "")
    assert client.calls == 1


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "pass",
        "The verdict is pass.",
        '{"verdict": "pass"}',
        '{"reason": "x", "verdict": "yes"}',
        '{"reason": "x", "verdict": "PASS!"}',
        '```json\n{"reason": 1, "verdict": "pass"}\n```',
        '["pass"]',
        '{"reason": "x", "verdict": "pass"',
    ],
)
def test_garbage_is_asked_again_once_then_unscored_never_pass(garbage: str) -> None:
    client = FakeClient([garbage])
    judge = engine(client)
    verdict = judge.judge(request_for("argument_equivalence"))
    assert verdict.verdict == "unscored"
    assert verdict.raw == garbage
    assert client.calls == 2
    reask = client.requests[1]
    assert [m["role"] for m in reask.messages] == ["system", "user", "assistant", "user"]
    assert reask.messages[2]["content"] == garbage
    assert judge.usage()["argument_equivalence"]["unscored"] == 1


def test_garbage_then_a_valid_reply_is_scored() -> None:
    client = FakeClient(["I think it passes", "Sure: ```json\n" + verdict_json("fail") + "\n```"])
    verdict = engine(client).judge(request_for("argument_equivalence"))
    assert verdict.verdict == "fail"
    assert client.calls == 2


def test_logprob_mode_computes_p_pass_from_the_top_logprobs() -> None:
    client = FakeClient([logprob_reply(yes=-0.2231, no=-1.6094, maybe=-3.0)])  # 0.8 vs 0.2
    judge = engine(client, mode="logprob", threshold=0.7)
    verdict = judge.judge(request_for("alternate_route"))
    assert verdict.verdict == "pass"
    assert verdict.p_pass == pytest.approx(0.8, abs=1e-3)
    request = client.requests[0]
    assert (request.logprobs, request.max_tokens, request.response_format) == (True, 1, None)
    assert request.top_logprobs is not None and request.top_logprobs >= 5


def test_logprob_mode_applies_the_threshold() -> None:
    client = FakeClient([logprob_reply(Yes=-0.2231, **{" no": -1.6094})])
    verdict = engine(client, mode="logprob", threshold=0.9).judge(request_for("alternate_route"))
    assert verdict.verdict == "fail"
    assert verdict.p_pass == pytest.approx(0.8, abs=1e-3)


def test_logprob_mode_without_yes_or_no_is_unscored() -> None:
    client = FakeClient([logprob_reply(maybe=-0.1, perhaps=-2.0)])
    verdict = engine(client, mode="logprob").judge(request_for("recovery_quality"))
    assert verdict.verdict == "unscored"
    assert client.calls == 2


def test_a_cached_logprob_verdict_follows_the_current_threshold(tmp_path: Path) -> None:
    with engine(
        FakeClient([logprob_reply(yes=-0.2231, no=-1.6094)]), tmp_path, mode="logprob"
    ) as j:
        assert j.judge(request_for("alternate_route")).verdict == "pass"
    client = FakeClient([RuntimeError("must not be called")])
    with engine(client, tmp_path, mode="logprob", threshold=0.95) as judge:
        verdict = judge.judge(request_for("alternate_route"))
    assert (verdict.verdict, verdict.cached, client.calls) == ("fail", True, 0)


def test_per_dimension_overrides_pick_model_and_mode() -> None:
    client = FakeClient(
        lambda r: logprob_reply(yes=-0.1, no=-3.0) if r.logprobs else verdict_json("fail")
    )
    judge = engine(
        client,
        dimensions={"alternate_route": {"model": "fake/big", "mode": "logprob"}},
    )
    assert judge.judge(request_for("alternate_route")).verdict == "pass"
    assert judge.judge(request_for("argument_equivalence")).verdict == "fail"
    assert [r.model for r in client.requests] == ["fake/big", MODEL]
    assert judge.model_for("alternate_route") == "fake/big"
    assert judge.usage()["alternate_route"]["model"] == "fake/big"


def test_usage_adds_up_tokens_and_cost() -> None:
    client = FakeClient(
        [verdict_json("pass")], prompt_tokens=100, completion_tokens=20, cost_usd=0.001
    )
    judge = engine(client)
    for request in all_requests():
        judge.judge(request)
    usage = judge.usage()
    assert set(usage) == {
        "argument_equivalence",
        "alternate_route",
        "recovery_quality",
        "result_interpretation",
    }
    for figures in usage.values():
        assert figures["tokens"] == 120
        assert figures["cost_usd"] == pytest.approx(0.001)
        assert figures["calls"] == figures["requests"] == 1
        assert figures["cache_hits"] == figures["unscored"] == figures["errors"] == 0


def test_bad_inputs_are_unscored_not_raised() -> None:
    client = FakeClient([verdict_json("pass")])
    judge = engine(client)
    verdict = judge.judge(JudgeRequest(dimension="alternate_route", inputs={"task": "x"}))
    assert verdict.verdict == "unscored" and "actual_route" in (verdict.error or "")
    assert client.calls == 0
    assert judge.usage()["alternate_route"]["errors"] == 1


def test_an_unconfigured_dimension_is_unscored() -> None:
    client = FakeClient([verdict_json("pass")])
    judge = JudgeEngine(settings(model=None), client, sleep=lambda s: None)
    verdict = judge.judge(request_for("argument_equivalence"))
    assert verdict.verdict == "unscored" and client.calls == 0
    assert judge.model_for("argument_equivalence") == "unconfigured"


def test_the_user_part_carries_the_data() -> None:
    client = FakeClient([verdict_json("pass")])
    engine(client).judge(request_for("argument_equivalence", actual="low-cost flights NYC-LON"))
    assert "low-cost flights NYC-LON" in user_text(client.requests[0])


def test_a_replied_chatreply_passes_through_usage() -> None:
    client = FakeClient(
        [ChatReply(text=verdict_json("pass"), prompt_tokens=7, completion_tokens=3)]
    )
    judge = engine(client)
    judge.judge(request_for("recovery_quality"))
    assert judge.usage()["recovery_quality"]["tokens"] == 10


def test_a_dimension_switched_off_is_unscored_and_never_asked() -> None:
    client = FakeClient([verdict_json("pass")])
    off = settings(dimensions={"recovery_quality": DimensionSettings(enabled=False)})
    judge = JudgeEngine(off, client, sleep=lambda s: None)
    verdict = judge.judge(request_for("recovery_quality"))
    assert verdict.verdict == "unscored" and "off" in verdict.reason
    assert client.calls == 0
    assert judge.judge(request_for("argument_equivalence")).verdict == "pass"
    assert judge.model_for("recovery_quality") == "unconfigured"


def test_a_client_answering_no_text_is_unscored_not_a_crash() -> None:
    client = FakeClient([ChatReply(text=None, prompt_tokens=1, completion_tokens=0)])  # type: ignore[arg-type]
    judge = engine(client)
    verdict = judge.judge(request_for("argument_equivalence"))
    assert verdict.verdict == "unscored" and verdict.error
    usage = judge.usage()["argument_equivalence"]
    assert (usage["unscored"], usage["errors"]) == (1, 1)


def test_judged_content_with_a_lone_surrogate_is_judged_not_raised() -> None:
    judge = engine(FakeClient([verdict_json("fail")]))
    verdict = judge.judge(request_for("argument_equivalence", actual="caf\udce9"))
    assert verdict.verdict in ("fail", "unscored")
    assert verdict.verdict != "pass"


class _FailingDatabase:
    """Stands in for the diskcache database, failing the way a full or read-only disk does."""

    def __init__(self, inner: Any, *, reads: bool, writes: bool) -> None:
        self._inner, self._reads, self._writes = inner, reads, writes

    def get(self, key: str) -> Any:
        if self._reads:
            raise sqlite3.OperationalError("disk I/O error")
        return self._inner.get(key)

    def set(self, key: str, value: str) -> bool:
        if self._writes:
            raise sqlite3.OperationalError("database or disk is full")
        return bool(self._inner.set(key, value))

    def close(self) -> None:
        self._inner.close()


def _failing_cache(directory: Path, *, reads: bool = True, writes: bool = True) -> VerdictCache:
    cache = VerdictCache(directory)
    cache._cache = _FailingDatabase(cache._cache, reads=reads, writes=writes)  # type: ignore[assignment]
    return cache


def test_a_cache_that_cannot_be_written_keeps_the_verdict_and_warns_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The model answered (and was paid for): a full disk must not turn that into unscored.
    client = FakeClient([verdict_json("pass")])
    cache = _failing_cache(tmp_path / "c", reads=False)
    judge = JudgeEngine(settings(tmp_path), client, cache=cache, sleep=lambda s: None)
    with caplog.at_level("WARNING"):
        verdicts = [judge.judge(r) for r in all_requests()]
    assert [v.verdict for v in verdicts] == ["pass"] * 4
    assert all(u["errors"] == 0 and u["unscored"] == 0 for u in judge.usage().values())
    warnings = [r.getMessage() for r in caplog.records if "cache" in r.getMessage()]
    assert len(warnings) == 1 and "database or disk is full" in warnings[0], warnings
    assert str(tmp_path / "c") in warnings[0]


def test_a_cache_that_cannot_be_read_is_a_miss_not_an_unscored_verdict(tmp_path: Path) -> None:
    client = FakeClient([verdict_json("fail")])
    cache = _failing_cache(tmp_path / "c", writes=False)
    judge = JudgeEngine(settings(tmp_path), client, cache=cache, sleep=lambda s: None)
    verdict = judge.judge(request_for("alternate_route"))
    assert verdict.verdict == "fail" and client.calls == 1
    assert judge.usage()["alternate_route"]["errors"] == 0


def test_an_outage_names_the_first_failures_then_only_counts_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = FakeClient([RuntimeError("503 Service Unavailable")])
    judge = JudgeEngine(settings(max_attempts=1), client, sleep=lambda s: None)
    with caplog.at_level("WARNING"):
        verdicts = [judge.judge(request_for("argument_equivalence", field=f"f{i}"))
                    for i in range(10)]
        judge.judge(request_for("alternate_route"))
    assert {v.verdict for v in verdicts} == {"unscored"}
    assert judge.usage()["argument_equivalence"]["errors"] == 10  # every failure is counted
    shown = [r.getMessage() for r in caplog.records if "model call failed" in r.getMessage()]
    arguments = [m for m in shown if "argument_equivalence" in m]
    assert len(arguments) == 3 and all("503 Service Unavailable" in m for m in arguments)
    assert "further failures of argument_equivalence are counted" in arguments[-1]
    assert [m for m in shown if "alternate_route" in m]  # another dimension still says so
