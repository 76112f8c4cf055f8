"""A stand-in OpenAI-compatible chat server on loopback, with injected faults, for tests and
`benchmarks/served_judge.py`: no network, standard library only.

    with StandInServer(FaultPlan(rate=0.2)) as server:
        settings = JudgeSettings(model="openai/stand-in", api_base=server.url, ...)

Every answer is well formed: a reasoned verdict; for a request asking log-probabilities, the
word yes or no with P(yes) = `p_yes` among its first token's alternatives; for one whose
`response_format` schema is an object of booleans (a checklist asked in one request), that
object, each value's token carrying P(true) = `p_yes` (no log-probabilities at all when the
plan says `logprobs=False`). Prompt tokens are estimated at four characters a token.

A `FaultPlan` turns a share of the requests, by arrival order, into transient faults (429 and
503 with `Retry-After`, a 503 without it, a reply that never comes, a dropped connection), but
never more than `max_in_a_row` in a row for one question, so a judge retrying that many times
always gets its answer; or answers every request with one permanent status (`always`). The
server counts the requests it holds open at once (`max_in_flight`): a request whose client gave
up (a timeout) stops counting when the client closes its connection, as vLLM aborts a request
whose client went away.
"""

from __future__ import annotations

import hashlib
import json
import math
import select
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from toolgrade.jsonio.values import JsonObject

#: The transient faults injected, in turn.
FAULT_KINDS: tuple[str, ...] = ("429", "503", "503-bare", "timeout", "drop")


@dataclass(frozen=True)
class FaultPlan:
    """Which requests fail, and how.

    `rate`: the share of requests (by arrival order) that get a transient fault, the kinds
    taken in turn from `kinds`. `retry_after`: the `Retry-After` header of 429 and 503 faults
    (seconds, as text: "0.05", or an HTTP date). `hang_s`: how long a `timeout` fault holds the
    request before closing it (set it above the client's timeout). `always`: an HTTP status
    every request gets instead (a permanent fault), e.g. 404. `delay_s`: how long an answer
    takes (so that concurrent requests overlap at the server).
    """

    rate: float = 0.0
    kinds: tuple[str, ...] = FAULT_KINDS
    retry_after: str = "0.05"
    hang_s: float = 2.0
    max_in_a_row: int = 2
    always: int | None = None
    verdict: str = "pass"
    delay_s: float = 0.0
    p_yes: float = 0.8
    logprobs: bool = True


class _Tally:
    """What the server saw, under one lock (handlers run on threads of their own)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests = 0
        self.faults: Counter[str] = Counter()
        self.answered = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.streak: Counter[str] = Counter()  # faults in a row per question
        self.starts: list[float] = []  # time.monotonic() of each request's arrival
        self.asked: list[str] = []  # each request's first user message
        self.prompt_tokens = 0  # estimated, over every request received
        self.hanging: set[socket.socket] = set()  # held requests still counted in flight


class StandInServer:
    """The server on 127.0.0.1 (a free port), serving from a background thread.

    `url` is its OpenAI base URL (`http://127.0.0.1:PORT/v1`). Figures: `requests`, `faults`
    (per kind), `answered`, `max_in_flight`, `starts`, `asked`, `prompt_tokens`.
    """

    def __init__(self, plan: FaultPlan | None = None) -> None:
        self.plan = plan or FaultPlan()
        self._tally = _Tally()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> StandInServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def requests(self) -> int:
        """Requests received, faults included."""
        return self._tally.requests

    @property
    def faults(self) -> dict[str, int]:
        """Faults injected, per kind."""
        with self._tally.lock:
            return dict(self._tally.faults)

    @property
    def answered(self) -> int:
        """Requests answered with a verdict."""
        return self._tally.answered

    @property
    def asked(self) -> list[str]:
        """Each request's first user message, in arrival order."""
        with self._tally.lock:
            return list(self._tally.asked)

    @property
    def starts(self) -> list[float]:
        """When each request arrived (`time.monotonic()`), in arrival order."""
        with self._tally.lock:
            return list(self._tally.starts)

    @property
    def prompt_tokens(self) -> int:
        """The prompt tokens of every request received (estimated: four characters a token)."""
        return self._tally.prompt_tokens

    @property
    def max_in_flight(self) -> int:
        """The most requests the server held open at once."""
        return self._tally.max_in_flight

    # -- deciding a request ---------------------------------------------------------------

    def enter(self, body: JsonObject) -> str | None:
        """Count a request in; the fault kind it gets, or None to answer it."""
        plan, tally = self.plan, self._tally
        question = _question(body)
        user = (m.get("content") for m in _messages(body) if m.get("role") == "user")
        with tally.lock:
            self._sweep()
            tally.requests += 1
            tally.asked.append(str(next(user, "")))
            tally.prompt_tokens += _prompt_tokens(body)
            tally.starts.append(time.monotonic())
            tally.in_flight += 1
            tally.max_in_flight = max(tally.max_in_flight, tally.in_flight)
            n = tally.requests
            if plan.always is not None:
                return "always"
            # Spread evenly: request n faults when it carries the share past a whole number.
            due = int(n * plan.rate) > int((n - 1) * plan.rate)
            if not due or tally.streak[question] >= plan.max_in_a_row:
                tally.streak[question] = 0
                return None
            kind = plan.kinds[sum(tally.faults.values()) % len(plan.kinds)]
            tally.streak[question] += 1
            tally.faults[kind] += 1
            return kind

    def leave(self, answered: bool) -> None:
        """Count a request out: called just before its reply is written, so a client that
        starts its next request on reading the reply never finds the last one still counted."""
        with self._tally.lock:
            self._tally.in_flight -= 1
            self._tally.answered += int(answered)

    def hold(self, connection: socket.socket) -> None:
        """Count a request as held (no reply) until its client closes the connection."""
        with self._tally.lock:
            self._tally.hanging.add(connection)

    def release(self, connection: socket.socket) -> None:
        """Count a held request out, unless a sweep already did."""
        with self._tally.lock:
            if connection in self._tally.hanging:
                self._tally.hanging.discard(connection)
                self._tally.in_flight -= 1

    def _sweep(self) -> None:
        # Under the lock, as each request arrives: a client that gave up closed its connection
        # before it sent anything new, so the close is already readable here, whatever the
        # held handler's thread has been scheduled to notice.
        tally = self._tally
        for connection in list(tally.hanging):
            readable, _, _ = select.select([connection], [], [], 0)
            if readable and connection.recv(1, socket.MSG_PEEK) == b"":
                tally.hanging.discard(connection)
                tally.in_flight -= 1


def _completion(body: JsonObject, plan: FaultPlan) -> bytes:
    """The answer to `body`: a reasoned verdict, a yes/no token, or an object of booleans."""
    tokens = _answer_tokens(body, plan)
    content = "".join(token for token, _ in tokens) if tokens else _verdict(plan.verdict)
    choice: JsonObject = {"index": 0, "finish_reason": "stop",
                          "message": {"role": "assistant", "content": content}}
    if tokens and plan.logprobs:
        choice["logprobs"] = {"content": [
            {"token": token, "logprob": top[0][1], "bytes": None,
             "top_logprobs": [{"token": t, "logprob": lp, "bytes": None} for t, lp in top]}
            for token, top in tokens]}
    prompt = _prompt_tokens(body)
    completion = len(tokens) if tokens else 3
    reply = {
        "id": "stand-in", "object": "chat.completion", "created": 0,
        "model": str(body.get("model", "")), "choices": [choice],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion},
    }
    return json.dumps(reply).encode()


def _prompt_tokens(body: JsonObject) -> int:
    """The request's prompt tokens, estimated at four characters a token."""
    return math.ceil(sum(len(str(m.get("content", ""))) for m in _messages(body)) / 4)


Alternatives = list[tuple[str, float]]


def _answer_tokens(body: JsonObject, plan: FaultPlan) -> list[tuple[str, Alternatives]]:
    """A log-probability answer's tokens, each with its alternatives (the chosen one first);
    none for a reasoned request."""
    if body.get("logprobs") is not True:
        return []
    yes, no = math.log(plan.p_yes), math.log(1.0 - plan.p_yes)
    ids = _boolean_ids(body)
    if not ids:
        word = [("yes", yes), ("no", no)]
        return [(word[0][0] if yes >= no else word[1][0], sorted(word, key=lambda a: -a[1]))]
    out: list[tuple[str, Alternatives]] = []
    for n, qid in enumerate(ids):
        out.append(("{\"" if n == 0 else ", \"", []))
        out.append((qid, []))
        out.append(("\":", []))
        value = [(" true", yes), (" false", no)]
        value.sort(key=lambda a: -a[1])
        out.append((value[0][0], value))
    out.append(("}", []))
    return [(token, top or [(token, 0.0)]) for token, top in out]


def _boolean_ids(body: JsonObject) -> list[str]:
    """The keys of a `response_format` schema whose every property is a boolean, in order."""
    form = body.get("response_format")
    schema = form.get("json_schema") if isinstance(form, dict) else None
    inner = schema.get("schema") if isinstance(schema, dict) else None
    properties = inner.get("properties") if isinstance(inner, dict) else None
    if not isinstance(properties, dict) or not properties:
        return []
    if any(not isinstance(p, dict) or p.get("type") != "boolean" for p in properties.values()):
        return []
    return [str(key) for key in properties]


def _messages(body: JsonObject) -> list[JsonObject]:
    """The request's chat messages (a body without them has none)."""
    messages = body.get("messages", [])
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def _question(body: JsonObject) -> str:
    """The request's identity across retries: a hash of its messages."""
    text = json.dumps(body.get("messages", []), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class _StandInHandler(BaseHTTPRequestHandler):
    """Answers one chat-completion request as the stand-in server's plan says."""

    standin: StandInServer
    counted_out: bool

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        kind = self.standin.enter(body)
        if kind == "timeout":
            self._hang(self.standin.plan.hang_s)
            return
        self.counted_out = False
        try:
            self._respond(kind, body)
        finally:
            if not self.counted_out:  # the reply failed before it was counted out
                self._count_out(False)

    def _count_out(self, answered: bool) -> None:
        self.counted_out = True
        self.standin.leave(answered)

    def _respond(self, kind: str | None, body: JsonObject) -> None:
        plan = self.standin.plan
        if kind is None:
            time.sleep(plan.delay_s)
            self._send(200, _completion(body, plan), answered=True)
        elif kind == "always":
            self._send(int(plan.always or 500), _error("permanent stand-in fault"))
        elif kind in ("429", "503"):
            self._send(int(kind), _error(f"stand-in {kind}"), retry_after=plan.retry_after)
        elif kind == "503-bare":
            self._send(503, _error("stand-in 503, no Retry-After"))
        else:  # "drop": no reply at all
            self._count_out(False)
            self.close_connection = True

    def _hang(self, seconds: float) -> None:
        # Hold the request until the client gives up and closes its end (or `seconds`).
        self.standin.hold(self.connection)
        try:
            select.select([self.connection], [], [], seconds)
        finally:
            self.standin.release(self.connection)
            self.close_connection = True

    def _send(self, status: int, data: bytes, *, retry_after: str | None = None,
              answered: bool = False) -> None:
        self._count_out(answered)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if retry_after is not None:
            self.send_header("Retry-After", retry_after)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests and the benchmark print their own figures."""



def _handler_for(server: StandInServer) -> type[BaseHTTPRequestHandler]:
    """The handler class bound to `server` (http.server builds one handler per request)."""
    return type("Handler", (_StandInHandler,), {"standin": server})


def _verdict(verdict: str) -> str:
    return json.dumps({"reason": "the stand-in server says so", "verdict": verdict})


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "stand_in", "code": None}}).encode()
