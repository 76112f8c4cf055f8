"""An MCP server's tool catalogue (`tools/list`), its content hashes and catalogue drift.

A catalogue file (`toolgrade mcp catalogue`) holds each tool's name, description, inputSchema,
outputSchema and annotations, the server's name and version, and content hashes: one per tool
and one for the whole catalogue. A suite that takes its tools from the file (`tools_from`)
stamps each case with the hashes (`CatalogueStamp`), and a run recorded at the protocol
(`toolgrade mcp record`) carries the stamp of the catalogue it saw, so the two can be compared
tool by tool (`catalogue_drift`). docs/mcp.md describes the file and the comparison.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

#: The `format` value of a catalogue file, and its version.
CATALOGUE_FORMAT = "toolgrade-mcp-catalogue"
CATALOGUE_VERSION = 1
#: The tool fields a tool's hash covers: what the agent is shown and what it may send.
HASHED_FIELDS = ("name", "description", "inputSchema", "outputSchema", "annotations")

#: A tool's side-effect class: free to call, mutating, or mutating and destructive.
SideEffectClass = Literal["read", "write", "destructive"]


def _canonical(value: Any) -> bytes:
    """JSON text that equal values share whatever their key order."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def tool_hash(tool: Mapping[str, Any]) -> str:
    """`sha256:<hex>` of a tool's hashed fields (absent and null fields alike left out)."""
    kept = {k: tool[k] for k in HASHED_FIELDS if tool.get(k) is not None}
    return "sha256:" + hashlib.sha256(_canonical(kept)).hexdigest()


def catalogue_hash(tool_hashes: Mapping[str, str]) -> str:
    """`sha256:<hex>` of a catalogue: of its tools' names and hashes, in name order (so the
    order a server lists its tools in changes nothing)."""
    text = "".join(f"{name}\n{tool_hashes[name]}\n" for name in sorted(tool_hashes))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CatalogueStamp(_Frozen):
    """A catalogue's hashes: the whole and each tool's, enough to tell which tools changed."""

    hash: str = Field(description="The catalogue's content hash.")
    tools: dict[str, str] = Field(
        default_factory=dict, description="Each tool's content hash, by tool name."
    )

    @classmethod
    def of_tools(cls, tools: Iterable[Mapping[str, Any]]) -> CatalogueStamp:
        """The stamp of a `tools/list` result's tools (each with at least a `name`)."""
        hashes = {str(t["name"]): tool_hash(t) for t in tools}
        return cls(hash=catalogue_hash(hashes), tools=hashes)


class SuiteCatalogue(CatalogueStamp):
    """The stamp a suite's `tools_from` puts on each of its cases, with what drift does."""

    file: str = Field(description="The catalogue file the suite named.")
    on_drift: Literal["flag", "unscored"] = Field(
        default="flag",
        description="flag: drift is reported; unscored: a run with drift is also left unscored.",
    )


class ToolDrift(_Frozen):
    """How the catalogue a run saw differs from the suite's, tool by tool."""

    added: list[str] = Field(default_factory=list, description="In the run's, not the suite's.")
    removed: list[str] = Field(default_factory=list, description="In the suite's, not the run's.")
    changed: list[str] = Field(
        default_factory=list, description="In both, with another schema, description or hints."
    )

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def by_tool(self) -> dict[str, str]:
        """Each drifted tool's kind (added, removed or changed), by name."""
        kinds = {name: "added" for name in self.added}
        kinds.update((name, "removed") for name in self.removed)
        kinds.update((name, "changed") for name in self.changed)
        return dict(sorted(kinds.items()))


def catalogue_drift(suite: CatalogueStamp, seen: CatalogueStamp) -> ToolDrift:
    """The tools added, removed and changed in `seen` (a run's) against `suite` (the suite's)."""
    if suite.hash == seen.hash:
        return ToolDrift()
    return ToolDrift(
        added=sorted(set(seen.tools) - set(suite.tools)),
        removed=sorted(set(suite.tools) - set(seen.tools)),
        changed=sorted(
            name for name in set(suite.tools) & set(seen.tools)
            if suite.tools[name] != seen.tools[name]
        ),
    )


def side_effect_class(annotations: Mapping[str, Any] | None) -> SideEffectClass:
    """A tool's side-effect class from its MCP annotations: `readOnlyHint` true is a read,
    `destructiveHint` true a destructive write, anything else a write (a tool that does not
    say it only reads is taken to change something)."""
    hints = annotations or {}
    if hints.get("readOnlyHint") is True:
        return "read"
    if hints.get("destructiveHint") is True:
        return "destructive"
    return "write"


def catalogue_document(
    tools: Iterable[Mapping[str, Any]], server_name: str | None, server_version: str | None
) -> dict[str, Any]:
    """A catalogue file's content: the server, the catalogue hash and each tool (its hashed
    fields and its own hash), in the order the server listed them."""
    kept = [{k: t[k] for k in HASHED_FIELDS if t.get(k) is not None} for t in tools]
    stamp = CatalogueStamp.of_tools(kept)
    return {
        "format": CATALOGUE_FORMAT,
        "version": CATALOGUE_VERSION,
        "server": {"name": server_name, "version": server_version},
        "hash": stamp.hash,
        "tools": [{**t, "hash": stamp.tools[str(t["name"])]} for t in kept],
    }
