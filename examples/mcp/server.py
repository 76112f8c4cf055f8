"""A small helpdesk MCP server, written with the official SDK (`pip install 'toolgrade[mcp]'`).

Its tools are the helpdesk example's, with MCP annotations that give their side-effect classes:
reads carry `readOnlyHint`, `cancel_order` and `reset_password` carry `destructiveHint`, the
other writes carry neither. Answers are canned and deterministic: each server process fails the
first lookup of order C777 (`isError`), as a flaky backend would, so recovery has a fault to
grade.

    python examples/mcp/server.py                     # over stdio
    python examples/mcp/server.py --http 8765         # streamable HTTP on 127.0.0.1:8765/mcp

`--refund-v2` serves a changed `refund` schema (a required `currency`), to show drift.
"""

from __future__ import annotations

import argparse
import functools
import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from mcp.types import ToolAnnotations

ORDERS: dict[str, dict[str, Any]] = {
    "A123": {"order_id": "A123", "status": "delivered", "total": 25.0, "email": "jane@example.com"},
    "B456": {"order_id": "B456", "status": "pending", "total": 60.0, "email": "ali@example.com"},
    "C777": {"order_id": "C777", "status": "lost", "total": 40.0, "email": "omar@example.com"},
}
READ = ToolAnnotations(readOnlyHint=True)
DESTRUCTIVE = ToolAnnotations(readOnlyHint=False, destructiveHint=True)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False)


class ToolError(Exception):
    """A tool's failure: the SDK answers it as a result with `isError: true`."""


class Helpdesk:
    """The canned backend: what each tool answers, shared by the server and the tests."""

    def __init__(self) -> None:
        self.lookups: dict[str, int] = {}
        self.refunds = 0

    def answer(self, tool: str, args: dict[str, Any]) -> str:
        """A tool's answer as JSON text; raises ToolError for a failure."""
        return json.dumps(getattr(self, tool)(**args))

    def lookup_order(self, order_id: str) -> dict[str, Any]:
        self.lookups[order_id] = self.lookups.get(order_id, 0) + 1
        if order_id == "C777" and self.lookups[order_id] == 1:
            raise ToolError("503 Service Unavailable")
        if order_id not in ORDERS:
            raise ToolError(f"no order {order_id}")
        return ORDERS[order_id]

    def search_orders(self, customer_email: str) -> list[dict[str, Any]]:
        return [o for o in ORDERS.values() if o["email"] == customer_email.lower()]

    def verify_identity(self, customer_email: str, method: str) -> dict[str, Any]:
        return {"verified": True}

    def refund(self, order_id: str, amount: float, reason: str = "", currency: str = "EUR"
               ) -> dict[str, Any]:
        self.refunds += 1
        return {"refund_id": f"R{self.refunds}"}

    def cancel_order(self, order_id: str, reason: str) -> dict[str, Any]:
        return {"cancelled": True}

    def search_kb(self, query: str) -> list[dict[str, Any]]:
        return [{"title": "Factory-reset your router", "id": "kb-17"}] if "router" in query else []

    def reset_password(self, customer_email: str) -> dict[str, Any]:
        return {"sent": True}


def build_server(backend: Helpdesk | None = None, refund_v2: bool = False) -> MCPServer:
    """The helpdesk server over a backend (a fresh one by default); `refund_v2`: the changed
    refund schema."""
    desk = backend or Helpdesk()
    server = MCPServer("helpdesk", version="1.0.0", log_level="WARNING")

    # Plain text answers (the JSON of the result), no outputSchema: as most servers do today.
    tool = functools.partial(server.tool, structured_output=False)

    def answer(tool: str, args: dict[str, Any]) -> str:
        try:
            return desk.answer(tool, args)
        except ToolError as exc:
            raise SdkToolError(str(exc)) from exc  # answered with isError: true and the text

    @tool(annotations=READ, description="Look up an order by its id.")
    def lookup_order(order_id: str) -> str:
        return answer("lookup_order", {"order_id": order_id})

    @tool(annotations=READ, description="Search a customer's orders by email.")
    def search_orders(customer_email: str) -> str:
        return answer("search_orders", {"customer_email": customer_email})

    @tool(annotations=READ, description="Verify the customer's identity.")
    def verify_identity(customer_email: str, method: str) -> str:
        return answer("verify_identity", {"customer_email": customer_email, "method": method})

    if refund_v2:
        @tool(annotations=WRITE, description="Refund an order, fully or partly.")
        def refund(order_id: str, amount: float, currency: str, reason: str = "") -> str:
            return answer("refund", {"order_id": order_id, "amount": amount,
                                     "currency": currency, "reason": reason})
    else:
        @tool(annotations=WRITE, description="Refund an order, fully or partly.")
        def refund(order_id: str, amount: float, reason: str = "") -> str:  # type: ignore[misc]
            return answer("refund", {"order_id": order_id, "amount": amount, "reason": reason})

    @tool(annotations=DESTRUCTIVE, description="Cancel an order that has not shipped.")
    def cancel_order(order_id: str, reason: str) -> str:
        return answer("cancel_order", {"order_id": order_id, "reason": reason})

    @tool(annotations=READ, description="Search the help-centre knowledge base.")
    def search_kb(query: str) -> str:
        return answer("search_kb", {"query": query})

    @tool(annotations=DESTRUCTIVE, description="Reset a customer's password.")
    def reset_password(customer_email: str) -> str:
        return answer("reset_password", {"customer_email": customer_email})

    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP")
    parser.add_argument("--refund-v2", action="store_true", help="serve the changed refund")
    options = parser.parse_args()
    server = build_server(refund_v2=options.refund_v2)
    if options.http:
        server.run("streamable-http", host="127.0.0.1", port=options.http)
    else:
        server.run()


if __name__ == "__main__":
    main()
