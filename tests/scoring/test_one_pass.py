"""Validating and grading in one pass (`--jobs N`, `--engine ray`, no judge): the outputs and
the problems of two passes, and nothing written, nor any model called, before every input is
known valid. Chunks are made small so that a few hundred runs use every worker."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from builders_jobs import DEADLY_CASE, AlwaysPass, KillsItsWorker, synthetic_suite
from toolgrade.checks import default_checks
from toolgrade.checks.selection import SelectionCheck
from toolgrade.cli.main import app
from toolgrade.composition import judges as judge_setup
from toolgrade.errors import InputError
from toolgrade.scoring import engines, jobs
from toolgrade.scoring.engines import LocalProcesses, Serial
from toolgrade.scoring.runner import GradingOptions, grade, validate_and_grade, validate_inputs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "helpdesk"


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 16 lines, and workers for reading whatever the size of the files."""
    monkeypatch.setattr(engines, "CHUNK_SIZE", 16)
    monkeypatch.setattr(engines, "PARALLEL_BYTES", 0)


class NoJudge:
    """Judging off (`runner.JudgeChoice`)."""

    engine = None
    judge_concurrency = 1


class _Hooks:
    """A caller's hooks (`runner.GradingHooks`): no judge, what it was told, and when."""

    def __init__(self, before_write: Any = None, progress: Any = None) -> None:
        self._before_write, self._progress = before_write, progress

    def judges(self, inputs: Any) -> NoJudge:
        return NoJudge()

    def progress(self, total: int | None) -> Any:
        return contextlib.nullcontext(self._progress)

    def before_write(self, inputs: Any) -> None:
        if self._before_write is not None:
            self._before_write(inputs)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return synthetic_suite(tmp_path_factory.mktemp("synth"))


def _cli(suite: Path, runs: Path, out: Path, *extra: str) -> Any:
    args = ["run", str(suite), str(runs), "--out", str(out), "-q", *extra]
    return CliRunner().invoke(app, args)


def _with_bad_line_late(runs: Path, folder: Path) -> Path:
    """The runs with line 290 of 300 broken (a key misspelt): the last chunks but one."""
    lines = runs.read_text().splitlines()
    lines[289] = lines[289].replace('"case_id"', '"case_idd"', 1)
    bad = folder / "runs.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    return bad


def test_a_bad_line_late_is_exit_2_as_with_one_job_and_writes_nothing(
    synthetic: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, runs = synthetic
    bad = _with_bad_line_late(runs, tmp_path)
    said = {}
    for n_jobs in ("1", "2"):
        out = tmp_path / "outs" / f"jobs-{n_jobs}"
        result = _cli(suite, bad, out, "--no-judge", "--jobs", n_jobs)
        assert result.exit_code == 2, result.output
        assert not out.exists()  # neither made nor written
        said[n_jobs] = result.output
    assert said["1"] == said["2"]
    assert f"{bad}:290: case_id: required field missing" in said["2"]
    # Nor its parent folder made, nor anything staged left in the nearest one that exists.
    assert [p.name for p in tmp_path.iterdir()] == ["runs.jsonl"]


def test_a_bad_input_leaves_a_previous_run_as_it_was(
    synthetic: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, runs = synthetic
    out = tmp_path / "out"
    assert _cli(suite, runs, out, "--no-judge", "--jobs", "2").exit_code in (0, 1)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert set(before) >= {"results.jsonl", "transcripts.jsonl", "summary.json"}
    bad = _with_bad_line_late(runs, tmp_path)
    assert _cli(suite, bad, out, "--no-judge", "--jobs", "2").exit_code == 2
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_judge_is_never_called_when_the_input_is_invalid(
    synthetic: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = AlwaysPass()
    set_up: list[object] = []

    def setup_judges(settings: Any, notify: Any, deciding: Any = None) -> Any:
        set_up.append(deciding)
        return judge_setup.JudgeSetup(engine=judge, settings=settings.judge)

    monkeypatch.setattr(judge_setup, "setup_judges", setup_judges)
    suite, runs = synthetic
    bad = _with_bad_line_late(runs, tmp_path)
    result = _cli(suite, bad, tmp_path / "bad", "--jobs", "2")  # the judge on
    assert result.exit_code == 2, result.output
    assert (set_up, judge.asked) == ([], 0)  # not even set up
    assert not (tmp_path / "bad").exists()
    # The same judge, valid input: it is set up and asked (so the patch above holds).
    helpdesk = _cli(EXAMPLE / "suite.yaml", EXAMPLE / "runs", tmp_path / "good", "--jobs", "2")
    assert helpdesk.exit_code in (0, 1), helpdesk.output
    assert len(set_up) == 1 and judge.asked > 0


def test_one_pass_gives_two_passes_outputs_and_problems(
    synthetic: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, runs = synthetic
    two = grade(validate_inputs(suite, [runs]), tmp_path / "two", engine=Serial())
    inputs, one = validate_and_grade(suite, [runs], tmp_path / "one", LocalProcesses(2))
    assert one.summary.to_json_text() == two.summary.to_json_text()
    for name in ("results.jsonl", "transcripts.jsonl"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    assert inputs.n_runs == 300 and len(inputs.agents) == 3
    broken = _with_bad_line_late(runs, tmp_path)
    lines = broken.read_text().splitlines()
    broken.write_text("\n".join([*lines, lines[0], '{"case_id": "nope", "steps": []}']) + "\n")
    problems = []
    with pytest.raises(InputError) as caught:
        validate_inputs(suite, [broken], engine=Serial())
    problems.append([str(p) for p in caught.value.problems])
    with pytest.raises(InputError) as caught:
        validate_and_grade(suite, [broken], tmp_path / "x", LocalProcesses(2))
    problems.append([str(p) for p in caught.value.problems])
    # The misspelt key (two problems), the duplicate and the unknown case, in that order.
    assert problems[0] == problems[1] and len(problems[0]) == 4
    assert not (tmp_path / "x").exists()


def test_one_agent_keeps_its_reliability_keys(tmp_path: Path) -> None:
    # Every run of the helpdesk example's strong agent, many times (trials renumbered).
    lines = (EXAMPLE / "runs" / "strong-agent.openai.jsonl").read_text().splitlines()
    many = []
    for copy in range(20):
        for line in lines:
            run = json.loads(line)
            run["trial"] = run.get("trial", 1) + 100 * copy
            many.append(json.dumps(run))
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(many) + "\n")
    suite = EXAMPLE / "suite.yaml"
    two = grade(validate_inputs(suite, [runs]), tmp_path / "two", engine=Serial())
    inputs, one = validate_and_grade(suite, [runs], tmp_path / "one", LocalProcesses(2))
    assert len(inputs.agents) == 1 and inputs.n_runs > 3 * engines.CHUNK_SIZE
    assert one.summary.to_json_text() == two.summary.to_json_text()
    assert "@" not in "".join(json.loads(one.summary.to_json_text())["reliability"])


def test_before_write_runs_once_the_inputs_are_valid_and_before_anything_is_written(
    synthetic: tuple[Path, Path], tmp_path: Path
) -> None:
    """The output folder is made (prepared by the runner) only once the inputs are valid, and
    the caller's hook sees it empty."""
    suite, runs = synthetic
    out = tmp_path / "deep" / "out"
    seen: list[tuple[int, list[str]]] = []
    ticks: list[tuple[int, int]] = []
    hooks = _Hooks(before_write=lambda inputs: seen.append((inputs.n_runs, sorted(
        p.name for p in out.iterdir()))),
                   progress=lambda done, total: ticks.append((done, total)))
    validate_and_grade(suite, [runs], out, LocalProcesses(2), hooks=hooks)
    assert seen == [(300, [])]
    assert ticks[-1] == (300, 300) and [d for d, _ in ticks] == [*range(1, 301), 300]
    assert (out / "results.jsonl").is_file() and not (tmp_path / "deep").joinpath("x").exists()
    assert sorted(p.name for p in (tmp_path / "deep").iterdir()) == ["out"]  # no staging left


def test_a_dying_worker_costs_only_its_runs_in_one_pass_too(
    synthetic: tuple[Path, Path], tmp_path: Path
) -> None:
    suite, runs = synthetic
    deadly = [KillsItsWorker(), *(c for c in default_checks() if c.name != "selection")]
    sound = [SelectionCheck(), *(c for c in default_checks() if c.name != "selection")]
    _, got = validate_and_grade(suite, [runs], tmp_path / "deadly", LocalProcesses(2),
                                GradingOptions(checks=deadly))
    expected = grade(validate_inputs(suite, [runs]), tmp_path / "sound", checks=sound,
                     engine=Serial())
    got_lines = [json.loads(x) for x in got.results_path.read_text().splitlines()]
    expected_lines = [json.loads(x) for x in expected.results_path.read_text().splitlines()]
    assert len(got_lines) == len(expected_lines) == 300
    killed = [g for g in got_lines if g["case_id"] == DEADLY_CASE]
    assert killed and all("worker process" in g["error"] for g in killed)
    assert [g for g in got_lines if g["case_id"] != DEADLY_CASE] == [
        e for e in expected_lines if e["case_id"] != DEADLY_CASE
    ]


def test_small_inputs_take_two_passes_in_this_process(
    synthetic: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engines, "PARALLEL_BYTES", 1 << 40)

    def no_workers(*_: object, **__: object) -> None:
        raise AssertionError("the one pass ran for a small input")

    monkeypatch.setattr(jobs, "read_in_workers", no_workers)
    suite, runs = synthetic
    seen: list[int] = []
    inputs, output = validate_and_grade(suite, [runs], tmp_path / "out", LocalProcesses(2),
                                        hooks=_Hooks(before_write=lambda i: seen.append(i.n_runs)))
    assert seen == [300] and output.summary.trajectories == inputs.n_runs == 300


def test_a_worker_infers_each_case_s_kinds_once_not_once_a_chunk(
    synthetic: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolgrade.loaders import load_suite
    from toolgrade.loaders.runs import iter_run_sources
    from toolgrade.models import HumanDecisions
    from toolgrade.scoring import tallies

    inferred: list[str] = []
    real = tallies.case_kinds

    def case_kinds(case: Any) -> tuple[str, ...]:
        inferred.append(case.id)
        return real(case)

    monkeypatch.setattr(tallies, "case_kinds", case_kinds)
    suite_path, runs = synthetic
    suite = load_suite(suite_path)
    items = list(iter_run_sources([runs]))
    jobs.start_worker(jobs.Grader(suite, HumanDecisions(), None, True, None))
    for start in range(0, len(items), 16):  # one worker, chunk after chunk
        jobs.read_chunk(items[start:start + 16])
    assert sorted(inferred) == sorted(set(inferred)) and len(inferred) <= len(suite)


def test_the_one_pass_counts_runs_read_not_graded_on_bad_input(
    synthetic: tuple[Path, Path], tmp_path: Path
) -> None:
    """Grading runs ahead of validation: a count of runs "graded" just before "nothing was
    graded" would contradict it, so the one pass says how many it has read."""
    suite, runs = synthetic
    bad = _with_bad_line_late(runs, tmp_path)
    args = ["run", str(suite), str(bad), "--out", str(tmp_path / "out"), "--no-judge"]
    one_pass_said = CliRunner().invoke(app, [*args, "--jobs", "2"]).output
    two_passes_said = CliRunner().invoke(app, [*args, "--jobs", "1"]).output
    assert "nothing was graded" in one_pass_said
    assert "read " in one_pass_said and "graded 0/" not in one_pass_said
    assert not any(line.startswith("graded ") for line in one_pass_said.splitlines())
    # Two passes stop before grading: no count at all.
    assert not any(line.startswith(("read ", "graded ")) for line in two_passes_said.splitlines())
