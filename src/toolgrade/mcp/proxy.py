"""`toolgrade mcp record`: a stdio proxy between an agent and an MCP server.

The agent launches the proxy instead of the server; the proxy starts the server and copies
each line both ways as it comes, unchanged, before it looks at it (so the only latency it adds
is a copy). When the session ends (the agent closes its end or dies, the server exits, or the
proxy gets SIGTERM, SIGINT or SIGHUP) it writes the session's calls and results as one run line,
appended in a single write: a killed agent still leaves a complete, readable last line.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn

from toolgrade.errors import ToolgradeError
from toolgrade.mcp.session import SessionRecord, append_line, next_trial

#: How long the server gets to finish after the agent closed its end, before it is stopped.
SERVER_GRACE_S = 5.0


@dataclass(frozen=True)
class RecordTarget:
    """Where and as what the session is written."""

    out: Path
    case_id: str
    agent: str | None = None
    trial: int | None = None


#: Numbers the lines of both directions in the order they were forwarded (`next` on a count is
#: atomic under the GIL): the record keeps that order, whichever thread observes first.
Observer = Callable[[bytes, int], None]


def _pump(source: IO[bytes], sink: IO[bytes], observe: Observer, order: Iterator[int]) -> None:
    """Copy lines from `source` to `sink` until end of file. Each is observed just before it
    goes (observing is an append: the record reads the lines when the session ends), so a
    line the other side received is always in the record."""
    for line in iter(source.readline, b""):
        observe(line, next(order))
        try:
            sink.write(line)
            sink.flush()
        except (BrokenPipeError, ValueError, OSError):
            break  # the other side is gone: nothing more can be delivered


class Proxy:
    """One recorded session: the server process, the two copying threads and the record."""

    def __init__(self, command: Sequence[str], target: RecordTarget,
                 agent_in: IO[bytes], agent_out: IO[bytes]) -> None:
        self.target = target
        self.record = SessionRecord()
        self.written = threading.Event()
        self.lock = threading.Lock()
        try:
            self.server = subprocess.Popen(list(command), stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, bufsize=0)
        except OSError as exc:
            raise ToolgradeError(f"cannot start the MCP server {command[0]!r}: {exc}") from exc
        self.agent_in, self.agent_out = agent_in, agent_out
        self.order = itertools.count()

    def run(self) -> int:
        """Forward until the session ends; write the run; the server's exit code."""
        assert self.server.stdin is not None and self.server.stdout is not None
        agent_done, server_done = threading.Event(), threading.Event()
        to_server = self._pump_thread(self.agent_in, self.server.stdin, self._from_agent,
                                      agent_done)
        to_agent = self._pump_thread(self.server.stdout, self.agent_out, self._from_server,
                                     server_done)
        while not (agent_done.is_set() or server_done.is_set()):
            agent_done.wait(0.2)  # a short wait: the main thread stays free for signals
        if agent_done.is_set():
            # The agent is done (or gone): let the server answer what is in flight, then stop it.
            self._close(self.server.stdin)
        else:
            # The server is gone: say so to the agent, which may still be waiting for answers.
            self._close(self.agent_out)
        try:
            self.server.wait(SERVER_GRACE_S)
        except subprocess.TimeoutExpired:
            self.server.terminate()
            self.server.wait()
        to_agent.join(SERVER_GRACE_S)
        del to_server  # may still wait on the agent's input; a daemon, it ends with the process
        self.finish()
        return self.server.returncode or 0

    def _pump_thread(self, source: IO[bytes], sink: IO[bytes], observe: Observer,
                     done: threading.Event) -> threading.Thread:
        def pump() -> None:
            try:
                _pump(source, sink, observe, self.order)
            finally:
                done.set()

        thread = threading.Thread(target=pump, daemon=True)
        thread.start()
        return thread

    def _from_agent(self, line: bytes, seq: int) -> None:
        with self.lock:
            self.record.take(line, seq, from_agent=True)

    def _from_server(self, line: bytes, seq: int) -> None:
        with self.lock:
            self.record.take(line, seq, from_agent=False)

    @staticmethod
    def _close(stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            stream.close()

    def finish(self) -> None:
        """Write the run line, once (the end of the session or a signal, whichever is first)."""
        with self.lock:
            if self.written.is_set():
                return
            self.written.set()
            target = self.target
            trial = target.trial
            if trial is None:
                trial = next_trial(target.out, target.case_id, target.agent)
            append_line(target.out, self.record.run_line(target.case_id, trial, target.agent))

    def on_signal(self, signum: int, _frame: Any) -> None:
        """Write what was recorded, stop the server and leave with the signal's code."""
        self.finish()
        if self.server.poll() is None:
            self.server.terminate()
        _leave(128 + signum)


def _leave(code: int) -> NoReturn:
    """Exit now: a copying thread may still be blocked reading the agent's input, and the
    interpreter's shutdown would wait on that stream's lock (and abort)."""
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    os._exit(code)


def run_proxy(command: Sequence[str], target: RecordTarget) -> NoReturn:
    """Record one session between this process's stdio (the agent) and `command` (the server),
    then exit with the server's exit code (with 128 + N after signal N)."""
    if not command:
        raise ToolgradeError("give the server's command after `--`")
    proxy = Proxy(command, target, sys.stdin.buffer, sys.stdout.buffer)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, proxy.on_signal)
    _leave(proxy.run())
