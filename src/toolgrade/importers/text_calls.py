"""Tool calls a model wrote as text instead of structured calls.

Some models (or their serving stacks) return their calls inside the reply text. Three forms are
common enough to read as the calls they are:

- a JSON object holding `{"tool_calls": [{"name": ..., "arguments": {...}}, ...]}`;
- a bare JSON list of `{"name": ..., "arguments": {...}}` objects;
- one or more `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` blocks (Hermes/Qwen
  style; text outside the blocks is the model's commentary and is ignored).

A call item may also be OpenAI's `{"type": "function", "function": {"name", "arguments"}}`.
`arguments` may be an object or a JSON-encoded string of one; left out (or null), the call has
none.
Text is only parsed as JSON, never evaluated. Anything else is not read as calls (None), so
callers keep treating it as they did before.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from toolgrade.jsonio.bounds import loads_or_none
from toolgrade.jsonio.values import JsonValue

_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*\s*\n?(.*?)\n?\s*```\Z", re.DOTALL)

#: The keys a call item may have besides `name`/`arguments` (ids and type tags SDKs add).
_CALL_EXTRA_KEYS = frozenset({"id", "type"})


@dataclass(frozen=True)
class TextCall:
    """One call found in text: its name and arguments as written (an object, a string of
    JSON, or absent as {}), or `name` None when a `<tool_call>` block does not hold a call;
    `raw` is the text of the block then, so nothing is lost."""

    name: str | None
    arguments: JsonValue
    raw: str


def call_fields(item: JsonValue) -> tuple[str, JsonValue] | None:
    """(name, arguments) of a call object, or None when `item` is not one.

    A call object is `{name, arguments?}` (with at most `id` and `type` beside them) or
    `{function: {name, arguments?}, ...}`; absent or null `arguments` are {}.
    """
    if not isinstance(item, dict):
        return None
    if isinstance(function := item.get("function"), dict) and "name" not in item:
        return call_fields(function)
    name = item.get("name")
    if not isinstance(name, str) or not name:
        return None
    if set(item) - {"name", "arguments"} - _CALL_EXTRA_KEYS:
        return None
    arguments = item.get("arguments")
    return name, {} if arguments is None else arguments


def _unfenced(text: str) -> str:
    """The text without surrounding whitespace and one Markdown code fence around it."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    return fenced.group(1).strip() if fenced else stripped


def _json_calls(value: JsonValue) -> list[TextCall] | None:
    """The calls of a decoded JSON value in the `tool_calls` or bare-list form."""
    if isinstance(value, dict) and isinstance(listed := value.get("tool_calls"), list):
        value = listed
    elif not isinstance(value, list) or not value:
        return None  # an empty bare list is left to the caller: it reads "[]" already
    calls: list[TextCall] = []
    for item in value:
        fields = call_fields(item)
        if fields is None:
            return None  # one item that is not a call: the text is not a list of calls
        calls.append(TextCall(*fields, json.dumps(item, ensure_ascii=False)))
    return calls


def _block_call(block: str) -> TextCall:
    """The call in one `<tool_call>` block, or a nameless call keeping the block's text."""
    text = _unfenced(block)
    value = loads_or_none(text)  # bounded: a hostile block stays text
    fields = call_fields(value) if value is not None else None
    if fields is None:
        return TextCall(None, text, text)
    return TextCall(fields[0], fields[1], text)


def text_calls(text: str) -> list[TextCall] | None:
    """The calls encoded in `text`, or None when it is none of the three forms."""
    if "<tool_call>" in text:
        return [_block_call(block) for block in _BLOCK.findall(text)]
    body = _unfenced(text)
    if not body.startswith(("{", "[")):
        return None
    value = loads_or_none(body)  # bounded: hostile text is no list of calls
    return None if value is None else _json_calls(value)
