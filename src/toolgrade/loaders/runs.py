"""Loading runs: JSON Lines of trajectories, as normalised `steps` or chat `messages`.

Reading is a generator so the runner can stream files of any size; validation reads the same
files once beforehand and reports every problem as file:line: field: reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any, NamedTuple

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PlainValidator,
    SkipValidation,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from toolgrade.adapters import AdapterError, build_call, decode_arguments, messages_to_steps
from toolgrade.adapters.formats import format_names
from toolgrade.errors import InputError, InputProblem, read_utf8
from toolgrade.jsonio.bounds import loads_bounded
from toolgrade.jsonio.keys import DuplicateKeyError, unique_keys
from toolgrade.jsonio.lines import binary_problem, decode_line, iter_text_lines
from toolgrade.jsonio.values import JsonObject
from toolgrade.loaders.adjudications import is_adjudications_file
from toolgrade.loaders.fast_runs import STEP_ROLES, might_be_plain, plain_trajectory
from toolgrade.loaders.locate import data_path, dotted, problems_from_validation
from toolgrade.loaders.otlp import OtlpOptions, OtlpReader, OtlpStats, RunRow, otlp_layout
from toolgrade.models import Message, Step, ToolCall, ToolResult, Trajectory
from toolgrade.models.catalogue import CatalogueStamp

#: A value of a decoded JSON line, so JSON already: pydantic checks the objects holding such
#: values (a `final_state` that is not an object is reported), not each value, which would
#: double the time a chat-format line takes to read.
_Decoded = SkipValidation[JsonValue]


def _run_format(value: Any) -> str:
    """`steps` or a registered chat format's name (`adapters.formats`), worded as pydantic
    words a choice of literals."""
    if isinstance(value, str) and (value == "steps" or value in format_names()):
        return value
    *head, last = [repr(name) for name in (*format_names(), "steps")]
    raise PydanticCustomError("literal_error", "Input should be {expected}",
                              {"expected": f"{', '.join(head)} or {last}"})


class RunRecord(BaseModel):
    """One line of a runs file, before its messages are normalised."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case_id: str = Field(min_length=1)
    trial: int = Field(default=0, ge=0)
    # An empty name would share "(unnamed)" with runs that give none; say it instead.
    agent: str | None = Field(default=None, min_length=1)
    format: Annotated[str, PlainValidator(_run_format)] | None = None
    messages: list[Any] | None = None
    steps: list[dict[str, _Decoded]] | None = None
    final_state: dict[str, _Decoded] | None = None
    metadata: dict[str, _Decoded] = Field(default_factory=dict)
    #: The MCP catalogue the run saw, as `toolgrade mcp record` writes it.
    catalogue: CatalogueStamp | None = None

    @field_validator("trial", mode="before")
    @classmethod
    def _whole_number(cls, value: Any) -> Any:
        # `true` or "2" is a mistake to report, not trial 1 or 2; 1.0 (pandas writes integer
        # columns holding a gap as floats) is the number it says, and becomes 1.
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("must be a whole number")
        return value

    @model_validator(mode="after")
    def _one_body(self) -> RunRecord:
        if (self.messages is None) == (self.steps is None):
            raise ValueError("a run needs exactly one of 'messages' or 'steps'")
        if self.format == "steps" and self.steps is None:
            raise ValueError("format 'steps' needs a 'steps' list")
        if self.format not in (None, "steps") and self.messages is None:
            raise ValueError(f"format {self.format!r} needs a 'messages' list")
        return self


class _StepCall(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    tool: str = Field(min_length=1)
    args: Any = None
    id: str | None = None
    result: ToolResult | None = None
    group: int | str | None = None

    @field_validator("group", mode="before")
    @classmethod
    def _not_a_flag(cls, value: Any) -> Any:
        # `true` would read as group 1 (lax int) and join whatever else is group 1; a mistake
        # to report, as for `trial`.
        if isinstance(value, bool):
            raise ValueError("a group is an integer or a string, not true or false")
        return value


_STEP_KEYS = frozenset(_StepCall.model_fields)
#: What a step field of several types accepts: pydantic words only the first type's error
#: ("should be a valid integer" for a `group` of 1.5, which may also be a string).
_STEP_ACCEPTS = {"group": "should be an integer or a string"}
_RESULT_KEYS = frozenset({"status", "content"})


def _plain_call(raw: JsonObject) -> bool:
    """Whether `_StepCall` would accept this step unchanged (plain JSON types, known keys).

    Such a step goes straight to `ToolCall`, validated once; any other step is validated by
    `_StepCall` first, which names the offending field exactly as before.
    """
    tool, id_, group, result = raw.get("tool"), raw.get("id"), raw.get("group"), raw.get("result")
    return (
        raw.keys() <= _STEP_KEYS
        and type(tool) is str
        and tool != ""
        and (id_ is None or type(id_) is str)
        and (group is None or type(group) is int or type(group) is str)
        and (result is None or (type(result) is dict and _plain_result(result)))
    )


def _plain_result(result: JsonObject) -> bool:
    status = result.get("status", "ok")
    return result.keys() <= _RESULT_KEYS and type(status) is str and status in ("ok", "error")


def _normalised_step(raw: JsonObject, index: int) -> Step:
    if "tool" in raw and _plain_call(raw):
        # `_plain_call` checked each field's type: `ToolCall` takes them as they are.
        args, raw_text = decode_arguments(raw.get("args"), f"steps[{index}].args")
        return ToolCall(
            tool=raw["tool"],
            args=args,
            id=raw.get("id"),
            result=raw.get("result"),
            group=raw.get("group"),
            raw_arguments=raw_text,
        )
    if "tool" in raw:
        return _normalised_step_validated(raw, index)
    if "role" in raw:
        unknown = set(raw) - {"role", "content"}
        if unknown:
            raise AdapterError(f"steps[{index}].{sorted(unknown)[0]}", "unknown key")
        if not isinstance(raw["role"], str) or raw["role"] not in STEP_ROLES:
            # A typo ("asistant") would silently leave the run without its final answer.
            known = ", ".join(sorted(STEP_ROLES))
            raise AdapterError(f"steps[{index}].role", f"unknown role {raw['role']!r} ({known})")
        return Message(role=raw["role"], content=raw.get("content"))
    raise AdapterError(f"steps[{index}]", "a step needs 'tool' (a call) or 'role' (a message)")


def _normalised_step_validated(raw: JsonObject, index: int) -> ToolCall:
    """A call step validated by `_StepCall` first, so a problem names its field."""
    try:
        call = _StepCall.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        # Only the parts that name keys of the step: not pydantic's union tags (`group.int`).
        field = dotted(data_path(raw, err["loc"], err["type"]))
        if err["type"] == "extra_forbidden":
            reason = "unknown key"
        else:
            reason = _STEP_ACCEPTS.get(field, str(err["msg"]))
        raise AdapterError(f"steps[{index}].{field}", reason) from exc
    return build_call(call.tool, call.args, id=call.id, result=call.result, group=call.group,
                      where=f"steps[{index}].args")


def to_trajectory(record: RunRecord) -> Trajectory:
    """Normalise a run record's messages or steps; raises AdapterError with the field."""
    if record.steps is not None:
        steps = [_normalised_step(s, i) for i, s in enumerate(record.steps)]
    else:
        fmt = None if record.format in (None, "steps") else record.format
        steps = messages_to_steps(record.messages or [], fmt)
    trajectory = Trajectory(
        case_id=record.case_id,
        trial=record.trial,
        agent=record.agent,
        steps=steps,
        final_state=record.final_state,
    )
    if record.catalogue is None:
        return trajectory
    # Set only when given, so a run of any other format has the fields it always had.
    return trajectory.model_copy(update={"catalogue": record.catalogue})


def run_files(paths: Iterable[Path], exclude: Path | None = None) -> list[Path]:
    """Expand files and folders (their *.jsonl, and the *.json that are OTLP trace exports,
    recursively) into run files.

    Files found in a folder under `exclude`, and adjudications files (people's decisions on
    routes), are left out; a file named on its own is kept. A
    file reached twice (named twice, or named and inside a named folder) is read once: its runs
    would otherwise all be reported as duplicates of themselves.
    """
    skip = exclude.resolve() if exclude is not None else None
    files: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        found = [path] if not path.is_dir() else [
            f for f in sorted([*path.rglob("*.jsonl"), *path.rglob("*.json")])
            if (skip is None or not f.resolve().is_relative_to(skip))
            and (f.suffix == ".jsonl" or otlp_layout(f) is not None)
            and not is_adjudications_file(f)
        ]
        for file in found:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                files.append(file)
    return files


def parse_line(value: Any, file: str, line: int) -> tuple[Trajectory | None, list[InputProblem]]:
    """One parsed JSON line to a trajectory, or the problems that stop it."""
    if not isinstance(value, dict):
        return None, [InputProblem(file, line, "", "a run line must be a JSON object")]
    try:
        record = RunRecord.model_validate(value)
    except ValidationError as exc:
        return None, problems_from_validation(exc, data=value, file=file, default_line=line)
    try:
        return to_trajectory(record), []
    except AdapterError as exc:
        return None, [InputProblem(file, line, exc.field, exc.reason)]


def read_line(
    line: str, path: Path, number: int
) -> tuple[Trajectory | None, list[InputProblem]]:
    """One raw run line to a trajectory, or the problems that stop it.

    A plain line is read in one pydantic-core call (`fast_runs`); any other line, including
    every line with a problem, is read the careful way, which words the problem.
    """
    plain = plain_trajectory(line) if might_be_plain(line) else None
    if plain is not None:
        return plain, []
    value, problem = decode_line(path, number, line)
    if problem is not None:
        return None, [problem]
    return parse_line(value, str(path), number)


class RawLine(NamedTuple):
    """A line of a JSON Lines runs file, not read yet."""

    path: Path
    number: int
    text: str


def iter_run_sources(
    files: Iterable[Path], otlp: OtlpOptions | None = None, stats: OtlpStats | None = None
) -> Iterator[RunRow | RawLine]:
    """What `iter_runs` reads, in its order, with the JSON lines left unread (`RawLine`).

    A missing file and every trace (or problem) of an OTLP export come read, as `RunRow`s: an
    export is read whole and its trials are numbered across files, so it is read here, in one
    place. A JSON line is read by itself (`read_line`), wherever the caller likes: in this
    process (`iter_runs`) or in a worker process (`toolgrade run --jobs N`).
    """
    traces = OtlpReader(otlp, stats)
    for path in files:
        if not path.is_file():
            yield str(path), 0, None, [InputProblem(str(path), None, "", "no such file")]
            continue
        binary = binary_problem(path)
        if binary is not None:
            yield str(path), 0, None, [binary]
            continue
        layout = otlp_layout(path)
        if layout is not None:
            yield from traces.read(path, layout)
            continue
        for number, line in iter_text_lines(path):
            yield RawLine(path, number, line)


def iter_runs(
    files: Iterable[Path], otlp: OtlpOptions | None = None, stats: OtlpStats | None = None
) -> Iterator[RunRow]:
    """Stream (file, line, trajectory or None, problems) over every run line, or every trace
    of a file that is an OTLP trace export (read with `otlp`, its figures added to `stats`)."""
    for source in iter_run_sources(files, otlp, stats):
        if isinstance(source, RawLine):
            trajectory, problems = read_line(source.text, source.path, source.number)
            yield str(source.path), source.number, trajectory, problems
        else:
            yield source


def duplicate_key_problems(files: Iterable[Path]) -> list[InputProblem]:
    """A problem for every run line (or OTLP export) that names a key twice in one object.

    Reading for grading keeps the last value, as JSON readers do: refusing there would cost
    every line a Python object hook (a tenth of a chat line's reading, two thirds of a plain
    one's). `toolgrade validate` calls this on the files it has read, so the check is one
    command away and costs nothing on the way to grading.
    """
    problems: list[InputProblem] = []
    for path in files:
        if not path.is_file() or binary_problem(path) is not None:
            continue
        if otlp_layout(path) == "document":
            problems += _document_duplicates(path)
            continue
        for number, line in iter_text_lines(path):
            _, problem = decode_line(path, number, line, unique_keys=True)
            if problem is not None and "duplicate key" in problem.reason:
                problems.append(problem)
    return problems


def _document_duplicates(path: Path) -> list[InputProblem]:
    try:
        loads_bounded(read_utf8(path), object_pairs_hook=unique_keys)
    except DuplicateKeyError as exc:
        return [InputProblem(str(path), None, "", f"not valid JSON: {exc}")]
    except ValueError:  # malformed or out of bounds: already reported by the reader
        pass
    return []


def load_runs(files: Iterable[Path]) -> list[Trajectory]:
    """All trajectories of the files (for small inputs and tests); raises InputError."""
    out, problems = [], []
    for _, _, trajectory, found in iter_runs(files):
        problems.extend(found)
        if trajectory is not None:
            out.append(trajectory)
    if problems:
        raise InputError(problems)
    return out
