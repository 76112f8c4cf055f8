"""`build_judge`: the one place settings become a judge engine (or no judge at all).

With no model configured, the embedded local model (`toolgrade[local]`) is used when installed;
otherwise no judge is built and the caller is told once how to enable one.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from types import ModuleType

from toolgrade.errors import ConfigError
from toolgrade.judging.client import LOCAL_PREFIX, ChatClient, LiteLLMClient
from toolgrade.judging.judge import JudgeEngine
from toolgrade.judging.scripted import SCRIPTED_PREFIX, ScriptedRouter
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension
from toolgrade.settings import JudgeSettings

NO_JUDGE_MESSAGE = (
    "No LLM judge is configured, so judge-only fields are reported unscored. "
    "Install the embedded local judge with `pip install 'toolgrade[local]'`, "
    "or use any litellm model, e.g. openai/gpt-4o-mini (`toolgrade run --judge-model MODEL`, "
    "`toolgrade calibrate --model MODEL`)."
)


def _local_module() -> ModuleType | None:
    """`toolgrade.judging.local`, or None when it (or its runtime) cannot be imported."""
    try:
        return importlib.import_module("toolgrade.judging.local")
    except ImportError:
        return None


def _local_model() -> str | None:
    """The embedded model's name when its runtime and weights package are installed."""
    local = _local_module()
    if local is None or not local.local_available():
        return None
    return str(local.LOCAL_MODEL)


def resolve_models(settings: JudgeSettings) -> dict[JudgeDimension, str | None]:
    """Each dimension's model: its override, else `settings.model`, else the local model; None
    for a dimension switched off (`enabled = false` in its table) or with no model at all."""
    default = settings.model
    models: dict[JudgeDimension, str | None] = {}
    for dim in switched_on(settings):
        models[dim] = settings.for_dimension(dim).model or default
    if default is None and any(m is None for m in models.values()):
        local = _local_model()
        models = {dim: model or local for dim, model in models.items()}
    return {dim: models.get(dim) for dim in JUDGE_DIMENSIONS}


def switched_on(settings: JudgeSettings) -> list[JudgeDimension]:
    """The dimensions the settings judge: all but those whose table says `enabled = false`."""
    return [dim for dim in JUDGE_DIMENSIONS if settings.for_dimension(dim).enabled]


def litellm_client(settings: JudgeSettings) -> LiteLLMClient:
    """The litellm client of `settings`: pointed at `api_base`, with the key read from
    `api_key_env`, when they are set.

    Raises `ConfigError` when `api_key_env` names a variable that is not set: a served model
    asked without its key would fail every call.
    """
    extra: dict[str, str] = {}
    if settings.api_base:
        extra["api_base"] = settings.api_base
    if settings.api_key_env:
        key = os.environ.get(settings.api_key_env)
        if not key:
            raise ConfigError(
                f"[judge] api_key_env names {settings.api_key_env}, which is not set"
            )
        extra["api_key"] = key
    # Built as before when nothing is served: callers (and tests) that swap the class in keep
    # working with a no-argument stand-in.
    return LiteLLMClient(extra=extra) if extra else LiteLLMClient()


def build_judge(
    settings: JudgeSettings,
    *,
    client: ChatClient | None = None,
    notify: Callable[[str], None] | None = None,
    role: str | None = None,
) -> JudgeEngine | None:
    """The judge engine for `settings`, or None when judging is off or no model is available.
    `role` goes into its cache keys (see `JudgeEngine`)."""
    on = switched_on(settings)
    if not settings.enabled or not on:
        return None  # judging is off, or every dimension's table says `enabled = false`
    say = notify or (lambda message: None)
    models = resolve_models(settings)
    if all(model is None for model in models.values()):
        say(NO_JUDGE_MESSAGE)
        return None
    missing = [dim for dim in on if models[dim] is None]
    if missing:
        say(f"No judge model for {', '.join(missing)}. {NO_JUDGE_MESSAGE}")
    if any(model and model.startswith(LOCAL_PREFIX) for model in models.values()):
        local = _local_module()
        if local is None:
            say(
                f"A `{LOCAL_PREFIX}` judge model is configured but the local runtime is not "
                "installed: `pip install 'toolgrade[local]'`."
            )
        else:
            local.register_local_provider()
    if client is None:
        client = litellm_client(settings)
        scripted = [m for m in models.values() if m and m.startswith(SCRIPTED_PREFIX)]
        if scripted:
            client = ScriptedRouter(client, scripted)
    return JudgeEngine(settings, client, models=models, role=role)
