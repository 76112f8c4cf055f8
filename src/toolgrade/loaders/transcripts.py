"""transcripts.jsonl: the graded runs, normalised, kept beside results.jsonl for the run views.

`results.jsonl` holds scores and failures, not what the agent did; the report's run views and
`toolgrade show` need the steps the failures point at. `toolgrade run` writes one line per
graded run here, in the order of `results.jsonl` (line i of one is line i of the other), in
the normalised `steps` form of DESIGN section 2: the file is itself a runs file, readable by
`toolgrade run` like any other. Reading picks only the lines asked for, so a report of a huge
run parses no more transcripts than it shows.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import IO, Any

from toolgrade.jsonio import out as json_out
from toolgrade.jsonio.lines import iter_text_lines
from toolgrade.loaders.runs import read_line
from toolgrade.models import Message, ToolCall, Trajectory

TRANSCRIPTS_FILE = "transcripts.jsonl"


def transcript_step(step: ToolCall | Message) -> dict[str, Any]:
    """One step in the normalised runs form; unparseable arguments stay the agent's raw text."""
    if isinstance(step, Message):
        return {"role": step.role, "content": step.content}
    out: dict[str, Any] = {"tool": step.tool}
    out["args"] = step.raw_arguments if step.unparseable else step.args
    if step.id is not None:
        out["id"] = step.id
    if step.result is not None:
        out["result"] = {"status": step.result.status, "content": step.result.content}
    if step.group is not None:
        out["group"] = step.group
    return out


def transcript_line(run: Trajectory) -> dict[str, Any]:
    """A run as one line of a runs file (`format: steps`)."""
    line: dict[str, Any] = {"case_id": run.case_id, "trial": run.trial}
    if run.agent is not None:
        line["agent"] = run.agent
    line["format"] = "steps"
    line["steps"] = [transcript_step(s) for s in run.steps]
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
