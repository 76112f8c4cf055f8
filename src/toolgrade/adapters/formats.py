"""The chat formats a runs line's `messages` may be in: one entry each (docs/architecture.md,
"How to add an input format").

A line names its format in `format`, or none and the first entry whose `detect` claims the
messages reads them (MCP JSON-RPC, then Anthropic content blocks, then any registered after);
OpenAI, the fallback, claims nothing. `register_format` adds an entry, `unregister_format`
takes it away again; the three shipped formats stay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from toolgrade.adapters.anthropic_messages import CALL_BLOCKS, anthropic_to_steps, is_result_block
from toolgrade.adapters.mcp_jsonrpc import is_jsonrpc, jsonrpc_to_steps
from toolgrade.adapters.openai_messages import openai_to_steps
from toolgrade.jsonio.values import JsonValue
from toolgrade.models import Step

#: The format of messages no entry claims.
FALLBACK = "openai"


@dataclass(frozen=True)
class MessageFormatEntry:
    """One chat format: its `format` name, its reader into steps (raising `AdapterError` with
    the field at fault), and whether it claims messages whose line names no format."""

    name: str
    to_steps: Callable[[list[JsonValue]], list[Step]]
    detect: Callable[[list[JsonValue]], bool] | None = None


def is_anthropic(messages: list[JsonValue]) -> bool:
    """Whether any content block is an Anthropic call or result (tool_use, tool_result,
    server_tool_use, web_search_tool_result, ...)."""
    for msg in messages:
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and (b.get("type") in CALL_BLOCKS or is_result_block(b.get("type")))
            for b in content
        ):
            return True
    return False


_SHIPPED = (
    MessageFormatEntry("openai", openai_to_steps),
    MessageFormatEntry("anthropic", anthropic_to_steps, is_anthropic),
    MessageFormatEntry("mcp", jsonrpc_to_steps, is_jsonrpc),
)
#: Detection order: MCP before Anthropic (a JSON-RPC log may carry content blocks).
_DETECTED_FIRST = ("mcp", "anthropic")

_FORMATS: dict[str, MessageFormatEntry] = {entry.name: entry for entry in _SHIPPED}
#: The entries that may claim messages, in detection order (kept in step by (un)registering).
_DETECTORS: list[MessageFormatEntry] = [_FORMATS[name] for name in _DETECTED_FIRST]


def format_names() -> tuple[str, ...]:
    """Every registered format's name (the shipped three first)."""
    return tuple(_FORMATS)


def format_entry(name: str) -> MessageFormatEntry | None:
    """The entry of format `name`, or None."""
    return _FORMATS.get(name)


def detect_format(messages: list[JsonValue]) -> str:
    """The first format in detection order that claims the messages; OpenAI otherwise."""
    for entry in _DETECTORS:
        if entry.detect is not None and entry.detect(messages):
            return entry.name
    return FALLBACK


def register_format(entry: MessageFormatEntry) -> None:
    """Add a format (a name already registered, or `steps`, is refused: ValueError)."""
    if entry.name in _FORMATS or entry.name == "steps":
        raise ValueError(f"a format named {entry.name!r} exists already")
    _FORMATS[entry.name] = entry
    if entry.detect is not None:
        _DETECTORS.append(entry)


def unregister_format(name: str) -> None:
    """Take a registered format away again; the shipped three stay (ValueError)."""
    if any(name == shipped.name for shipped in _SHIPPED):
        raise ValueError(f"{name!r} is a shipped format")
    entry = _FORMATS.pop(name, None)
    if entry in _DETECTORS:
        _DETECTORS.remove(entry)


@contextmanager
def registered_format(entry: MessageFormatEntry) -> Iterator[MessageFormatEntry]:
    """`entry` registered for the `with` block only."""
    register_format(entry)
    try:
        yield entry
    finally:
        unregister_format(entry.name)
