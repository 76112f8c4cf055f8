"""pytest plugin: one test per case, trial and check, with the check's name in the test id.

    pytest --toolgrade-suite examples/helpdesk/suite.yaml --toolgrade-runs examples/helpdesk/runs

or in the ini file: `toolgrade_suite = ...` and `toolgrade_runs = ...` (space-separated). Test ids
read `<suite>::<case_id>::<check>`, with `[agent:trial]` appended when a case has several runs.
A failing test's message lists the failure names and their evidence. A check that did not pass
only because items were left undecided (`unscored`: free-text fields with no judge, a route
awaiting adjudication) is skipped, the reason saying how many items and why; with
`--toolgrade-unscored fail` (or `toolgrade_unscored = fail`) it fails instead. Judges follow
the project's configuration (`toolgrade.toml` / `[tool.toolgrade]`); `--toolgrade-no-judge`
turns them off. Run files that hold no run are a usage error unless `--toolgrade-allow-empty`.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from toolgrade.checks import default_checks
from toolgrade.errors import ConfigError, EmptyInputError, InputError, ToolgradeError
from toolgrade.models import CheckResult, TrajectoryResult
from toolgrade.models.check_names import registered_names as check_names
from toolgrade.models.figures import UnscoredField, block_view
from toolgrade.reporting.junit import unscored_line, unscored_message


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the plugin's options and ini keys."""
    group = parser.getgroup("toolgrade")
    group.addoption("--toolgrade-suite", default=None, help="toolgrade suite to collect as tests")
    group.addoption("--toolgrade-runs", action="append", default=None,
                    help="run file or folder (repeatable)")
    group.addoption("--toolgrade-no-judge", action="store_true", default=False,
                    help="grade without LLM judges (judge-only fields unscored)")
    group.addoption("--toolgrade-allow-empty", action="store_true", default=False,
                    help="accept run files that hold no run (no tests); without it they are a "
                         "usage error, so that a CI job that recorded nothing does not pass")
    group.addoption("--toolgrade-unscored", choices=UNSCORED_OUTCOMES, default=None,
                    help="what an unscored check is: skip (default; the skip reason says how "
                         "many items and why) or fail")
    parser.addini("toolgrade_suite", "toolgrade suite to collect as tests", default="")
    parser.addini("toolgrade_runs", "toolgrade run files or folders", type="args", default=[])
    parser.addini("toolgrade_unscored", "unscored checks: skip or fail", default="skip")


#: What an unscored check can be made in pytest (`--toolgrade-unscored`).
UNSCORED_OUTCOMES = ("skip", "fail")


class ToolgradeCheckItem(pytest.Item):
    """One check of one graded trajectory."""

    def __init__(self, *, result: CheckResult, record: TrajectoryResult, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.result = result
        self.record = record

    def runtest(self) -> None:
        """Fail when the check did not pass; skip when it had no reference."""
        if not self.result.applicable:
            pytest.skip(f"{self.result.check}: not applicable (no reference in the case)")
        if self.result.passed is True:
            return
        block = self.result.to_json()
        if block["status"] == "unscored" and _unscored_outcome(self.config) == "skip":
            # Neither passed nor failed: only undecided items kept it from passing.
            pytest.skip(unscored_message(self.result.check, block))
        raise ToolgradeCheckFailure(self.result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        """The failure names and their evidence instead of a traceback."""
        if isinstance(excinfo.value, ToolgradeCheckFailure):
            return excinfo.value.describe()
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the test comes from, for pytest's report: `case_id::check[agent:trial]`,
        so a failure's header names the case, not the check alone."""
        return self.path, None, f"{self.record.case_id}::{self.name}"


class ToolgradeCheckFailure(ToolgradeError, AssertionError):
    """A check that did not pass, carrying its result."""

    def __init__(self, result: CheckResult) -> None:
        super().__init__(result.check)
        self.result = result

    def describe(self) -> str:
        """`check failed (score 0.5): name@step: message` lines."""
        r = self.result
        score = "n/a" if r.score is None else f"{r.score:.3f}"
        block = r.to_json()
        # Whichever check writes undecided fields (the arguments check does).
        unscored: list[UnscoredField] = block_view(block).get("unscored_fields") or []
        if block["status"] == "unscored":  # --toolgrade-unscored fail
            return unscored_message(r.check, block) + "\n" + "\n".join(
                f"  {unscored_line(u)}" for u in unscored)
        lines = [f"{r.check} failed (score {score})"]
        lines += [f"  {f.name}{'' if f.step is None else f' at step {f.step}'}: {f.message}"
                  for f in r.failures]
        lines += [f"  {unscored_line(u)}" for u in unscored]
        if "error" in block:
            lines.append(f"  check crashed: {block['error']}")
        return "\n".join(lines)


def _unscored_outcome(config: pytest.Config) -> str:
    """`skip` or `fail`: the option, else the ini key (checked against the choices)."""
    value = config.getoption("--toolgrade-unscored") or config.getini("toolgrade_unscored")
    if value not in UNSCORED_OUTCOMES:
        raise pytest.UsageError(f"toolgrade_unscored = {value!r}: expected skip or fail")
    return str(value)


class ToolgradeSuite(pytest.File):
    """The suite file as a collector of one `ToolgradeCase` per case, in input order.

    A `File` (not a bare `Collector`) so node ids read `suite.yaml::case::check`, relative to
    the rootdir like any test file, instead of `::suite.yaml::...`; one collector per case, so
    pytest can find a node id given back to it (`pytest "suite.yaml::c1::ordering[a:1]"`).
    """

    def __init__(self, *, records: list[TrajectoryResult], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.records = records

    def collect(self) -> Iterable[pytest.Collector]:
        """A collector per case, in the order the runs name them."""
        by_case: dict[str, list[TrajectoryResult]] = {}
        for record in self.records:
            by_case.setdefault(record.case_id, []).append(record)
        for case_id, records in by_case.items():
            yield ToolgradeCase.from_parent(self, name=case_id, records=records)


class ToolgradeCase(pytest.Collector):
    """One case: an item per run and check, named `check` or `check[agent:trial]`."""

    def __init__(self, *, records: list[TrajectoryResult], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.records = records

    def collect(self) -> Iterable[pytest.Item]:
        """The items, in input order."""
        several = len(self.records) > 1
        for record in self.records:
            suffix = f"[{record.agent or 'agent'}:{record.trial}]" if several else ""
            for check in check_names():
                result = record.checks.get(check)
                if result is None:
                    continue
                name = f"{check}{suffix}"
                # The id is given as text, as pytest's cache holds it: pytest 9 reads the
                # `[agent:trial]` of a cached id as parameters, so an id built from the name
                # would never equal it and --lf / --ff would find no previous failure.
                yield ToolgradeCheckItem.from_parent(
                    self, name=name, nodeid=f"{self.nodeid}::{name}", result=result, record=record
                )


#: Seconds between progress lines while grading at collection time (a slow judge can take
#: minutes; a silent pytest looks hung).
PROGRESS_EVERY_S = 10.0


def _writer(config: pytest.Config) -> Callable[[str], None]:
    """Print a line to the terminal even while pytest captures output (collection time)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        return lambda line: reporter.write_line(line)
    return lambda line: print(line, file=sys.stderr, flush=True)


class _Progress:
    """`toolgrade: graded 4/20 trajectories, judge calls 12, cache hits 3 (41 s)`, at most every
    `PROGRESS_EVERY_S` seconds, and once at the end when grading took that long."""

    def __init__(self, say: Callable[[str], None], total: int, status: Callable[[], str]) -> None:
        self._say, self._total, self._status = say, total, status
        self._start = self._last = time.monotonic()

    def tick(self, done: int) -> None:
        """Report `done` graded trajectories if the last line is old enough (or at the end)."""
        now = time.monotonic()
        end = done == self._total
        if now - self._last < PROGRESS_EVERY_S and not (end and now - self._start >= 1.0):
            return
        self._last = now
        self._say(f"toolgrade: graded {done}/{self._total} trajectories, {self._status()} "
                  f"({now - self._start:.0f} s)")


def _grade(
    suite: Path, runs: list[Path], no_judge: bool, say: Callable[[str], None] | None = None,
    *, allow_empty: bool = False,
) -> list[TrajectoryResult]:
    from toolgrade.composition.judges import setup_judges
    from toolgrade.scoring.grading import as_graded
    from toolgrade.scoring.runner import grade_trajectory, require_runs, validate_inputs
    from toolgrade.settings import load_settings

    say = say or (lambda line: None)
    inputs = validate_inputs(suite, runs)
    if not allow_empty:
        require_runs(inputs)
    settings = load_settings()
    if no_judge:
        judge = settings.judge.model_copy(update={"enabled": False})
        settings = settings.model_copy(update={"judge": judge})
    from toolgrade.checks.adjudication import deciding_dimensions

    deciding = deciding_dimensions(inputs.suite.cases.values())
    judges = setup_judges(
        settings, notify=lambda message: say(f"toolgrade: {message}"), deciding=deciding
    )
    checks = default_checks()
    from toolgrade.loaders import iter_runs

    pending = [run for _, _, run, _ in iter_runs(inputs.files, inputs.otlp) if run is not None]
    if judges.engine is not None:
        say(f"toolgrade: grading {len(pending)} trajectories with LLM judges before collection")
    progress = _Progress(say, len(pending), judges.status_line)
    records = []
    try:
        for run in pending:
            case = inputs.suite.cases[run.case_id]
            records.append(grade_trajectory(case, as_graded(case, run), checks, judges.engine,
                                            inputs.suite.base_dir, inputs.decisions))
            progress.tick(len(records))
    finally:
        if judges.engine is not None:
            judges.engine.close()  # flush the verdict cache
    return records


def _paths(config: pytest.Config) -> tuple[Path, list[Path]] | None:
    """The suite and run paths: options relative to the invocation folder, ini keys to the
    ini file's folder (else the rootdir)."""
    suite_opt = config.getoption("--toolgrade-suite")
    runs_opt = config.getoption("--toolgrade-runs")
    cli_base = config.invocation_params.dir
    ini_base = config.inipath.parent if config.inipath is not None else config.rootpath
    suite_base = cli_base if suite_opt else ini_base
    suite_opt = suite_opt or config.getini("toolgrade_suite")
    if not suite_opt:
        return None
    runs_base = cli_base if runs_opt else ini_base
    runs_opt = runs_opt or config.getini("toolgrade_runs")
    if not runs_opt:
        raise pytest.UsageError("toolgrade: --toolgrade-suite needs --toolgrade-runs")
    return suite_base / suite_opt, [runs_base / r for r in runs_opt]


_RECORDS = pytest.StashKey[list[TrajectoryResult]]()


def _records(config: pytest.Config, suite: Path, runs: list[Path]) -> list[TrajectoryResult]:
    """The suite graded once per session (both hooks below may ask)."""
    if _RECORDS not in config.stash:
        try:
            no_judge = bool(config.getoption("--toolgrade-no-judge"))
            allow_empty = bool(config.getoption("--toolgrade-allow-empty"))
            config.stash[_RECORDS] = _grade(suite, runs, no_judge, _writer(config),
                                            allow_empty=allow_empty)
        except InputError as exc:
            raise pytest.UsageError("toolgrade: invalid input:\n" + str(exc)) from exc
        except EmptyInputError as exc:
            raise pytest.UsageError(
                f"toolgrade: {exc} (--toolgrade-allow-empty accepts an empty input)") from exc
        except ConfigError as exc:  # settings file, judge cache, calibration floors
            raise pytest.UsageError(f"toolgrade: configuration error: {exc}") from exc
    return config.stash[_RECORDS]


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    """Grade before collecting: bad input or settings stop the session as a usage error
    (raised while collecting a file, they would be that file's collection error instead)."""
    paths = _paths(session.config)
    if paths is not None:
        _records(session.config, *paths)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> ToolgradeSuite | None:
    """Collect the configured suite file where pytest meets it, so that its node ids given
    on the command line are found; other suites are collected by the hook below."""
    paths = _paths(parent.config)
    if paths is None or not paths[0].is_file() or file_path.resolve() != paths[0].resolve():
        return None
    return _suite_collector(parent, file_path, _records(parent.config, *paths))


def _suite_collector(
    parent: pytest.Collector, path: Path, records: list[TrajectoryResult]
) -> ToolgradeSuite:
    """The suite's collector, with the node id pytest gives a file under the rootdir (its path
    relative to the rootdir).

    For a suite outside the rootdir pytest's own id would leave the path out
    (`::suite.yaml::c1::check`, or `::c1::check` when run again by that id), so the id is
    the path relative to the rootdir through `..` instead, as pytest proposes for such files
    (pytest-dev/pytest#11245); its report shows it relative to where pytest was started.
    """
    path = Path(os.path.abspath(path))  # the same path, and id, however the suite was named
    nodeid = None
    if not path.is_relative_to(parent.config.rootpath):
        try:
            nodeid = Path(os.path.relpath(path, parent.config.rootpath)).as_posix()
        except ValueError:  # on another drive than the rootdir (Windows): no relative path
            nodeid = path.as_posix()
    return ToolgradeSuite.from_parent(parent, path=path, nodeid=nodeid, records=records)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """Append the suite's items when a suite is configured and pytest collected none of them
    (it collects them itself when its paths reach the suite file, or a node id in it).

    `tryfirst` so the items exist before `-k` / `-m` deselection runs; the collect report
    makes the terminal count them ("collected N items").
    """
    paths = _paths(config)
    if paths is None or any(isinstance(item, ToolgradeCheckItem) for item in items):
        return
    collector = _suite_collector(session, paths[0], _records(config, *paths))
    collected = list(_expand(collector))
    report = pytest.CollectReport(collector.nodeid, "passed", None, list(collected))
    config.hook.pytest_collectreport(report=report)
    items.extend(collected)


def _expand(node: pytest.Collector) -> Iterable[pytest.Item]:
    for child in node.collect():
        if isinstance(child, pytest.Collector):
            yield from _expand(child)
        else:
            yield child
