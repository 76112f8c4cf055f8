"""`scripted/PATH` judge models: replies read from a JSON file, for offline demos and examples.

    {"rules": [{"when": "arrived broken", "reply": {"reason": "...", "verdict": "pass"}},
               {"when": "track my parcel", "reply": "not a verdict"}],
     "default": {"reason": "no rule matched", "verdict": "fail"}}

A request is answered by the first rule whose `when` text occurs in its user message (the
judged data), else by `default`. An object reply is sent as JSON (a well-formed verdict); a
string is sent as it is, so a script can also show an unparseable reply becoming `unscored`.
A reply `{"p_pass": 0.7}` answers a log-probability judge: "yes" and "no" with those
probabilities as the first token's top log-probabilities (so a scripted judge can be fitted a
cut and a band, `toolgrade calibrate --fit-threshold`).
PATH is relative to the working folder. No network, no model: such a judge is a stand-in, and
it has no calibration record unless one is made for it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from pydantic import BaseModel, ConfigDict, JsonValue, SkipValidation, ValidationError

from toolgrade.errors import ConfigError
from toolgrade.judging.client import ChatClient, ChatReply, ChatRequest

#: Model strings with this prefix are answered from a script file.
SCRIPTED_PREFIX = "scripted/"

#: A reply: an object sent as JSON, or text sent as it is. The script is read with
#: `json.loads`, so an object's values are JSON already: pydantic checks that it is an object
#: and leaves its values (and the wording of its errors) as they were.
Reply = dict[str, SkipValidation[JsonValue]] | str


class _Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    when: str
    reply: Reply


class _Script(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    rules: list[_Rule] = []
    default: Reply = {"reason": "no scripted rule matched", "verdict": "fail"}


def load_script(model: str) -> _Script:
    """The script a `scripted/PATH` model names; ConfigError naming the file when unusable."""
    path = Path(model.removeprefix(SCRIPTED_PREFIX))
    try:
        return _Script.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise ConfigError(f"judge model {model}: cannot read {path}: {exc.strerror}") from exc
    except (ValueError, ValidationError) as exc:
        raise ConfigError(f"judge model {model}: {path} is not a judge script: {exc}") from exc


def _answer(script: _Script, request: ChatRequest) -> ChatReply:
    data = next((str(m["content"]) for m in request.messages if m["role"] == "user"), "")
    reply = next((r.reply for r in script.rules if r.when in data), script.default)
    if isinstance(reply, dict) and isinstance(p := reply.get("p_pass"), int | float):
        p_pass = min(max(float(p), 1e-9), 1.0 - 1e-9)
        top = (("yes", math.log(p_pass)), ("no", math.log(1.0 - p_pass)))
        return ChatReply(text="yes" if p_pass >= 0.5 else "no", prompt_tokens=0,
                         completion_tokens=0, top_logprobs=top)
    text = reply if isinstance(reply, str) else json.dumps(reply)
    return ChatReply(text=text, prompt_tokens=0, completion_tokens=0)


class ScriptedRouter:
    """A `ChatClient` answering `scripted/` models from their scripts, the rest with `inner`."""

    def __init__(self, inner: ChatClient, models: list[str]) -> None:
        self._inner = inner
        self._scripts = {m: load_script(m) for m in models if m.startswith(SCRIPTED_PREFIX)}

    def complete(self, request: ChatRequest) -> ChatReply:
        """A scripted reply, or the inner client's."""
        script = self._scripts.get(request.model)
        if script is None:
            return self._inner.complete(request)
        return _answer(script, request)
