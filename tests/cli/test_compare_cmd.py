"""`toolgrade compare`: what it prints, writes and exits with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_comparison import graded
from toolgrade.cli.main import app


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("graded")
    return {agent: graded(root / agent, agent) for agent in ("strong", "weak")}


def _compare(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["compare", *args])
    return result.exit_code, result.output


def test_a_drop_beyond_the_gate_exits_1_with_one_line_per_failing_gate(
        folders: dict[str, Path], tmp_path: Path) -> None:
    code, output = _compare(str(folders["strong"]), str(folders["weak"]), "--out", str(tmp_path),
                            "--max-drop", "aggregate.pass_rate=0.02",
                            "--max-drop", "recovery.pass_rate=0.9")
    assert code == 1
    assert "aggregate.pass_rate: 66.7% -> 5.6% over 18 cases, change -61.1 pts" in output
    assert "McNemar p 0.00098" in output
    gate_lines = [line for line in output.splitlines() if line.startswith("gate ")]
    assert gate_lines[0].startswith("gate FAILED: aggregate.pass_rate drop = 0.6111")
    assert gate_lines[1].startswith("gate ok: recovery.pass_rate")
    assert {p.name for p in tmp_path.iterdir()} == {"compare.json", "compare.md",
                                                    "compare.html"}


def test_no_drop_exits_0_and_writes_beside_new_by_default(folders: dict[str, Path]) -> None:
    code, _ = _compare(str(folders["weak"]), str(folders["strong"]),
                       "--max-drop", "aggregate.pass_rate=0.02")
    assert code == 0
    data = json.loads((folders["strong"] / "compare.json").read_text())
    assert data["schema_version"] == 1 and data["gates"][0]["passed"] is True


def test_the_outputs_are_short_self_contained_and_escaped(folders: dict[str, Path],
                                                          tmp_path: Path) -> None:
    _compare(str(folders["strong"]), str(folders["weak"]), "--out", str(tmp_path))
    markdown = (tmp_path / "compare.md").read_text()
    assert len(markdown) < 65_536 and "| aggregate.pass\\_rate | 18 | 66.7% | 5.6% |" in markdown
    page = (tmp_path / "compare.html").read_text()
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert "--accent:#0969da" in page  # the report's stylesheet
    # Run-view links are relative to the page, so the folders can move together.
    assert 'href="../' in page and "report.html#run-" in page


def test_an_unreadable_folder_exits_2_and_writes_nothing(folders: dict[str, Path],
                                                         tmp_path: Path) -> None:
    code, output = _compare(str(folders["strong"]), str(tmp_path / "missing"),
                            "--out", str(tmp_path / "out"))
    assert code == 2 and "no results.jsonl or summary.json here" in output
    assert not (tmp_path / "out").exists()


def test_a_misspelt_gate_exits_2(folders: dict[str, Path]) -> None:
    code, output = _compare(str(folders["strong"]), str(folders["weak"]),
                            "--max-drop", "aggregate.passrate=0.1")
    assert code == 2 and "expected FIGURE=X" in output


def test_schema_compare_prints_the_compare_json_schema() -> None:
    result = CliRunner().invoke(app, ["schema", "--compare"])
    document = json.loads(result.output)
    assert "version 1" in document["title"] and "figures" in document["properties"]


GOLDEN = Path(__file__).resolve().parents[1] / "comparison" / "golden" / "compare.md"


def test_compare_md_is_the_golden_file(folders: dict[str, Path], tmp_path: Path) -> None:
    from toolgrade.reporting.markdown import md_escape

    _compare(str(folders["strong"]), str(folders["weak"]), "--out", str(tmp_path),
             "--max-drop", "aggregate.pass_rate=0.02")
    text = (tmp_path / "compare.md").read_text()
    for name in ("strong", "weak"):
        text = text.replace(md_escape(str(folders[name])), "{" + name.upper() + "}")
    assert text == GOLDEN.read_text()


def test_a_judge_that_differs_is_said_in_the_terminal(folders: dict[str, Path],
                                                     tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "results.jsonl").write_text((folders["weak"] / "results.jsonl").read_text())
    summary = json.loads((folders["weak"] / "summary.json").read_text())
    summary["judges"]["recovery_quality"]["model"] = "openai/gpt-4o-mini"
    (other / "summary.json").write_text(json.dumps(summary))
    code, output = _compare(str(folders["strong"]), str(other), "--out", str(tmp_path / "c"))
    assert code == 0
    assert "recovery.pass_rate \N{DAGGER}:" in output
    assert ("not like-for-like, the judges differ: recovery_quality: model none -> "
            "openai/gpt-4o-mini") in output
