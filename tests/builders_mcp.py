"""Small builders for the MCP tests: catalogue files, JSON-RPC logs and MCP-suites."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolgrade.models.catalogue import catalogue_document

OBJ = {"type": "object"}


def mcp_tool(name: str, properties: dict[str, Any] | None = None,
             required: list[str] | None = None, **annotations: bool) -> dict[str, Any]:
    """A `tools/list` tool with an object input schema and the given annotation hints."""
    schema: dict[str, Any] = {"type": "object", "properties": properties or {}}
    if required:
        schema["required"] = required
    tool: dict[str, Any] = {"name": name, "description": f"The {name} tool.", "inputSchema": schema}
    if annotations:
        tool["annotations"] = annotations
    return tool


HELPDESK_TOOLS = [
    mcp_tool("lookup_order", {"order_id": {"type": "string", "pattern": "^[A-Z][0-9]+$"}},
             ["order_id"], readOnlyHint=True),
    mcp_tool("refund", {"order_id": {"type": "string"}, "amount": {"type": "number"}},
             ["order_id", "amount"]),
    mcp_tool("delete_account", {"email": {"type": "string"}}, ["email"], destructiveHint=True),
    mcp_tool("search_kb", {"query": {"type": "string"}}, ["query"], readOnlyHint=True),
]


def write_catalogue(path: Path, tools: list[dict[str, Any]] | None = None) -> Path:
    """A catalogue file as `toolgrade mcp catalogue` writes it."""
    document = catalogue_document(tools or HELPDESK_TOOLS, "helpdesk", "1.0")
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return path


def write_mcp_suite(folder: Path, cases_yaml: str, tools_from: str = "tools.json") -> Path:
    """A YAML suite that takes its tools from a catalogue file, with the given cases body."""
    path = folder / "suite.yaml"
    path.write_text(f"tools_from: {tools_from}\ncases:\n{cases_yaml}", encoding="utf-8")
    return path


def call(id_: int, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """A `tools/call` request."""
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call",
            "params": {"name": tool, "arguments": args}}


def reply(id_: int, content: Any, is_error: bool = False) -> dict[str, Any]:
    """A `tools/call` response with one text block."""
    text = content if isinstance(content, str) else json.dumps(content)
    return {"jsonrpc": "2.0", "id": id_,
            "result": {"content": [{"type": "text", "text": text}], "isError": is_error}}
