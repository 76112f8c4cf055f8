"""Model outputs for BFCL questions, built from their possible answers, for agreement checks.

BFCL's data holds no model outputs, so this writes them: for each question, correct calls in
each form a result file can take (function-calling JSON, Python call syntax, and the three
text encodings), other acceptable values, dotted names underscored, parallel calls reordered,
strings in another case and spacing, and perturbed answers (a wrong value, a missing or extra
parameter, a wrong function, a missing or extra call, a value of the wrong type, a text
reply). Each output comes with the decoded calls BFCL's handler would pass its checker (None
when it would not decode), so the reference verdict needs no decoder. Deterministic from the
seed.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

OMIT = object()  # a parameter the chosen answer leaves out
ENCODINGS = ("fc", "python", "tool_calls", "json_list", "tags")
#: Outputs whose kind meets a documented deliberate difference (docs/importers.md): none now.
#: A float for an integer used to be one (BFCL fails it, toolgrade's lenient default passed
#: it); the importer now compares integer parameters with `strict: true`, and strings in
#: another case or spacing are graded as BFCL does, so both count in full.
KNOWN_DIFFERENCES: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Output:
    """One model output: the result-file value and what BFCL's checker would see."""

    variant: str
    result: Any
    decoded: list[dict[str, Any]] | None
    underscored: bool = False


def pick(values: list[Any], rng: random.Random | None = None) -> Any:
    """One acceptable value: the first that is not the omission marker (random with `rng`)."""
    options = [v for v in values if v != ""]
    if not options:
        return OMIT
    return rng.choice(options) if rng else options[0]


def realize(value: Any, rng: random.Random | None = None) -> Any:
    """A literal standing for one acceptable value (nested answers filled field by field; a
    bare field value is its own one value)."""
    if isinstance(value, dict):
        fields = {k: pick(v if isinstance(v, list) else [v], rng) for k, v in value.items()}
        return {k: realize(v, rng) for k, v in fields.items() if v is not OMIT}
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return [realize(v, rng) for v in value]
    return value


def answer_calls(truth: list[dict[str, Any]], rng: random.Random | None = None,
                 keep_optional: bool = True) -> list[dict[str, Any]]:
    """The calls of a possible answer as `{name: {param: value}}`; with `rng`, random
    acceptable values and optional parameters sometimes left out."""
    calls = []
    for entry in truth:
        for name, params in entry.items():
            args: dict[str, Any] = {}
            for param, values in params.items():
                chosen = pick(values, rng)
                optional = "" in values
                if chosen is OMIT or (optional and rng and not keep_optional
                                      and rng.random() < 0.5):
                    continue
                args[param] = realize(chosen, rng)
            calls.append({name: args})
    return calls


def encode(calls: list[dict[str, Any]], encoding: str) -> Any:
    """The result-file form of decoded calls."""
    pairs = [(name, args) for call in calls for name, args in call.items()]
    if encoding == "fc":
        return [{name: json.dumps(args)} for name, args in pairs]
    if encoding == "python":
        inner = ", ".join(f"{name}(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"
                          for name, args in pairs)
        return f"[{inner}]"
    if encoding == "tool_calls":
        return json.dumps({"tool_calls": [{"name": n, "arguments": a} for n, a in pairs]})
    if encoding == "json_list":
        return json.dumps([{"name": n, "arguments": json.dumps(a)} for n, a in pairs])
    if encoding == "tags":
        return "\n".join(f"<tool_call>{json.dumps({'name': n, 'arguments': a})}</tool_call>"
                         for n, a in pairs)
    raise ValueError(encoding)


def _changed(value: Any) -> Any:
    """A different value of the same kind."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 7
    if isinstance(value, str):
        return value + " extra"
    if isinstance(value, list):
        return value[:-1] if value else ["x"]
    if isinstance(value, dict):
        return {**value, "unexpected_key": 1}
    return "something"


def _wrong_type(value: Any) -> Any:
    if isinstance(value, str):
        return 12345
    return str(value)


def _first_arg(calls: list[dict[str, Any]]) -> tuple[dict[str, Any], str] | None:
    for call in calls:
        args = next(iter(call.values()))
        if args:
            return args, next(iter(args))
    return None


def _with_arg(calls: list[dict[str, Any]], edit: Any) -> list[dict[str, Any]] | None:
    """A deep copy of `calls` with the first argument of the first call that has one edited
    by `edit(args, param)`; None when no call has an argument."""
    copied = json.loads(json.dumps(calls))
    found = _first_arg(copied)
    if found is None:
        return None
    edit(*found)
    return copied


def _lenient_strings(calls: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The calls with every top-level string argument upper-cased and its spaces written as
    `_` (BFCL's standardisation ignores both); None when no call has a string argument."""
    copied = json.loads(json.dumps(calls))
    changed = False
    for call in copied:
        for args in call.values():
            for param, value in args.items():
                if isinstance(value, str) and value.strip():
                    args[param] = value.upper().replace(" ", "_")
                    changed = True
    return copied if changed else None


def _integer_param(functions: list[dict[str, Any]], calls: list[dict[str, Any]]
                   ) -> list[dict[str, Any]] | None:
    """The calls with the first integer argument written as a float (5 -> 5.0)."""
    copied = json.loads(json.dumps(calls))
    types = {f["name"]: f.get("parameters", {}).get("properties", {}) for f in functions}
    for call in copied:
        for name, args in call.items():
            for param, value in args.items():
                kind = types.get(name, {}).get(param, {}).get("type")
                if kind == "integer" and type(value) is int:
                    args[param] = float(value)
                    return copied
    return None


def _float_param(functions: list[dict[str, Any]], calls: list[dict[str, Any]]
                 ) -> list[dict[str, Any]] | None:
    """The calls with the first whole float argument of a float parameter written as an int
    (5.0 -> 5): BFCL accepts an int for a float at the top level, and so must the import."""
    copied = json.loads(json.dumps(calls))
    types = {f["name"]: f.get("parameters", {}).get("properties", {}) for f in functions}
    for call in copied:
        for name, args in call.items():
            for param, value in args.items():
                kind = types.get(name, {}).get(param, {}).get("type")
                if kind == "float" and type(value) is float and value.is_integer():
                    args[param] = int(value)
                    return copied
    return None


def _float_array_param(functions: list[dict[str, Any]], calls: list[dict[str, Any]]
                       ) -> list[dict[str, Any]] | None:
    """The calls with the first array-of-float argument holding whole floats written as ints
    ([1.0, 3.0] -> [1, 3]): BFCL's nested type check fails them where the answer lists
    floats, unlike an int for a float at the top level."""
    copied = json.loads(json.dumps(calls))
    types = {f["name"]: f.get("parameters", {}).get("properties", {}) for f in functions}
    for call in copied:
        for name, args in call.items():
            for param, value in args.items():
                declared = types.get(name, {}).get(param, {})
                if (declared.get("type") == "array"
                        and (declared.get("items") or {}).get("type") == "float"
                        and isinstance(value, list) and value
                        and all(type(x) is float and x.is_integer() for x in value)):
                    args[param] = [int(x) for x in value]
                    return copied
    return None


def perturbed(calls: list[dict[str, Any]], functions: list[dict[str, Any]]
              ) -> dict[str, list[dict[str, Any]] | None]:
    """Wrong answers derived from correct calls (None where one does not apply)."""
    names = [f["name"] for f in functions]
    first = next(iter(calls[0]))
    other = next((n for n in names if n != first), "not_a_function")
    return {
        "wrong_value": _with_arg(calls, lambda a, p: a.__setitem__(p, _changed(a[p]))),
        "missing_param": _with_arg(calls, lambda a, p: a.pop(p)),
        "extra_param": _with_arg(calls, lambda a, p: a.__setitem__("unexpected_param", 1)),
        "wrong_type": _with_arg(calls, lambda a, p: a.__setitem__(p, _wrong_type(a[p]))),
        "wrong_function": [{other: next(iter(calls[0].values()))}, *calls[1:]],
        "missing_call": calls[:-1],
        "extra_call": [*calls, calls[0]],
        "float_for_int": _integer_param(functions, calls),
        "int_for_float": _float_param(functions, calls),
        "ints_in_float_array": _float_array_param(functions, calls),
    }


def outputs_for(question: dict[str, Any], truth: list[dict[str, Any]] | None,
                rng: random.Random) -> list[Output]:
    """Every output written for one question (irrelevance when `truth` is None)."""
    functions = question["function"]
    if truth is None:
        return _irrelevance_outputs(functions, rng)
    calls = answer_calls(truth)
    out = [Output(f"correct_{enc}", encode(calls, enc), calls) for enc in ENCODINGS]
    alt = answer_calls(truth, rng, keep_optional=False)
    out.append(Output("other_values", encode(alt, rng.choice(ENCODINGS)), alt))
    if any("." in next(iter(c)) for c in calls):
        under = [{n.replace(".", "_"): a} for c in calls for n, a in c.items()]
        out.append(Output("underscored", encode(under, "fc"), under, underscored=True))
    if len(calls) > 1:
        out.append(Output("reordered", encode(calls[::-1], "fc"), calls[::-1]))
    lenient = _lenient_strings(calls)
    if lenient is not None:
        out.append(Output("string_case_spacing", encode(lenient, rng.choice(ENCODINGS)),
                          lenient))
    for variant, wrong in perturbed(calls, functions).items():
        if wrong is not None:
            out.append(Output(variant, encode(wrong, rng.choice(ENCODINGS)), wrong))
    out.append(Output("text_reply", "I would call the function with those values.", None))
    return out


def _irrelevance_outputs(functions: list[dict[str, Any]], rng: random.Random) -> list[Output]:
    """A text reply and no call pass; a call of any function in any form fails."""
    out = [Output("text_reply", "None of the functions can answer that.", None),
           Output("empty", [], [])]
    if not functions:  # some live_irrelevance questions offer no function at all
        return out
    function = rng.choice(functions)
    props = function.get("parameters", {}).get("properties", {})
    args = {p: 1 if d.get("type") in ("integer", "float") else "x" for p, d in props.items()}
    calls = [{function["name"]: args}]
    out.extend(Output(f"call_{enc}", encode(calls, enc), calls) for enc in ENCODINGS)
    return out
