"""Decoding a BFCL result (a model's output) into normalised steps.

Two shapes exist: function-calling models give a list of `{function_name: "<JSON arguments>"}`;
prompted models give a string of Python call syntax such as `[f(a=1, b='x')]`. The string is
parsed with `ast` and each keyword value read with `ast.literal_eval`; nothing is ever evaluated.
A string that is not Python call syntax may hold calls encoded as JSON text (`text_calls`), and
a list may hold `{name, arguments}` objects instead of `{function_name: arguments}` entries.
What cannot be decoded is kept as raw text (a step whose `args` is a string), which the runs
loader reports as `unparseable_arguments`, never dropped.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import TypeGuard

from toolgrade.importers.text_calls import TextCall, call_fields, text_calls
from toolgrade.importers.written import CallStepLine, StepLine
from toolgrade.jsonio.bounds import loads_or_none
from toolgrade.jsonio.values import JsonObject, JsonValue

#: Tool name of a raw call when the undecodable output cannot be tied to one function.
UNKNOWN_TOOL = "unknown"

#: All calls of one BFCL result were issued together (one model turn): one shared group.
GROUP = 0


class NameResolver:
    """Maps a called name back to a catalogue name.

    Some providers forbid dots in function names, so `spotify.play` comes back as
    `spotify_play`; it is mapped back when exactly one catalogue name matches that way.
    """

    def __init__(self, names: list[str]) -> None:
        self.names = set(names)
        self._underscored: dict[str, list[str]] = {}
        for name in names:
            self._underscored.setdefault(name.replace(".", "_"), []).append(name)

    def resolve(self, called: str) -> str:
        """The catalogue name for a called name (unchanged when unknown or ambiguous)."""
        if called in self.names:
            return called
        candidates = self._underscored.get(called, [])
        return candidates[0] if len(candidates) == 1 else called

    def only_name(self) -> str:
        """The single catalogue name, or `unknown` when there are several (or none)."""
        return next(iter(self.names)) if len(self.names) == 1 else UNKNOWN_TOOL


@dataclass
class DecodedResult:
    """The steps of one result, with what the import summary counts."""

    steps: list[StepLine] = field(default_factory=list)
    unparseable: bool = False

    @property
    def calls(self) -> int:
        """Number of tool-call steps."""
        return sum(1 for s in self.steps if "tool" in s)


class _Undecodable(Exception):
    """The output as a whole is not a list of calls."""


def to_json_value(value: object) -> JsonValue:
    """A literal as a JSON value: tuples become lists; sets, bytes, complex are refused."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [to_json_value(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: to_json_value(v) for k, v in value.items()}
    raise ValueError(f"not a JSON value: {type(value).__name__}")


def _call_name(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):  # math.factorial, a.b.c
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise _Undecodable
    parts.append(node.id)
    return ".".join(reversed(parts))


def _python_call(call: ast.Call, source: str, resolver: NameResolver) -> CallStepLine:
    name = resolver.resolve(_call_name(call.func))
    raw = ast.get_source_segment(source, call) or ast.unparse(call)
    # Positional and **kwargs arguments have no parameter name to grade against: unparseable.
    if call.args or any(kw.arg is None for kw in call.keywords):
        return {"tool": name, "args": raw, "group": GROUP}
    args: JsonObject = {}
    try:
        for kw in call.keywords:
            args[str(kw.arg)] = to_json_value(ast.literal_eval(kw.value))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return {"tool": name, "args": raw, "group": GROUP}
    return {"tool": name, "args": args, "group": GROUP}


def python_calls(text: str, resolver: NameResolver) -> list[CallStepLine]:
    """Steps for a string of Python call syntax; raises _Undecodable when it is not one.

    Like BFCL, surrounding backticks, newlines and spaces are stripped and missing brackets
    added, so `f(a=1)` reads as `[f(a=1)]`.
    """
    source = text.strip("`\n ")
    if not source.startswith("["):
        source = "[" + source
    if not source.endswith("]"):
        source = source + "]"
    try:
        body = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise _Undecodable from None
    if not isinstance(body, ast.List | ast.Tuple):
        raise _Undecodable
    if not all(isinstance(e, ast.Call) for e in body.elts):
        raise _Undecodable
    return [_python_call(e, source, resolver) for e in body.elts if isinstance(e, ast.Call)]


def _json_call(name: str, arguments: JsonValue, resolver: NameResolver) -> CallStepLine:
    tool = resolver.resolve(name)
    if isinstance(arguments, dict):
        return {"tool": tool, "args": arguments, "group": GROUP}
    if isinstance(arguments, str):
        decoded: JsonValue = loads_or_none(arguments)  # bounded: a hostile string stays text
        if isinstance(decoded, dict):
            return {"tool": tool, "args": decoded, "group": GROUP}
        return {"tool": tool, "args": arguments, "group": GROUP}
    return {"tool": tool, "args": json.dumps(arguments), "group": GROUP}


def _is_call_object(entry: JsonObject, resolver: NameResolver) -> bool:
    """Whether a result entry is a `{name, arguments}` call object rather than BFCL's
    `{function_name: arguments}`: only when no key of it is a catalogue function."""
    return call_fields(entry) is not None and not set(entry) & resolver.names


def _all_text(values: list[JsonValue]) -> TypeGuard[list[str]]:
    return all(isinstance(value, str) for value in values)


def _all_objects(values: list[JsonValue]) -> TypeGuard[list[JsonObject]]:
    """Whether every value is a JSON object with at least one key."""
    return all(isinstance(value, dict) and value for value in values)


def json_calls(result: list[JsonValue], resolver: NameResolver) -> list[CallStepLine]:
    """Steps for a function-calling result `[{name: "<JSON arguments>"}, ...]`, a list of
    `{name, arguments}` call objects, or a list of reply texts that each encode calls."""
    if result and _all_text(result):
        return [step for text in result for step in encoded_calls(text, resolver)]
    if not _all_objects(result):
        raise _Undecodable
    if all(_is_call_object(entry, resolver) for entry in result):
        fields = [call_fields(entry) for entry in result]
        return [_json_call(name, arguments, resolver)
                for name, arguments in (f for f in fields if f is not None)]
    return [_json_call(str(name), arguments, resolver)
            for entry in result for name, arguments in entry.items()]


def _text_call(call: TextCall, resolver: NameResolver) -> CallStepLine:
    if call.name is None:  # a <tool_call> block without a call in it: kept as raw text
        return {"tool": resolver.only_name(), "args": call.raw, "group": GROUP}
    return _json_call(call.name, call.arguments, resolver)


def encoded_calls(text: str, resolver: NameResolver) -> list[CallStepLine]:
    """Steps for calls encoded in text (see `text_calls`); raises _Undecodable otherwise."""
    calls = text_calls(text)
    if calls is None:
        raise _Undecodable
    return [_text_call(call, resolver) for call in calls]


def _string_calls(text: str, resolver: NameResolver) -> list[CallStepLine]:
    """Steps for a string result: Python call syntax first (BFCL's prompted form), then the
    text encodings of calls."""
    try:
        return python_calls(text, resolver)
    except _Undecodable:
        return encoded_calls(text, resolver)


def _is_unparseable(step: StepLine) -> bool:
    return "tool" in step and isinstance(step.get("args"), str)


def decode_result(
    result: JsonValue, resolver: NameResolver, no_tool: bool = False
) -> DecodedResult:
    """Steps for one BFCL `result`.

    Undecodable output becomes one raw call (tool: the only function, else `unknown`), except
    when the case expects no call (irrelevance): there BFCL reads undecodable output as the
    model answering in text, so it becomes an assistant message.
    """
    try:
        steps: list[StepLine]
        if isinstance(result, str):
            steps = [*_string_calls(result, resolver)]
        elif isinstance(result, list):
            steps = [*json_calls(result, resolver)]
        else:
            raise _Undecodable
    except _Undecodable:
        raw = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        if no_tool:
            return DecodedResult(steps=[{"role": "assistant", "content": raw}])
        step: CallStepLine = {"tool": resolver.only_name(), "args": raw, "group": GROUP}
        return DecodedResult(steps=[step], unparseable=True)
    return DecodedResult(steps=steps, unparseable=any(_is_unparseable(s) for s in steps))
