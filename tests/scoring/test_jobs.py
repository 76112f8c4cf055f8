"""`--jobs N`: worker processes change nothing in the outputs, survive a dying worker, stop
on Ctrl-C. Chunks are made small here so that a few hundred runs use every worker."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from typer.testing import CliRunner

from builders_adjudication import ADDRESS_ROUTE, PARCEL_ROUTE, copy_example
from builders_jobs import DEADLY_CASE, AlwaysPass, KillsItsWorker, SelectionNotedInOrder
from script_modules import load_script
from toolgrade.checks import default_checks
from toolgrade.checks.selection import SelectionCheck
from toolgrade.cli.main import app
from toolgrade.errors import InputError
from toolgrade.loaders.otlp import OtlpOptions
from toolgrade.scoring import engines, jobs
from toolgrade.scoring.engines import LocalProcesses, Serial, engine_for
from toolgrade.scoring.runner import grade, validate_inputs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "helpdesk"
OTEL_EXPORTS = ROOT / "examples" / "otel" / "exports"
OUTPUTS = (
    "results.jsonl",
    "transcripts.jsonl",
    "summary.json",
    "report.md",
    "report.html",
    "junit.xml",
)


def _synth() -> ModuleType:
    return load_script(ROOT / "benchmarks" / "synth.py", "bench_synth")


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 16 lines, and workers for reading whatever the size of the files."""
    monkeypatch.setattr(engines, "CHUNK_SIZE", 16)
    monkeypatch.setattr(engines, "PARALLEL_BYTES", 0)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("synth")
    suite, runs = _synth().write_synthetic(folder, 300, n_cases=40, seed=5)
    return suite, runs


def _run_cli(suite: Path, runs: Path | list[Path], out: Path, n_jobs: int, *extra: str) -> None:
    files = [str(p) for p in (runs if isinstance(runs, list) else [runs])]
    args = ["run", str(suite), *files, "--out", str(out), "--no-judge", "-q"]
    result = CliRunner().invoke(app, [*args, "--jobs", str(n_jobs), *extra])
    assert result.exit_code in (0, 1), result.output


def _adjudicated(tmp_path: Path) -> tuple[Path, list[Path]]:
    """examples/adjudication (judge_alternates on three cases) with people's decisions on two
    routes beside the suite: they decide even with no judge, and feed the adjudication block."""
    folder = copy_example(tmp_path)
    decisions = [
        {"case_id": "where-is-my-parcel", "route": PARCEL_ROUTE, "decision": "accept", "by": "a"},
        {"case_id": "address-change", "route": ADDRESS_ROUTE, "decision": "reject", "by": "b"},
    ]
    lines = "".join(json.dumps(d) + "\n" for d in decisions)
    (folder / "suite.adjudications.jsonl").write_text(lines, encoding="utf-8")
    return folder / "suite.yaml", [folder / "runs"]


#: Each example: whatever the other issues added to grading goes through the workers too.
EXAMPLES = {
    "synthetic": 16,
    "helpdesk": 16,
    # JSON lines and both OTLP layouts in one run: exports are read in the parent.
    "helpdesk+otlp": 16,
    # 10 runs: chunks of 2 so that every worker has some.
    "adjudication": 2,
}


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize("example", list(EXAMPLES))
def test_every_output_is_byte_identical_whatever_the_number_of_jobs(
    example: str, synthetic: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engines, "CHUNK_SIZE", EXAMPLES[example])
    runs: Path | list[Path]
    extra: tuple[str, ...] = ()
    if example.startswith("helpdesk"):
        monkeypatch.chdir(EXAMPLE)  # its settings file and relative paths
        suite, runs = EXAMPLE / "suite.yaml", EXAMPLE / "runs"
        if example == "helpdesk+otlp":
            runs = [EXAMPLE / "runs" / "mid-agent.steps.jsonl", OTEL_EXPORTS]
            extra = ("--case-attribute", "toolgrade.case_id")
    elif example == "adjudication":
        suite, runs = _adjudicated(tmp_path)
        monkeypatch.chdir(suite.parent)
    else:
        monkeypatch.chdir(tmp_path)
        suite, runs = synthetic
    _run_cli(suite, runs, tmp_path / "one", 1, *extra)
    _run_cli(suite, runs, tmp_path / "three", 3, *extra)
    for name in OUTPUTS:
        one, three = (tmp_path / d / name for d in ("one", "three"))
        assert one.read_bytes() == three.read_bytes(), name
    summary = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert summary["trajectories"] > 3 * engines.CHUNK_SIZE  # so that every worker had chunks
    transcripts = (tmp_path / "one" / "transcripts.jsonl").read_text().splitlines()
    assert len(transcripts) == summary["trajectories"]
    if example == "helpdesk+otlp":
        assert summary["otlp"]["traces"] > 0
    if example == "adjudication":
        people = summary["adjudication"]["selection"]["human"]
        assert people["pass"] > 0 and people["fail"] > 0, people


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
            validate_inputs(suite, [runs, tmp_path / "missing.jsonl"],
                            engine=engine_for(n_jobs))
        said.append([str(p) for p in caught.value.problems])  # type: ignore[attr-defined]
    assert said[0] == said[1]
    assert len(said[0]) >= 6  # duplicates, bad JSON, unknown case, missing file


@pytest.mark.usefixtures("small_chunks")
def test_otlp_exports_are_validated_alike_in_workers(tmp_path: Path) -> None:
    # The strong agent twice (as OpenAI messages and as a GenAI export: every run a duplicate
    # across formats), an export with a broken line, and the OpenInference document.
    genai = (OTEL_EXPORTS / "strong-agent.genai.otlp.jsonl").read_text().splitlines()
    broken = tmp_path / "broken.otlp.jsonl"
    broken.write_text("\n".join([*genai[:2], '{"resourceSpans": [{]}', *genai[2:]]) + "\n")
    runs = [
        EXAMPLE / "runs" / "strong-agent.openai.jsonl",
        broken,
        OTEL_EXPORTS / "weak-agent.openinference.otlp.json",
    ]
    said = []
    for n_jobs in (1, 2):
        with pytest.raises(InputError) as caught:
            validate_inputs(EXAMPLE / "suite.yaml", runs, engine=engine_for(n_jobs))
        said.append([str(p) for p in caught.value.problems])
    assert said[0] == said[1]
    assert any("broken.otlp.jsonl:3" in p for p in said[0])
    assert any("duplicate run" in p and "broken.otlp.jsonl" in p for p in said[0])


@pytest.mark.usefixtures("small_chunks")
def test_otlp_figures_are_the_same_in_workers() -> None:
    runs = [EXAMPLE / "runs" / "mid-agent.steps.jsonl", OTEL_EXPORTS]
    otlp = OtlpOptions(case_attribute="toolgrade.case_id")
    one, two = (validate_inputs(EXAMPLE / "suite.yaml", runs, otlp=otlp, engine=engine_for(n))
                for n in (1, 2))
    assert one.otlp_stats is not None and one.otlp_stats.traces > 0
    assert two.otlp_stats == one.otlp_stats
    assert (two.n_runs, two.agents, two.cases_without_runs) == (
        one.n_runs, one.agents, one.cases_without_runs
    )


@pytest.mark.usefixtures("small_chunks")
def test_a_dying_worker_costs_only_the_runs_that_kill_it(
    synthetic: tuple[Path, Path], tmp_path: Path
) -> None:
    inputs = validate_inputs(synthetic[0], [synthetic[1]])
    deadly = grade(inputs, tmp_path / "deadly", checks=_with_selection(KillsItsWorker()),
                   engine=LocalProcesses(2))
    sound = grade(inputs, tmp_path / "sound", checks=_with_selection(SelectionCheck()),
                  engine=Serial())
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
    assert deadly.summary.errors == len(killed) * 4


@pytest.mark.usefixtures("small_chunks")
def test_a_custom_accumulator_without_merge_sees_every_run_in_order(
    synthetic: tuple[Path, Path], tmp_path: Path
) -> None:
    inputs = validate_inputs(synthetic[0], [synthetic[1]])
    checks = _with_selection(SelectionNotedInOrder())
    one = grade(inputs, tmp_path / "one", checks=checks, engine=Serial())
    two = grade(inputs, tmp_path / "two", checks=checks, engine=LocalProcesses(2))
    assert len(one.summary.to_data()["checks"]["selection"]["seen"]) == inputs.n_runs
    assert two.summary.to_json_text() == one.summary.to_json_text()
    for name in ("results.jsonl", "transcripts.jsonl"):
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


@pytest.mark.usefixtures("small_chunks")
def test_on_record_gets_every_record_from_workers_too(
    synthetic: tuple[Path, Path], tmp_path: Path
) -> None:
    inputs = validate_inputs(synthetic[0], [synthetic[1]])
    taken: list[dict[str, Any]] = []
    output = grade(inputs, tmp_path / "out", engine=LocalProcesses(2), on_record=taken.append)
    assert taken == _lines(output.results_path) and len(taken) == inputs.n_runs


def _with_selection(check: Any) -> list[Any]:
    """The default checks with `check` in selection's place."""
    return [check, *(c for c in default_checks() if c.name != "selection")]


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
        grade(inputs, tmp_path / "out", engine=LocalProcesses(2), progress=interrupt)
    assert multiprocessing.active_children() == []
    written = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert len(written) == 40  # what was graded before the interrupt is kept


def test_workers_leave_ctrl_c_to_the_parent() -> None:
    import signal

    before = signal.getsignal(signal.SIGINT)
    try:
        engines._ignore_sigint(None)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


def test_the_default_is_the_cpus_this_process_may_use() -> None:
    import os

    assert engines.available_cpus() == len(os.sched_getaffinity(0))


@pytest.mark.usefixtures("small_chunks")
def test_with_a_judge_grading_stays_in_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_workers(*_: object, **__: object) -> None:
        raise AssertionError("a judged run was sent to worker processes")

    monkeypatch.setattr(jobs, "grade_in_workers", no_workers)
    inputs = validate_inputs(EXAMPLE / "suite.yaml", [EXAMPLE / "runs"],
                             engine=LocalProcesses(2))
    judge = AlwaysPass()
    output = grade(inputs, tmp_path / "out", judge=judge, judge_concurrency=2,
                   engine=LocalProcesses(2))
    assert judge.asked > 0  # the judge in this process answered every request
    assert output.summary.trajectories == inputs.n_runs
