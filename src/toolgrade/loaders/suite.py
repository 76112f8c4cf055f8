"""Loading a suite: a YAML file with `cases:`, a JSONL file of cases, or a folder of such files.

A YAML suite may also hold a shared `tools` catalogue and shared ordering `groups`, merged into
every case (a case's own entries win), and a suite-wide `grounding` that every case without its
own takes. Either kind may take its tools from an MCP catalogue file (`tools_from`: a YAML
suite's top-level key, a JSONL file's header line). Every problem is collected, located as
file:line: field, and raised together as one `InputError`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from toolgrade.checks.arguments.validation import raw_argument_spec_problems, raw_ordering_problems
from toolgrade.errors import InputError, InputProblem, NotUtf8Error, read_utf8
from toolgrade.json_schema import Draft202012Validator, SchemaError
from toolgrade.jsonio.lines import binary_problem, iter_jsonl
from toolgrade.jsonio.values import JsonObject
from toolgrade.loaders.adjudications import is_adjudications_file
from toolgrade.loaders.catalogue import TOOLS_FROM_KEY, LoadedCatalogue, read_tools_from
from toolgrade.loaders.locate import (
    Path_,
    dotted,
    line_for,
    problems_from_validation,
    undotted,
)
from toolgrade.loaders.shared_tools import about_inherited, inherited, shared_tool_problems
from toolgrade.loaders.suite_defaults import (
    DEFAULTS_KEY,
    NO_DEFAULTS,
    SuiteDefaults,
    apply_defaults,
    default_allowed_in_no_catalogue,
    is_defaults_line,
    outside_catalogue_reason,
    own_allowed_outside_catalogue,
    read_defaults,
)
from toolgrade.loaders.yaml_lines import YamlBoundsError, load_yaml_with_lines
from toolgrade.models import Case

SUITE_SUFFIXES = (".yaml", ".yml", ".jsonl")
_SUITE_KEYS = {"cases", "tools", "groups", DEFAULTS_KEY, TOOLS_FROM_KEY}
#: The case key the loader fills from `tools_from`: a case may not write it.
_STAMP_KEY = "catalogue"

#: Extra semantic checks on a validated case: each returns problems as (dotted field, reason).
CaseValidator = Callable[[Case], list[tuple[str, str]]]


@dataclass(frozen=True)
class CaseSource:
    """Where a case was defined."""

    file: str
    line: int | None


@dataclass
class Suite:
    """The validated cases of a suite, by id, with where each came from."""

    cases: dict[str, Case] = field(default_factory=dict)
    sources: dict[str, CaseSource] = field(default_factory=dict)
    base_dir: Path = field(default_factory=Path.cwd)

    def __len__(self) -> int:
        return len(self.cases)


@dataclass
class _RawCase:
    data: Any
    file: str
    line: int | None
    prefix: Path_
    lines: dict[Path_, int]
    #: Shared tools the case inherits unchanged: their problems are reported once, not here.
    inherited: frozenset[str] = frozenset()


def suite_files(path: Path) -> list[Path]:
    """The suite files at `path` (a file, or a folder searched recursively; the folder's
    adjudications files hold decisions, not cases)."""
    if path.is_dir():
        return sorted(
            p for p in path.rglob("*")
            if p.suffix in SUITE_SUFFIXES and p.is_file() and not is_adjudications_file(p)
        )
    return [path]


def _merge_shared(data: Any, tools: Any, groups: Any) -> Any:
    if not isinstance(data, dict):
        return data
    merged = dict(data)
    if isinstance(tools, dict) and tools:
        own = merged.get("tools")
        merged["tools"] = {**tools, **own} if isinstance(own, dict) else (own or dict(tools))
    expected = merged.get("expected")
    if isinstance(groups, dict) and groups and isinstance(expected, dict):
        ordering = expected.get("ordering")
        if isinstance(ordering, dict):
            own_groups = ordering.get("groups")
            own = own_groups if isinstance(own_groups, dict) else {}
            ordering = {**ordering, "groups": {**groups, **own}}
            merged["expected"] = {**expected, "ordering": ordering}
    return merged


def _read_yaml(path: Path, problems: list[InputProblem]) -> list[_RawCase]:
    try:
        data, lines, duplicates = load_yaml_with_lines(read_utf8(path))
    except NotUtf8Error as exc:
        problems.append(InputProblem(str(path), exc.line, "", str(exc)))
        return []
    except RecursionError:
        problems.append(InputProblem(str(path), None, "", "malformed YAML: nested too deeply"))
        return []
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        # A value past the bounds is well-formed YAML: say what is wrong, not "malformed".
        what = "" if isinstance(exc, YamlBoundsError) else "malformed YAML: "
        problems.append(InputProblem(str(path), line, "", what + _yaml_reason(exc)))
        return []
    for key_path, line, first in duplicates:
        reason = f"duplicate key (first at line {first}); YAML would keep only the last"
        problems.append(InputProblem(str(path), line, dotted(key_path), reason))
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        problems.append(InputProblem(str(path), 1, "cases", "a YAML suite needs a 'cases:' list"))
        return []
    for key in data:
        if key not in _SUITE_KEYS:
            problems.append(InputProblem(str(path), lines.get((key,)), str(key), "unknown key"))
    tools, groups = data.get("tools"), data.get("groups")
    for key, value in (("tools", tools), ("groups", groups)):
        if value is not None and not isinstance(value, dict):
            what = "tool name to its spec" if key == "tools" else "group name to its tools"
            reason = f"must be a mapping of {what}, got {type(value).__name__}"
            problems.append(InputProblem(str(path), lines.get((key,)), key, reason))
    own_shared = tools if isinstance(tools, dict) else {}
    problems += shared_tool_problems(str(path), own_shared, lines, _schema_error)
    catalogue = LoadedCatalogue()
    if TOOLS_FROM_KEY in data:
        catalogue, found = read_tools_from(data[TOOLS_FROM_KEY], path, lines, _schema_error)
        problems += found
    # The suite's own entries win whole over the catalogue's (a suite setting overrides).
    shared = {**catalogue.tools, **own_shared}
    defaults = NO_DEFAULTS
    if DEFAULTS_KEY in data:
        where = (DEFAULTS_KEY,)
        defaults, found = read_defaults(
            data[DEFAULTS_KEY], str(path), lines, lines.get(where), where
        )
        problems += found
    problems += _stamp_key_problems(str(path), data["cases"], lambda i: lines.get(("cases", i)))
    merged = [_stamped(_merge_shared(item, shared, groups), catalogue) for item in data["cases"]]
    problems += _free_tool_problems(str(path), merged, defaults, lines, lines.get((DEFAULTS_KEY,)))
    return [
        _RawCase(
            apply_defaults(item, defaults),
            str(path),
            lines.get(("cases", i)),
            ("cases", i),
            lines,
            inherited(data["cases"][i], shared),
        )
        for i, item in enumerate(merged)
    ]


def _stamped(case: Any, catalogue: LoadedCatalogue) -> Any:
    """The case mapping with its suite's catalogue stamp, when the suite has `tools_from`."""
    if catalogue.stamp is None or not isinstance(case, dict):
        return case
    return {**case, _STAMP_KEY: catalogue.stamp.model_dump()}


def _stamp_key_problems(
    file: str, cases: list[Any], line_of: Callable[[int], int | None], in_list: bool = True
) -> list[InputProblem]:
    """A case that writes the key `tools_from` fills: unknown to authors, as any other."""
    return [
        InputProblem(file, line_of(i), f"cases[{i}].{_STAMP_KEY}" if in_list else _STAMP_KEY,
                     "unknown key (the suite's tools_from sets it)")
        for i, case in enumerate(cases)
        if isinstance(case, dict) and _STAMP_KEY in case
    ]


def _free_tool_problems(file: str, cases: list[Any], defaults: SuiteDefaults,
                        lines: Mapping[Path_, int], defaults_line: int | None,
                        case_lines: list[int] | None = None) -> list[InputProblem]:
    """`allowed` names missing from the catalogue: a case's own (at its line), and a
    default's that no case of the file has (at the defaults line)."""
    found = []
    for n, case in enumerate(cases):
        for i, tool in own_allowed_outside_catalogue(case):
            key: Path_ = ("cases", n, "expected", "selection", "allowed", i)
            line = case_lines[n] if case_lines is not None else lines.get(key, lines.get(key[:2]))
            field = "expected.selection.allowed" if case_lines is not None else dotted(key[:5])
            found.append(InputProblem(file, line, f"{field}[{i}]",
                                      outside_catalogue_reason(tool, "the tool catalogue")))
    for tool in default_allowed_in_no_catalogue(defaults, cases):
        found.append(InputProblem(file, defaults_line, "defaults.selection.allowed",
                                  outside_catalogue_reason(tool, "any case's tool catalogue")))
    return found


def _yaml_reason(exc: yaml.YAMLError) -> str:
    """PyYAML's message on one line, without its "<unicode string>" source excerpts:
    `expected ',' or '}', but got '-' (column 3), in a flow mapping started at line 3`."""
    problem = getattr(exc, "problem", None)
    if not problem:
        return " ".join(str(exc).split())
    mark, context = getattr(exc, "problem_mark", None), getattr(exc, "context", None)
    reason = str(problem) + (f" (column {mark.column + 1})" if mark is not None else "")
    if context:
        start = getattr(exc, "context_mark", None)
        where = f" started at line {start.line + 1}" if start is not None else ""
        reason += f", {str(context).replace('while parsing', 'in')}{where}"
    return reason


def _read_jsonl(path: Path, problems: list[InputProblem]) -> list[_RawCase]:
    """A JSONL suite: one case a line, after an optional header line (the file's first) that
    holds `defaults` and/or `tools_from`, which apply to every case of the file."""
    own: list[tuple[int, Any]] = []
    defaults, first, defaults_line = NO_DEFAULTS, True, None
    catalogue = LoadedCatalogue()
    for number, value, problem in iter_jsonl(path, unique_keys=True):
        if problem is not None:
            problems.append(problem)
        elif _is_header_line(value):
            problems += _header_line(value, str(path), number, first)
            if first and DEFAULTS_KEY in value:
                defaults, found = read_defaults(value[DEFAULTS_KEY], str(path), {}, number,
                                                (DEFAULTS_KEY,))
                problems += found
                defaults_line = number
            if first and TOOLS_FROM_KEY in value:
                catalogue, found = read_tools_from(value[TOOLS_FROM_KEY], path,
                                                   {(TOOLS_FROM_KEY,): number}, _schema_error)
                problems += found
        else:
            problems += _tools_from_in_case(value, str(path), number)
            own.append((number, value))
        first = False
    values = [v for _, v in own]
    problems += _stamp_key_problems(str(path), values, lambda i: own[i][0], False)
    merged = [_stamped(_merge_shared(_without_tools_from(v), catalogue.tools, None), catalogue)
              for v in values]
    problems += _free_tool_problems(str(path), merged, defaults, {}, defaults_line,
                                    [n for n, _ in own])
    return [_RawCase(apply_defaults(item, defaults), str(path), number, (), {},
                     inherited(value, catalogue.tools))
            for (number, value), item in zip(own, merged, strict=True)]


#: The keys a JSONL suite's header line holds (instead of a case's).
_HEADER_KEYS = (DEFAULTS_KEY, TOOLS_FROM_KEY)


def _is_header_line(value: Any) -> bool:
    """Whether a JSONL suite line is the file's header (`defaults`, `tools_from`), not a case."""
    return is_defaults_line(value) or (
        isinstance(value, dict) and TOOLS_FROM_KEY in value and "id" not in value)


def _header_line(value: JsonObject, file: str, line: int, first: bool) -> list[InputProblem]:
    """Problems of a JSONL header line: it must come first and hold only header keys."""
    present = [key for key in _HEADER_KEYS if key in value]
    if not first:
        key = present[0]
        reason = f"a {key} line must be the first line of the file (it applies to its cases)"
        return [InputProblem(file, line, key, reason)]
    beside = " and ".join(repr(key) for key in present)
    return [InputProblem(file, line, str(key), f"unknown key beside {beside}")
            for key in value if key not in _HEADER_KEYS]


def _tools_from_in_case(value: Any, file: str, line: int) -> list[InputProblem]:
    """A case line naming a catalogue: `tools_from` applies to a whole file, from its header."""
    if not isinstance(value, dict) or TOOLS_FROM_KEY not in value:
        return []
    reason = ("a case cannot name a catalogue: put {\"tools_from\": ...} on the file's first "
              "line, where it applies to every case of the file")
    return [InputProblem(file, line, TOOLS_FROM_KEY, reason)]


def _without_tools_from(value: Any) -> Any:
    """A case line without the `tools_from` already reported, so that it is not reported
    again as an unknown key."""
    if not isinstance(value, dict) or TOOLS_FROM_KEY not in value:
        return value
    return {k: v for k, v in value.items() if k != TOOLS_FROM_KEY}


def _schema_problems(case: Case) -> list[tuple[str, str]]:
    out = []
    for name, spec in case.tools.items():
        message = _schema_error(spec.parameters)
        if message is not None:
            out.append((f"tools.{name}.parameters", f"not a valid JSON Schema: {message}"))
    return out


def _schema_error(schema: dict[str, Any]) -> str | None:
    """Why `schema` is not a valid JSON Schema, or None; remembered per distinct schema.

    Checking a schema costs milliseconds and a suite repeats one catalogue in every case. The
    memo key is the schema's JSON text in its own key order, taken only for plain JSON data
    (string keys, JSON leaves): then equal text means an equal schema and the same message.
    Anything else (a YAML date, a non-string key) is checked afresh.
    """
    if not _plain_json(schema):
        return _check_schema(schema)
    return _checked_text(json.dumps(schema))


@lru_cache(maxsize=1024)
def _checked_text(schema_text: str) -> str | None:
    return _check_schema(json.loads(schema_text))


def _check_schema(schema: Any) -> str | None:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return str(exc.message)
    ref = _unresolvable_ref(schema)
    if ref is not None:
        # Grading would find the same reference unresolvable and skip the whole schema.
        return f"$ref {ref!r} cannot be resolved (only references inside the schema can be)"
    return None


def _unresolvable_ref(schema: Any) -> str | None:
    """The first `$ref` of a valid schema that no part of the schema answers, or None.

    Nothing is fetched: a remote reference is unresolvable here as it is when grading. Refs are
    looked up from the root, so a schema whose parts carry their own `$id` (a ref inside one is
    relative to it) is left to the grader rather than refused wrongly.
    """
    if not isinstance(schema, dict):
        return None
    refs: list[str] = []
    nested_id = False
    for sub, depth in _subschemas(schema):
        nested_id = nested_id or (depth > 0 and "$id" in sub)
        ref = sub.get("$ref")
        if isinstance(ref, str):
            refs.append(ref)
    if nested_id:
        return None
    resolver = Registry().resolver_with_root(DRAFT202012.create_resource(schema))
    for ref in refs:
        try:
            resolver.lookup(ref)
        except Unresolvable:
            return ref
    return None


#: Keywords whose value is one subschema, a list of them, or a map of names to them. Anything
#: else (`examples`, `default`, `const`, `enum`, unknown keywords) is data: a "$ref" key there is
#: not a reference.
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
        "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")
_NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


def _subschemas(schema: dict[str, Any], depth: int = 0) -> Iterator[tuple[dict[str, Any], int]]:
    """The schema and every subschema in it, with its depth, by the keywords that hold them."""
    yield schema, depth
    children: list[Any] = [schema.get(k) for k in _ONE]
    children += [s for k in _MANY if isinstance(schema.get(k), list) for s in schema[k]]
    children += [s for k in _NAMED if isinstance(schema.get(k), dict) for s in schema[k].values()]
    if isinstance(schema.get("items"), list):  # draft 4-7 tuple form
        children += schema["items"]
    for child in children:
        if isinstance(child, dict):
            yield from _subschemas(child, depth + 1)


def _plain_json(value: Any) -> bool:
    """Whether `value` is made only of JSON types with string keys (so its text is faithful)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain_json(v) for v in value)
    return value is None or isinstance(value, str | int | float)


def default_case_validators() -> list[CaseValidator]:
    """The semantic checks run on every case after its shape is valid."""
    validators: list[CaseValidator] = [_schema_problems]
    validators.extend(_check_validators())
    return validators


def _check_validators() -> Iterable[CaseValidator]:
    # The checks own their reference syntax (comparators, ordering groups); ask them to vet it.
    from toolgrade.checks.arguments.validation import case_validators

    return case_validators()


def _validate(
    raw: _RawCase, validators: list[CaseValidator]
) -> tuple[Case | None, list[InputProblem]]:
    case, problems = _case_problems(raw, validators)
    prefix = dotted(raw.prefix)
    return case, [p for p in problems if not about_inherited(p.field, prefix, raw.inherited)]


def _case_problems(
    raw: _RawCase, validators: list[CaseValidator]
) -> tuple[Case | None, list[InputProblem]]:
    try:
        case = Case.model_validate(raw.data)
    except ValidationError as exc:
        shape = problems_from_validation(
            exc,
            data=raw.data,
            file=raw.file,
            prefix=raw.prefix,
            lines=raw.lines,
            default_line=raw.line,
        )
        # The comparators and the ordering can be vetted without a valid case: report their
        # problems in the same pass.
        vetted = raw_argument_spec_problems(raw.data) + raw_ordering_problems(raw.data)
        return None, shape + [_located(raw, *p) for p in vetted]
    problems = [_located(raw, *p) for validator in validators for p in validator(case)]
    return case, problems


def _located(raw: _RawCase, field_name: str, reason: str) -> InputProblem:
    """A check's problem on a case, at the line of its field."""
    where = dotted(raw.prefix) + "." if raw.prefix else ""
    line = line_for((*raw.prefix, *undotted(field_name)), raw.lines, raw.line)
    return InputProblem(raw.file, line, where + field_name, reason)


def load_suite(path: Path, validators: list[CaseValidator] | None = None) -> Suite:
    """Load and validate every case; raise `InputError` listing every problem."""
    problems: list[InputProblem] = []
    if not path.exists():
        raise InputError([InputProblem(str(path), None, "", "no such file or folder")])
    files = suite_files(path)
    if not files:
        raise InputError([InputProblem(str(path), None, "", "no .yaml, .yml or .jsonl files")])
    raws: list[_RawCase] = []
    for file in files:
        binary = binary_problem(file)
        if binary is not None:
            problems.append(binary)
            continue
        reader = _read_jsonl if file.suffix == ".jsonl" else _read_yaml
        raws.extend(reader(file, problems))
    suite = Suite(base_dir=path if path.is_dir() else path.parent)
    checks = default_case_validators() if validators is None else validators
    for raw in raws:
        case, found = _validate(raw, checks)
        problems.extend(found)
        if case is None:
            continue
        if case.id in suite.cases:
            first = suite.sources[case.id]
            problems.append(
                InputProblem(
                    raw.file,
                    raw.line,
                    dotted((*raw.prefix, "id")),
                    f"duplicate case id {case.id!r} (first at {first.file}:{first.line})",
                )
            )
            continue
        suite.cases[case.id] = case
        suite.sources[case.id] = CaseSource(raw.file, raw.line)
    if problems:
        raise InputError(problems)
    return suite
