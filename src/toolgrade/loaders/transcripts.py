"""transcripts.jsonl: the graded runs, normalised, kept beside results.jsonl for the run views.

`results.jsonl` holds scores and failures, not what the agent did; the report's run views and
`toolgrade show` need the steps the failures point at. `toolgrade run` writes one line per
graded run here, in the order of `results.jsonl` (line i of one is line i of the other), in
the normalised `steps` form (docs/case-format.md): the file is itself a runs file, readable by
`toolgrade run` like any other. Reading picks only the lines asked for, so a report of a huge
run parses no more transcripts than it shows.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import IO, Literal, NotRequired, TypedDict

from toolgrade.jsonio import out as json_out
from toolgrade.jsonio.lines import iter_text_lines
from toolgrade.jsonio.values import JsonObject, JsonValue
from toolgrade.loaders.runs import read_line
from toolgrade.models import Message, ToolCall, Trajectory

TRANSCRIPTS_FILE = "transcripts.jsonl"


class MessageLine(TypedDict):
    """A message step of the normalised runs form."""

    role: str
    content: JsonValue


class ResultLine(TypedDict):
    """A call's result in the normalised runs form."""

    status: Literal["ok", "error"]
    content: JsonValue


class CallLine(TypedDict):
    """A call step of the normalised runs form (`args`: the agent's raw text when it was not
    a JSON object)."""

    tool: str
    args: JsonObject | str
    id: NotRequired[str]
    result: NotRequired[ResultLine]
    group: NotRequired[int | str]


class TranscriptLine(TypedDict):
    """One transcripts.jsonl line: a run in the `format: steps` form of a runs file."""

    case_id: str
    trial: int
    agent: NotRequired[str]
    format: Literal["steps"]
    steps: list[CallLine | MessageLine]
    final_state: NotRequired[JsonObject]


def transcript_step(step: ToolCall | Message) -> CallLine | MessageLine:
    """One step in the normalised runs form; unparseable arguments stay the agent's raw text."""
    if isinstance(step, Message):
        return {"role": step.role, "content": step.content}
    args = step.args if step.raw_arguments is None else step.raw_arguments
    out: CallLine = {"tool": step.tool, "args": args}
    if step.id is not None:
        out["id"] = step.id
    if step.result is not None:
        out["result"] = {"status": step.result.status, "content": step.result.content}
    if step.group is not None:
        out["group"] = step.group
    return out


def transcript_line(run: Trajectory) -> TranscriptLine:
    """A run as one line of a runs file (`format: steps`)."""
    steps = [transcript_step(s) for s in run.steps]
    line: TranscriptLine
    if run.agent is not None:
        line = {"case_id": run.case_id, "trial": run.trial, "agent": run.agent,
                "format": "steps", "steps": steps}
    else:
        line = {"case_id": run.case_id, "trial": run.trial, "format": "steps", "steps": steps}
    if run.final_state is not None:
        line["final_state"] = run.final_state
    return line


def transcript_text(run: Trajectory) -> str:
    """A run's transcripts.jsonl line, without its newline (a worker process makes it so that
    the parent writes it as one process would have)."""
    return json_out.dumps(transcript_line(run), ensure_ascii=False, default=str)


def write_transcript(fh: IO[str], run: Trajectory) -> None:
    """Append one run to an open transcripts file."""
    fh.write(transcript_text(run) + "\n")


def read_transcripts(path: Path, wanted: Collection[int]) -> dict[int, Trajectory]:
    """The runs at the given positions (0-based, blank lines not counted) of a transcripts file.

    A line that no longer reads as a run is left out (its run view says so); the file is read
    once and only the wanted lines are parsed.
    """
    found: dict[int, Trajectory] = {}
    if not wanted or not path.is_file():
        return found
    last = max(wanted)
    for position, (number, line) in enumerate(iter_text_lines(path)):
        if position > last:
            break
        if position in wanted:
            run, _problems = read_line(line, path, number)
            if run is not None:
                found[position] = run
    return found
