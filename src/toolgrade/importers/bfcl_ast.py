"""BFCL's reading of a Python call list, reproduced: what its `ast_parse` makes of a text.

BFCL's prompt-model handlers (ShishirPatil/gorilla, berkeley-function-call-leaderboard,
`model_handler/utils.py`, 2024) strip each model's wrapper and hand the rest to one function:
parse the text as a Python expression, require a list (or tuple or set) whose every element is
a call, and read each call's keyword arguments. Whatever it cannot read fails the whole output.
This module re-implements those rules, so that the BFCL importer's parity mode fails exactly
what BFCL fails and reads values exactly as BFCL does (a bare name is its text, arithmetic on
numbers is its result, an index is its text, a unary operator negates its literal, positional
arguments are dropped; a call with no keyword argument is not a call BFCL's format check
accepts). Nothing is ever evaluated: BFCL evaluates arithmetic, which is computed here on
number literals only.
"""

from __future__ import annotations

import ast
import math
import warnings
from typing import Any

from toolgrade.adapters.raw_calls import arithmetic_value
from toolgrade.errors import ToolgradeError
from toolgrade.jsonio.values import JsonObject, JsonValue

#: Longest text handed to the Python parser: its memory grows with the text.
MAX_TEXT = 200_000


class NotDecoded(ToolgradeError, ValueError):
    """BFCL's decoder fails this text (the reason, in BFCL's words where it has them)."""


def parse_call_list(text: str) -> list[tuple[str, Any] | None]:
    """The calls of a text that BFCL's `ast_parse` reads: (name, keyword arguments) in order,
    the values as BFCL's resolver makes them (Python values: tuples stay tuples here); None for
    a call without keyword arguments (`f()`, `f(5)`), which BFCL's leaderboard of 2024 counts
    as output in the wrong format, not as a call.

    Raises NotDecoded when BFCL's decoder would raise: a syntax error, a body that is not a
    list of calls, a value of a kind it does not read.
    """
    if len(text) > MAX_TEXT:
        raise NotDecoded("text too long to parse")
    try:
        with warnings.catch_warnings():  # "\d" in a model's string is its text, not a warning
            warnings.simplefilter("ignore")
            tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise NotDecoded(f"invalid syntax: {exc}") from None
    body = tree.body
    if not isinstance(body, ast.List | ast.Tuple | ast.Set):
        raise NotDecoded(f"{type(body).__name__} is not a list of calls")
    calls: list[tuple[str, Any] | None] = []
    for element in body.elts:
        if not isinstance(element, ast.Call):
            raise NotDecoded("an element of the list is not a call")
        try:
            call = _call(element)
            calls.append(call if element.keywords else None)
        except RecursionError:
            raise NotDecoded("nested too deep") from None
    return calls


def _call(node: ast.Call) -> tuple[str, Any]:
    """A call's dotted name and keyword arguments; positional arguments are dropped, as BFCL
    drops them (the checker then finds required parameters missing)."""
    parts: list[str] = []
    func: ast.expr = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    arguments: dict[Any, Any] = {keyword.arg: _value(keyword.value) for keyword in node.keywords}
    return ".".join(reversed(parts)), arguments


def _value(node: ast.expr) -> Any:
    """One argument value as BFCL's `resolve_ast_by_type` makes it."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        return _negated(node.operand)
    if isinstance(node, ast.List):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        return _dict(node)
    if isinstance(node, ast.BinOp):
        return _arithmetic(node)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node)  # `data['sales']`: BFCL keeps the expression as its text
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        name, arguments = _call(node)
        return {name: arguments}
    if isinstance(node, ast.Tuple):
        return tuple(_value(item) for item in node.elts)
    raise NotDecoded(f"unsupported value: {type(node).__name__}")


def _negated(operand: ast.expr) -> Any:
    """BFCL negates the literal under any unary operator (`+5` and `~5` are -5, `not True` is
    -1); an operand that is not a literal fails its decoder."""
    if not isinstance(operand, ast.Constant):
        raise NotDecoded(f"unary operator on {type(operand).__name__}")
    literal: Any = operand.value
    try:
        return -literal
    except TypeError:
        raise NotDecoded("unary operator on a literal that has no negative") from None


def _dict(node: ast.Dict) -> dict[Any, Any]:
    if any(key is None for key in node.keys):
        raise NotDecoded("unsupported value: ** in a dict")
    try:
        return {_value(key): _value(value)  # type: ignore[arg-type]
                for key, value in zip(node.keys, node.values, strict=True)}
    except TypeError:
        raise NotDecoded("unhashable dict key") from None


def _arithmetic(node: ast.BinOp) -> int | float:
    """BFCL evaluates arithmetic (`3 * 10**8` is 300000000); here it is computed on number
    literals only, and anything else in it (`2*pi`, a call) fails, as BFCL's evaluation fails
    on a name it does not know."""
    number = arithmetic_value(node)
    if number is None:
        raise NotDecoded("arithmetic on something other than number literals")
    return number


def as_json(value: Any) -> JsonValue:
    """A decoded Python value as JSON: tuples as lists, dict keys as text, and what JSON cannot
    hold (bytes, complex, a float that is not finite) as its Python text, which no reference
    value equals, as no BFCL answer equals it."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, list | tuple):
        return [as_json(item) for item in value]
    if isinstance(value, dict):
        return {_key(key): as_json(item) for key, item in value.items()}
    return repr(value)


def as_arguments(value: Any) -> JsonObject | None:
    """Decoded keyword arguments as a JSON object; None when they are not a mapping."""
    if not isinstance(value, dict):
        return None
    return {_key(key): as_json(item) for key, item in value.items()}


def _key(key: Any) -> str:
    # `**kwargs` in a call has no name: BFCL keys it None, a parameter no schema declares.
    return "**" if key is None else key if isinstance(key, str) else repr(key)
