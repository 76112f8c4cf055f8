"""What every importer shares: reading benchmark files with located errors, writing the suite.

Every importer writes through `write_outputs`, which validates the suite and runs with the same
loader `toolgrade run` uses before anything lands in the output folder.

Importers raise `InputError` (exit 2 in the CLI) with file:line: field: reason for every problem
they find, so a user fixes a malformed benchmark file in one pass instead of one error at a time.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from toolgrade.errors import InputError, InputProblem
from toolgrade.importers.written import CaseLine, Catalogue, RunLine, ToolSpecLine
from toolgrade.jsonio import out as json_out
from toolgrade.jsonio.bounds import BoundsError, loads_bounded
from toolgrade.jsonio.keys import DuplicateKeyError, unique_keys
from toolgrade.jsonio.lines import decode_line, numbered_lines
from toolgrade.jsonio.values import JsonObject, JsonValue

SUITE_FILE = "suite.jsonl"
RUNS_FILE = "runs.jsonl"


@dataclass(frozen=True)
class ImportSummary:
    """What an import wrote, for the one-screen summary the CLI prints."""

    out: Path
    cases: int
    runs: int
    calls: int = 0
    unparseable: int = 0
    missing_runs: int = 0
    rewards: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """Human-readable summary lines."""
        lines = [
            f"wrote {_count(self.cases, 'case')} to {self.out / SUITE_FILE}",
            f"wrote {_count(self.runs, 'run')} ({_count(self.calls, 'tool call')}) to "
            f"{self.out / RUNS_FILE}",
        ]
        if self.unparseable:
            lines.append(f"{self.unparseable} results could not be fully decoded "
                         "(kept as unparseable calls)")
        if self.missing_runs:
            lines.append(f"{self.missing_runs} cases have no result")
        if self.rewards:
            mean = sum(self.rewards.values()) / len(self.rewards)
            lines.append(f"benchmark's own mean reward over {len(self.rewards)} runs: {mean:.3f}")
        return [*lines, *self.notes]


def _count(n: int, noun: str) -> str:
    """`1 run`, `2 runs`: the summary reads as a sentence."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@dataclass(frozen=True)
class Located:
    """A JSON value with where it came from, so later problems can name the line."""

    value: JsonValue
    file: str
    line: int

    def problem(self, field_name: str, reason: str) -> InputProblem:
        """An input problem located at this value."""
        return InputProblem(self.file, self.line, field_name, reason)


def read_jsonl(path: Path) -> list[Located]:
    """Every non-blank line of a JSON Lines file (BFCL's `.json` files are JSON Lines)."""
    text = _read_text(path)
    values: list[Located] = []
    problems: list[InputProblem] = []
    for number, raw in numbered_lines(text):
        # The run and suite readers' rules and wording: a key written twice is refused.
        value, problem = decode_line(path, number, raw, unique_keys=True)
        if problem is not None:
            problems.append(problem)
        else:
            values.append(Located(value, str(path), number))
    if problems:
        raise InputError(problems)
    return values


def read_json_array(path: Path) -> list[Located]:
    """The items of a top-level JSON array, each with the line its item starts on. A blank file
    holds no items, as `[]` does (so `require_items` can refuse it as such)."""
    text = _read_text(path)
    if not text.strip():
        return []
    decoder = json.JSONDecoder()
    whole = _parse(path, text)
    if not isinstance(whole, list):
        raise InputError([InputProblem(str(path), 1, "", "expected a JSON array at the top level")])
    # Decode again item by item only to learn where each item starts; the file is valid JSON.
    items: list[Located] = []
    pos = text.index("[") + 1
    for value in whole:
        pos = _skip_separators(text, pos)
        _, end = decoder.raw_decode(text, pos)
        items.append(Located(value, str(path), text.count("\n", 0, pos) + 1))
        pos = end
    return items


def _parse(path: Path, text: str) -> JsonValue:
    """The JSON value of a whole file, or an input problem at the line where it breaks."""
    try:
        value: JsonValue = loads_bounded(text, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        reason = f"malformed JSON: {exc.msg} (column {exc.colno})"
        raise InputError([InputProblem(str(path), exc.lineno, "", reason)]) from None
    except BoundsError as exc:
        raise InputError([InputProblem(str(path), None, "", exc.reason)]) from None
    except DuplicateKeyError as exc:
        raise InputError([InputProblem(str(path), None, "", f"not valid JSON: {exc}")]) from None
    return value


def require_items(path: Path, items: list[Located], what: str) -> list[Located]:
    """The items read from `path`, or an input problem when there are none: an empty file
    would import as an empty suite that grades nothing (or, given as the model outputs, as no
    runs at all), so it is refused."""
    if not items:
        reason = f"nothing to import: the file holds no records (no {what})"
        raise InputError([InputProblem(str(path), None, "", reason)])
    return items


def _skip_separators(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n,":
        pos += 1
    return pos


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError([InputProblem(str(path), None, "", "no such file")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError([InputProblem(str(path), None, "", f"cannot read: {exc}")]) from None


def write_jsonl(path: Path, rows: Iterable[Mapping[str, object]]) -> int:
    """Write one JSON object per line; returns the number of lines."""
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json_out.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


def write_outputs(out: Path, cases: list[CaseLine], runs: list[RunLine]) -> None:
    """Write `suite.jsonl` and `runs.jsonl` into `out` (created if missing), only once the
    loader `toolgrade run` uses has accepted them.

    An importer must never leave a suite that `run` refuses: the files are written to a
    scratch folder first and validated there; on any problem nothing is written to `out` and
    an `InputError` names each problem at the line it would have had in `out`.
    """
    with tempfile.TemporaryDirectory(prefix="toolgrade-import-") as scratch:
        staged = Path(scratch)
        write_jsonl(staged / SUITE_FILE, cases)
        write_jsonl(staged / RUNS_FILE, runs)
        validate_written(staged, out)
        out.mkdir(parents=True, exist_ok=True)
        for name in (SUITE_FILE, RUNS_FILE):
            shutil.move(str(staged / name), str(out / name))


def validate_written(staged: Path, out: Path) -> None:
    """Validate a staged import as `toolgrade run` would; problems are renamed to `out`."""
    # Imported here: the runner pulls in the checks, which a plain `import` command needs
    # only at this point.
    from toolgrade.scoring.runner import validate_inputs

    try:
        validate_inputs(staged / SUITE_FILE, [staged / RUNS_FILE])
    except InputError as exc:
        renamed = [
            InputProblem(
                str(out / Path(p.file).name) if Path(p.file).parent == staged else p.file,
                p.line,
                p.field,
                f"{p.reason.replace(str(staged), str(out))} (the imported file would be refused "
                "by `toolgrade run`; nothing was written)",
            )
            for p in exc.problems
        ]
        raise InputError(renamed) from None


def require_object(item: Located, what: str) -> JsonObject:
    """The item as a JSON object, or an input problem naming what was expected."""
    if not isinstance(item.value, dict):
        raise InputError([item.problem("", f"{what} must be a JSON object")])
    return item.value


def infer_json_type(value: object) -> str | None:
    """The JSON Schema type of a JSON value (None for null)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return None


#: First words of a tool name that mark a read (no side effect) when a benchmark does not say
#: which of its tools write: `get_order_details`, `find_user_id_by_email`, `list_all_airports`,
#: `check_network_status`, `calculate`, `think`. Any other tool is taken to write.
READ_VERBS = frozenset({
    "get", "find", "list", "search", "lookup", "look", "check", "calculate", "think", "view",
    "read", "query", "fetch", "show", "describe", "count", "can", "is", "has", "run",
})  # fmt: skip


def inferred_writes(names: Iterable[str]) -> frozenset[str]:
    """The tools among `names` taken to have side effects: those whose first word (split on
    `_`, `.` or `-`, case-folded) is not a read verb of `READ_VERBS`."""
    return frozenset(
        name for name in names
        if name.replace(".", "_").replace("-", "_").split("_")[0].casefold() not in READ_VERBS
    )


def _holds_mapping(value: object) -> bool:
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and any(_holds_mapping(v) for v in value)


def literal(value: JsonValue) -> JsonValue:
    """A benchmark's literal argument value as a reference that can never read as a comparator.

    A bare scalar or a list of scalars is already exact. A value holding a mapping at any depth
    is wrapped in `{exact: value}`: left bare, a mapping whose key happens to be a comparator
    name (`{flight_number, date}`) would be read as that comparator and refused.
    """
    return {"exact": value} if _holds_mapping(value) else value


def literal_args(kwargs: Mapping[str, JsonValue]) -> JsonObject:
    """Every argument of a reference call through `literal`."""
    return {key: literal(value) for key, value in kwargs.items()}


def read_json_object(
    path: Path, arrays: tuple[str, ...]
) -> tuple[JsonObject, dict[str, list[Located]]]:
    """A top-level JSON object, and the items of its `arrays` keys each with the line its item
    starts on (a missing key or a value that is not an array gives no items; callers check)."""
    text = _read_text(path)
    whole = _parse(path, text)
    if not isinstance(whole, dict):
        reason = "expected a JSON object at the top level"
        raise InputError([InputProblem(str(path), 1, "", reason)])
    decoder = json.JSONDecoder()
    located: dict[str, list[Located]] = {}
    pos = _skip_separators(text, text.index("{") + 1)
    while pos < len(text) and text[pos] != "}":
        key, pos = decoder.raw_decode(text, pos)
        pos = _skip_separators(text, text.index(":", pos) + 1)
        if key in arrays and text[pos] == "[":
            located[key], pos = _array_items(decoder, text, pos, str(path))
        else:
            _, pos = decoder.raw_decode(text, pos)
        pos = _skip_separators(text, pos)
    return whole, {key: located.get(key, []) for key in arrays}


def _array_items(
    decoder: json.JSONDecoder, text: str, pos: int, file: str
) -> tuple[list[Located], int]:
    """The items of the array starting at `pos` with their lines, and the position after it."""
    items: list[Located] = []
    pos = _skip_separators(text, pos + 1)
    while text[pos] != "]":
        value, end = decoder.raw_decode(text, pos)
        items.append(Located(value, file, text.count("\n", 0, pos) + 1))
        pos = _skip_separators(text, end)
    return items, pos + 1


def build_catalogue(
    reference: Iterable[tuple[str, Mapping[str, JsonValue]]], called: set[str],
    writes: frozenset[str],
) -> Catalogue:
    """One catalogue from the reference calls `(name, arguments)` and the names only seen being
    called. A write tool gets `side_effect: true` and its observed argument keys as properties
    (typed when every observation agrees); a read tool takes any arguments (`{type: object}`,
    no properties), so neither its arguments nor its schema are ever graded."""
    props: dict[str, dict[str, set[str | None]]] = {}
    names = set(called)
    for name, arguments in reference:
        names.add(name)
        if name in writes:
            tool = props.setdefault(name, {})
            for key, value in arguments.items():
                tool.setdefault(key, set()).add(infer_json_type(value))
    catalogue: Catalogue = {}
    for name in sorted(names):
        schema: JsonObject = {"type": "object"}
        if name in props:
            schema["properties"] = {
                key: {"type": next(iter(types))} if len(types) == 1 and None not in types else {}
                for key, types in sorted(props[name].items())
            }
        spec: ToolSpecLine = {"parameters": schema}
        if name in writes:
            spec["side_effect"] = True
        catalogue[name] = spec
    return catalogue
