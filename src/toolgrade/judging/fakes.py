"""A scripted `ChatClient` for tests and offline demos: no network, every call recorded.

    client = FakeClient([TransientError("429"), verdict_json("pass")])   # a queue, in order
    client = FakeClient(lambda request: verdict_json("fail"))           # or a function

A scripted item is a reply text, a `ChatReply`, or an exception instance, which is raised (use
litellm's own exception classes to exercise the engine's retry rules).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Union

from toolgrade.judging.client import ChatReply, ChatRequest

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
