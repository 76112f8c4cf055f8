"""transcripts.jsonl: a normalised copy of the graded runs that reads back as the same runs."""

from __future__ import annotations

from pathlib import Path

from builders_reporting import EXAMPLE
from toolgrade.loaders import load_runs, run_files
from toolgrade.loaders.transcripts import read_transcripts, transcript_line, write_transcript
from toolgrade.models import Message, ToolCall, ToolResult, Trajectory


def _write(path: Path, runs: list[Trajectory]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for run in runs:
            write_transcript(fh, run)
    return path


def test_the_example_runs_read_back_unchanged(tmp_path: Path) -> None:
    runs = load_runs(run_files([EXAMPLE / "runs"]))  # OpenAI, Anthropic and steps files
    path = _write(tmp_path / "transcripts.jsonl", runs)
    assert load_runs([path]) == runs  # the copy is itself a runs file
    again = read_transcripts(path, range(len(runs)))
    assert [again[i] for i in range(len(runs))] == runs


def test_unparseable_arguments_stay_the_agents_text() -> None:
    call = ToolCall(tool="refund", raw_arguments='{"order_id": "A1"', result=ToolResult(
        status="error", content="bad"), group=3)
    run = Trajectory(case_id="c", steps=[Message(role="user", content="hi"), call])
    line = transcript_line(run)
    assert line["steps"][1] == {"tool": "refund", "args": '{"order_id": "A1"',
                                "result": {"status": "error", "content": "bad"}, "group": 3}
    assert "agent" not in line and line["format"] == "steps"


def test_only_the_wanted_lines_are_read(tmp_path: Path) -> None:
    runs = [Trajectory(case_id=f"c{i}", steps=[]) for i in range(5)]
    path = _write(tmp_path / "t.jsonl", runs)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("not json\n")  # past the last wanted line: never parsed
    assert read_transcripts(path, {1, 3}) == {1: runs[1], 3: runs[3]}
    assert read_transcripts(tmp_path / "missing.jsonl", {0}) == {}


def test_a_line_that_is_not_a_run_is_left_out(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"case_id": "a", "steps": []}\n{"nope": 1}\n', encoding="utf-8")
    assert set(read_transcripts(path, {0, 1})) == {0}
