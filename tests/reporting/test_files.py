"""write_reports / rerender: all three files, streamed input, clear errors on a bad folder."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from builders_reporting import as_summary, check, failure, small_summary, write_run_dir
from toolgrade.errors import ToolgradeError
from toolgrade.reporting.files import (
    REPORT_FILES,
    ReportStream,
    rerender,
    summary_problems,
    write_reports,
)
from toolgrade.reporting.junit import JunitCases
from toolgrade.scoring.runner import grade, validate_inputs


def test_write_reports_writes_the_three_files(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path / "out")
    written = write_reports(run_dir, as_summary(small_summary()), run_dir / "results.jsonl")
    assert [p.name for p in written] == list(REPORT_FILES)
    assert all(p.stat().st_size > 0 for p in written)
    assert (run_dir / "report.md").read_text(encoding="utf-8").startswith("# toolgrade report")


def _big_results(path: Path, lines: int) -> None:
    padding = "x" * 5000  # a long agent message on every line
    with path.open("w", encoding="utf-8") as fh:
        for i in range(lines):
            line = {
                "case_id": f"case-{i % 50}",
                "trial": i // 50,
                "agent": "bot",
                "checks": {
                    "selection": check(
                        passed=False, score=0.0, failures=[failure("missing_tool", 0, padding)]
                    )
                },
                "aggregate": {"mode": "binary", "score": 0.0, "passed": False},
            }
            fh.write(json.dumps(line) + "\n")


def test_a_big_run_is_streamed_and_the_page_stays_small(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    _big_results(results, 1200)
    size = results.stat().st_size
    tracemalloc.start()
    try:
        write_reports(tmp_path, as_summary(small_summary()), results)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < size / 3, f"peak {peak} bytes for a {size}-byte results file"
    assert (tmp_path / "report.html").stat().st_size < 200_000
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "first 20 of 1200 shown" in page


def test_rerender_needs_results_and_summary(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ToolgradeError, match=r"no summary\.json"):
        rerender(tmp_path)


def test_rerender_rejects_a_results_file_that_is_not_json(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path)
    (run_dir / "results.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(ToolgradeError, match=r"results\.jsonl:1: not valid JSON: Expecting"):
        rerender(run_dir)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("[1, 2]", "expected a JSON object"),
        ('{"a": 1}', "case_id: expected a JSON string"),
        ('{"case_id": "c", "checks": [], "aggregate": {}}', "checks: expected a JSON object"),
    ],
)
def test_rerender_rejects_lines_that_are_not_records(
    tmp_path: Path, line: str, problem: str
) -> None:
    run_dir = write_run_dir(tmp_path)
    with (run_dir / "results.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    lines = len((run_dir / "results.jsonl").read_text().splitlines())
    with pytest.raises(ToolgradeError) as info:
        rerender(run_dir)
    assert f"results.jsonl:{lines}: not a toolgrade record: {problem}" in str(info.value)


def test_rerender_refuses_results_and_summary_of_different_runs(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path)
    rerender(run_dir)
    before = {name: (run_dir / name).read_bytes() for name in REPORT_FILES}
    (run_dir / "results.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ToolgradeError, match=r"0 records, but summary\.json counts"):
        rerender(run_dir)
    assert {n: (run_dir / n).read_bytes() for n in before} == before


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"checks": []}, "checks: Input should be a valid dictionary"),
        ({"cases": "x"}, "cases: Input should be a valid integer"),
        (
            {"aggregate": {"pass_rate": "high"}},
            "aggregate.pass_rate: Input should be a valid number",
        ),
        ({"gates": [{"check": "selection"}]}, "gates[0].metric: Field required"),
        ({"judges": {"argument_equivalence": "x"}}, "judges.argument_equivalence: Input should be"),
    ],
)
def test_rerender_names_the_summary_field_that_is_wrong(
    tmp_path: Path, change: dict[str, object], problem: str
) -> None:
    run_dir = write_run_dir(tmp_path)
    summary = json.loads((run_dir / "summary.json").read_text())
    summary.update(change)
    (run_dir / "summary.json").write_text(json.dumps(summary))
    with pytest.raises(ToolgradeError) as info:
        rerender(run_dir)
    assert "summary.json: not a toolgrade summary" in str(info.value)
    assert problem in str(info.value)


def test_rerender_rewrites_reports_from_the_folder(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path)
    written = rerender(run_dir)
    assert {p.name for p in written} == set(REPORT_FILES)
    assert "refund-01" in (run_dir / "report.html").read_text(encoding="utf-8")


def test_reports_fed_while_grading_equal_reports_read_back_from_the_file(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "helpdesk"
    inputs = validate_inputs(example / "suite.yaml", [example / "runs"])
    fed: list[dict[str, object]] = []
    with ReportStream() as stream:

        def take(record: dict[str, object]) -> None:
            fed.append(record)
            stream.add(record)

        output = grade(inputs, tmp_path / "live", on_record=take)
        live = stream.write(tmp_path / "live", output.summary)
    lines = output.results_path.read_text(encoding="utf-8").splitlines()
    assert fed == [json.loads(line) for line in lines] and len(fed) == inputs.n_runs
    # What the runner writes passes the check.
    assert summary_problems(output.summary.to_data()) == []
    again = write_reports(tmp_path / "again", output.summary, output.results_path)
    for a, b in zip(live, again, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_junit_cases_drop_their_pending_file(tmp_path: Path) -> None:
    cases = JunitCases()
    cases.add({"case_id": "c", "trial": 0, "agent": None, "checks": {"selection": check()}})
    cases.write(tmp_path / "junit.xml")
    assert cases._pending.closed
    assert 'tests="1"' in (tmp_path / "junit.xml").read_text(encoding="utf-8")
