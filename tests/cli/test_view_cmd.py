"""`toolgrade view DIR`: bad folders exit 2 naming the path; a good one serves until Ctrl-C."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

from typer.testing import CliRunner

from builders_viewer import write_viewer_dir
from toolgrade.cli.main import app


def test_a_folder_without_results_exits_2_naming_the_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["view", str(tmp_path), "--no-browser"])
    assert result.exit_code == 2
    assert f"{tmp_path / 'results.jsonl'}: no such file" in result.output.replace("\n", "")


def test_a_taken_port_exits_2_saying_so(tmp_path: Path) -> None:
    folder = write_viewer_dir(tmp_path / "out", 3)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["view", str(folder), "--no-browser",
                                          "--port", str(port)])
    assert result.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in result.output


def test_view_prints_the_address_serves_it_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    """Run with the machine kept busy (CPU burners for the test's length): the viewer must
    stop serving at Ctrl-C whatever the load. What the test waits on is the viewer's own
    event, its "stopped" line, not a wall-clock bound on the interpreter's teardown after it
    (about 0.1 s idle, a second or more on a loaded 2-core machine)."""
    folder = write_viewer_dir(tmp_path / "out", 12, bad_lines={3: "garbage"})
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    process = subprocess.Popen(
        [sys.executable, "-m", "toolgrade", "view", str(folder), "--no-browser", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        second = process.stdout.readline()
        assert "11 runs indexed" in first and "1 unreadable line(s)" in first
        match = re.search(r"at (http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)", second)
        assert match, second
        with urllib.request.urlopen(match.group(1) + "api/runs", timeout=60) as response:
            assert b'"matched": 11' in response.read()
        process.send_signal(signal.SIGINT)
        assert _next_line(process, timeout_s=120) == "stopped"
        assert process.wait(timeout=120) == 0
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _next_line(process: subprocess.Popen[str], timeout_s: float) -> str:
    """The process's next stdout line, or "" when none came within `timeout_s` (a hang)."""
    lines: list[str] = []
    stdout = process.stdout
    assert stdout is not None
    reader = threading.Thread(target=lambda: lines.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout_s)
    return lines[0].strip() if lines else ""
