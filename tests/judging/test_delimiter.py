"""Delimiters derived from the content and the installation's secret: reproducible verdicts."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from builders_judging import delimiter_token, engine, request_for
from toolgrade.judging import prompts as delimiter
from toolgrade.judging.prompts import content_token, installation_secret
from toolgrade.judging.scripted import FakeClient


def test_the_same_request_is_fenced_the_same_way_and_another_request_otherwise() -> None:
    client = FakeClient(['{"reason": "r", "verdict": "pass"}'])
    engine(client, use_cache=False, presettle=None).judge(request_for("alternate_route"))
    engine(client, use_cache=False, presettle=None).judge(request_for("alternate_route"))
    engine(client, use_cache=False, presettle=None).judge(
        request_for("alternate_route", task="another task"))
    tokens = [delimiter_token(r) for r in client.requests]
    assert tokens[0] == tokens[1] != tokens[2]


def test_the_token_depends_on_the_secret() -> None:
    inputs = {"a": "b"}
    one = content_token(b"one", "h", "logprob", inputs)
    assert one == content_token(b"one", "h", "logprob", inputs)
    assert one != content_token(b"two", "h", "logprob", inputs)
    assert one != content_token(b"one", "h", "reasoned", inputs)


def test_the_secret_is_created_once_private_and_then_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(delimiter.SECRET_ENV, raising=False)
    monkeypatch.setenv("TOOLGRADE_CONFIG_DIR", str(tmp_path / "conf"))
    monkeypatch.setattr(delimiter, "_cached", None)
    first = installation_secret()
    path = tmp_path / "conf" / delimiter.SECRET_FILE
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    monkeypatch.setattr(delimiter, "_cached", None)
    assert installation_secret() == first and len(first) == 32
