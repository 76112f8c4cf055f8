"""`toolgrade mcp record`: a stdio proxy between an agent and an MCP server.

The agent launches the proxy instead of the server; the proxy starts the server and copies
each line both ways as it comes, unchanged, before it looks at it (so the only latency it adds
is a copy). When the session ends (the agent closes its end or dies, the server exits, or the
proxy gets SIGTERM, SIGINT or SIGHUP) it writes the session's calls and results as one run line,
appended in a single write: a killed agent still leaves a complete, readable last line.
"""

from __future__ import annotations

import itertools
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

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
    """Copy lines from `source` to `sink` until end of file; each is observed after it went."""
    for line in iter(source.readline, b""):
        seq = next(order)
        try:
            sink.write(line)
            sink.flush()
        except (BrokenPipeError, ValueError, OSError):
            break  # the other side is gone: nothing more can be delivered
        observe(line, seq)


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
        to_agent = threading.Thread(
            target=_pump, args=(self.server.stdout, self.agent_out, self._from_server, self.order),
            daemon=True)
        to_agent.start()
        _pump(self.agent_in, self.server.stdin, self._from_agent, self.order)
        # The agent is done (or gone): let the server answer what is in flight, then stop it.
        self._close_server_input()
        try:
            self.server.wait(SERVER_GRACE_S)
        except subprocess.TimeoutExpired:
            self.server.terminate()
            self.server.wait()
        to_agent.join(SERVER_GRACE_S)
        self.finish()
        return self.server.returncode or 0

    def _from_agent(self, line: bytes, seq: int) -> None:
        with self.lock:
            self.record.take(line, seq, from_agent=True)

    def _from_server(self, line: bytes, seq: int) -> None:
        with self.lock:
            self.record.take(line, seq, from_agent=False)

    def _close_server_input(self) -> None:
        try:
            assert self.server.stdin is not None
            self.server.stdin.close()
        except OSError:
            pass

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
        raise SystemExit(128 + signum)


def run_proxy(command: Sequence[str], target: RecordTarget) -> int:
    """Record one session between this process's stdio (the agent) and `command` (the server)."""
    if not command:
        raise ToolgradeError("give the server's command after `--`")
    proxy = Proxy(command, target, sys.stdin.buffer, sys.stdout.buffer)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, proxy.on_signal)
    return proxy.run()
