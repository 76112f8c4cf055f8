"""`--jobs N`: worker processes change nothing in the outputs, survive a dying worker, stop
on Ctrl-C. Chunks are made small here so that a few hundred runs use every worker."""

from __future__ import annotations

import importlib.util
import json
import multiprocessing
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from typer.testing import CliRunner

from builders_jobs import DEADLY_CASE, KillsItsWorker
from toolgrade.checks import default_checks
from toolgrade.checks.selection import SelectionCheck
from toolgrade.cli.main import app
from toolgrade.models import JudgeRequest, Verdict
from toolgrade.scoring import jobs, workers
from toolgrade.scoring.runner import grade, validate_inputs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "helpdesk"
OUTPUTS = ("results.jsonl", "summary.json", "report.md", "report.html", "junit.xml")


def _synth() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_synth", ROOT / "benchmarks" / "synth.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 16 lines, and workers for reading whatever the size of the files."""
    monkeypatch.setattr(workers, "CHUNK_SIZE", 16)
    monkeypatch.setattr(jobs, "PARALLEL_READ_BYTES", 0)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("synth")
    suite, runs = _synth().write_synthetic(folder, 300, n_cases=40, seed=5)
    return suite, runs


def _run_cli(suite: Path, runs: Path, out: Path, n_jobs: int, *extra: str) -> None:
    args = ["run", str(suite), str(runs), "--out", str(out), "--no-judge", "-q"]
    result = CliRunner().invoke(app, [*args, "--jobs", str(n_jobs), *extra])
    assert result.exit_code in (0, 1), result.output


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("example", ["synthetic", "helpdesk"])
def test_every_output_is_byte_identical_whatever_the_number_of_jobs(
    example: str, synthetic: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if example == "helpdesk":
        monkeypatch.chdir(EXAMPLE)  # its settings file and relative paths
        suite, runs = EXAMPLE / "suite.yaml", EXAMPLE / "runs"
    else:
        monkeypatch.chdir(tmp_path)
        suite, runs = synthetic
    _run_cli(suite, runs, tmp_path / "one", 1)
    _run_cli(suite, runs, tmp_path / "three", 3)
    for name in OUTPUTS:
        one, three = (tmp_path / d / name for d in ("one", "three"))
        assert one.read_bytes() == three.read_bytes(), name
    n_runs = json.loads((tmp_path / "one" / "summary.json").read_text())["trajectories"]
    assert n_runs > 3 * workers.CHUNK_SIZE  # so that every worker had chunks


@pytest.mark.usefixtures("small_chunks")
def test_input_problems_are_the_same_in_workers(tmp_path: Path) -> None:
    suite = EXAMPLE / "suite.yaml"
    lines = (EXAMPLE / "runs" / "strong-agent.openai.jsonl").read_text().splitlines()
    broken = [*lines, lines[0], "{not json", '{"case_id": "nope", "steps": []}', *lines[:3]]
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(broken) + "\n")
    said = []
    for n_jobs in (1, 2):
        with pytest.raises(Exception) as caught:
            validate_inputs(suite, [runs, tmp_path / "missing.jsonl"], jobs=n_jobs)
        said.append([str(p) for p in caught.value.problems])  # type: ignore[attr-defined]
    assert said[0] == said[1]
    assert len(said[0]) >= 6  # duplicates, bad JSON, unknown case, missing file


@pytest.mark.usefixtures("small_chunks")
def test_a_dying_worker_costs_only_the_runs_that_kill_it(
    synthetic: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, runs = synthetic
    inputs = validate_inputs(suite, [runs])
    others = [c for c in default_checks() if c.name != "selection"]
    deadly = grade(inputs, tmp_path / "deadly", checks=[KillsItsWorker(), *others], jobs=2)
    sound = grade(inputs, tmp_path / "sound", checks=[SelectionCheck(), *others], jobs=1)
    got = _lines(deadly.results_path)
    expected = _lines(sound.results_path)
    assert len(got) == len(expected) == inputs.n_runs
    killed = [g for g in got if g["case_id"] == DEADLY_CASE]
    assert killed, "the synthetic suite no longer has the deadly case"
    for record in killed:
        for name, check in record["checks"].items():
            assert check["passed"] is None and "worker process" in check["error"], name
        assert "worker process" in record["error"]
    assert [g for g in got if g["case_id"] != DEADLY_CASE] == [
        e for e in expected if e["case_id"] != DEADLY_CASE
    ]
    assert deadly.summary["errors"] == len(killed) * 4


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


class _Interrupt(Exception):
    pass


@pytest.mark.usefixtures("small_chunks")
def test_an_interrupt_stops_the_workers(synthetic: tuple[Path, Path], tmp_path: Path) -> None:
    suite, runs = synthetic
    inputs = validate_inputs(suite, [runs])

    def interrupt(done: int, _total: int) -> None:
        if done == 40:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        grade(inputs, tmp_path / "out", jobs=2, progress=interrupt)
    assert multiprocessing.active_children() == []
    written = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert len(written) == 40  # what was graded before the interrupt is kept


def test_workers_leave_ctrl_c_to_the_parent() -> None:
    import signal

    before = signal.getsignal(signal.SIGINT)
    try:
        workers._ignore_sigint(None)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_the_default_is_the_cpus_this_process_may_use() -> None:
    import os

    assert workers.available_cpus() == len(os.sched_getaffinity(0))


class _AlwaysPass:
    """A judge port that passes everything and counts the requests it answered."""

    def __init__(self) -> None:
        self.asked = 0

    def judge(self, request: JudgeRequest) -> Verdict:
        self.asked += 1
        return Verdict(verdict="pass", reason="fine")


@pytest.mark.usefixtures("small_chunks")
def test_with_a_judge_grading_stays_in_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_workers(*_: object, **__: object) -> None:
        raise AssertionError("a judged run was sent to worker processes")

    monkeypatch.setattr(jobs, "grade_in_workers", no_workers)
    inputs = validate_inputs(EXAMPLE / "suite.yaml", [EXAMPLE / "runs"], jobs=2)
    judge = _AlwaysPass()
    output = grade(inputs, tmp_path / "out", judge=judge, workers=2, jobs=2)
    assert judge.asked > 0  # the judge in this process answered every request
    assert output.summary["trajectories"] == inputs.n_runs
