"""`toolgrade mcp catalogue` against the example's real SDK server, over stdio and HTTP."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app
from toolgrade.models.catalogue import CatalogueStamp

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, str(ROOT / "examples" / "mcp" / "server.py")]
runner = CliRunner()


def _catalogue(tmp_path: Path, *args: str) -> tuple[int, str, dict[str, object] | None]:
    out = tmp_path / "tools.json"
    done = runner.invoke(app, ["mcp", "catalogue", "--out", str(out), *args])
    document = json.loads(out.read_text()) if out.exists() else None
    return done.exit_code, done.output, document


def test_stdio_catalogue_has_every_tool_with_hints_and_hashes(tmp_path: Path) -> None:
    code, output, document = _catalogue(tmp_path, "--", *SERVER)
    assert code == 0, output
    assert document is not None and document["server"] == {"name": "helpdesk",
                                                           "version": "1.0.0"}
    tools = {t["name"]: t for t in document["tools"]}  # type: ignore[attr-defined]
    assert set(tools) == {"lookup_order", "search_orders", "verify_identity", "refund",
                          "cancel_order", "search_kb", "reset_password"}
    assert tools["lookup_order"]["annotations"] == {"readOnlyHint": True}
    assert tools["cancel_order"]["annotations"]["destructiveHint"] is True
    assert tools["refund"]["inputSchema"]["required"] == ["order_id", "amount"]
    stamp = CatalogueStamp.of_tools(document["tools"])  # type: ignore[arg-type]
    assert document["hash"] == stamp.hash


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen([*SERVER, "--http", str(port)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def test_http_catalogue_is_the_stdio_one(tmp_path: Path, http_server: str) -> None:
    code, output, over_http = _catalogue(tmp_path, "--url", http_server)
    assert code == 0, output
    code, output, over_stdio = _catalogue(tmp_path, "--", *SERVER)
    assert code == 0, output
    assert over_http is not None and over_stdio is not None
    assert over_http["hash"] == over_stdio["hash"]


def test_a_server_that_never_answers_initialize_is_one_line_and_exit_2(tmp_path: Path) -> None:
    silent = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    code, output, document = _catalogue(tmp_path, "--timeout", "2", "--", *silent)
    assert code == 2 and document is None
    (line,) = output.strip().splitlines()
    assert "did not answer initialize and tools/list within 2 s" in line


def test_a_server_that_exits_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, output, document = _catalogue(tmp_path, "--timeout", "10", "--",
                                        sys.executable, "-c", "pass")
    assert code == 2 and document is None
    assert len(output.strip().splitlines()) == 1 and "failed" in output
