"""Decoding a BFCL result (a model's output) into normalised steps.

Two readings exist. By default (`decode_like_bfcl`) a result is decoded as BFCL's handler for
its model decodes it (`bfcl_handlers`), with BFCL's checker's name rule (`ExactNames`), so that
what BFCL cannot decode fails here too. The lenient reading (`decode_result`) reads every form
it knows: function-calling models' `{function_name: "<JSON arguments>"}` lists, and prompted
models' raw text through `raw_calls` (Python call lists, JSON call objects behind chat-template
markers, name line + JSON, code fences with prose around them); a list may also hold
`{name, arguments}` objects or texts that each hold calls. In both, a call whose arguments
cannot be read keeps its raw text (`unparseable_arguments`); a text that holds no call at all is
kept as one `(unparsed)` step (`unparseable_call`), never dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TypeGuard

from toolgrade.adapters.raw_calls import DECLINING_NAMES, RawCall, call_fields, parse_raw_calls
from toolgrade.importers.bfcl_ast import as_arguments
from toolgrade.importers.bfcl_handlers import decode
from toolgrade.importers.written import CallStepLine, StepLine
from toolgrade.jsonio.bounds import loads_or_none
from toolgrade.jsonio.values import JsonObject, JsonValue
from toolgrade.vocabulary import UNPARSED_TOOL

#: All calls of one BFCL result were issued together (one model turn): one shared group.
GROUP = 0


class NameResolver:
    """Maps a called name to a catalogue name.

    Some providers forbid dots in function names, so `spotify.play` comes back as
    `spotify_play`, and some models write `math.factorial` for a function `math_factorial`: a
    name is mapped to the catalogue's when exactly one catalogue name matches it with dots
    and underscores taken as the same character.
    """

    def __init__(self, names: list[str]) -> None:
        self.names = set(names)
        self._loose: dict[str, list[str]] = {}
        for name in names:
            self._loose.setdefault(_loose(name), []).append(name)

    def resolve(self, called: str) -> str:
        """The catalogue name for a called name (unchanged when unknown or ambiguous)."""
        if called in self.names:
            return called
        candidates = self._loose.get(_loose(called), [])
        return candidates[0] if len(candidates) == 1 else called


def _loose(name: str) -> str:
    return name.replace(".", "_")


class ExactNames(NameResolver):
    """BFCL's checker's own name rule: a called name must be the declared one, or, for models
    whose provider forbids dots (`underscored`), the declared one with `_` for every `.`."""

    def __init__(self, names: list[str], underscored: bool) -> None:
        super().__init__(names)
        self._written = {_loose(name) if underscored else name: name for name in names}

    def resolve(self, called: str) -> str:
        """The catalogue name BFCL would match `called` to (unchanged when none)."""
        return self._written.get(called, called)


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


def _raw_call(call: RawCall, resolver: NameResolver) -> CallStepLine:
    tool = resolver.resolve(call.name) if call.name else UNPARSED_TOOL
    if call.arguments is None:  # the call was found, its arguments cannot be read
        return {"tool": tool, "args": call.raw, "group": GROUP}
    return {"tool": tool, "args": call.arguments, "group": GROUP}


def encoded_calls(text: str, resolver: NameResolver) -> list[CallStepLine]:
    """Steps for the calls written in text (see `raw_calls`); raises _Undecodable otherwise."""
    calls = parse_raw_calls(text)
    if calls is None:
        raise _Undecodable
    return [_raw_call(call, resolver) for call in calls
            if call.name not in DECLINING_NAMES or call.name in resolver.names]


def _is_unparseable(step: StepLine) -> bool:
    return "tool" in step and isinstance(step.get("args"), str)


def decode_like_bfcl(
    result: JsonValue, family: str, names: NameResolver, no_tool: bool = False
) -> DecodedResult:
    """Steps for one BFCL `result` decoded as BFCL's handler `family` decodes it
    (`bfcl_handlers`): what that handler cannot decode, or decodes into something that is not
    a call, is one `(unparsed)` step (the model's text where no call is expected, as BFCL passes
    it there); decoded calls are calls, on every case (BFCL fails a decoded call on relevance)."""
    decoding = decode(result, family)
    raw = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
    if decoding.calls is None:
        if no_tool:
            return DecodedResult(steps=[{"role": "assistant", "content": raw}])
        step: CallStepLine = {"tool": UNPARSED_TOOL, "args": raw, "group": GROUP}
        return DecodedResult(steps=[step], unparseable=True)
    steps: list[StepLine] = []
    for name, arguments in decoding.calls:
        args = as_arguments(arguments)
        if not name:  # a call BFCL reads with no name (`'f'(a=1)`): no function matches it
            steps.append({"tool": UNPARSED_TOOL, "args": raw, "group": GROUP})
        else:
            steps.append({"tool": names.resolve(name), "args": raw if args is None else args,
                          "group": GROUP})
    return DecodedResult(steps=steps, unparseable=any(_is_unparseable(s) for s in steps))


def decode_result(
    result: JsonValue, resolver: NameResolver, no_tool: bool = False
) -> DecodedResult:
    """Steps for one BFCL `result`.

    Undecodable output becomes one step holding the text (tool `(unparsed)`, graded
    `unparseable_call`), except when the case expects no call (irrelevance): there BFCL reads
    undecodable output as the model answering in text, so it becomes an assistant message;
    so does an output holding a call whose arguments cannot be read, which BFCL's decoder
    refuses as a whole.
    """
    try:
        steps: list[StepLine]
        if isinstance(result, str):
            steps = [*encoded_calls(result, resolver)]
        elif isinstance(result, list):
            steps = [*json_calls(result, resolver)]
        else:
            raise _Undecodable
        if no_tool and any(_is_unparseable(s) for s in steps):
            raise _Undecodable  # BFCL's decoder refuses the whole output: the model's text
    except _Undecodable:
        raw = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        if no_tool:
            return DecodedResult(steps=[{"role": "assistant", "content": raw}])
        step: CallStepLine = {"tool": UNPARSED_TOOL, "args": raw, "group": GROUP}
        return DecodedResult(steps=[step], unparseable=True)
    return DecodedResult(steps=steps, unparseable=any(_is_unparseable(s) for s in steps))
