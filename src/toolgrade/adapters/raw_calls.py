"""Tool calls written in a model's raw text: one reader for every common form.

Open and prompted models emit their calls as text. The forms read (docs/importers.md lists them
with examples):

- Python call syntax: a list `[f(a=1), g(b="x")]`, bare calls `f(a=1)`, calls ended or
  separated by `;` or new lines, and the same quoted as strings (`['f(a=1)', "g(b='x')"]`,
  `'f(a=1)'`);
- JSON call objects `{"name": ..., "arguments"/"parameters": {...}}`, alone, in a list, under
  `{"tool_calls": [...]}`, or one after another, after a `<function_call>`, `<tool_call>`,
  `[TOOL_CALLS]` or `<|python_tag|>` marker (closing tags and end-of-turn tokens ignored);
- a name line followed by a JSON object of arguments (`get_weather\\n{"city": "Paris"}`);
- any of these inside a Markdown code fence, with prose before or after it, or before prose
  (Python calls there only as a bracketed list `[f(a=1)]`); a bracketed list of calls that
  opens the text, whatever follows it.

What follows a turn-start token (`<|im_start|>`, `<|start_header_id|>`) is a turn the model made
up, not its reply, and is not read; a call list missing its closing bracket is read closed.
Values are read with `json` or from Python's syntax tree; nothing is ever evaluated (arithmetic
on number literals is computed, a name or expression the model wrote for a value is kept as its
text, as BFCL's decoder does). Text in none of
these forms is not calls (`parse_raw_calls` returns None), never an exception: the caller keeps
the text (an `unparseable_call`, or the model's answer where no call was expected).
"""

from __future__ import annotations

import ast
import json
import math
import operator
import re
import textwrap
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from toolgrade.jsonio.bounds import loads_bounded
from toolgrade.jsonio.values import JsonObject, JsonValue

#: Markers some chat templates put before (or around) calls; removed before reading.
_MARKERS = re.compile(
    r"</?tool_call>|</?function_call>|</?functioncall>|\[TOOL_CALLS\]|<\|python_tag\|>"
    r"|<\|im_end\|>|<\|eot_id\|>|<\|end\|>")
#: Tokens that open a chat turn: what follows one is a turn the model made up (a new
#: "assistant" or "user" message), not its reply, so it is never read for calls.
_TURN_START = re.compile(r"<\|im_start\|>|<\|start_header_id\|>")
_BLOCK = re.compile(
    r"<tool_call>(.*?)(?:</tool_call>|(?=<tool_call>|<\|im_start\|>|<\|im_end\|>)|\Z)", re.DOTALL)
#: Names some models call to say that no function fits (NexusRaven's `out_of_domain`,
#: granite's `no_function`): such a call, to a function the catalogue does not declare, is
#: the model declining to call anything.
DECLINING_NAMES = frozenset({"no_function", "out_of_domain"})
_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)```", re.DOTALL)
_NAME_LINE = re.compile(r"\A\s*([A-Za-z_][\w.-]*)\s*\n\s*(\{.*\})\s*\Z", re.DOTALL)
_ARGUMENT_KEYS = ("arguments", "parameters", "args")
#: The keys a call object may have besides its name and arguments (ids and type tags).
_CALL_EXTRA_KEYS = frozenset({"id", "type"})
#: Longest text read as calls: the Python parser's memory grows with the text.
_MAX_TEXT = 200_000


@dataclass(frozen=True)
class RawCall:
    """One call read from text: its name as written ("" for a `<tool_call>` block that holds
    no call), its arguments (None when they cannot be read as an object) and its own text."""

    name: str
    arguments: JsonObject | None
    raw: str


class _NotCalls(Exception):
    """A candidate text is not in this form."""


def parse_raw_calls(text: str) -> list[RawCall] | None:
    """The calls written in `text`, in order; [] for an explicit empty list (`[]`, `[None]`);
    None when the text holds no calls in any known form."""
    if not isinstance(text, str) or len(text) > _MAX_TEXT:
        return None
    text = _TURN_START.split(text, maxsplit=1)[0]
    if "<tool_call>" in text:
        return _block_calls(text)
    return _first_reading(text)


def _first_reading(text: str) -> list[RawCall] | None:
    """The calls of the first candidate text that some reader reads, or None."""
    for candidate, embedded in _candidates(text):
        readers = (_bracketed_calls, _json_calls, _leading_list) if embedded else (
            _python_calls, _json_calls, _name_line_call, _leading_list)
        for reader in readers:
            try:
                return reader(candidate)
            except (_NotCalls, RecursionError, MemoryError):
                continue
    return None


def _block_calls(text: str) -> list[RawCall]:
    """The calls of `<tool_call>` blocks (Hermes, Qwen): each block read on its own, text
    outside them being commentary; a block holding no call is kept as a nameless call."""
    calls: list[RawCall] = []
    for block in _BLOCK.findall(text):
        found = _first_reading(block)
        calls.extend(found if found is not None else [RawCall("", None, block.strip())])
    return calls


def _candidates(text: str) -> Iterator[tuple[str, bool]]:
    """The texts that may hold the calls, each with whether it is embedded in prose: the
    whole text, then each code fence's content, then the text before the first blank line
    (calls followed by prose)."""
    cleaned = _MARKERS.sub("\n", text).replace("\\_", "_").strip()
    yield cleaned, False
    for fence in _FENCE.finditer(cleaned):
        # A fence that is the whole text is the text itself; one beside prose is embedded.
        alone = fence.group(0) == cleaned
        yield textwrap.dedent(fence.group(1)).strip(), not alone
    head = cleaned.split("\n\n", 1)[0].strip()
    if head != cleaned:
        yield head, True


def _bracketed_calls(text: str) -> list[RawCall]:
    """Python calls in a text embedded in prose or a fence: only a bracketed list of calls
    (`[f(a=1)]`) is read as calls there; a bare `f(a=1)` beside prose is often an example
    the model shows, not a call it makes."""
    if not (text.startswith("[") and text.endswith("]")):
        raise _NotCalls
    return _python_calls(text)


#: How many closing brackets are tried as the end of a leading call list.
_MAX_LIST_ENDS = 64


def _leading_list(text: str) -> list[RawCall]:
    """A bracketed list of calls that opens the text, prose or stray characters after it
    (`[f(a=1)]. This calls f...`): the shortest prefix ending in `]` that is such a list."""
    if not text.startswith("["):
        raise _NotCalls
    ends = [i for i, char in enumerate(text) if char == "]"][:_MAX_LIST_ENDS]
    for end in ends:
        try:
            calls = _bracketed_calls(text[:end + 1])
        except (_NotCalls, RecursionError, MemoryError):
            continue
        if calls:
            return calls
    raise _NotCalls


def _python_calls(text: str) -> list[RawCall]:
    """Python statements that are each a call, a list or tuple of calls, or a list of strings
    that each hold one call; a call list missing its closing bracket is read closed."""
    try:
        return _python_statements(text)
    except _NotCalls:
        if text.startswith("[") and not text.endswith("]"):
            return _python_statements(text + "]")
        raise


def _python_statements(text: str) -> list[RawCall]:
    if not text:
        raise _NotCalls
    try:
        with warnings.catch_warnings():  # a model's stray "\," is its text, not our warning
            warnings.simplefilter("ignore")
            module = ast.parse(text, mode="exec")
    except (SyntaxError, ValueError):
        raise _NotCalls from None
    if not module.body:
        raise _NotCalls
    calls: list[RawCall] = []
    for statement in module.body:
        if not isinstance(statement, ast.Expr):
            raise _NotCalls
        calls.extend(_expression_calls(statement.value, text))
    return calls


def _expression_calls(node: ast.expr, source: str) -> list[RawCall]:
    if isinstance(node, ast.Call):
        return [_python_call(node, source)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _quoted_calls(node.value)  # one call written as a string: 'f(a=1)'
    if isinstance(node, ast.List | ast.Tuple):
        elements = [e for e in node.elts
                    if not (isinstance(e, ast.Constant) and e.value is None)]
        if all(isinstance(e, ast.Call) for e in elements):
            return [_python_call(e, source) for e in elements if isinstance(e, ast.Call)]
        if elements and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                            for e in elements):
            return [call for e in elements if isinstance(e, ast.Constant)
                    for call in _quoted_calls(str(e.value))]
    raise _NotCalls


def _quoted_calls(text: str) -> list[RawCall]:
    """The calls of one quoted string (`'f(a=1)'`): exactly Python call syntax."""
    calls = _python_calls(text.strip())
    if not calls:
        raise _NotCalls
    return calls


def _call_name(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):  # math.factorial, a.b.c
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise _NotCalls
    parts.append(node.id)
    return ".".join(reversed(parts))


def _python_call(call: ast.Call, source: str) -> RawCall:
    name = _call_name(call.func)
    raw = ast.get_source_segment(source, call) or name
    # Positional and **kwargs arguments have no parameter name to grade against.
    if call.args or any(kw.arg is None for kw in call.keywords):
        return RawCall(name, None, raw)
    try:
        args: JsonObject = {str(kw.arg): python_value(kw.value, source) for kw in call.keywords}
    except ValueError:
        return RawCall(name, None, raw)
    return RawCall(name, args, raw)


_ARITHMETIC: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
#: Bitwise operators, on integers only (`10^8` is Python's exclusive or, as BFCL reads it).
_BITWISE: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.BitXor: operator.xor, ast.BitOr: operator.or_, ast.BitAnd: operator.and_,
}
#: Largest exponent computed in a value such as `3 * 10**6`: bigger ones stay text.
_MAX_EXPONENT = 64


def python_value(node: ast.expr, source: str) -> JsonValue:
    """A Python argument value as JSON, read as BFCL's decoder reads it: literals as they are
    (tuples as lists), arithmetic on numbers computed (`3 * 10**6`), and a variable, an index
    into one or a call without keywords kept as the text the model wrote (`data`,
    `data['sales']`, `np.array(x)`). ValueError for what has no such reading: sets, bytes,
    attributes (`momentum.x`), lambdas, arithmetic on variables, comparisons."""
    if isinstance(node, ast.Constant):
        return _constant(node.value)
    if isinstance(node, ast.List | ast.Tuple):
        return [python_value(element, source) for element in node.elts]
    if isinstance(node, ast.Dict):
        keys = [python_value(k, source) if k is not None else None for k in node.keys]
        if not all(isinstance(k, str) or _is_number(k) for k in keys):
            raise ValueError("a dict key that is not text or a number")
        # Number keys become text, as JSON writes them: {1: 0} reads {"1": 0}.
        return {str(k): python_value(v, source) for k, v in zip(keys, node.values, strict=True)}
    if isinstance(node, ast.UnaryOp | ast.BinOp):
        number = arithmetic_value(node)
        if number is None:
            raise ValueError("arithmetic on something other than numbers")
        return number
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Subscript) or (isinstance(node, ast.Call) and not node.keywords):
        return ast.get_source_segment(source, node) or ast.unparse(node)
    raise ValueError(f"no JSON reading: {type(node).__name__}")


def _is_number(value: JsonValue) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _constant(value: object) -> JsonValue:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if value is Ellipsis:
        return "..."
    raise ValueError(f"not a JSON value: {type(value).__name__}")


def arithmetic_value(node: ast.expr) -> int | float | None:
    """The number an arithmetic expression on number literals makes, or None (names, calls,
    strings, a huge power, a division by zero): computed, never evaluated."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = arithmetic_value(node.operand)
        return None if operand is None else (-operand if isinstance(node.op, ast.USub)
                                             else operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _BITWISE:
        left, right = arithmetic_value(node.left), arithmetic_value(node.right)
        if isinstance(left, int) and isinstance(right, int):
            return _BITWISE[type(node.op)](left, right)
        return None
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = arithmetic_value(node.left), arithmetic_value(node.right)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Pow) and (abs(right) > _MAX_EXPONENT or abs(left) > 1e6):
            return None
        try:
            result = _ARITHMETIC[type(node.op)](left, right)
        except (ArithmeticError, ValueError):
            return None
        finite = isinstance(result, int) or (isinstance(result, float) and math.isfinite(result))
        return result if finite else None
    return None


def to_json_value(value: object) -> JsonValue:
    """A literal as a JSON value: tuples become lists; sets, bytes, complex are refused."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [to_json_value(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: to_json_value(v) for k, v in value.items()}
    raise ValueError(f"not a JSON value: {type(value).__name__}")


def _json_values(text: str) -> list[JsonValue]:
    """Every JSON value written one after another in `text` (commas and spaces between)."""
    decoder = json.JSONDecoder()
    values: list[JsonValue] = []
    position = 0
    while True:
        while position < len(text) and text[position] in " \t\r\n,;":
            position += 1
        if position >= len(text):
            return values
        try:
            value, position = decoder.raw_decode(text, position)
        except ValueError:  # malformed, out of bounds, or an integer too long
            raise _NotCalls from None
        values.append(value)


def _json_calls(text: str) -> list[RawCall]:
    """JSON call objects: alone, in lists, under `tool_calls`, or one after another."""
    if not text.startswith(("{", "[")):
        raise _NotCalls
    calls: list[RawCall] = []
    for value in _json_values(text):
        items = value["tool_calls"] if isinstance(value, dict) and "tool_calls" in value else value
        for item in items if isinstance(items, list) else [items]:
            calls.append(_json_call(item))
    return calls


def _json_call(item: JsonValue) -> RawCall:
    if not isinstance(item, dict):
        raise _NotCalls
    if isinstance(function := item.get("function"), dict) and "name" not in item:
        item = function
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise _NotCalls
    if set(item) - {"name", *_ARGUMENT_KEYS} - _CALL_EXTRA_KEYS:
        raise _NotCalls  # a flat object of arguments beside the name: not a call object
    arguments = next((item[key] for key in _ARGUMENT_KEYS if key in item), None)
    if arguments is None:
        return RawCall(name, {}, json.dumps(item, ensure_ascii=False))
    if isinstance(arguments, str):
        try:
            decoded = loads_bounded(arguments)
        except ValueError:  # malformed, out of bounds, or an integer too long
            decoded = None
        # Arguments that are not an object keep their own text, as the call's raw arguments.
        return RawCall(name, decoded if isinstance(decoded, dict) else None, arguments)
    if isinstance(arguments, dict):
        return RawCall(name, arguments, json.dumps(item, ensure_ascii=False))
    return RawCall(name, None, json.dumps(arguments, ensure_ascii=False))


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


def _name_line_call(text: str) -> list[RawCall]:
    """A function name on its own line, then a JSON object of its arguments."""
    match = _NAME_LINE.match(text)
    if match is None:
        raise _NotCalls
    try:
        arguments = loads_bounded(match.group(2))
    except ValueError:  # malformed, out of bounds, or an integer too long
        raise _NotCalls from None
    if not isinstance(arguments, dict):
        raise _NotCalls
    return [RawCall(match.group(1), arguments, text)]
