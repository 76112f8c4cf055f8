"""A scripted MCP client standing in for two agents, recorded through `toolgrade mcp record`.

Each session launches the recording proxy instead of the server, exactly as a real agent's MCP
configuration would (`command: toolgrade`, `args: [mcp, record, ..., --, python, server.py]`),
lists the tools and makes the script's calls. The proxy appends one run per session to --out.

    python examples/mcp/agent.py --out examples/mcp/runs/runs.jsonl [--refund-v2]

The scripts are written out below so that the example shows passes and failures on purpose:
`careful` follows each case's route and retries the flaky lookup; `hasty` skips the identity
check, gives up after the fault, calls a forbidden tool and loops on the knowledge base.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

HERE = Path(__file__).parent
Call = tuple[str, dict[str, Any]]

JANE = {"customer_email": "jane@example.com", "method": "email_code"}
SCRIPTS: dict[str, dict[str, list[Call]]] = {
    "careful": {
        "refund-damaged-01": [("lookup_order", {"order_id": "A123"}),
                              ("verify_identity", JANE),
                              ("refund", {"order_id": "A123", "amount": 25.0,
                                          "reason": "arrived damaged"})],
        "refund-outage-02": [("lookup_order", {"order_id": "C777"}),
                             ("lookup_order", {"order_id": "C777"}),
                             ("verify_identity", {"customer_email": "omar@example.com",
                                                  "method": "email_code"}),
                             ("refund", {"order_id": "C777", "amount": 40})],
        "cancel-order-03": [("lookup_order", {"order_id": "B456"}),
                            ("verify_identity", {"customer_email": "ali@example.com",
                                                 "method": "email_code"}),
                            ("cancel_order", {"order_id": "B456", "reason": "customer_request"})],
        "kb-router-05": [("search_kb", {"query": "factory reset router"})],
    },
    "hasty": {
        "refund-damaged-01": [("lookup_order", {"order_id": "A123"}),
                              ("refund", {"order_id": "A123", "amount": "25"})],
        "refund-outage-02": [("lookup_order", {"order_id": "C777"}),
                             ("refund", {"order_id": "C777", "amount": 40})],
        "cancel-order-03": [("lookup_order", {"order_id": "B456"}),
                            ("refund", {"order_id": "B456", "amount": 60}),
                            ("cancel_order", {"order_id": "B456", "reason": "mistake"})],
        "kb-router-05": [("search_kb", {"query": "router"})] * 3,
    },
}


def proxy_command(out: Path, case: str, agent: str, server: list[str]) -> StdioServerParameters:
    """The recording proxy in front of the server, as an agent's MCP configuration names it."""
    toolgrade = shutil.which("toolgrade") or str(Path(sys.executable).with_name("toolgrade"))
    args = ["mcp", "record", "--out", str(out), "--case", case, "--agent", agent, "--", *server]
    return StdioServerParameters(command=toolgrade, args=args)


async def session(params: StdioServerParameters, calls: list[Call]) -> None:
    """One session: initialize, list the tools, make the calls in order."""
    async with Client(params, mode="legacy") as client:
        await client.list_tools(cache_mode="bypass")
        for tool, args in calls:
            await client.call_tool(tool, args)


async def record_all(out: Path, server: list[str]) -> None:
    """Every agent's session on every case of its script."""
    for agent, cases in SCRIPTS.items():
        for case, calls in cases.items():
            await session(proxy_command(out, case, agent, server), calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="runs file to write")
    parser.add_argument("--refund-v2", action="store_true",
                        help="record against the server with the changed refund schema")
    options = parser.parse_args()
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.unlink(missing_ok=True)  # the example's runs are written afresh
    server = [sys.executable, str(HERE / "server.py"), *(["--refund-v2"] * options.refund_v2)]
    anyio.run(record_all, options.out, server)
    print(f"recorded {sum(len(c) for c in SCRIPTS.values())} sessions to {options.out}")


if __name__ == "__main__":
    main()
