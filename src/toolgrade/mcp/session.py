"""What `toolgrade mcp record` keeps of an MCP session: its tool calls, their results and the
catalogue the agent was shown, written as one run line.

Only `tools/call` requests and the responses to them end in the run, as their JSON text (a
run's `messages` in the JSON-RPC log format, docs/mcp.md); `tools/list` responses give the
catalogue stamp the run carries. Lines are kept as bytes while the session runs (a session of
10k calls holds a few megabytes) and read when it ends.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolgrade.models.catalogue import CatalogueStamp

TOOLS_CALL, TOOLS_LIST = "tools/call", "tools/list"


def _messages(line: bytes) -> Iterator[dict[str, Any]]:
    """The JSON-RPC messages of one stdio line (a message, or a batch), or none when the line
    is not JSON: the proxy forwards whatever it is given and records what it can read."""
    try:
        value = json.loads(line)
    except ValueError:
        return
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, dict):
            yield item


class SessionRecord:
    """The recorded part of one session.

    While the session runs, `take` only keeps each line that may matter (one that carries an
    `id`), with its place in the forwarding order: it costs a copy, and the two directions'
    threads may observe in either order (a response can be observed before the request it
    answers). `run_line` reads the lines in forwarding order when the session ends.
    """

    def __init__(self) -> None:
        self.lines: list[tuple[int, bool, bytes]] = []

    def take(self, line: bytes, seq: int, from_agent: bool) -> None:
        """A forwarded line, the `seq`-th, sent by the agent (else by the server)."""
        if b'"id"' in line:  # notifications carry none: forwarded and forgotten
            self.lines.append((seq, from_agent, line))

    def replay(self) -> tuple[list[str], CatalogueStamp | None]:
        """The kept messages' JSON text, in order, and the stamp of the last catalogue listed."""
        replay = _Replay()
        for _, from_agent, line in sorted(self.lines):
            for msg in _messages(line):
                (replay.from_agent if from_agent else replay.from_server)(msg)
        stamp = CatalogueStamp.of_tools(replay.listing) if replay.listing is not None else None
        return replay.kept, stamp

    def run_line(self, case_id: str, trial: int, agent: str | None) -> str:
        """The session as one run line (JSON, without its newline)."""
        kept, stamp = self.replay()
        head: dict[str, Any] = {"case_id": case_id, "trial": trial}
        if agent is not None:
            head["agent"] = agent
        head["format"] = "mcp"
        if stamp is not None:
            head["catalogue"] = stamp.model_dump()
        text = json.dumps(head, ensure_ascii=False)
        return text[:-1] + ', "messages": [' + ", ".join(kept) + "]}"


class _Replay:
    """The session's messages read in order: calls and their responses kept, listings read."""

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.calls: set[Any] = set()
        self.pages: dict[Any, bool] = {}
        self.listing: list[dict[str, Any]] | None = None

    def from_agent(self, msg: dict[str, Any]) -> None:
        method, id_ = msg.get("method"), _key(msg.get("id"))
        if id_ is None:
            return
        if method == TOOLS_CALL:
            self.calls.add(id_)
            self.kept.append(json.dumps(msg, ensure_ascii=False))
        elif method == TOOLS_LIST:
            params = msg.get("params")
            self.pages[id_] = isinstance(params, dict) and bool(params.get("cursor"))

    def from_server(self, msg: dict[str, Any]) -> None:
        id_ = _key(msg.get("id"))
        if id_ is None or "method" in msg:
            return
        if id_ in self.calls:
            self.calls.discard(id_)
            self.kept.append(json.dumps(msg, ensure_ascii=False))
        elif id_ in self.pages:
            self._listed(self.pages.pop(id_), msg.get("result"))

    def _listed(self, next_page: bool, result: Any) -> None:
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            return
        named = [t for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
        # A first page starts the listing afresh; a next page adds to it.
        self.listing = [*(self.listing or []), *named] if next_page else named


def _key(value: Any) -> Any:
    """A JSON-RPC id as a set key (a string or a number; anything else is no id)."""
    return value if isinstance(value, str | int) and not isinstance(value, bool) else None


def next_trial(out: Path, case_id: str, agent: str | None) -> int:
    """The next trial number of a case and agent in a runs file: the runs it already holds."""
    if not out.is_file():
        return 0
    count = 0
    with out.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and value.get("case_id") == case_id \
                    and value.get("agent") == agent:
                count += 1
    return count


def append_line(out: Path, text: str) -> None:
    """Append one line in a single write to a file opened for appending, so a reader never
    sees half of it and two recorders never interleave theirs."""
    data = (text + "\n").encode("utf-8")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
    finally:
        os.close(fd)
