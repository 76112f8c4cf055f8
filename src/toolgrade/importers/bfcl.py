"""BFCL questions and possible answers to toolgrade cases (and results to runs).

Berkeley Function Calling Leaderboard files are JSON Lines despite their `.json` suffix. A
question names the functions the model had and the user turn; a possible answer lists, for each
expected call, every acceptable value of every parameter. The mapping rules and every deliberate
difference from BFCL's own checker are in docs/importers.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from toolgrade.errors import InputError, InputProblem
from toolgrade.importers.bfcl_calls import DecodedResult, NameResolver, decode_result
from toolgrade.importers.common import (
    ImportSummary,
    Located,
    read_jsonl,
    require_items,
    require_object,
    write_outputs,
)

#: BFCL's parameter type names (Python categories) to JSON Schema types; None = no type.
BFCL_TYPES: dict[str, str | None] = {
    "dict": "object",
    "object": "object",
    "float": "number",
    "number": "number",
    "integer": "integer",
    "int": "integer",
    "string": "string",
    "str": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "any": None,
}

#: Schema keys kept as they are; BFCL's `optional` is dropped (`required` already says it).
_KEPT_KEYS = ("description", "enum", "default", "format", "minimum", "maximum", "pattern")

#: The marker BFCL puts among acceptable values when a parameter may be left out.
OPTIONAL = ""

#: Keys that make a mapping a comparator in the case format (DESIGN section 1), options included.
_COMPARATOR_KEYS = frozenset({
    "exact", "one_of", "approx", "tol", "rel", "date", "tz", "casefold", "regex", "semantic",
    "rubric", "any", "absent", "unordered", "normalize",
})
_MAX_EXPANSION = 64
_OMIT = object()  # a field left out in one literal form of a nested answer


def bfcl_category(case_id: str) -> str:
    """The BFCL category of an id: `simple_python_3` -> `simple_python`, `live_simple_0-0-0` too."""
    return re.sub(r"_[0-9][0-9-]*$", "", case_id)


def map_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A BFCL parameter schema as JSON Schema: type names mapped, nested schemas recursively."""
    out: dict[str, Any] = {}
    bfcl_type = schema.get("type")
    if isinstance(bfcl_type, str):
        mapped = BFCL_TYPES.get(bfcl_type.lower())
        if mapped is not None:
            out["type"] = mapped
    out.update({key: schema[key] for key in _KEPT_KEYS if key in schema})
    if isinstance(schema.get("properties"), dict):
        out["properties"] = {
            name: map_schema(sub) if isinstance(sub, dict) else {}
            for name, sub in schema["properties"].items()
        }
    if isinstance(schema.get("required"), list):
        out["required"] = list(schema["required"])
    if isinstance(schema.get("items"), dict):
        out["items"] = map_schema(schema["items"])
    return out


def tool_spec(function: dict[str, Any]) -> dict[str, Any]:
    """One BFCL function as a toolgrade ToolSpec mapping."""
    parameters = function.get("parameters")
    schema = map_schema(parameters) if isinstance(parameters, dict) else {}
    schema["type"] = "object"  # BFCL writes "dict" at the top; a call's arguments are an object
    return {"description": str(function.get("description", "")), "parameters": schema}


def values_reason(values: Any) -> str:
    """Why `values` cannot be a BFCL list of acceptable values (a bare value is not one)."""
    return f"acceptable values must be a list, e.g. [{json.dumps(values, ensure_ascii=False)}]"


def _as_list(values: Any) -> list[Any]:
    """BFCL's acceptable values as a list; ValueError when they are not one."""
    if not isinstance(values, list):
        raise ValueError(values_reason(values))
    return values


def value_problems(values: Any, where: str) -> list[tuple[str, str]]:
    """(field, reason) for every acceptable-values entry that is not a list, at any depth of the
    nested dict answers `values` holds, so a bare value is never taken as an exact one."""
    if not isinstance(values, list):
        return [(where, values_reason(values))]
    return [found for value in values for found in _nested_problems(value, where)]


def _nested_problems(value: Any, where: str) -> list[tuple[str, str]]:
    """`value_problems` for the nested dict answers inside one acceptable value."""
    if isinstance(value, dict):
        return [found for key, vals in value.items()
                for found in value_problems(vals, f"{where}.{key}")]
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return [found for v in value for found in _nested_problems(v, where)]
    return []


def _has_string(value: Any) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, list):
        return any(_has_string(v) for v in value)
    if isinstance(value, dict):
        return any(_has_string(v) for v in value.values())
    return False


def _nested(value: Any) -> Any:
    """One acceptable value, with BFCL's nested dicts turned into field-by-field comparators."""
    if isinstance(value, dict):
        if _COMPARATOR_KEYS & set(value):
            return _literal_dict(value)
        return {key: acceptable(vals) for key, vals in value.items()}
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        return [_nested(v) for v in value]
    return value


def _literal_forms(value: Any) -> list[Any]:
    """Every literal a BFCL nested-answer value stands for (dicts expand field by field)."""
    if not isinstance(value, dict):
        return [value]
    per_field: list[list[tuple[str, Any]]] = []
    for key, vals in value.items():
        forms: list[tuple[str, Any]] = []
        for option in _as_list(vals):
            if option == OPTIONAL:
                forms.append((key, _OMIT))
            else:
                forms.extend((key, form) for form in _literal_forms(option))
        per_field.append(forms)
    combos: list[dict[str, Any]] = [{}]
    for options in per_field:
        combos = [{**c, **({} if form is _OMIT else {key: form})}
                  for c in combos for key, form in options]
        if len(combos) > _MAX_EXPANSION:
            raise ValueError("a nested answer with a field named like a comparator has too "
                             f"many acceptable combinations (over {_MAX_EXPANSION})")
    return combos


def _literal_dict(value: dict[str, Any]) -> dict[str, Any]:
    """A nested answer whose field names clash with comparator keys (say a field `date`):
    the comparator language cannot hold it field by field, so list its literal forms."""
    forms = [{"exact": form, "normalize": True} if _has_string(form) else {"exact": form}
             for form in _literal_forms(value)]
    return forms[0] if len(forms) == 1 else {"one_of": forms}


def acceptable(values: Any) -> Any:
    """A BFCL list of acceptable values as a toolgrade comparator.

    `""` among the values means the parameter may be left out ({absent: true} inside one_of).
    Strings are compared with `normalize: true`, BFCL's leniency (case, spaces, punctuation).
    A bare value instead of a list is a ValueError, never read as an exact value.
    """
    values = _as_list(values)
    optional = OPTIONAL in values
    rest = [v for v in values if v != OPTIONAL]
    if not rest:
        return {"absent": True}
    if len(rest) == 1 and not optional:
        return _single(rest[0])
    comparator: dict[str, Any] = {"one_of": [_nested(v) for v in rest]}
    if optional:
        comparator["one_of"].append({"absent": True})
    if _has_string(rest):
        comparator["normalize"] = True
    return comparator


def _single(value: Any) -> Any:
    nested = _nested(value)
    if nested is not value:
        return nested  # a dict, or a list holding dicts: compared field by field, in order
    comparator: dict[str, Any] = {"exact": value}
    if _has_string(value):
        comparator["normalize"] = True
    return comparator


def expected_call(name: str, params: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """One expected call. Parameters the answer does not mention must be left out, as in BFCL."""
    args = {param: acceptable(values) for param, values in params.items()}
    for prop in schema.get("properties", {}):
        args.setdefault(prop, {"absent": True})
    return {"tool": name, "args": args}


def question_input(question: Any) -> Any:
    """The text of the last user message of the last turn (BFCL nests turns in lists)."""
    turns = question if isinstance(question, list) else []
    messages = [m for turn in turns for m in (turn if isinstance(turn, list) else [turn])]
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return users[-1].get("content") if users else None


def _question_problems(question: Located, data: dict[str, Any]) -> list[InputProblem]:
    """Every problem of a question's `id` and `function` fields."""
    problems: list[InputProblem] = []
    case_id, functions = data.get("id"), data.get("function")
    if not isinstance(case_id, str) or not case_id:
        problems.append(question.problem("id", "missing or not a string"))
    if not isinstance(functions, list) or not all(
        isinstance(f, dict) and isinstance(f.get("name"), str) for f in functions
    ):
        problems.append(question.problem("function", "must be a list of functions with names"))
    return problems


def build_case(question: Located, answer: Located | None) -> dict[str, Any]:
    """One BFCL question (and its possible answer, if any) as a case mapping."""
    data = require_object(question, "a BFCL question")
    problems = _question_problems(question, data)
    if problems:
        raise InputError(problems)
    case_id: str = data["id"]
    tools = {f["name"]: tool_spec(f) for f in data["function"]}
    category = bfcl_category(case_id)
    case: dict[str, Any] = {
        "id": case_id,
        "task_type": category,
        "input": question_input(data.get("question")),
        "tools": tools,
        "metadata": {"source": "bfcl", "category": category},
    }
    if answer is None:
        case["expected"] = {"selection": {"no_tool": True}}
    else:
        case["expected"] = _expected_from_answer(answer, tools)
    return case


def _entry_problems(
    answer: Located, index: int, entry: Any, tools: dict[str, Any]
) -> list[InputProblem]:
    """Every problem of one `ground_truth` entry: its shape, functions the question does not
    declare, and acceptable values that are not lists."""
    where = f"ground_truth[{index}]"
    if not isinstance(entry, dict) or not all(isinstance(p, dict) for p in entry.values()):
        return [answer.problem(
            where, "expected {function: {param: [values]}} (multi-turn answers are not supported)"
        )]
    problems: list[InputProblem] = []
    for name, params in entry.items():
        if name not in tools:
            declared = ", ".join(tools) or "none"
            problems.append(answer.problem(
                f"{where}.{name}",
                f"function {name!r} is not among the question's functions ({declared})"))
        for param, values in params.items():
            problems.extend(answer.problem(field, reason)
                            for field, reason in value_problems(values, f"{where}.{name}.{param}"))
    return problems


def _expected_from_answer(answer: Located, tools: dict[str, Any]) -> dict[str, Any]:
    """The expected block of a case from its possible answer; every problem raised at once."""
    truth = require_object(answer, "a BFCL possible answer").get("ground_truth")
    if not isinstance(truth, list):
        raise InputError([answer.problem("ground_truth", "must be a list")])
    problems = [problem for index, entry in enumerate(truth)
                for problem in _entry_problems(answer, index, entry, tools)]
    if problems:
        raise InputError(problems)
    calls = [expected_call(name, params, tools[name]["parameters"])
             for entry in truth for name, params in entry.items()]
    if not calls:
        return {"selection": {"no_tool": True}}
    return {"selection": {"tools": [c["tool"] for c in calls]}, "arguments": calls}


def _index_answers(answers: list[Located]) -> dict[str, Located]:
    """Possible answers by id; every answer without a string id is reported at once."""
    index: dict[str, Located] = {}
    problems: list[InputProblem] = []
    for item in answers:
        if not isinstance(item.value, dict):
            problems.append(item.problem("", "a BFCL possible answer must be a JSON object"))
        elif not isinstance(item.value.get("id"), str):
            problems.append(item.problem("id", "missing or not a string"))
        else:
            index[item.value["id"]] = item
    if problems:
        raise InputError(problems)
    return index


def _is_irrelevance(case_id: str) -> bool:
    return "irrelevance" in bfcl_category(case_id)


def build_cases(questions: list[Located], answers: list[Located] | None) -> list[dict[str, Any]]:
    """Every question as a case. A question without a possible answer is an error unless it is
    an irrelevance question, whose right answer is no call at all."""
    by_id = _index_answers(answers) if answers is not None else {}
    cases: list[dict[str, Any]] = []
    problems: list[InputProblem] = []
    for question in questions:
        try:
            qid = require_object(question, "a BFCL question").get("id")
            answer = by_id.get(qid) if isinstance(qid, str) else None
            if answer is None and isinstance(qid, str) and not _is_irrelevance(qid):
                problems.append(question.problem("id", f"no possible answer for {qid!r}"))
                continue
            cases.append(build_case(question, answer))
        except InputError as exc:
            problems.extend(exc.problems)
        except ValueError as exc:
            problems.append(question.problem("ground_truth", str(exc)))
    if problems:
        raise InputError(problems)
    return cases


def build_runs(
    results: list[Located], cases: list[dict[str, Any]], agent: str | None
) -> tuple[list[dict[str, Any]], list[DecodedResult]]:
    """Each result line as a run of its case; repeated ids become trials 0, 1, ..."""
    by_id = {c["id"]: c for c in cases}
    trials: dict[str, int] = {}
    runs: list[dict[str, Any]] = []
    decoded_all: list[DecodedResult] = []
    problems: list[InputProblem] = []
    for item in results:
        data = item.value
        if not isinstance(data, dict) or "result" not in data:
            problems.append(item.problem("", "a result line must be an object with id and result"))
            continue
        case = by_id.get(data.get("id"))
        if case is None:
            problems.append(item.problem("id", f"no question with id {data.get('id')!r}"))
            continue
        resolver = NameResolver(list(case["tools"]))
        decoded = decode_result(data["result"], resolver,
                                no_tool=case["expected"]["selection"].get("no_tool", False))
        trial = trials.get(case["id"], 0)
        trials[case["id"]] = trial + 1
        run: dict[str, Any] = {"case_id": case["id"], "trial": trial}
        if agent is not None:
            run["agent"] = agent
        run["steps"] = decoded.steps
        runs.append(run)
        decoded_all.append(decoded)
    if problems:
        raise InputError(problems)
    return runs, decoded_all


def import_bfcl(
    questions: Path,
    answers: Path | None,
    results: Path | None,
    out: Path,
    agent: str | None = None,
) -> ImportSummary:
    """Import BFCL questions, possible answers and (optionally) a results file into `out`.

    Writes `out/suite.jsonl` and `out/runs.jsonl`; raises InputError (file:line: reason) on
    malformed input, before writing anything.
    """
    items = require_items(questions, read_jsonl(questions), "questions")
    expected = require_items(answers, read_jsonl(answers), "answers") if answers else None
    cases = build_cases(items, expected)
    runs: list[dict[str, Any]] = []
    decoded: list[DecodedResult] = []
    if results is not None:
        outputs = require_items(results, read_jsonl(results), "results")
        runs, decoded = build_runs(outputs, cases, agent)
    write_outputs(out, cases, runs)
    answered = {r["case_id"] for r in runs}
    return ImportSummary(
        out=out,
        cases=len(cases),
        runs=len(runs),
        calls=sum(d.calls for d in decoded),
        unparseable=sum(1 for d in decoded if d.unparseable),
        missing_runs=len(cases) - len(answered) if results is not None else 0,
    )
