"""Escalation against a stand-in OpenAI-compatible server on loopback: only the items the first
judge left undecided reach it, its verdicts are marked escalated, and the run counts where
items went."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.judging.escalation import EscalatingJudge, should_escalate
from toolgrade.judging.judge import JudgeEngine
from toolgrade.judging.scripted import FakeClient, verdict_json
from toolgrade.judging.standin import FaultPlan, StandInServer
from toolgrade.models import JudgeRequest, Verdict
from toolgrade.settings import JudgeSettings

LOOP = Path(__file__).resolve().parents[2] / "examples" / "adjudication" / "loop"


@pytest.fixture
def server() -> Iterator[StandInServer]:
    """The stand-in OpenAI-compatible server, answering every request with a fail verdict."""
    with StandInServer(FaultPlan(verdict="fail")) as stand_in:
        yield stand_in


def test_only_undecided_items_reach_the_escalation_server(
    server: StandInServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "loop"
    shutil.copytree(LOOP, folder, ignore=shutil.ignore_patterns("out", "*.adjudications.jsonl"))
    monkeypatch.chdir(folder)
    monkeypatch.setenv("OPENAI_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "stand-in")
    monkeypatch.setenv("TOOLGRADE_CALIBRATION_DIR", str(tmp_path / "records"))
    config = folder / "toolgrade.toml"
    config.write_text(config.read_text().replace(
        'escalate_to = "scripted/escalation_script.json"', 'escalate_to = "openai/escalator"'))
    result = CliRunner().invoke(app, ["run", "suite.yaml", "runs", "--out", "out"])
    assert result.exit_code == 0, result.output
    # The first judge decided "package came broken"; the two it could not parse went on.
    assert len(server.asked) == 2
    assert all("package came broken" not in asked for asked in server.asked)
    assert any("delivery was late" in asked for asked in server.asked)
    block = json.loads((folder / "out" / "summary.json").read_text())["judges"][
        "argument_equivalence"]
    assert block["items"] == {"decided_locally": 1, "escalated": 2, "decided_by_people": 0,
                              "left_for_people": 0}
    assert block["escalation"]["model"] == "openai/escalator"
    assert block["escalation"]["calls"] == 2 and block["escalation"]["calibration"] is None
    assert "1 decided locally, 2 escalated, 0 decided by people, 0 left for people" \
        in result.output
    entries = [e for line in (folder / "out" / "results.jsonl").read_text().splitlines()
               for e in json.loads(line)["judges"].get("argument_equivalence", [])]
    escalated = [e for e in entries if e.get("escalated")]
    assert len(escalated) == 2
    assert all(e["model"] == "openai/escalator" and e["verdict"] == "fail" for e in escalated)
    assert all(e["escalated_from"].startswith("scripted/judge_script.json: the judge's reply")
               for e in escalated)


def _engine(client: FakeClient, tmp_path: Path, **kw: Any) -> JudgeEngine:
    settings = JudgeSettings(model="fake/same", cache_dir=tmp_path / "cache")
    return JudgeEngine(settings, client, sleep=lambda s: None, **kw)


def test_escalation_verdicts_are_cached_under_their_own_key(tmp_path: Path) -> None:
    from builders_judging import request_for

    request = request_for("argument_equivalence", actual="something new")
    with _engine(FakeClient([verdict_json("pass")]), tmp_path) as first:
        assert first.judge(request).verdict == "pass"
    second_client = FakeClient([verdict_json("fail")])
    with _engine(second_client, tmp_path, role="escalation") as second:
        assert second.judge(request).verdict == "fail"  # not the first judge's cached pass
    assert second_client.calls == 1


def test_scored_and_switched_off_verdicts_are_not_escalated(tmp_path: Path) -> None:
    assert not should_escalate(Verdict(verdict="pass"))
    assert not should_escalate(Verdict.unscored("judging is off for x in the settings"))
    assert should_escalate(Verdict.unscored("uncertain: P(pass) 0.52 inside the band"))
    assert should_escalate(Verdict.unscored("awaiting adjudication"))
    first = FakeClient(lambda r: "not a verdict")
    second = FakeClient([verdict_json("pass", reason="escalated pass")])
    judge = EscalatingJudge(_engine(first, tmp_path, presettle=None),
                            _engine(second, tmp_path, presettle=None, role="escalation"),
                            ["argument_equivalence"])
    from builders_judging import request_for

    route = judge.judge(request_for("alternate_route"))
    assert route.verdict == "unscored" and second.calls == 0  # not an escalating dimension
    verdict = judge.judge(JudgeRequest(dimension="argument_equivalence",
                                       inputs=request_for("argument_equivalence").inputs))
    assert (verdict.verdict, verdict.escalated, verdict.model) == ("pass", True, "fake/same")
    assert second.calls == 1


def test_the_kinds_of_undecided_follow_the_engines_own_reasons(tmp_path: Path) -> None:
    from builders_judging import request_for
    from toolgrade.models.adjudication import unscored_kind

    request = request_for("argument_equivalence", actual="an unsettled value")
    unparsed = _engine(FakeClient(["no verdict"]), tmp_path, presettle=None).judge(request)
    failed = _engine(FakeClient([RuntimeError("down")]), tmp_path, presettle=None).judge(request)
    settings = JudgeSettings(model=None, use_cache=False)
    nobody = JudgeEngine(settings, FakeClient(["x"]), models={}).judge(request)
    assert [unscored_kind(v.reason) for v in (unparsed, failed, nobody)] == [
        "unparsed reply", "failed call", "no judge"]
