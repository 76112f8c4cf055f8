"""The runner with the judge engine on (fake client): verdicts recorded, requests made once,
a second run served from the cache, judge failures counted without losing the run."""

from __future__ import annotations

import json
from pathlib import Path

from toolgrade.judging import JudgeEngine, build_judge
from toolgrade.judging.client import ChatRequest
from toolgrade.judging.scripted import FakeClient, verdict_json
from toolgrade.scoring.runner import ValidatedInputs, grade, validate_inputs
from toolgrade.settings import JudgeSettings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "helpdesk"


def _inputs() -> ValidatedInputs:
    return validate_inputs(EXAMPLE / "suite.yaml", [EXAMPLE / "runs"])


def _settings(cache: Path) -> JudgeSettings:
    return JudgeSettings(model="fake/judge", cache_dir=cache, concurrency=3)


def _always(verdict: str) -> FakeClient:
    def answer(request: ChatRequest) -> str:
        return verdict_json(verdict, reason="scripted")

    return FakeClient(answer)


def _semantic_unscored(results: Path) -> int:
    count = 0
    for line in results.read_text().splitlines():
        record = json.loads(line)
        count += len(record["checks"]["arguments"].get("unscored_fields") or [])
    return count


def test_judged_run_then_cached_rerun(tmp_path: Path) -> None:
    client = _always("pass")
    engine = build_judge(_settings(tmp_path / "cache"), client=client)
    assert engine is not None
    first = grade(_inputs(), tmp_path / "one", judge=engine, judge_concurrency=3)
    usage = engine.usage()
    assert _semantic_unscored(first.results_path) == 0  # every semantic field got a verdict
    assert usage["argument_equivalence"]["calls"] > 0
    assert client.calls == sum(u["calls"] for u in usage.values())
    # Identical requests within a run are made once: repeats are answered from memory.
    assert usage["argument_equivalence"]["memo_hits"] > 0
    for block in usage.values():
        assert block["calls"] == block["requests"] - block["memo_hits"] - block["cache_hits"]
    lines = [json.loads(x) for x in first.results_path.read_text().splitlines()]
    judged = [r for r in lines if r["judges"].get("argument_equivalence")]
    verdicts = [v["verdict"] for r in judged for v in r["judges"]["argument_equivalence"]]
    assert judged and set(verdicts) == {"pass"}

    again = build_judge(_settings(tmp_path / "cache"), client=(second := _always("pass")))
    assert again is not None
    grade(_inputs(), tmp_path / "two", judge=again, judge_concurrency=3)
    assert second.calls == 0
    assert sum(u["cache_hits"] for u in again.usage().values()) > 0


def test_a_failing_provider_leaves_fields_unscored_and_the_run_complete(tmp_path: Path) -> None:
    client = FakeClient([TimeoutError("provider timed out")])
    settings = _settings(tmp_path / "cache").model_copy(update={"max_attempts": 2})
    engine = JudgeEngine(settings, client, sleep=lambda seconds: None)  # no real backoff waits
    output = grade(_inputs(), tmp_path / "out", judge=engine, judge_concurrency=3)
    assert output.summary.trajectories == 90  # every run of the example, 18 cases
    assert _semantic_unscored(output.results_path) > 0
    usage = engine.usage()
    assert usage["argument_equivalence"]["errors"] > 0
    assert usage["argument_equivalence"]["unscored"] > 0


def test_an_unparseable_reply_is_kept_in_the_record(tmp_path: Path) -> None:
    client = FakeClient(lambda request: "I think it is fine, probably.")
    engine = build_judge(_settings(tmp_path / "cache"), client=client)
    assert engine is not None
    output = grade(_inputs(), tmp_path / "out", judge=engine, judge_concurrency=1)
    entries = [entry for line in output.results_path.read_text().splitlines()
               for entry in json.loads(line)["judges"].get("argument_equivalence", [])]
    assert entries and {e["verdict"] for e in entries} == {"unscored"}
    # docs/judges.md: an unparseable reply is kept in `raw`, so it can be read afterwards.
    assert {e.get("raw") for e in entries} == {"I think it is fine, probably."}
