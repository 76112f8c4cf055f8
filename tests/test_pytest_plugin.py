"""The pytest plugin on a small suite, through pytester: one test per case, trial and check."""

from __future__ import annotations

import pytest

import toolgrade.composition.judges  # noqa: F401  (see below)
from builders_foundation import SIMPLE_CASE, steps_run, write_jsonl, write_yaml_suite

# The judges (and numpy under them) are imported by this process before pytester's in-process
# runs: those drop the modules they imported, and numpy cannot load its C modules twice in one
# process (run alone, this file failed 12 of 17 tests with "cannot load module more than once").

pytest_plugins = ["pytester"]

SECOND_CASE = """
- id: c2
  expected:
    selection: {tools: [lookup_order]}
"""

GOOD = steps_run("c1", ("lookup_order", {"order_id": "A1"}),
                 ("refund", {"order_id": "A1", "amount": 10}), trial=0)
# Refund with no lookup before it, and the wrong amount: selection, arguments and ordering fail.
BAD = steps_run("c1", ("refund", {"order_id": "A1", "amount": 99}), trial=1)
ONLY_RUN = steps_run("c2", ("lookup_order", {"order_id": "B2"}))


@pytest.fixture
def suite_files(pytester: pytest.Pytester) -> tuple[str, str]:
    """suite.yaml and runs.jsonl in pytester's folder, as relative paths."""
    write_yaml_suite(pytester.path, SIMPLE_CASE + SECOND_CASE)
    write_jsonl(pytester.path / "runs.jsonl", [GOOD, BAD, ONLY_RUN])
    return "suite.yaml", "runs.jsonl"


def test_one_item_per_case_trial_and_check_named_by_the_check(
        pytester: pytest.Pytester, suite_files: tuple[str, str]) -> None:
    suite, runs = suite_files
    result = pytester.runpytest("--toolgrade-suite", suite, "--toolgrade-runs", runs,
                                "--toolgrade-no-judge", "-v", "-p", "no:cacheprovider")
    # c1 trial 0: 3 pass + recovery skipped; trial 1: 3 fail + skipped; c2: 1 pass + 3 skipped.
    result.assert_outcomes(passed=4, failed=3, skipped=5)
    result.stdout.fnmatch_lines([
        "*collected 12 items",
        "suite.yaml::c1::selection[[]a:0[]] PASSED*",
        "suite.yaml::c1::recovery[[]a:0[]] SKIPPED*",
        "suite.yaml::c1::selection[[]a:1[]] FAILED*",
        "suite.yaml::c2::selection PASSED*",  # a single run: no [agent:trial]
    ])
    text = result.stdout.str()
    # A failing item's id names the case and the check; its report names the failures.
    assert "FAILED suite.yaml::c1::selection[a:1] - selection failed" in text
    assert "FAILED suite.yaml::c1::ordering[a:1] - ordering failed" in text
    assert "missing_tool: expected lookup_order, never called" in text
    assert "order_violation at step 0: lookup_order must come before refund" in text
    assert "Traceback" not in text  # names and evidence, not a stack


def test_k_selects_items_by_check(pytester: pytest.Pytester,
                                  suite_files: tuple[str, str]) -> None:
    suite, runs = suite_files
    result = pytester.runpytest("--toolgrade-suite", suite, "--toolgrade-runs", runs,
                                "--toolgrade-no-judge", "-k", "ordering", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1, skipped=1, deselected=9)


def test_ini_options_collect_the_same_items(pytester: pytest.Pytester,
                                            suite_files: tuple[str, str]) -> None:
    suite, runs = suite_files
    pytester.makeini(f"[pytest]\ntoolgrade_suite = {suite}\ntoolgrade_runs = {runs}\n")
    result = pytester.runpytest("--toolgrade-no-judge", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, failed=3, skipped=5)


def test_without_a_suite_the_plugin_adds_nothing(pytester: pytest.Pytester,
                                                 suite_files: tuple[str, str]) -> None:
    pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_invalid_runs_are_a_usage_error_naming_the_line(pytester: pytest.Pytester,
                                                        suite_files: tuple[str, str]) -> None:
    suite, _ = suite_files
    write_jsonl(pytester.path / "bad.jsonl", [steps_run("nope", ("lookup_order", {}))])
    result = pytester.runpytest("--toolgrade-suite", suite, "--toolgrade-runs", "bad.jsonl",
                                "--toolgrade-no-judge", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "bad.jsonl:1" in result.stderr.str() and "no case 'nope'" in result.stderr.str()


def test_a_suite_without_runs_is_a_usage_error(pytester: pytest.Pytester,
                                               suite_files: tuple[str, str]) -> None:
    suite, _ = suite_files
    result = pytester.runpytest("--toolgrade-suite", suite, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--toolgrade-runs" in result.stderr.str()


def test_a_bad_settings_file_is_a_usage_error(pytester: pytest.Pytester,
                                              suite_files: tuple[str, str]) -> None:
    suite, runs = suite_files
    (pytester.path / "toolgrade.toml").write_text("[judge\n")
    result = pytester.runpytest("--toolgrade-suite", suite, "--toolgrade-runs", runs,
                                "--toolgrade-no-judge", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "toolgrade: configuration error" in result.stderr.str()
    assert "invalid TOML" in result.stderr.str()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_a_failure_due_only_to_unscored_fields_names_them(pytester: pytest.Pytester) -> None:
    write_yaml_suite(pytester.path, """
- id: c1
  expected:
    arguments:
      - tool: refund
        args: {order_id: A1, reason: {semantic: "the item arrived damaged"}}
""")
    run = steps_run("c1", ("refund", {"order_id": "A1", "reason": "broken on arrival"}))
    write_jsonl(pytester.path / "runs.jsonl", [run])
    result = pytester.runpytest("--toolgrade-suite", "suite.yaml", "--toolgrade-runs",
                                "runs.jsonl", "--toolgrade-no-judge", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1, skipped=3)
    assert "refund.reason at step 0 unscored: no judge configured" in result.stdout.str()


def test_a_test_id_given_back_to_pytest_runs_that_test(pytester: pytest.Pytester,
                                                       suite_files: tuple[str, str]) -> None:
    suite, runs = suite_files
    options = ["--toolgrade-suite", suite, "--toolgrade-runs", runs, "--toolgrade-no-judge",
               "-p", "no:cacheprovider"]
    result = pytester.runpytest("suite.yaml::c1::ordering[a:1]", "-v", *options)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*collected 1 item", "suite.yaml::c1::ordering[[]a:1[]] FAILED*"])
    result = pytester.runpytest("suite.yaml::c2", *options)
    result.assert_outcomes(passed=1, skipped=3)


def test_a_suite_outside_the_collected_paths_is_still_added_once(
        pytester: pytest.Pytester, suite_files: tuple[str, str]) -> None:
    suite, runs = suite_files
    pytester.makepyfile(test_plain="def test_ok():\n    assert True\n")
    result = pytester.runpytest("test_plain.py", "--toolgrade-suite", suite, "--toolgrade-runs",
                                runs, "--toolgrade-no-judge", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=5, failed=3, skipped=5)


@pytest.mark.parametrize("given_by", ["ini", "option"])
def test_a_suite_outside_the_rootdir_is_named_by_its_path_from_the_rootdir(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, given_by: str) -> None:
    # The rootdir is project/ (its ini file); the suite sits beside it, named by absolute path.
    outside = pytester.path / "suites"
    outside.mkdir()
    suite = write_yaml_suite(outside, SIMPLE_CASE + SECOND_CASE)
    runs = write_jsonl(outside / "runs.jsonl", [GOOD, BAD, ONLY_RUN])
    project = pytester.mkdir("project")
    if given_by == "ini":
        (project / "pytest.ini").write_text(
            f"[pytest]\ntoolgrade_suite = {suite}\ntoolgrade_runs = {runs}\n")
        options = ["--toolgrade-no-judge", "-p", "no:cacheprovider"]
    else:
        (project / "pytest.ini").write_text("[pytest]\n")
        options = ["--rootdir", str(project), "--toolgrade-suite", str(suite),
                   "--toolgrade-runs", str(runs), "--toolgrade-no-judge", "-p", "no:cacheprovider"]
    monkeypatch.chdir(project)
    result = pytester.runpytest("-v", *options)
    result.assert_outcomes(passed=4, failed=3, skipped=5)
    result.stdout.fnmatch_lines([f"rootdir: {project}",
                                 "../suites/suite.yaml::c1::ordering[[]a:1[]] FAILED*",
                                 "FAILED ../suites/suite.yaml::c1::ordering[[]a:1[]] - *"])
    # The id shown, given back, runs that test and is shown the same way. (`-c`: pytest looks
    # for the ini file above the paths it is given, not above the folder it starts in.)
    result = pytester.runpytest("../suites/suite.yaml::c1::ordering[a:1]", "-v",
                                "-c", "pytest.ini", *options)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*collected 1 item",
                                 "../suites/suite.yaml::c1::ordering[[]a:1[]] FAILED*"])
    # Started below the rootdir, the ids read from there, as pytest shows any test's.
    monkeypatch.chdir(pytester.mkdir("project/sub"))
    result = pytester.runpytest("-v", *options)
    result.stdout.fnmatch_lines(["../../suites/suite.yaml::c1::ordering[[]a:1[]] FAILED*"])


def test_last_failed_reruns_exactly_the_failed_checks(pytester: pytest.Pytester,
                                                      suite_files: tuple[str, str]) -> None:
    suite, runs = suite_files
    options = ("--toolgrade-suite", suite, "--toolgrade-runs", runs, "--toolgrade-no-judge")
    pytester.runpytest(*options).assert_outcomes(passed=4, failed=3, skipped=5)
    # Their ids end in [agent:trial], which pytest's cache reads back as parameters.
    result = pytester.runpytest(*options, "--lf", "-v")
    result.assert_outcomes(failed=3, deselected=9)
    result.stdout.fnmatch_lines(["*rerun previous 3 failures*"])
    result = pytester.runpytest(*options, "--ff", "-v")
    result.stdout.fnmatch_lines(["*selection[[]a:1[]] FAILED*", "*arguments[[]a:1[]] FAILED*",
                                 "*ordering[[]a:1[]] FAILED*", "*selection[[]a:0[]] PASSED*"])


def test_slow_grading_at_collection_prints_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolgrade import pytest_plugin

    clock = iter([0.0, 3.0, 12.0, 15.0, 31.0])
    monkeypatch.setattr(pytest_plugin.time, "monotonic", lambda: next(clock))
    lines: list[str] = []
    progress = pytest_plugin._Progress(lines.append, 4, lambda: "judge calls 7, cache hits 1")
    for done in (1, 2, 3, 4):  # at 3 s, 12 s, 15 s and 31 s
        progress.tick(done)
    assert lines == [
        "toolgrade: graded 2/4 trajectories, judge calls 7, cache hits 1 (12 s)",
        "toolgrade: graded 4/4 trajectories, judge calls 7, cache hits 1 (31 s)",
    ]


def test_fast_grading_prints_nothing(pytester: pytest.Pytester,
                                     suite_files: tuple[str, str]) -> None:
    suite, runs = suite_files
    result = pytester.runpytest("--toolgrade-suite", suite, "--toolgrade-runs", runs,
                                "--toolgrade-no-judge", "-p", "no:cacheprovider")
    assert "toolgrade: graded" not in result.stdout.str()
    assert "toolgrade: grading" not in result.stdout.str()


def test_an_empty_runs_file_is_a_usage_error_naming_it(pytester: pytest.Pytester,
                                                       suite_files: tuple[str, str]) -> None:
    suite, _ = suite_files
    (pytester.path / "empty.jsonl").write_text("\n")
    options = ["--toolgrade-suite", suite, "--toolgrade-runs", "empty.jsonl",
               "--toolgrade-no-judge", "-p", "no:cacheprovider"]
    result = pytester.runpytest(*options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "toolgrade: no runs read from " in result.stderr.str()
    assert "empty.jsonl" in result.stderr.str()
    # Asked for, an empty input is no tests at all, as before.
    allowed = pytester.runpytest(*options, "--toolgrade-allow-empty")
    assert allowed.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_failure_header_names_the_case(pytester: pytest.Pytester,
                                         suite_files: tuple[str, str]) -> None:
    suite, runs = suite_files
    result = pytester.runpytest("--toolgrade-suite", suite, "--toolgrade-runs", runs,
                                "--toolgrade-no-judge", "-p", "no:cacheprovider")
    # Not `___ selection[a:1] ___`: the header says which case failed.
    result.stdout.re_match_lines([r"^_+ c1::selection\[a:1\] _+$"])
