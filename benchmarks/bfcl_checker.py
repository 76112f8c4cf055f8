"""A small re-implementation of the rules of BFCL's AST checker, as the reference verdict.

Written from a reading of the Berkeley Function Calling Leaderboard's checker
(bfcl_eval/eval_checker/ast_eval/ast_checker.py, Python categories only); not its code. It
takes what BFCL's model handler hands the checker: the decoded calls, a list of
`{function_name: {param: value}}`, or None when the output did not decode. The quirks that
decide verdicts are kept on purpose (strict Python types, ints allowed for floats only at the
top level, string standardisation one level deep, literal comparison below a dict answer,
greedy pairing of parallel calls), because agreement with BFCL is what this measures.

`check_entry` returns (passed, reason); a reason starting with "checker error" marks an entry
BFCL's own checker would crash on (a schema type it does not know, say).
"""

from __future__ import annotations

import re
from typing import Any

#: BFCL's Python type names to the Python type a value must have (`any` means a string).
PYTHON_TYPES: dict[str, type] = {
    "string": str, "integer": int, "float": float, "boolean": bool,
    "array": list, "tuple": list, "dict": dict, "any": str,
}
_NESTED_CHECKED = ("array", "tuple")
_STANDARDIZE = re.compile(r"[ ,./\-_*^]")


class CheckerCrash(Exception):
    """BFCL's checker would raise here (the entry is not scored)."""


def standardize(text: str) -> str:
    """BFCL's string leniency: drop spaces and `,./-_*^`, lower-case, `'` becomes `"`."""
    return _STANDARDIZE.sub("", text).lower().replace("'", '"')


def _first_answer_type(answers: list[Any]) -> type | None:
    return next((type(a) for a in answers if a != ""), None)


def _type_ok(value: Any, answers: list[Any], expected: type, nested: type | None) -> tuple[
        bool, bool]:
    """(type is acceptable, value is a 'variable'): BFCL's type_checker."""
    answer_type = _first_answer_type(answers)
    is_variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if nested is None:
            return True, is_variable
        for option in answers:
            if not isinstance(option, list):
                return True, is_variable  # an optional marker: nothing to check inside
            if all(_type_ok(item, option, nested, None)[0] for item in value):
                return True, is_variable
        return False, is_variable  # BFCL keeps the nested failure even for a "variable"
    if answer_type is not None and type(value) is answer_type:
        return True, True
    return False, is_variable


def _standardized(values: Any) -> list[Any]:
    return [standardize(v) if isinstance(v, str) else v for v in values]


def _list_ok(value: list[Any], answers: list[Any]) -> bool:
    options = [_standardized(list(option)) if isinstance(option, list | str) else _crash(option)
               for option in answers]
    return _standardized(value) in options


def _crash(option: Any) -> Any:
    raise CheckerCrash(f"acceptable value {option!r} is not iterable")


def _iterable(values: Any, key: str) -> list[Any] | str:
    """A nested answer field's values as BFCL iterates them (a string char by char)."""
    if isinstance(values, list | str):
        return values
    raise CheckerCrash(f"acceptable values of {key!r} are not a list")


def _dict_option_ok(value: dict[str, Any], option: Any) -> bool:
    if not isinstance(option, dict):
        return False
    for key, item in value.items():
        if key not in option:
            return False
        wanted = _standardized(list(_iterable(option[key], key)))
        if (standardize(item) if isinstance(item, str) else item) not in wanted:
            return False
    return all(key in value or "" in _iterable(vals, key) for key, vals in option.items())


def _dict_ok(value: dict[str, Any], answers: list[Any]) -> bool:
    return any(_dict_option_ok(value, option) for option in answers if option != "")


def _list_of_dicts_ok(value: list[Any], answers: list[Any]) -> bool:
    for option in answers:
        if not isinstance(option, list | str):
            raise CheckerCrash(f"acceptable value {option!r} is not a list of dicts")
        if len(value) != len(option):
            continue
        if all(isinstance(v, dict) and _dict_ok(v, [o]) for v, o in zip(value, option,
                                                                          strict=True)):
            return True
    return False


def _param_ok(value: Any, answers: list[Any], details: dict[str, Any]) -> bool:
    """Whether one parameter's value passes BFCL's type and value checks."""
    type_name = details.get("type")
    if type_name not in PYTHON_TYPES:
        raise CheckerCrash(f"unknown type {type_name!r}")
    expected = PYTHON_TYPES[type_name]
    nested = None
    if type_name in _NESTED_CHECKED:
        item_type = (details.get("items") or {}).get("type")
        if item_type not in PYTHON_TYPES:
            raise CheckerCrash(f"unknown item type {item_type!r}")
        nested = PYTHON_TYPES[item_type]
    if type_name == "float" and type(value) is int:
        value = float(value)
    type_ok, is_variable = _type_ok(value, answers, expected, nested)
    if not type_ok:
        return False
    if not is_variable:
        if expected is dict:
            return _dict_ok(value, answers)
        if expected is list and nested is dict:
            return _list_of_dicts_ok(value, answers)
        if expected is str:
            return standardize(value) in _standardized(answers)
        if expected is list:
            return _list_ok(value, answers)
    return value in answers


def check_call(function: dict[str, Any], call: dict[str, Any], answer: dict[str, Any],
               underscored: bool) -> bool:
    """BFCL's simple_function_checker: one decoded call against one possible answer."""
    (expected_name, possible), = answer.items()
    name = expected_name.replace(".", "_") if underscored else expected_name
    if name not in call:
        return False
    params = call[name]
    properties = function["parameters"].get("properties", {})
    if any(p not in params for p in function["parameters"].get("required", [])):
        return False
    for param, value in params.items():
        if param not in properties or param not in possible:
            return False
        if not _param_ok(value, possible[param], properties[param]):
            return False
    return all(p in params or "" in vals for p, vals in possible.items())


def _function(functions: list[dict[str, Any]], name: str) -> dict[str, Any]:
    found = next((f for f in functions if f["name"] == name), None)
    if found is None:
        raise CheckerCrash(f"no description for {name!r}")
    return found


def _parallel_ok(functions: list[dict[str, Any]], calls: list[dict[str, Any]],
                 truth: list[dict[str, Any]], underscored: bool) -> bool:
    """Greedy, order-free pairing: each answer takes the first unused call that passes."""
    used: set[int] = set()
    for answer in truth:
        function = _function(functions, next(iter(answer)))
        match = next((i for i, call in enumerate(calls) if i not in used
                      and check_call(function, call, answer, underscored)), None)
        if match is None:
            return False
        used.add(match)
    return True


def _is_call_list(decoded: Any) -> bool:
    return isinstance(decoded, list) and all(
        isinstance(c, dict) and len(c) == 1 and all(isinstance(p, dict) for p in c.values())
        for c in decoded)


def check_entry(category: str, functions: list[dict[str, Any]], decoded: Any,
                truth: list[dict[str, Any]] | None, underscored: bool = False
                ) -> tuple[bool, str]:
    """BFCL's verdict on one entry: `decoded` is the handler's decoded calls, or None."""
    if "irrelevance" in category:
        called = decoded is not None and _is_call_list(decoded) and any(decoded)
        return (not called, "called a function" if called else "no call")
    if decoded is None:
        return False, "output did not decode"
    if not _is_call_list(decoded) or truth is None:
        return False, "not in the function-calling format"
    try:
        if "parallel" in category:
            ok = len(decoded) == len(truth) and _parallel_ok(functions, decoded, truth,
                                                               underscored)
        elif "multiple" in category:
            ok = len(decoded) == len(truth) and check_call(
                _function(functions, next(iter(truth[0]))), decoded[0], truth[0], underscored)
        else:
            ok = len(decoded) == 1 and check_call(functions[0], decoded[0], truth[0],
                                                  underscored)
    except CheckerCrash as exc:
        return False, f"checker error: {exc}"
    return ok, "valid" if ok else "invalid"
