"""`toolgrade report DIR`: re-render reports from results.jsonl + summary.json, no grading."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from builders_reporting import write_run_dir
from toolgrade.cli.report_cmd import report
from toolgrade.reporting.files import REPORT_FILES


def _app() -> typer.Typer:
    # The command as the lead registers it (`toolgrade report DIR`), without depending on main.
    app = typer.Typer()
    app.command("report")(report)

    @app.callback()
    def _root() -> None:
        """toolgrade (test app)."""

    return app


def test_report_rerenders_the_three_files(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path / "out")
    result = CliRunner().invoke(_app(), ["report", str(run_dir)])
    assert result.exit_code == 0, result.output
    for name in REPORT_FILES:
        assert (run_dir / name).is_file()
    assert "report.html" in result.output
    assert "selection.f1" in (run_dir / "report.md").read_text(encoding="utf-8")


def test_report_leaves_results_and_summary_untouched(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path / "out")
    before = {p: (run_dir / p).read_bytes() for p in ("results.jsonl", "summary.json")}
    assert CliRunner().invoke(_app(), ["report", str(run_dir)]).exit_code == 0
    assert {p: (run_dir / p).read_bytes() for p in before} == before


def test_report_on_a_folder_without_results_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(_app(), ["report", str(tmp_path)])
    assert result.exit_code == 2
    assert "no results.jsonl or summary.json" in result.output
    assert not (tmp_path / "report.md").exists()
