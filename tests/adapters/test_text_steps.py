"""Calls written in assistant text, read as call steps when the suite asks for it."""

from __future__ import annotations

import json
from pathlib import Path

from toolgrade.adapters.text_steps import with_text_calls
from toolgrade.models import Message, ToolCall, Trajectory
from toolgrade.scoring.runner import grade, validate_inputs

NAMES = ["get_weather", "math.factorial"]


def _run(*texts: str) -> Trajectory:
    steps = [Message(role="user", content="hi")]
    steps += [Message(role="assistant", content=text) for text in texts]
    return Trajectory(case_id="c", steps=steps)


def test_calls_in_text_become_call_steps_issued_together() -> None:
    run = with_text_calls(_run("<tool_call>{\"name\": \"get_weather\", \"arguments\": "
                               "{\"city\": \"Paris\"}}</tool_call>",
                               "[math_factorial(n=5), get_weather(city=x.y)]"), NAMES)
    calls = [s for s in run.steps if isinstance(s, ToolCall)]
    assert [(c.tool, c.args, c.raw_arguments) for c in calls] == [
        ("get_weather", {"city": "Paris"}, None), ("math.factorial", {"n": 5}, None),
        ("get_weather", {}, "get_weather(city=x.y)")]
    assert calls[1].group == calls[2].group != calls[0].group


def test_prose_stays_and_a_marker_without_a_call_is_unparsed() -> None:
    run = with_text_calls(_run("The weather in Paris is sunny.", "<tool_call>oops",
                               "[TOOL_CALLS] get_weather("), NAMES)
    assert run.steps[1] == Message(role="assistant", content="The weather in Paris is sunny.")
    # A <tool_call> block keeps its own text; other text keeps the whole message.
    assert run.steps[2] == ToolCall(tool="(unparsed)", raw_arguments="oops", group="text-2")
    assert run.steps[3] == ToolCall(tool="(unparsed)", raw_arguments="[TOOL_CALLS] get_weather(",
                                    group="text-3")


def test_a_message_with_structured_calls_of_its_own_is_left_alone() -> None:
    run = Trajectory(case_id="c", steps=[
        Message(role="assistant", content="[get_weather(city='Paris')]"),
        ToolCall(tool="get_weather", args={"city": "Paris"})])
    assert with_text_calls(run, NAMES) is run


def _write(path: Path, lines: list[object]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_suite_default_reads_text_calls_when_grading(tmp_path: Path) -> None:
    tools = {"get_weather": {"parameters": {"type": "object", "properties": {
        "city": {"type": "string"}}}}}
    case = {"id": "c", "tools": tools, "expected": {
        "selection": {"tools": ["get_weather"]},
        "arguments": [{"tool": "get_weather", "args": {"city": "Paris"}}]}}
    suite = _write(tmp_path / "suite.jsonl", [{"defaults": {"text_calls": True}}, case])
    said = [{"role": "user", "content": "weather?"}]
    runs = _write(tmp_path / "runs.jsonl", [
        {"case_id": "c", "trial": 0, "format": "openai", "messages": [*said, {
            "role": "assistant", "content": "```json\n{\"name\": \"get_weather\", "
            "\"arguments\": {\"city\": \"Paris\"}}\n```"}]},
        {"case_id": "c", "trial": 1, "format": "openai", "messages": [*said, {
            "role": "assistant", "content": "<function_call> get_weather(Paris"}]}])
    output = grade(validate_inputs(suite, [runs]), tmp_path / "out")
    records = [json.loads(line) for line in output.results_path.read_text().splitlines()]
    assert [r["aggregate"]["passed"] for r in records] == [True, False]
    assert "unparseable_call" in [f["name"] for f in records[1]["checks"]["arguments"]["failures"]]
    transcripts = (tmp_path / "out" / "transcripts.jsonl").read_text().splitlines()
    assert json.loads(transcripts[1])["steps"][1]["args"] == "<function_call> get_weather(Paris"
