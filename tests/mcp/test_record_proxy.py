"""`toolgrade mcp record`: every line forwarded unchanged, the session written as one run line,
also when the agent dies mid-call or the proxy is stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from fake_mcp_server import answer
from toolgrade.loaders.runs import load_runs

FAKE_SERVER = Path(__file__).parents[1] / "fake_mcp_server.py"
# Written by hand, with spaces and key orders no serializer would pick: they must arrive as sent.
SESSION = [
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}\n',
    b'{"method": "notifications/initialized", "jsonrpc": "2.0"}\n',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}\n',
    b'{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"p2"}}\n',
    b'{"params":{"name":"echo","arguments":{"q":"caf\\u00e9"}},"jsonrpc":"2.0","id":4,'
    b'"method":"tools/call"}\n',
    b'{"jsonrpc":"2.0","id":"five","method":"tools/call","params":{"name":"fail",'
    b'"arguments":{}}}\n',
]


def _proxy(tmp_path: Path, **popen: object) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "toolgrade", "mcp", "record", "--out",
               str(tmp_path / "runs.jsonl"), "--case", "c1", "--agent", "a", "--",
               sys.executable, str(FAKE_SERVER), str(tmp_path / "seen.log")]
    return subprocess.Popen(command, **popen)  # type: ignore[call-overload, no-any-return]


def test_messages_pass_unchanged_and_the_session_becomes_a_run(tmp_path: Path) -> None:
    with _proxy(tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proxy:
        assert proxy.stdin is not None and proxy.stdout is not None
        received = []
        for line in SESSION:
            proxy.stdin.write(line)
            proxy.stdin.flush()
            if b'"id"' in line:
                received.append(proxy.stdout.readline())
        proxy.stdin.close()
        assert proxy.wait(60) == 0
    assert (tmp_path / "seen.log").read_bytes() == b"".join(SESSION)
    replies = [answer(json.loads(line)) for line in SESSION if b'"id"' in line]
    assert received == [(json.dumps(r) + "\n").encode() for r in replies]
    (run,) = load_runs([tmp_path / "runs.jsonl"])
    assert (run.case_id, run.agent, run.trial) == ("c1", "a", 0)
    echo, fail = (call for _, call in run.calls)
    assert (echo.tool, echo.args, echo.failed) == ("echo", {"q": "café"}, False)
    assert fail.tool == "fail" and fail.failed
    assert run.catalogue is not None and set(run.catalogue.tools) == {"echo", "slow", "fail"}


def test_a_second_session_is_the_next_trial(tmp_path: Path) -> None:
    for _ in range(2):
        proxy = _proxy(tmp_path, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        proxy.communicate(SESSION[4], timeout=60)
    assert [r.trial for r in load_runs([tmp_path / "runs.jsonl"])] == [0, 1]


def _wait_for_line(path: Path, timeout: float = 60) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().endswith("\n"):
            return path.read_text().splitlines()
        time.sleep(0.1)
    raise AssertionError(f"no run line in {path}")


def test_killing_the_agent_mid_call_leaves_a_complete_readable_run(tmp_path: Path) -> None:
    # A real agent process launches the proxy, calls `slow`, and is killed while it waits.
    agent_code = (
        "import subprocess, sys, time\n"
        f"proxy = subprocess.Popen({_proxy_args(tmp_path)!r}, stdin=subprocess.PIPE, "
        "stdout=subprocess.PIPE)\n"
        "proxy.stdin.write(sys.stdin.buffer.read()); proxy.stdin.flush()\n"
        "time.sleep(600)\n"
    )
    agent = subprocess.Popen([sys.executable, "-c", agent_code], stdin=subprocess.PIPE)
    assert agent.stdin is not None
    slow = b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow"}}\n'
    agent.stdin.write(SESSION[4] + slow)
    agent.stdin.close()
    _wait_for_file_line(tmp_path / "seen.log", slow)
    os.kill(agent.pid, signal.SIGKILL)
    agent.wait(10)
    (line,) = _wait_for_line(tmp_path / "runs.jsonl")
    (run,) = load_runs([tmp_path / "runs.jsonl"])
    assert run.tool_names == ["echo", "slow"]
    assert json.loads(line)["messages"][0]["params"]["name"] == "echo"


def _proxy_args(tmp_path: Path) -> list[str]:
    return [sys.executable, "-m", "toolgrade", "mcp", "record", "--out",
            str(tmp_path / "runs.jsonl"), "--case", "c1", "--", sys.executable,
            str(FAKE_SERVER), str(tmp_path / "seen.log")]


def _wait_for_file_line(path: Path, line: bytes, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and line in path.read_bytes():
            return
        time.sleep(0.05)
    raise AssertionError(f"{line!r} never reached the server")


def test_a_stopped_proxy_writes_what_it_recorded(tmp_path: Path) -> None:
    with _proxy(tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proxy:
        assert proxy.stdin is not None and proxy.stdout is not None
        proxy.stdin.write(SESSION[4])
        proxy.stdin.flush()
        proxy.stdout.readline()
        proxy.send_signal(signal.SIGTERM)
        assert proxy.wait(60) == 128 + signal.SIGTERM
    (run,) = load_runs([tmp_path / "runs.jsonl"])
    assert run.tool_names == ["echo"]


def test_a_server_that_exits_ends_the_session_for_the_agent_too(tmp_path: Path) -> None:
    with _proxy(tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proxy:
        assert proxy.stdin is not None and proxy.stdout is not None
        proxy.stdin.write(SESSION[4])
        proxy.stdin.flush()
        proxy.stdout.readline()
        proxy.stdin.write(b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"quit"}}\n')
        proxy.stdin.flush()
        assert proxy.stdout.readline() == b""  # the agent hears the end instead of waiting
        assert proxy.wait(60) == 0
    (run,) = load_runs([tmp_path / "runs.jsonl"])
    assert run.tool_names == ["echo", "quit"]
