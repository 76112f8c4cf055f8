"""`scripted/PATH` judge models: replies from a JSON script, no network, for offline examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders_judging import request_for
from toolgrade.errors import ConfigError
from toolgrade.judging import JudgeEngine, build_judge
from toolgrade.settings import JudgeSettings


def _engine(tmp_path: Path, script: object, monkeypatch: pytest.MonkeyPatch
            ) -> JudgeEngine | None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.json").write_text(json.dumps(script))
    return build_judge(JudgeSettings(model="scripted/s.json", use_cache=False))


def test_the_first_matching_rule_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = _engine(tmp_path, {"rules": [
        {"when": "Refund order A123", "reply": {"reason": "same order", "verdict": "pass"}},
        {"when": "Refund", "reply": {"reason": "too late", "verdict": "fail"}},
    ]}, monkeypatch)
    assert engine is not None
    verdict = engine.judge(request_for("alternate_route"))
    assert (verdict.verdict, verdict.reason, verdict.model) == ("pass", "same order",
                                                                "scripted/s.json")


def test_a_text_reply_is_sent_as_is_and_may_be_unscored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = _engine(tmp_path, {"default": "maybe?"}, monkeypatch)
    assert engine is not None
    verdict = engine.judge(request_for("alternate_route"))
    assert verdict.verdict == "unscored" and verdict.raw == "maybe?"
    assert engine.usage()["alternate_route"]["calls"] == 2  # asked again once, as any reply


def test_an_unreadable_script_is_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"cannot read missing\.json"):
        build_judge(JudgeSettings(model="scripted/missing.json", use_cache=False))
    (tmp_path / "bad.json").write_text('{"rules": [{"if": "x"}]}')
    with pytest.raises(ConfigError, match=r"bad\.json is not a judge script"):
        build_judge(JudgeSettings(model="scripted/bad.json", use_cache=False))
