"""`build_judge`: off, no model, explicit model, and the embedded local model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from builders_judging import request_for
from toolgrade.judging import NO_JUDGE_MESSAGE, JudgeEngine, build_judge, factory
from toolgrade.judging.client import LiteLLMClient
from toolgrade.judging.scripted import FakeClient, verdict_json
from toolgrade.models import JUDGE_DIMENSIONS
from toolgrade.settings import JudgeSettings


class FakeLocal(SimpleNamespace):
    """Stands in for toolgrade.judging.local."""

    LOCAL_MODEL = "local/tiny"

    def __init__(self, available: bool) -> None:
        super().__init__(registered=0)
        self._available = available

    def local_available(self) -> bool:
        return self._available

    def register_local_provider(self) -> None:
        self.registered += 1


def use_local(monkeypatch: pytest.MonkeyPatch, local: Any) -> None:
    monkeypatch.setattr(factory, "_local_module", lambda: local)


def test_disabled_builds_nothing() -> None:
    messages: list[str] = []
    assert build_judge(JudgeSettings(enabled=False, model="x/y"), notify=messages.append) is None
    assert messages == []


@pytest.mark.parametrize("local", [None, FakeLocal(available=False)])
def test_no_model_and_no_local_runtime_tells_how_to_enable(
    monkeypatch: pytest.MonkeyPatch, local: Any
) -> None:
    use_local(monkeypatch, local)
    messages: list[str] = []
    assert build_judge(JudgeSettings(use_cache=False), notify=messages.append) is None
    assert messages == [NO_JUDGE_MESSAGE]
    assert "pip install 'toolgrade[local]'" in messages[0] and "--judge-model" in messages[0]


def test_an_explicit_model_builds_an_engine(tmp_path: Path) -> None:
    client = FakeClient([verdict_json("pass")])
    judge = build_judge(
        JudgeSettings(model="openai/gpt-4o-mini", cache_dir=tmp_path), client=client
    )
    assert isinstance(judge, JudgeEngine)
    assert judge.model_for("recovery_quality") == "openai/gpt-4o-mini"
    assert judge.judge(request_for("recovery_quality")).verdict == "pass"
    judge.close()


def test_the_default_client_is_litellm() -> None:
    judge = build_judge(JudgeSettings(model="openai/gpt-4o-mini", use_cache=False))
    assert judge is not None
    assert isinstance(judge._client, LiteLLMClient)


def test_no_model_uses_the_local_model_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    local = FakeLocal(available=True)
    use_local(monkeypatch, local)
    judge = build_judge(JudgeSettings(use_cache=False), client=FakeClient(["{}"]))
    assert judge is not None
    assert judge.model_for("alternate_route") == "local/tiny"
    assert local.registered == 1


def test_an_explicit_local_model_registers_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    local = FakeLocal(available=True)
    use_local(monkeypatch, local)
    judge = build_judge(
        JudgeSettings(model="local/other", use_cache=False), client=FakeClient(["{}"])
    )
    assert judge is not None and local.registered == 1


def test_a_local_model_without_the_runtime_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    use_local(monkeypatch, None)
    messages: list[str] = []
    settings = JudgeSettings(model="local/other", use_cache=False)
    judge = build_judge(settings, client=FakeClient(["{}"]), notify=messages.append)
    assert judge is not None
    assert len(messages) == 1 and "toolgrade[local]" in messages[0]


def test_per_dimension_models_without_a_default(monkeypatch: pytest.MonkeyPatch) -> None:
    use_local(monkeypatch, None)
    messages: list[str] = []
    settings = JudgeSettings(
        use_cache=False, dimensions={"argument_equivalence": {"model": "openai/gpt-4o"}}
    )
    judge = build_judge(settings, client=FakeClient([verdict_json("pass")]), notify=messages.append)
    assert judge is not None
    assert judge.model_for("argument_equivalence") == "openai/gpt-4o"
    assert judge.model_for("alternate_route") == "unconfigured"
    assert judge.judge(request_for("alternate_route")).verdict == "unscored"
    assert len(messages) == 1 and "alternate_route" in messages[0]


def test_the_real_local_module_is_optional() -> None:
    # Whatever is installed, resolving must not raise.
    models = factory.resolve_models(JudgeSettings(model="x/y"))
    assert set(models.values()) == {"x/y"}


def test_importing_and_building_does_not_import_litellm() -> None:
    # litellm is imported lazily on the first real model call, never by toolgrade.judging itself.
    code = (
        "import sys; from toolgrade.judging import build_judge; "
        "from toolgrade.settings import JudgeSettings; "
        "build_judge(JudgeSettings(model='openai/gpt-4o-mini', use_cache=False)); "
        "assert 'litellm' not in sys.modules, 'litellm imported eagerly'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_a_dimension_switched_off_gets_no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    use_local(monkeypatch, FakeLocal(available=True))
    settings = JudgeSettings.model_validate(
        {"dimensions": {"alternate_route": {"enabled": False}}}
    )
    models = factory.resolve_models(settings)
    assert models["alternate_route"] is None
    assert models["argument_equivalence"] == "local/tiny"


def test_every_dimension_switched_off_builds_nothing_and_says_nothing() -> None:
    off = {dim: {"enabled": False} for dim in JUDGE_DIMENSIONS}
    said: list[str] = []
    settings = JudgeSettings.model_validate({"model": "openai/x", "dimensions": off})
    assert build_judge(settings, notify=said.append) is None
    assert said == []
