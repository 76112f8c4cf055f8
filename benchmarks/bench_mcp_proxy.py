"""`toolgrade mcp record`: the latency the proxy adds per message, and its memory over a session.

    python benchmarks/bench_mcp_proxy.py [--messages 10000]

A minimal line-delimited MCP server (this script with `--serve`) answers each `tools/call` at
once. The client sends `--messages` calls one at a time, waiting for each answer, first to the
server directly and then through the recording proxy, and times every round trip. A round trip
through the proxy crosses it twice (the request and the response), so the added latency per
message is half the difference of the median round trips. The proxy's peak resident memory
(VmHWM, Linux) after recording that many calls is read before the session ends, with the run
line it then writes, and again once the run line is written (the peak of the waited-for
children, of which the proxy is the largest). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent

RESULT = {"content": [{"type": "text", "text": '{"order_id": "A123", "status": "delivered"}'}],
          "isError": False}


def serve() -> None:
    """The server: answer initialize, tools/list and tools/call on stdio, at once."""
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        if "id" not in msg:
            continue
        method = msg.get("method")
        if method == "tools/list":
            result: dict[str, Any] = {"tools": [{"name": "lookup_order",
                                                 "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = RESULT
        else:
            result = {"protocolVersion": "2025-06-18", "capabilities": {},
                      "serverInfo": {"name": "bench", "version": "1"}}
        out.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
        out.flush()


def _request(id_: int, method: str, params: dict[str, Any]) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
            + "\n").encode()


def _round_trips(process: subprocess.Popen[bytes], n: int) -> list[float]:
    """Send the session's opening, then `n` calls one at a time; each call's round trip (s)."""
    stdin, stdout = _pipes(process)
    for id_, method in ((-2, "initialize"), (-1, "tools/list")):
        stdin.write(_request(id_, method, {}))
        stdin.flush()
        stdout.readline()
    times = []
    for i in range(n):
        line = _request(i, "tools/call", {"name": "lookup_order",
                                          "arguments": {"order_id": f"A{i}"}})
        start = time.perf_counter()
        stdin.write(line)
        stdin.flush()
        stdout.readline()
        times.append(time.perf_counter() - start)
    return times


def _pipes(process: subprocess.Popen[bytes]) -> tuple[IO[bytes], IO[bytes]]:
    assert process.stdin is not None and process.stdout is not None
    return process.stdin, process.stdout


def _peak_rss_mb(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


def _toolgrade() -> list[str]:
    script = Path(sys.executable).parent / "toolgrade"
    return [str(script)] if script.exists() else [sys.executable, "-m", "toolgrade"]


def measure(n: int) -> dict[str, Any]:
    """Both sessions' round trips, the proxy's memory and the run it wrote."""
    server = [sys.executable, str(Path(__file__).resolve()), "--serve"]
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE}
    direct = subprocess.Popen(server, **pipes)  # type: ignore[call-overload]
    direct_times = _round_trips(direct, n)
    _pipes(direct)[0].close()
    direct.wait()
    _pipes(direct)[1].close()
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs.jsonl"
        record = [*_toolgrade(), "mcp", "record", "--out", str(runs), "--case", "bench", "--",
                  *server]
        proxy = subprocess.Popen(record, **pipes)  # type: ignore[call-overload]
        proxy_times = _round_trips(proxy, n)
        peak_before_write = _peak_rss_mb(proxy.pid)
        _pipes(proxy)[0].close()
        proxy.wait()
        _pipes(proxy)[1].close()
        # The largest of the waited-for children: the proxy, now with its run line written.
        peak_whole = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        line = runs.read_text(encoding="utf-8")
        recorded = len(json.loads(line)["messages"]) // 2
    direct_median = statistics.median(direct_times)
    proxy_median = statistics.median(proxy_times)
    return {
        "messages": n,
        "direct_round_trip_median_ms": round(direct_median * 1000, 4),
        "proxy_round_trip_median_ms": round(proxy_median * 1000, 4),
        "added_per_message_median_ms": round((proxy_median - direct_median) * 1000 / 2, 4),
        "proxy_peak_rss_mb_after_calls": peak_before_write,
        "proxy_peak_rss_mb_with_run_written": round(peak_whole, 1),
        "calls_recorded": recorded,
        "run_line_mb": round(len(line.encode()) / 1e6, 2),
    }


def main() -> None:
    """Command line: measure and print a JSON object (or be the server, with --serve)."""
    parser = argparse.ArgumentParser(description="toolgrade mcp record: latency and memory")
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve()
        return
    print(json.dumps(measure(options.messages), indent=2))


if __name__ == "__main__":
    main()
