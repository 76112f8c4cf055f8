"""A minimal MCP server over stdio for the proxy tests, with no SDK: line-delimited JSON-RPC.

It answers initialize, tools/list (two pages) and tools/call; a call of `slow` is answered
after `SLOW_S` seconds, a call of `fail` with `isError: true`, and a call of `quit` not at all:
the server exits. Every line it reads is
appended, as it came, to the file named by its first argument (to show the proxy changed none).
"""

from __future__ import annotations

import json
import sys
import time

SLOW_S = 2.0
PAGES = {
    None: ([{"name": "echo", "inputSchema": {"type": "object"},
             "annotations": {"readOnlyHint": True}}], "p2"),
    "p2": ([{"name": "slow", "inputSchema": {"type": "object"}},
            {"name": "fail", "inputSchema": {"type": "object"}}], None),
}


def answer(msg: dict) -> dict | None:
    method, params = msg.get("method"), msg.get("params") or {}
    if "id" not in msg:
        return None
    if method == "initialize":
        result: dict = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "fake", "version": "0.1"}}
    elif method == "tools/list":
        tools, cursor = PAGES[params.get("cursor")]
        result = {"tools": tools, **({"nextCursor": cursor} if cursor else {})}
    elif method == "tools/call":
        if params.get("name") == "slow":
            time.sleep(SLOW_S)
        text = json.dumps(params.get("arguments"))
        result = {"content": [{"type": "text", "text": text}],
                  "isError": params.get("name") == "fail"}
    else:
        result = {}
    return {"jsonrpc": "2.0", "id": msg["id"], "result": result}


def main() -> None:
    with open(sys.argv[1], "ab") as seen:
        for line in sys.stdin.buffer:
            seen.write(line)
            seen.flush()
            msg = json.loads(line)
            if (msg.get("params") or {}).get("name") == "quit":
                return
            reply = answer(msg)
            if reply is not None:
                sys.stdout.write(json.dumps(reply) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
