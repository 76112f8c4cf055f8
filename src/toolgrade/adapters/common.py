"""Pieces shared by the message adapters: argument decoding and error detection."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import cast

from toolgrade.errors import ToolgradeError
from toolgrade.jsonio.bounds import BoundsError, loads_bounded, loads_or_none
from toolgrade.jsonio.values import JsonObject, JsonValue
from toolgrade.models import ToolCall, ToolResult

# A tool result reads as an error when it starts like one: "Error: ...", "Exception", a traceback,
# or an HTTP status line of 4xx/5xx ("503 Service Unavailable"). OpenAI tool messages carry no
# error flag, so this is the only evidence a recorded run offers; `status`/`is_error` win if set.
_ERROR_TEXT = re.compile(r"^\s*(error\b|exception\b|traceback\b|[45]\d\d\b)", re.IGNORECASE)


class AdapterError(ToolgradeError, ValueError):
    """A message that cannot be read; `field` is its dotted location inside the run."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def string_id(value: JsonValue, where: str) -> str | None:
    """An id as recorded (a string), None when absent; any other value is refused.

    An id of another type would otherwise crash the run (unhashable, or refused by `ToolCall`).
    """
    if value is None or isinstance(value, str):
        return value
    raise AdapterError(where, f"an id must be a string, got {type(value).__name__}")


def error_flag(value: JsonValue, where: str) -> bool | None:
    """An `is_error` flag as recorded: true, false, or None when absent or null (the content
    then decides). Any other value is refused: the string "false" would read as true."""
    if value is None or isinstance(value, bool):
        return value
    raise AdapterError(where, f"is_error must be true or false, got {value!r}")


def check_role(msg: JsonValue, index: int) -> JsonObject:
    """The message as an object; a message without a string `role` is refused, saying what a
    typed item without one is."""
    if isinstance(msg, dict) and isinstance(msg.get("role"), str):
        return msg
    kind = msg.get("type") if isinstance(msg, dict) else None
    if isinstance(kind, str):
        # OpenAI Responses API / Agents SDK items ({"type": "function_call", "call_id", ...}).
        raise AdapterError(
            f"messages[{index}].type",
            f"an item of type {kind!r} with no 'role' is not a chat message: toolgrade reads"
            " Chat Completions or Anthropic messages, not OpenAI Responses API / Agents SDK"
            " items or framework dumps; convert them, or write normalised `steps`",
        )
    raise AdapterError(f"messages[{index}]", "a message needs a string 'role'")


def decode_arguments(raw: JsonValue, where: str = "arguments") -> tuple[JsonObject, str | None]:
    """Arguments as a dict, or ({}, raw text) when they are not a JSON object.

    Arguments JSON past the bounds of `jsonio.bounds` (nested too deeply, an integer too long)
    are refused as an `AdapterError` at `where`: kept as text, they would crash a later reader.
    """
    if isinstance(raw, dict):
        return raw, None
    if raw is None:
        return {}, None
    if isinstance(raw, str):
        if not raw.strip():
            return {}, None
        try:
            value: JsonValue = loads_bounded(raw)
        except json.JSONDecodeError:
            return {}, raw
        except BoundsError as exc:
            raise AdapterError(where, f"arguments JSON {exc.reason}") from None
        return (value, None) if isinstance(value, dict) else ({}, raw)
    return {}, json.dumps(raw)


def looks_like_error(content: JsonValue) -> bool:
    """Whether a tool result's content reads as an error."""
    if isinstance(content, dict):
        return bool(content.get("error"))
    if isinstance(content, str):
        if _ERROR_TEXT.match(content):
            return True
        value = loads_or_none(content)
        return isinstance(value, dict) and bool(value.get("error"))
    return False


def make_result(content: JsonValue, flagged_error: bool | None) -> ToolResult:
    """A ToolResult whose status comes from the explicit flag, else from the content."""
    is_error = looks_like_error(content) if flagged_error is None else flagged_error
    return ToolResult(status="error" if is_error else "ok", content=content)


@dataclass
class PendingCall:
    """A tool call whose result may arrive in a later message."""

    tool: str
    raw_args: JsonValue
    id: str | None
    group: int | str | None
    result: ToolResult | None = None
    extra: JsonObject = field(default_factory=dict)
    #: Where the arguments are in the run, for a problem with them.
    where: str = "arguments"

    def build(self) -> ToolCall:
        """The frozen ToolCall."""
        return build_call(
            self.tool, self.raw_args, id=self.id, result=self.result, group=self.group,
            where=self.where,
        )


def build_call(
    tool: str,
    raw_args: JsonValue,
    *,
    id: str | None,
    result: ToolResult | None,
    group: int | str | None,
    where: str = "arguments",
) -> ToolCall:
    """A ToolCall whose arguments are decoded; undecodable ones are kept as raw text."""
    args, raw = decode_arguments(raw_args, where)
    return ToolCall(tool=tool, args=args, id=id, result=result, group=group, raw_arguments=raw)


def text_of(content: JsonValue) -> JsonValue:
    """Plain text of a message content given as a string or a list of text parts."""
    if isinstance(content, list):
        # An OpenAI refusal part ({"type": "refusal", "refusal": ...}) is the reply's text too.
        texts = [
            part.get("refusal", "") if part.get("type") == "refusal" else part.get("text", "")
            for part in content
            if isinstance(part, dict)
            and part.get("type") in ("text", "output_text", "input_text", "refusal")
        ]
        if not texts:
            return content
        # A part whose text is not a string fails the join (TypeError), as it always has.
        return "\n".join(cast(list[str], [t for t in texts if t]))
    return content
