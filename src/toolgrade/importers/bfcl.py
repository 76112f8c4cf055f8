"""BFCL questions and possible answers to toolgrade cases (and results to runs).

Berkeley Function Calling Leaderboard files are JSON Lines despite their `.json` suffix. A
question names the functions the model had and the user turn; a possible answer lists, for each
expected call, every acceptable value of every parameter (read in bfcl_answers). An entry that
cannot be read is left out and reported, never a reason to refuse the rest of the file. The
mapping rules and every deliberate difference from BFCL's own checker are in docs/importers.md.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from pydantic import ValidationError

from toolgrade.errors import InputError, InputProblem
from toolgrade.importers.bfcl_answers import expected_call, value_problems
from toolgrade.importers.bfcl_calls import (
    DecodedResult,
    ExactNames,
    NameResolver,
    decode_like_bfcl,
    decode_result,
)
from toolgrade.importers.bfcl_format import (
    BfclAnswerCall,
    BfclFunctionDoc,
    BfclPossibleAnswer,
    BfclQuestion,
    BfclSchema,
)
from toolgrade.importers.bfcl_handlers import handler_family, writes_underscored_names
from toolgrade.importers.bfcl_layout import current_answer, current_question, is_no_call_category
from toolgrade.importers.bfcl_schema import admit_answer
from toolgrade.importers.common import (
    ImportSummary,
    Located,
    read_jsonl,
    require_items,
    require_object,
    write_outputs,
)
from toolgrade.importers.written import (
    BfclCaseMetadata,
    CaseLine,
    Catalogue,
    ExpectedLine,
    RunLine,
    ToolSpecLine,
)
from toolgrade.jsonio.values import JsonObject, JsonValue
from toolgrade.loaders.suite import default_case_validators
from toolgrade.models import Case

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

#: String constraints BFCL's checker never checks: its string leniency passes "CELSIUS" for an
#: enum value "celsius", so they move from the schema into the description (see _unchecked).
_UNCHECKED_KEYS = ("enum", "format", "pattern")

def bfcl_category(case_id: str) -> str:
    """The BFCL category of an id: `simple_python_3` -> `simple_python`, `live_simple_0-0-0` too."""
    return re.sub(r"_[0-9][0-9-]*$", "", case_id)


def map_schema(schema: BfclSchema) -> JsonObject:
    """A BFCL parameter schema as JSON Schema: type names mapped, nested schemas recursively."""
    out: JsonObject = {}
    bfcl_type = schema.get("type")
    if isinstance(bfcl_type, str):
        mapped = BFCL_TYPES.get(bfcl_type.lower())
        if mapped is not None:
            out["type"] = mapped
    out.update({key: schema[key] for key in _KEPT_KEYS if key in schema})
    _move_unchecked_to_description(out)
    if isinstance(properties := schema.get("properties"), dict):
        out["properties"] = {
            name: map_schema(sub) if isinstance(sub, dict) else {}
            for name, sub in properties.items()
        }
    if isinstance(required := schema.get("required"), list):
        out["required"] = list(required)
    if isinstance(items := schema.get("items"), dict):
        out["items"] = map_schema(items)
    return out


def _unchecked(schema: JsonObject) -> list[str]:
    """The string constraints of `schema` BFCL's checker does not check: `format`, `pattern`,
    and an `enum` holding a string (non-string enums are kept: BFCL compares those values
    exactly, and the widened schema admits every one the answer lists)."""
    enum = schema.get("enum")
    return [key for key in _UNCHECKED_KEYS if key in schema
            and (key != "enum" or not isinstance(enum, list)
                 or any(isinstance(value, str) for value in enum))]


def _move_unchecked_to_description(schema: JsonObject) -> None:
    """Move the constraints BFCL does not check out of `schema` (in place) into its
    description, for the reader: kept, they would fail values BFCL's checker passes."""
    notes = [f"{key} {json.dumps(schema.pop(key), ensure_ascii=False)}"
             for key in _unchecked(schema)]
    if notes:
        text = str(schema.get("description", "")).rstrip()
        note = f"(not graded, as BFCL's checker does not: {'; '.join(notes)})"
        schema["description"] = f"{text} {note}" if text else note


def tool_spec(function: BfclFunctionDoc) -> ToolSpecLine:
    """One BFCL function as a toolgrade ToolSpec mapping."""
    parameters = function.get("parameters")
    schema = map_schema(parameters) if isinstance(parameters, dict) else {}
    schema["type"] = "object"  # BFCL writes "dict" at the top; a call's arguments are an object
    return {"description": str(function.get("description", "")), "parameters": schema}


def question_input(question: JsonValue) -> JsonValue:
    """The text of the last user message of the last turn (BFCL nests turns in lists)."""
    turns = question if isinstance(question, list) else []
    messages = [m for turn in turns for m in (turn if isinstance(turn, list) else [turn])]
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    return users[-1].get("content") if users else None


def _question_problems(question: Located, data: JsonObject) -> list[InputProblem]:
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


def build_case(question: Located, answer: Located | None) -> CaseLine:
    """One BFCL question (and its possible answer, if any) as a case mapping."""
    data = require_object(question, "a BFCL question")
    problems = _question_problems(question, data)
    if problems:
        raise InputError(problems)
    entry = cast(BfclQuestion, data)
    case_id = entry["id"]
    tools: Catalogue = {f["name"]: tool_spec(f) for f in entry["function"]}
    category = bfcl_category(case_id)
    asked = question_input(entry.get("question"))
    metadata: BfclCaseMetadata = {"source": "bfcl", "category": category}
    expected: ExpectedLine = ({"selection": {"no_tool": True}} if answer is None
                              else _expected_from_answer(answer, tools))
    # The key order of the written line: `expected` comes last.
    return {"id": case_id, "task_type": category, "input": asked, "tools": tools,
            "metadata": metadata, "expected": expected}


def _entry_problems(
    answer: Located, index: int, entry: JsonValue, tools: Catalogue
) -> list[InputProblem]:
    """Every problem of one `ground_truth` entry: its shape, functions the question does not
    declare, and parameters whose acceptable values are not lists."""
    where = f"ground_truth[{index}]"
    if not isinstance(entry, dict) or not all(isinstance(p, dict) for p in entry.values()):
        return [answer.problem(
            where, "expected {function: {param: [values]}} (multi-turn answers are not supported)"
        )]
    problems: list[InputProblem] = []
    for name, params in cast(BfclAnswerCall, entry).items():
        if name not in tools:
            declared = ", ".join(tools) or "none"
            problems.append(answer.problem(
                f"{where}.{name}",
                f"function {name!r} is not among the question's functions ({declared})"))
        for param, values in params.items():
            problems.extend(answer.problem(field, reason)
                            for field, reason in value_problems(values, f"{where}.{name}.{param}"))
    return problems


def _expected_from_answer(answer: Located, tools: Catalogue) -> ExpectedLine:
    """The expected block of a case from its possible answer; every problem raised at once."""
    given = require_object(answer, "a BFCL possible answer").get("ground_truth")
    if not isinstance(given, list):
        raise InputError([answer.problem("ground_truth", "must be a list")])
    problems = [problem for index, entry in enumerate(given)
                for problem in _entry_problems(answer, index, entry, tools)]
    if problems:
        raise InputError(problems)
    truth = cast(BfclPossibleAnswer, answer.value)["ground_truth"]
    try:  # before the widening below: BFCL's variable rule reads the declared types
        calls = [expected_call(name, params, tools[name]["parameters"])
                 for entry in truth for name, params in entry.items()]
    except ValueError as exc:
        raise InputError([answer.problem("ground_truth", str(exc))]) from None
    for entry in truth:
        for name, params in entry.items():
            admit_answer(tools[name]["parameters"], params)
    if not calls:
        return {"selection": {"no_tool": True}}
    return {"selection": {"tools": [c["tool"] for c in calls]}, "arguments": calls}


def _index_answers(answers: list[Located]) -> tuple[dict[str, Located], list[InputProblem]]:
    """Possible answers by id, and a problem for every answer that has no string id (left
    out: it cannot be tied to its question, which is then reported as having no answer)."""
    index: dict[str, Located] = {}
    problems: list[InputProblem] = []
    for item in answers:
        if not isinstance(item.value, dict):
            problems.append(item.problem("", "a BFCL possible answer must be a JSON object"))
        elif not isinstance(answer_id := item.value.get("id"), str):
            problems.append(item.problem("id", "missing or not a string"))
        else:
            index.setdefault(answer_id, item)
    return index, problems


def _is_irrelevance(case_id: str) -> bool:
    return is_no_call_category(bfcl_category(case_id))


@dataclass
class BuiltCases:
    """The cases read from a question file, and every entry left out with why."""

    cases: list[CaseLine] = field(default_factory=list)
    questions: int = 0
    left_out: list[InputProblem] = field(default_factory=list)
    left_out_ids: set[str] = field(default_factory=set)

    def notes(self) -> tuple[str, ...]:
        """Summary lines: how many questions were left out, then each problem."""
        if not self.left_out:
            return ()
        head = (f"left out {self.questions - len(self.cases)} of {self.questions} questions "
                "that cannot be read:")
        return (head, *(f"  {problem}" for problem in self.left_out))


def loader_problems(case: CaseLine, question: Located) -> list[InputProblem]:
    """What the suite loader would refuse in one built case (its shape, tool schemas,
    comparators), located at the question: such an entry is left out, not written, so one odd
    schema never makes `toolgrade run` refuse the whole imported suite."""
    try:
        model = Case.model_validate(case)
    except ValidationError as exc:
        return [question.problem(".".join(str(p) for p in error["loc"]),
                                 f"the suite loader would refuse it: {error['msg']}")
                for error in exc.errors()]
    return [question.problem(field_name, f"the suite loader would refuse it: {reason}")
            for validator in default_case_validators() for field_name, reason in validator(model)]


def _question_id(question: Located) -> str | None:
    value = question.value.get("id") if isinstance(question.value, dict) else None
    return value if isinstance(value, str) else None


def _function_names(question: Located) -> set[str]:
    functions = question.value.get("function") if isinstance(question.value, dict) else None
    if not isinstance(functions, list):
        return set()
    return {name for f in functions
            if isinstance(f, dict) and isinstance(name := f.get("name"), str)}


def _case_for(question: Located, by_id: dict[str, Located], seen: dict[str, int]
              ) -> CaseLine:
    """The case of one question; InputError when it cannot be read."""
    qid = _question_id(question)
    if qid is not None and qid in seen:
        raise InputError([question.problem("id", f"{qid!r} repeats line {seen[qid]}")])
    answer = by_id.get(qid) if qid is not None else None
    if answer is not None:
        answer = current_answer(answer, _function_names(question))
    if answer is None and qid is not None and not _is_irrelevance(qid):
        raise InputError([question.problem("id", f"no possible answer for {qid!r}")])
    case = build_case(question, answer)
    problems = loader_problems(case, question)
    if problems:
        raise InputError(problems)
    return case


def _require_answers_not_needed(questions: list[Located]) -> None:
    """Without an answers file, every question must be an irrelevance one: a missing file is
    the user's slip (say, the answers argument left out), not one odd entry to leave out."""
    problems = [question.problem("id", f"no possible answer for {qid!r}")
                for question in questions
                if (qid := _question_id(question)) is not None and not _is_irrelevance(qid)]
    if problems:
        raise InputError(problems)


def build_cases(questions: list[Located], answers: list[Located] | None) -> BuiltCases:
    """Every question that can be read as a case; the others are left out with their problems.

    A question without a possible answer cannot be read unless it is an irrelevance question,
    whose right answer is no call at all; with no answers file at all that is an error. When
    no question at all can be read, InputError.
    """
    if answers is None:
        _require_answers_not_needed(questions)
    by_id, answer_problems = _index_answers(answers) if answers is not None else ({}, [])
    built = BuiltCases(questions=len(questions), left_out=list(answer_problems))
    seen: dict[str, int] = {}
    for question in questions:
        try:
            case = _case_for(question, by_id, seen)
        except InputError as exc:
            built.left_out.extend(exc.problems)
            qid = _question_id(question)
            if qid is not None and qid not in seen:
                built.left_out_ids.add(qid)
            continue
        seen[case["id"]] = question.line
        built.cases.append(case)
    if not built.cases:
        raise InputError(built.left_out)
    return built


@dataclass(frozen=True)
class TextDecoding:
    """How result texts are read: as BFCL's handler for `model` reads them (the default, so
    that verdicts follow BFCL's), or by toolgrade's lenient raw-text reader (`lenient`)."""

    model: str | None = None
    lenient: bool = False

    @property
    def family(self) -> str:
        """The BFCL handler family of the model ("generic" when unknown)."""
        return handler_family(self.model)

    def names(self, tools: list[str]) -> NameResolver:
        """The name rule: loose in lenient mode, BFCL's checker's otherwise."""
        if self.lenient:
            return NameResolver(tools)
        return ExactNames(tools, writes_underscored_names(self.model))

    def decode(self, result: JsonValue, tools: list[str], no_tool: bool) -> DecodedResult:
        """The steps of one result."""
        if self.lenient:
            return decode_result(result, self.names(tools), no_tool=no_tool)
        return decode_like_bfcl(result, self.family, self.names(tools), no_tool=no_tool)

    def notes(self) -> tuple[str, ...]:
        """The summary line saying how texts were decoded (none in lenient mode)."""
        if self.lenient:
            return ()
        if self.family == "generic":
            return (f"results decoded by BFCL's generic rule: {self.model!r} is not a model "
                    "whose handler toolgrade knows (--model names one; docs/importers.md)",)
        return (f"results decoded as BFCL's handler for {self.model!r} decodes them (family "
                f"'{self.family}'; docs/importers.md)",)


@dataclass
class BuiltRuns:
    """The runs read from a result file, with their decoding and the results left out."""

    runs: list[RunLine] = field(default_factory=list)
    decoded: list[DecodedResult] = field(default_factory=list)
    left_out: int = 0

    def notes(self) -> tuple[str, ...]:
        """A summary line for results of left-out questions, when there are any."""
        if not self.left_out:
            return ()
        return (f"{self.left_out} results of left-out questions were not imported",)


def build_runs(
    results: list[Located], built: BuiltCases, agent: str | None,
    decoding: TextDecoding | None = None,
) -> BuiltRuns:
    """Each result line as a run of its case; repeated ids become trials 0, 1, ... Results of
    questions that were left out are skipped (counted); any other bad line is an error."""
    reading = decoding or TextDecoding()
    by_id = {c["id"]: c for c in built.cases}
    trials: dict[str, int] = {}
    out = BuiltRuns()
    problems: list[InputProblem] = []
    for item in results:
        data = item.value
        if not isinstance(data, dict) or "result" not in data:
            problems.append(item.problem("", "a result line must be an object with id and result"))
            continue
        result_id = data.get("id")
        case = by_id.get(result_id) if isinstance(result_id, str) else None
        if case is None:
            if data.get("id") in built.left_out_ids:
                out.left_out += 1
            else:
                problems.append(item.problem("id", f"no question with id {data.get('id')!r}"))
            continue
        decoded = reading.decode(data["result"], list(case["tools"]),
                                 no_tool=case["expected"]["selection"].get("no_tool", False))
        trial = trials.get(case["id"], 0)
        trials[case["id"]] = trial + 1
        run: RunLine = {"case_id": case["id"], "trial": trial}
        if agent is not None:
            run["agent"] = agent
        run["steps"] = decoded.steps
        out.runs.append(run)
        out.decoded.append(decoded)
    if problems:
        raise InputError(problems)
    return out


def results_model(results: Path) -> str:
    """The model a BFCL results file belongs to: its folder's name (`result/<model>/...`)."""
    return results.resolve().parent.name


def import_bfcl(
    questions: Path,
    answers: Path | None,
    results: Path | None,
    out: Path,
    agent: str | None = None,
    *,
    model: str | None = None,
    lenient: bool = False,
) -> ImportSummary:
    """Import BFCL questions, possible answers and (optionally) a results file into `out`.

    Writes `out/suite.jsonl` and `out/runs.jsonl`. Results are decoded as BFCL's handler for
    `model` decodes them (default: the results file's folder name, as BFCL's `result/<model>/`
    layout has it; a model BFCL's table does not name gets its generic rule), so verdicts follow
    BFCL's; `lenient` reads texts with toolgrade's raw-text reader instead. A question that
    cannot be read is left out and reported in the summary (file:line: field: reason);
    malformed files, results for unknown questions, or no readable question at all raise
    InputError before anything is written.
    """
    items = [current_question(item)
             for item in require_items(questions, read_jsonl(questions), "questions")]
    expected = require_items(answers, read_jsonl(answers), "answers") if answers else None
    built = build_cases(items, expected)
    runs = BuiltRuns()
    notes: tuple[str, ...] = ()
    if results is not None:
        outputs = require_items(results, read_jsonl(results), "results")
        reading = TextDecoding(model or results_model(results), lenient)
        runs = build_runs(outputs, built, agent, reading)
        notes = reading.notes()
    write_outputs(out, built.cases, runs.runs)
    answered = {r["case_id"] for r in runs.runs}
    return ImportSummary(
        out=out,
        cases=len(built.cases),
        runs=len(runs.runs),
        calls=sum(d.calls for d in runs.decoded),
        unparseable=sum(1 for d in runs.decoded if d.unparseable),
        missing_runs=len(built.cases) - len(answered) if results is not None else 0,
        notes=(*built.notes(), *runs.notes(), *notes),
    )
