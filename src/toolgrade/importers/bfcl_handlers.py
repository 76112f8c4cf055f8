"""BFCL's per-model decoders, reproduced: how BFCL reads each model's output before checking it.

BFCL decodes every model's result with that model's handler (ShishirPatil/gorilla,
berkeley-function-call-leaderboard, `model_handler/*_handler.py`, `decode_ast`, as of the 2024
leaderboard): function-calling models give `{name: "<JSON arguments>"}` lists; prompted models
give text, from which the handler strips its model's wrapper before reading a Python call list
(`bfcl_ast`) or JSON. What a handler cannot decode, BFCL fails; where a decoded element is not
a call (granite's `no_function`, a line of prose), BFCL fails the output's format. Both count
as "no call" on relevance, where that is the right answer.

`HANDLERS` names the family of every model of the 2024 leaderboard as data (first matching
pattern wins); an unknown model gets the generic rule (BFCL's `default_decode_ast_prompting`:
backticks, new lines and spaces stripped from both ends, then a bracketed call list).
docs/importers.md lists the families.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from toolgrade.importers.bfcl_ast import NotDecoded, parse_call_list
from toolgrade.jsonio.bounds import loads_bounded
from toolgrade.jsonio.values import JsonValue

#: A decoded element that is not a call: BFCL's "wrong output format" (a string the handler
#: kept, its `no_function` marker, NexusRaven's "irrelevant").
NOT_A_CALL = object()

#: One decoded output: each element a (name, arguments) call or NOT_A_CALL.
Decoded = list[Any]


@dataclass(frozen=True)
class Decoding:
    """What BFCL's handler made of one result: the calls, or why it has none to check.

    `calls` is None when the handler failed (`reason` says why) or produced elements that are
    not calls (`wrong_format`); [] when it decoded an empty list.
    """

    calls: list[tuple[str, Any]] | None
    reason: str = ""
    wrong_format: bool = False


def _wrapped(text: str) -> str:
    """BFCL's bracketing: `[` added unless the text opens with one, `]` unless it closes."""
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text


def _python(text: str) -> Decoded:
    return [NOT_A_CALL if call is None else call for call in parse_call_list(text)]


def _openai_prompt(text: str) -> Decoded:
    """gpt-* prompt mode: the text as it is (a code fence fails)."""
    return _python(text)


def _oss(text: str) -> Decoded:
    """OSSHandler and ClaudePromptingHandler: one leading space dropped, then bracketed."""
    if not text:
        raise NotDecoded("empty output")
    return _python(_wrapped(text[1:] if text[0] == " " else text))


def _mistral(text: str) -> Decoded:
    """MistralHandler prompt mode: Markdown-escaped underscores unescaped, then bracketed."""
    return _python(_wrapped(text.replace("\\_", "_")))


def _llama(text: str) -> Decoded:
    """LlamaHandler: every new line removed, then bracketed."""
    return _python(_wrapped(text.replace("\n", "")))


_GEMMA_LIST = re.compile(r"\[(.*)\]", re.DOTALL)


def _gemma(text: str) -> Decoded:
    """GemmaHandler: from the first `[` to the last `]` of the text."""
    found = _GEMMA_LIST.search(text)
    if found is None:
        raise NotDecoded("no bracketed list")
    return _python("[" + found.group(1) + "]")


_QUOTED = re.compile(r"'([^']*)'")


def _databricks(text: str) -> Decoded:
    """DatabricksHandler: single quotes removed (with what they held kept), indented line
    breaks joined, bracketed; if that fails to parse, the raw text is tried."""
    func = _QUOTED.sub(r"\1", text).replace("\n    ", "")
    func = _wrapped(func)
    if func.startswith("['"):
        func = func.replace("['", "[")
    try:
        return _python(func)
    except NotDecoded:
        return _python(text)


def _nexus(text: str) -> Decoded:
    """NexusHandler (Raven): `;` separates calls; a call to `out_of_domain` anywhere makes the
    whole output the marker "irrelevant" (after the calls parsed)."""
    func = text[:-1] if text.endswith(";") else text
    decoded = _python("[" + func.replace(";", ",") + "]")
    return [NOT_A_CALL] if "out_of_domain" in func else decoded


def _json(text: str) -> Any:
    try:
        return loads_bounded(text)
    except ValueError as exc:  # JSONDecodeError and BoundsError alike
        raise NotDecoded(f"not JSON: {exc}") from None


def _named(value: Any) -> tuple[str, Any]:
    """A `{name, arguments}` object as BFCL's handlers index it (a missing key fails)."""
    if not isinstance(value, dict) or "name" not in value or "arguments" not in value:
        raise NotDecoded("not a {name, arguments} object")
    return _text(value["name"]), value["arguments"]


def _text(name: Any) -> str:
    return name if isinstance(name, str) else json.dumps(name)


def _hermes(text: str) -> Decoded:
    """HermesHandler: the line right after a line that is exactly `<tool_call>` is one call
    as JSON (single quotes read as double)."""
    calls: Decoded = []
    opened = False
    for line in text.split("\n"):
        if line == "<tool_call>":
            opened = True
        elif line == "</tool_call>":
            opened = False
        elif opened:
            calls.append(_named(_json(line.replace("'", '"'))))
            opened = False
    return calls


def _granite(text: str) -> Decoded:
    """GraniteHandler: pieces between `<function_call>` markers, each a JSON call; a piece
    that is not JSON, and a `no_function` call, are not calls."""
    decoded: Decoded = []
    for piece in (p.strip() for p in text.split("<function_call>")):
        if not piece:
            continue
        try:
            value = loads_bounded(piece)
        except ValueError:
            decoded.append(NOT_A_CALL)
            continue
        if not isinstance(value, dict):
            raise NotDecoded("a <function_call> piece is not an object")
        name = value.get("name", "")
        if not isinstance(name, str):
            raise NotDecoded("a call name is not text")
        decoded.append(NOT_A_CALL if name.strip() == "no_function"
                       else (name.strip(), value.get("arguments", {})))
    return decoded


def _glm(text: str) -> Decoded:
    """GLMHandler: one line is not a call; otherwise the first line names the one call and
    the second holds its JSON arguments (further lines are ignored)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return [NOT_A_CALL]
    return [(lines[0], _json(lines[1]))]


def _no_text(text: str) -> Decoded:
    """Function-calling handlers read a list of calls; a text reply fails them."""
    raise NotDecoded("a function-calling model's text reply")


#: Text decoders by handler family.
TEXT_DECODERS: dict[str, Callable[[str], Decoded]] = {
    "generic": lambda text: _python(_wrapped(text.strip("`\n "))),
    "openai_prompt": _openai_prompt,
    "oss": _oss,
    "mistral": _mistral,
    "llama": _llama,
    "gemma": _gemma,
    "databricks": _databricks,
    "nexus": _nexus,
    "hermes": _hermes,
    "granite": _granite,
    "glm": _glm,
    "function_calling": _no_text,
}

#: BFCL model name pattern -> handler family, first match wins (`/` in a name may be written
#: `_`, as BFCL's result folders write it). Models the table does not name: "generic".
HANDLERS: tuple[tuple[str, str], ...] = (
    ("*-FC*", "function_calling"),
    ("gemini-*", "function_calling"),
    ("yi-large-fc", "function_calling"),
    ("firefunction-*", "function_calling"),
    ("meetkai?functionary-*", "function_calling"),
    ("gpt-*", "openai_prompt"),
    ("claude-*", "oss"),
    ("*mistral*", "mistral"),
    ("*mixtral*", "mistral"),
    ("Nexusflow-Raven-*", "nexus"),
    ("google?gemma-*", "gemma"),
    ("databricks-dbrx-*", "databricks"),
    ("NousResearch?Hermes-*", "hermes"),
    ("meta-llama?Meta-Llama-3-*", "llama"),
    ("ibm-granite?granite-*", "granite"),
    ("THUDM?glm-4-*", "glm"),
    ("deepseek-ai?deepseek-*", "oss"),
    ("snowflake?arctic", "oss"),
)

#: Models whose expected function names BFCL's checker writes with `_` for `.` (its
#: UNDERSCORE_TO_DOT list: their providers forbid dots in names); every other model must
#: write a name exactly as declared.
UNDERSCORED_NAMES: tuple[str, ...] = (
    "*-FC*", "gemini-*", "yi-large-fc", "meetkai?functionary-*", "NousResearch?Hermes-2-*",
    "THUDM?glm-4-9b-chat", "ibm-granite?granite-20b-functioncalling",
)


def handler_family(model: str | None) -> str:
    """The handler family BFCL decodes `model`'s outputs with ("generic" when unknown)."""
    if model:
        for pattern, family in HANDLERS:
            if fnmatchcase(model, pattern):
                return family
    return "generic"


def writes_underscored_names(model: str | None) -> bool:
    """Whether BFCL expects `model` to write dotted function names with underscores."""
    return bool(model) and any(fnmatchcase(model or "", p) for p in UNDERSCORED_NAMES)


def decode(result: JsonValue, family: str) -> Decoding:
    """What BFCL's handler of `family` makes of one `result` (never raises)."""
    try:
        if isinstance(result, list):
            elements = _function_calls(result)
        elif isinstance(result, str):
            elements = TEXT_DECODERS[family](result)
        else:
            raise NotDecoded("neither text nor a list")
    except NotDecoded as exc:
        return Decoding(None, str(exc))
    if any(element is NOT_A_CALL for element in elements):
        return Decoding(None, "an element is not a call", wrong_format=True)
    return Decoding([(name, arguments) for name, arguments in elements])


def _function_calls(result: list[JsonValue]) -> Decoded:
    """A function-calling result: each entry `{name: "<JSON arguments>"}` (its first key);
    arguments already decoded are taken as they are."""
    calls: Decoded = []
    for entry in result:
        if not isinstance(entry, dict) or not entry:
            raise NotDecoded("a list entry is not a {name: arguments} object")
        name, arguments = next(iter(entry.items()))
        calls.append((name, _json(arguments) if isinstance(arguments, str) else arguments))
    return calls
