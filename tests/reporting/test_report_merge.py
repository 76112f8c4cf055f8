"""Report parts taken per chunk and merged in order make the reports one process makes.

`toolgrade run --jobs N` folds each chunk's records into a `ReportPart` in a worker; the
parent's `ReportStream.merge` must then write report.md, report.html and junit.xml exactly as
if it had taken every record itself, including which runs get a view above the size limits
and which failure examples are kept (and linked) past their cap.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from builders_jobs import chunked, synthetic_suite
from toolgrade.reporting import digest, run_sample
from toolgrade.reporting.files import REPORT_FILES, ReportStream
from toolgrade.reporting.report_part import ReportPart
from toolgrade.scoring.runner import RunOutput, grade, validate_inputs


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> RunOutput:
    folder = tmp_path_factory.mktemp("synth")
    inputs = validate_inputs(*_suite_and_runs(folder))
    return grade(inputs, folder / "out")


def _suite_and_runs(folder: Path) -> tuple[Path, list[Path]]:
    suite, runs = synthetic_suite(folder)
    return suite, [runs]


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Limits the 300 synthetic runs go past: the cut of run views and the example caps."""
    monkeypatch.setattr(run_sample, "EVERY_RUN_LIMIT", 40)
    monkeypatch.setattr(run_sample, "FAILING_LIMIT", 15)
    monkeypatch.setattr(run_sample, "PASSING_SAMPLE", 6)
    monkeypatch.setattr(digest, "EXAMPLES_PER_FAILURE", 3)


def _lines(output: RunOutput) -> list[str]:
    return output.results_path.read_text(encoding="utf-8").splitlines()


def _write(stream: ReportStream, out: Path, output: RunOutput) -> dict[str, bytes]:
    stream.write(out, output.summary)
    return {name: (out / name).read_bytes() for name in REPORT_FILES}


def _one_by_one(output: RunOutput, out: Path) -> dict[str, bytes]:
    with ReportStream(output.results_path.parent / "transcripts.jsonl") as stream:
        for line in _lines(output):
            stream.add(json.loads(line))
        return _write(stream, out, output)


def _merged(output: RunOutput, out: Path, sizes: list[int]) -> dict[str, bytes]:
    with ReportStream(output.results_path.parent / "transcripts.jsonl") as stream:
        for lines in chunked(_lines(output), sizes):
            part = ReportPart()
            for line in lines:
                part.add(json.loads(line))
            stream.merge(part, lines)
        return _write(stream, out, output)


@pytest.mark.usefixtures("small_limits")
@pytest.mark.parametrize("sizes", [[1], [16], [7, 50, 3], [299], [1000]])
def test_merged_parts_make_the_one_process_reports(
    graded: RunOutput, tmp_path: Path, sizes: list[int]
) -> None:
    expected = _one_by_one(graded, tmp_path / "one")
    got = _merged(graded, tmp_path / "merged", sizes)
    for name in REPORT_FILES:
        assert got[name] == expected[name], name


@pytest.mark.usefixtures("small_limits")
def test_the_limits_are_passed_so_the_cut_and_the_caps_are_exercised(
    graded: RunOutput, tmp_path: Path
) -> None:
    report = _one_by_one(graded, tmp_path / "one")["report.md"].decode()
    assert len(_lines(graded)) > run_sample.EVERY_RUN_LIMIT
    assert "more than 40" in (tmp_path / "one" / "report.html").read_text(encoding="utf-8")
    assert "first 3 of" in report  # a failure name with more examples than its cap


def test_only_the_records_of_runs_shown_are_read(graded: RunOutput,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_sample, "EVERY_RUN_LIMIT", 10)
    monkeypatch.setattr(run_sample, "FAILING_LIMIT", 5)
    monkeypatch.setattr(run_sample, "PASSING_SAMPLE", 3)
    monkeypatch.setattr(digest, "EXAMPLES_PER_FAILURE", 1)
    read: list[int] = []
    loads = json.loads

    def counting(text: str) -> Any:
        read.append(1)
        return loads(text)

    lines = _lines(graded)
    with ReportStream(graded.results_path.parent / "transcripts.jsonl") as stream:
        part = ReportPart()
        for line in lines:
            part.add(json.loads(line))
        monkeypatch.setattr("toolgrade.reporting.files.json.loads", counting)
        stream.merge(part, lines)
        kept = len(stream.runs.kept)
    assert 0 < len(read) < len(lines) / 2
    # The runs kept, and the first ones read before the limit was passed (then dropped).
    assert kept <= len(read) <= kept + run_sample.EVERY_RUN_LIMIT
