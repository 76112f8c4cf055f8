"""A check is its module plus one registry entry: a toy fifth check, registered here only,
reaches summary.json, results.jsonl, report.md, report.html, junit.xml and the gates with no
other code touched (docs/architecture.md, "How to add a check", followed step by step)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
from typer.testing import CliRunner

import toolgrade.composition.judges  # noqa: F401  (before pytester: see test_pytest_plugin)
from builders_foundation import steps_run, write_jsonl, write_yaml_suite
from toolgrade.checks import default_checks
from toolgrade.checks.base import CheckAccumulator, GradeContext, PassRateAccumulator
from toolgrade.checks.registry import CheckEntry, entries, names, register, registered, unregister
from toolgrade.cli.main import app
from toolgrade.errors import ConfigError
from toolgrade.models import Case, CheckName, CheckResult, Trajectory
from toolgrade.scoring.summary import SuiteSummary
from toolgrade.vocabulary import CHECK_NAMES

pytest_plugins = ["pytester"]
runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]

#: The toy check's name: not one of the closed vocabulary's four.
BREVITY = cast(CheckName, "brevity")


class BrevityCheck:
    """Step 1 of the recipe, the module: a run passes when it makes at most two tool calls."""

    name: CheckName = BREVITY

    def grade(self, case: Case, run: Trajectory, ctx: GradeContext) -> CheckResult:
        """Count the run's calls against the limit."""
        calls = len(run.calls)
        passed = calls <= 2
        return CheckResult(check=self.name, applicable=True, score=float(passed),
                           passed=passed, figures={"calls_made": calls})

    def accumulator(self) -> CheckAccumulator:
        """Pass rate over the runs, as every check's block starts."""
        return PassRateAccumulator(self.name)


#: Step 2, the one registry entry (its gate figures beside it).
TOY = CheckEntry(BREVITY, BrevityCheck, gate_figures=frozenset({"pass_rate"}))


@pytest.fixture
def toy_check() -> Iterator[CheckEntry]:
    """The toy check registered for one test only."""
    with registered(TOY) as entry:
        yield entry


def _inputs(folder: Path) -> tuple[Path, Path]:
    """The two-tool suite and three runs: one call, two calls, three calls."""
    suite = write_yaml_suite(folder, """
        - id: c1
          expected:
            selection: {tools: [lookup_order]}
        """)
    runs = write_jsonl(folder / "runs.jsonl", [
        steps_run("c1", ("lookup_order", {"order_id": "1"}), trial=0),
        steps_run("c1", ("lookup_order", {"order_id": "1"}), ("lookup_order", {"order_id": "1"}),
                  trial=1),
        steps_run("c1", *[("lookup_order", {"order_id": str(i)}) for i in range(3)], trial=2),
    ])
    return suite, runs


def _grade(tmp_path: Path, gates: str = "") -> tuple[int, Path, str]:
    """The inputs graded by the CLI with the given `[gates]` lines."""
    suite, runs = _inputs(tmp_path)
    config = tmp_path / "toolgrade.toml"
    config.write_text(f"[gates]\n{gates}", encoding="utf-8")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(suite), str(runs), "--no-judge", "--config",
                                 str(config), "--out", str(out)])
    return result.exit_code, out, result.output


def test_the_four_shipped_checks_are_the_closed_vocabulary_in_report_order() -> None:
    assert names() == CHECK_NAMES
    assert [c.name for c in default_checks()] == list(CHECK_NAMES)


def test_a_toy_check_is_everywhere_the_four_are(toy_check: CheckEntry, tmp_path: Path) -> None:
    code, out, output = _grade(tmp_path, '"brevity.pass_rate" = 0.9\n')
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["checks"]["brevity"] == {"pass_rate": 2 / 3, "applicable": 3}
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [x["checks"]["brevity"]["calls_made"] for x in lines] == [1, 2, 3]
    assert [x["checks"]["brevity"]["status"] for x in lines] == ["pass", "pass", "fail"]
    assert "| brevity |" in (out / "report.md").read_text(encoding="utf-8")
    assert ">brevity<" in (out / "report.html").read_text(encoding="utf-8")
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert junit.count('name="c1::brevity[a:') == 3 and junit.count('type="brevity"') == 1
    assert summary["gates"] == [{"check": "brevity", "metric": "pass_rate",
                                 "value": 2 / 3, "threshold": 0.9, "passed": False}]
    assert code == 1, output
    assert "gate FAILED: brevity.pass_rate = 0.6667, minimum 0.9" in output
    assert "│ brevity   │ 0.667" in output  # the terminal's scorecard


def test_the_pytest_plugin_has_an_item_per_run_of_the_toy_check(
        toy_check: CheckEntry, pytester: pytest.Pytester) -> None:
    _inputs(pytester.path)
    result = pytester.runpytest("--toolgrade-suite", "suite.yaml", "--toolgrade-runs",
                                "runs.jsonl", "--toolgrade-no-judge", "-k", "brevity", "-v",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1, deselected=12)
    result.stdout.fnmatch_lines(["suite.yaml::c1::brevity[[]a:2[]] FAILED*"])


def test_the_schema_of_a_results_line_has_the_toy_checks_block(toy_check: CheckEntry) -> None:
    result = runner.invoke(app, ["schema", "--results"])
    assert result.exit_code == 0
    checks = json.loads(result.output)["$defs"]["ChecksLine"]["properties"]
    assert list(checks) == [*CHECK_NAMES, "brevity"]


def test_the_recipe_followed_here_is_under_15_lines() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## How to add a check\n", 1)[1].split("\n## ", 1)[0]
    assert "test_registry.py" in section
    assert len(section.strip().splitlines()) < 15


def test_a_gate_on_a_figure_the_toy_check_does_not_declare_is_refused(
        toy_check: CheckEntry, tmp_path: Path) -> None:
    code, out, output = _grade(tmp_path, '"brevity.calls_made" = 0.5\n')
    assert code == 2
    assert "unknown gate figure(s): 'brevity.calls_made'" in output
    assert not out.exists()


def test_unregistered_the_toy_check_is_gone_and_its_name_refused(tmp_path: Path) -> None:
    register(TOY)
    unregister("brevity")
    assert "brevity" not in names() and len(entries()) == len(CHECK_NAMES)
    code, out, _ = _grade(tmp_path)
    assert code == 0
    assert "brevity" not in (out / "summary.json").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="Input should be"):
        CheckResult(check=BREVITY, applicable=False)


def test_runs_graded_where_the_toy_check_is_not_registered_are_refused_by_name(
        toy_check: CheckEntry) -> None:
    # A worker process (--jobs N, Ray) that never registered it folds a part without it.
    whole = SuiteSummary(default_checks(), n_cases=1)
    part = SuiteSummary([c for c in default_checks() if c.name != "brevity"], 1, part=True)
    with pytest.raises(ConfigError, match="'brevity' is registered in this process but not"):
        whole.merge(part, {})


def test_the_registry_refuses_a_second_entry_of_a_name_and_keeps_the_four() -> None:
    with pytest.raises(ValueError, match="registered already"):
        register(CheckEntry("selection", BrevityCheck))
    with pytest.raises(ValueError, match="shipped"):
        unregister("recovery")
    assert names() == CHECK_NAMES
