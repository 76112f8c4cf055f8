"""The tools of a drafted suite: from a catalogue file when one is given, else from the runs.

A catalogue is a suite's `tools:` mapping (YAML or JSON) or an MCP `tools/list` answer (a list
of `{name, description, inputSchema, annotations}`, bare or under `tools`). Side-effect classes
come from the catalogue: a suite's `side_effect` (absent: a read, as in a suite), or MCP
annotations (`readOnlyHint` read; `destructiveHint` or no hint a write, as MCP assumes). A tool
in no catalogue is classed by its name (a read verb first: read; a write verb anywhere: write).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from toolgrade.errors import ToolgradeError, read_utf8

_READ_VERBS = frozenset({"get", "list", "search", "lookup", "find", "fetch", "read", "query",
                         "check", "track", "show", "view", "describe", "calculate", "count",
                         "verify", "think"})
_WRITE_VERBS = frozenset({"create", "update", "delete", "cancel", "refund", "send", "book",
                          "modify", "reset", "schedule", "return", "exchange", "transfer", "set",
                          "add", "remove", "submit", "pay", "charge", "post", "write", "change",
                          "issue", "escalate", "open", "close", "assign", "apply", "toggle",
                          "enable", "disable", "grant", "revoke", "move", "rename", "upload"})


@dataclass(frozen=True)
class DraftTool:
    """A tool as the draft writes it, and where its side-effect class came from."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    side_effect: bool
    source: str

    def enum_of(self, field: str) -> list[Any] | None:
        """The `enum` the schema gives a top-level argument, if any."""
        properties = self.parameters.get("properties")
        spec = properties.get(field) if isinstance(properties, dict) else None
        values = spec.get("enum") if isinstance(spec, dict) else None
        return list(values) if isinstance(values, list) else None


def words(name: str) -> list[str]:
    """A tool name's words, lower case (`lookupOrder`, `lookup_order`: lookup, order)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^a-zA-Z0-9]+", spaced.lower()) if w]


def side_effect_from_name(name: str) -> bool:
    """Whether a tool's name reads as a write: a read verb first says read, else any write
    verb says write, else read."""
    parts = words(name)
    if parts and parts[0] in _READ_VERBS:
        return False
    return any(word in _WRITE_VERBS for word in parts)


def _mcp_tool(entry: Mapping[str, Any]) -> DraftTool:
    annotations = entry.get("annotations") or {}
    schema = entry.get("inputSchema") or {"type": "object"}
    name = str(entry["name"])
    if annotations.get("readOnlyHint") is True:
        return DraftTool(name, str(entry.get("description") or ""), schema, False,
                         "MCP readOnlyHint")
    hinted = "destructiveHint" in annotations or "readOnlyHint" in annotations
    return DraftTool(name, str(entry.get("description") or ""), schema, True,
                     "MCP annotations" if hinted else "MCP tool without readOnlyHint")


def _suite_tool(name: str, spec: Mapping[str, Any]) -> DraftTool:
    # A suite's tool without `side_effect` is a read, as the suite format has it.
    parameters = spec.get("parameters") or {"type": "object"}
    return DraftTool(name, str(spec.get("description") or ""), parameters,
                     spec.get("side_effect") is True, "the catalogue")


def read_catalogue(path: Path) -> dict[str, DraftTool]:
    """The tools of a catalogue file; `ToolgradeError` naming the file when it is not one."""
    try:
        text = read_utf8(path)
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ToolgradeError(f"{path}: not a readable tool catalogue: {exc}") from exc
    entries = data.get("tools") if isinstance(data, dict) else data
    if isinstance(entries, dict):
        return {str(n): _suite_tool(str(n), s if isinstance(s, dict) else {})
                for n, s in entries.items()}
    if isinstance(entries, list) and all(isinstance(e, dict) and "name" in e for e in entries):
        return {str(e["name"]): _mcp_tool(e) for e in entries}
    raise ToolgradeError(f"{path}: tools: expected a suite's `tools:` mapping or an MCP tools "
                         "list ({name, inputSchema, annotations})")


def tools_for(names: Iterable[str], catalogue: Mapping[str, DraftTool]) -> dict[str, DraftTool]:
    """The tools the runs called, from the catalogue, else with only their name to go by."""
    tools: dict[str, DraftTool] = {}
    for name in sorted(set(names)):
        tools[name] = catalogue.get(name) or DraftTool(
            name, "", {"type": "object"}, side_effect_from_name(name),
            "its name (not in a catalogue)")
    return tools
