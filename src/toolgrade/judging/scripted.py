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

`FakeClient`: a scripted `ChatClient` for tests and offline demos: no network, every call
recorded.

    client = FakeClient([TransientError("429"), verdict_json("pass")])   # a queue, in order
    client = FakeClient(lambda request: verdict_json("fail"))           # or a function

A scripted item is a reply text, a `ChatReply`, or an exception instance, which is raised (use
litellm's own exception classes to exercise the engine's retry rules).
"""

from __future__ import annotations

import json
import math
import threading
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Union

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


Scripted = Union[str, ChatReply, BaseException]  # noqa: UP007 - a runtime alias, kept readable
Script = Callable[[ChatRequest], Scripted]


def verdict_json(verdict: str, reason: str = "scripted", label: str | None = None) -> str:
    """A well-formed reply in the reasoned format (reason first)."""
    body: dict[str, str] = {"reason": reason, "verdict": verdict}
    if label is not None:
        body["label"] = label
    return json.dumps(body)


def logprob_reply(**logprobs: float) -> ChatReply:
    """A one-token reply whose first token has these top log-probabilities, e.g. yes=-0.1."""
    top = tuple(logprobs.items())
    text = max(top, key=lambda item: item[1])[0] if top else ""
    return ChatReply(text=text, prompt_tokens=1, completion_tokens=1, top_logprobs=top)


class FakeClient:
    """Answers from a script: a callable of the request, or a queue consumed one per call.

    When the queue runs out the last item repeats (so `FakeClient(["..."])` always answers the
    same); `calls` and `requests` record what was asked. Thread-safe.
    """

    def __init__(
        self,
        script: Script | Iterable[Scripted],
        *,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
        cost_usd: float = 0.0,
    ) -> None:
        self._function: Script | None = None
        self._queue: deque[Scripted] = deque()
        if callable(script):
            self._function = script
        else:
            self._queue.extend(script)
            if not self._queue:
                raise ValueError("FakeClient needs at least one scripted reply")
        self._usage = (prompt_tokens, completion_tokens, cost_usd)
        self._lock = threading.Lock()
        self.requests: list[ChatRequest] = []

    @property
    def calls(self) -> int:
        """How many times `complete` was called."""
        with self._lock:
            return len(self.requests)

    def complete(self, request: ChatRequest) -> ChatReply:
        """The next scripted reply (raised when it is an exception)."""
        with self._lock:
            self.requests.append(request)
            function = self._function
            item: Scripted = "" if function is not None else self._pop()
        if function is not None:
            # Outside the lock, so concurrent calls really overlap.
            item = function(request)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, ChatReply):
            return item
        prompt, completion, cost = self._usage
        return ChatReply(
            text=item, prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost
        )

    def _pop(self) -> Scripted:
        return self._queue.popleft() if len(self._queue) > 1 else self._queue[0]
