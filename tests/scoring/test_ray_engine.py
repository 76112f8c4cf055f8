"""`--engine ray`: Ray tasks change nothing in the outputs, survive a dying worker, keep judged
runs in the driver. One real local Ray instance (2 CPUs) serves the module; chunks are made
small so that a few hundred runs make many tasks."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from builders_adjudication import PARCEL_ROUTE, copy_example
from builders_jobs import DEADLY_CASE, AlwaysPass, KillsItsWorker, synthetic_suite
from builders_ray import free_port, local_ray
from toolgrade.checks import default_checks
from toolgrade.checks.selection import SelectionCheck
from toolgrade.cli.main import app
from toolgrade.errors import InputError
from toolgrade.reporting import ReportStream
from toolgrade.scoring import engines, jobs
from toolgrade.scoring.engines import LocalProcesses, Serial, engine_for
from toolgrade.scoring.ray_engine import RayEngine
from toolgrade.scoring.runner import grade, validate_inputs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "helpdesk"
OUTPUTS = ("results.jsonl", "transcripts.jsonl", "summary.json", "report.md", "report.html",
           "junit.xml")


@pytest.fixture(scope="session")
def ray_instance() -> Iterator[None]:
    """One local Ray instance for every test that grades on Ray."""
    with local_ray():
        yield


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 16 lines, and workers for reading whatever the size of the files."""
    monkeypatch.setattr(engines, "CHUNK_SIZE", 16)
    monkeypatch.setattr(engines, "PARALLEL_BYTES", 0)


@pytest.fixture
def ray_chunks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every (node, process) that answered a chunk, in the order the driver took them."""
    seen: list[tuple[str, int]] = []
    original = RayEngine.note

    def note(self: RayEngine, node: str, pid: int) -> None:
        seen.append((node, pid))
        original(self, node, pid)

    monkeypatch.setattr(RayEngine, "note", note)
    return seen


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return synthetic_suite(tmp_path_factory.mktemp("synth"))


def _cli(suite: Path, runs: Path, out: Path, *engine: str) -> str:
    args = ["run", str(suite), str(runs), "--out", str(out), "--no-judge", *engine]
    result = CliRunner().invoke(app, args)
    assert result.exit_code in (0, 1), result.output
    return result.output


def _adjudicated(tmp_path: Path) -> tuple[Path, Path]:
    """examples/adjudication with a person's decision on one route (graded in the workers)."""
    folder = copy_example(tmp_path)
    decision = {"case_id": "where-is-my-parcel", "route": PARCEL_ROUTE, "decision": "accept",
                "by": "a"}
    (folder / "suite.adjudications.jsonl").write_text(json.dumps(decision) + "\n")
    return folder / "suite.yaml", folder / "runs"


@pytest.mark.usefixtures("ray_instance", "small_chunks")
@pytest.mark.parametrize("example", ["synthetic", "helpdesk", "adjudication"])
def test_every_output_on_ray_is_byte_identical_to_one_process(
    example: str, synthetic: tuple[Path, Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, ray_chunks: list[tuple[str, int]],
) -> None:
    if example == "helpdesk":
        monkeypatch.chdir(EXAMPLE)  # its settings file and relative paths
        suite, runs = EXAMPLE / "suite.yaml", EXAMPLE / "runs"
    elif example == "adjudication":
        monkeypatch.setattr(engines, "CHUNK_SIZE", 2)  # 10 runs
        suite, runs = _adjudicated(tmp_path)
        monkeypatch.chdir(suite.parent)
    else:
        monkeypatch.chdir(tmp_path)
        suite, runs = synthetic
    _cli(suite, runs, tmp_path / "one", "--jobs", "1")
    assert ray_chunks == []  # --jobs 1 never touches Ray
    said = _cli(suite, runs, tmp_path / "ray", "--engine", "ray")
    for name in OUTPUTS:
        one, on_ray = (tmp_path / d / name for d in ("one", "ray"))
        assert one.read_bytes() == on_ray.read_bytes(), name
    n_runs = json.loads((tmp_path / "one" / "summary.json").read_text())["trajectories"]
    # Every run was read and graded by a Ray task, in one pass (one task a chunk), none here.
    assert len(ray_chunks) == -(-n_runs // engines.CHUNK_SIZE)
    assert all(pid != os.getpid() for _, pid in ray_chunks)
    assert "graded on Ray: 1 node(s)" in said


@pytest.mark.usefixtures("ray_instance", "small_chunks")
def test_grade_from_python_takes_a_ray_engine(
    synthetic: tuple[Path, Path], tmp_path: Path, ray_chunks: list[tuple[str, int]]
) -> None:
    inputs = validate_inputs(synthetic[0], [synthetic[1]])
    engine = RayEngine()
    taken: list[dict[str, Any]] = []
    with ReportStream() as one_reports, ReportStream() as ray_reports:
        one = grade(inputs, tmp_path / "one", reports=one_reports)
        on_ray = grade(inputs, tmp_path / "ray", engine=engine, reports=ray_reports,
                       on_record=taken.append)
    assert on_ray.summary.to_json_text() == one.summary.to_json_text()
    assert on_ray.results_path.read_bytes() == one.results_path.read_bytes()
    assert taken == _lines(one.results_path)
    assert len(engine.nodes) == 1 and engine.processes  # the instance's one node
    assert len(ray_chunks) == -(-inputs.n_runs // engines.CHUNK_SIZE)
    engine.close()
    import ray

    assert ray.is_initialized()  # a Ray the engine did not start is left running


@pytest.mark.usefixtures("ray_instance", "small_chunks")
def test_input_problems_are_the_same_on_ray(tmp_path: Path) -> None:
    lines = (EXAMPLE / "runs" / "strong-agent.openai.jsonl").read_text().splitlines()
    broken = [*lines, lines[0], "{not json", '{"case_id": "nope", "steps": []}', *lines[:3]]
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(broken) + "\n")
    said = []
    for engine in (Serial(), RayEngine()):
        with pytest.raises(InputError) as caught:
            validate_inputs(EXAMPLE / "suite.yaml", [runs], engine=engine)
        said.append([str(p) for p in caught.value.problems])
    assert said[0] == said[1]
    assert len(said[0]) >= 5  # duplicates, bad JSON, unknown case


@pytest.mark.usefixtures("ray_instance", "small_chunks")
def test_a_dying_ray_worker_costs_only_the_runs_that_kill_it(tmp_path: Path) -> None:
    suite, runs = synthetic_suite(tmp_path / "synth", n_runs=48)
    inputs = validate_inputs(suite, [runs])
    deadly = grade(inputs, tmp_path / "deadly", checks=_with_selection(KillsItsWorker()),
                   engine=RayEngine())
    sound = grade(inputs, tmp_path / "sound", checks=_with_selection(SelectionCheck()))
    got, expected = _lines(deadly.results_path), _lines(sound.results_path)
    assert len(got) == len(expected) == inputs.n_runs
    killed = [g for g in got if g["case_id"] == DEADLY_CASE]
    assert killed, "the synthetic suite no longer has the deadly case"
    for record in killed:
        for name, check in record["checks"].items():
            assert check["passed"] is None and "worker process" in check["error"], name
    assert [g for g in got if g["case_id"] != DEADLY_CASE] == [
        e for e in expected if e["case_id"] != DEADLY_CASE
    ]
    assert deadly.summary.errors == len(killed) * 4


@pytest.mark.usefixtures("small_chunks")
def test_with_a_judge_grading_stays_in_the_driver(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_workers(*_: object, **__: object) -> None:
        raise AssertionError("a judged run was sent to Ray")

    monkeypatch.setattr(jobs, "grade_in_workers", no_workers)
    inputs = validate_inputs(EXAMPLE / "suite.yaml", [EXAMPLE / "runs"])
    judge = AlwaysPass()
    output = grade(inputs, tmp_path / "out", judge=judge, judge_concurrency=2, engine=RayEngine())
    assert judge.asked > 0  # the judge in this process answered every request
    assert output.summary.trajectories == inputs.n_runs


def test_an_address_nobody_answers_is_exit_2_with_nothing_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["run", str(EXAMPLE / "suite.yaml"), str(EXAMPLE / "runs"), "--out", str(out),
            "--no-judge", "--engine", "ray", "--address", f"127.0.0.1:{free_port()}"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "nothing answers at 127.0.0.1" in result.output
    assert not out.exists()


def test_address_without_the_ray_engine_is_exit_2(tmp_path: Path) -> None:
    args = ["run", str(EXAMPLE / "suite.yaml"), str(EXAMPLE / "runs"), "--out",
            str(tmp_path / "out"), "--address", "127.0.0.1:6379"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "--engine ray" in result.output


def test_the_jobs_number_names_a_local_engine() -> None:
    assert engine_for(1) == Serial() and not Serial().parallel
    assert engine_for(3) == LocalProcesses(3) and LocalProcesses(3).parallel


def test_the_serial_engine_answers_in_order_and_blames_a_chunk_that_raises() -> None:
    def work(items: list[int]) -> list[int]:
        if 5 in items:
            raise ValueError("five")
        return [i * 10 for i in items]

    got = list(Serial().ordered_map(range(8), work, lambda i, why: (i, why), chunk_size=3))
    assert got == [0, 10, 20, (3, "ValueError: five"), (4, "ValueError: five"),
                   (5, "ValueError: five"), 60, 70]


def _with_selection(check: Any) -> list[Any]:
    """The default checks with `check` in selection's place."""
    return [check, *(c for c in default_checks() if c.name != "selection")]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]
