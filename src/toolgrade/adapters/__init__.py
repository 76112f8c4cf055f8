"""Adapters from recorded chat formats to the normalised steps (docs/case-format.md, Runs)."""

from __future__ import annotations

from typing import Literal

from toolgrade.adapters.common import AdapterError, build_call, decode_arguments
from toolgrade.adapters.formats import detect_format, format_entry
from toolgrade.jsonio.values import JsonValue
from toolgrade.models import Step

#: The shipped chat formats (`adapters.formats` may hold more, registered).
MessageFormat = Literal["openai", "anthropic", "mcp"]


def messages_to_steps(messages: list[JsonValue], fmt: str | None = None) -> list[Step]:
    """Normalised steps from chat messages in the named or detected format."""
    entry = format_entry(fmt or detect_format(messages))
    if entry is None:
        raise AdapterError("format", f"unknown format {fmt!r}")
    return entry.to_steps(messages)


__all__ = [
    "AdapterError",
    "MessageFormat",
    "build_call",
    "decode_arguments",
    "detect_format",
    "messages_to_steps",
]
