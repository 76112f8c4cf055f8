"""An input format is an adapter plus one registry entry: a toy chat format, registered here
only, is read by name and by detection and graded like any run, with no other code touched
(docs/architecture.md, "How to add an input format", followed step by step)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_foundation import write_jsonl, write_yaml_suite
from toolgrade.adapters import AdapterError, build_call, detect_format, messages_to_steps
from toolgrade.adapters.formats import (
    MessageFormatEntry,
    format_names,
    register_format,
    registered_format,
    unregister_format,
)
from toolgrade.cli.main import app
from toolgrade.jsonio.values import JsonValue
from toolgrade.models import Message, Step, ToolCall

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def plain_to_steps(messages: list[JsonValue]) -> list[Step]:
    """Step 1 of the recipe, the adapter: `CALL tool {json args}` and `SAY text` lines."""
    steps: list[Step] = []
    for i, line in enumerate(messages):
        if not isinstance(line, str) or not line.startswith(("CALL ", "SAY ")):
            raise AdapterError(f"messages[{i}]", "expected a CALL or SAY line")
        verb, _, rest = line.partition(" ")
        if verb == "SAY":
            steps.append(Message(role="assistant", content=rest))
            continue
        tool, _, args = rest.partition(" ")
        steps.append(build_call(tool, args or "{}", id=None, result=None, group=None,
                                where=f"messages[{i}]"))
    return steps


def is_plain(messages: list[JsonValue]) -> bool:
    """Whether every message is a CALL or SAY line (claims lines that name no format)."""
    return bool(messages) and all(isinstance(m, str) and m.startswith(("CALL ", "SAY "))
                                  for m in messages)


#: Step 2, the one registry entry.
PLAIN = MessageFormatEntry("plain", plain_to_steps, is_plain)


@pytest.fixture
def plain_format() -> Iterator[MessageFormatEntry]:
    """The toy format registered for one test only."""
    with registered_format(PLAIN) as entry:
        yield entry


LINES = ['CALL lookup_order {"order_id": "1"}', "SAY order 1 is on its way"]


def _grade(tmp_path: Path, runs: list[object]) -> tuple[int, Path, str]:
    suite = write_yaml_suite(tmp_path, """
        - id: c1
          expected:
            selection: {tools: [lookup_order]}
            arguments: [{tool: lookup_order, args: {order_id: "1"}}]
        """)
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(suite), str(write_jsonl(tmp_path / "r.jsonl", runs)),
                                 "--no-judge", "--out", str(out), "-q"])
    return result.exit_code, out, result.output


def test_the_toy_format_is_read_by_name_and_by_detection(plain_format: MessageFormatEntry,
                                                         tmp_path: Path) -> None:
    assert detect_format(list(LINES)) == "plain"
    steps = messages_to_steps(list(LINES), "plain")
    assert isinstance(steps[0], ToolCall) and steps[0].args == {"order_id": "1"}
    code, out, output = _grade(tmp_path, [
        {"case_id": "c1", "trial": 0, "format": "plain", "messages": LINES},
        {"case_id": "c1", "trial": 1, "messages": LINES},
    ])
    assert code == 0, output
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [x["checks"]["selection"]["passed"] for x in lines] == [True, True]
    assert [x["checks"]["arguments"]["passed"] for x in lines] == [True, True]


def test_a_bad_line_of_the_toy_format_names_file_line_and_field(plain_format: MessageFormatEntry,
                                                                tmp_path: Path) -> None:
    code, out, output = _grade(tmp_path, [
        {"case_id": "c1", "format": "plain", "messages": ["CALL lookup_order {}", "WAVE"]}])
    assert code == 2
    assert "r.jsonl:1" in output and "messages[1]: expected a CALL or SAY line" in output
    assert not out.exists()


def test_unregistered_the_format_name_is_refused_as_before(tmp_path: Path) -> None:
    register_format(PLAIN)
    unregister_format("plain")
    assert format_names() == ("openai", "anthropic", "mcp")
    assert detect_format(list(LINES)) == "openai"
    code, _, output = _grade(tmp_path, [{"case_id": "c1", "format": "plain", "messages": LINES}])
    assert code == 2
    assert "Input should be 'openai', 'anthropic', 'mcp' or 'steps'" in output


def test_the_recipe_followed_here_is_under_15_lines() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## How to add an input format\n", 1)[1].split("\n## ", 1)[0]
    assert "test_formats.py" in section
    assert len(section.strip().splitlines()) < 15


def test_the_shipped_formats_stay_and_names_are_not_taken_twice() -> None:
    with pytest.raises(ValueError, match="exists already"):
        register_format(MessageFormatEntry("steps", plain_to_steps))
    with pytest.raises(ValueError, match="shipped"):
        unregister_format("anthropic")
