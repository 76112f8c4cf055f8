"""Every `toolgrade` command line in README.md's shell blocks, and its pytest line, runs offline.

The README writes placeholders (`SUITE`, `DIR`, `[--agent A]`): each is filled with the helpdesk
example (copied, since `adjudicate --promote` writes into the suite), the importers' test data
and a scripted judge; optional parts are kept, so the line runs as written, with values. A line
added to the README with a placeholder this test does not know fails here, not silently.
The embedded local judge is made unavailable, so the default judge is off on any machine.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_importers import (
    BFCL_ANSWERS,
    BFCL_QUESTIONS,
    BFCL_RESULTS,
    TAU_RUNS,
    TAU_TASKS,
    tau2_results,
)
from toolgrade.cli.main import app
from toolgrade.reporting.viewer.server import ViewerServer

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
HELPDESK = ROOT / "examples" / "helpdesk"
SCRIPT = {"default": {"reason": "scripted: fine", "verdict": "pass"}}

#: A placeholder's value wherever it stands (paths relative to the test's working folder).
VALUES = {
    "SUITE": "helpdesk/suite.yaml", "RUNS": "helpdesk/runs", "RUNS...": "helpdesk/runs",
    "DIR": "out", "CASE": "refund-damaged-01", "A": "mid-agent", "D": "alternate_route",
    "M": "scripted/script.json", "K": "1", "PATH": "alternate_route.jsonl",
    "QUESTIONS": str(BFCL_QUESTIONS), "ANSWERS": str(BFCL_ANSWERS), "RESULTS": str(BFCL_RESULTS),
    "TASKS": str(TAU_TASKS), "RESULTS.json": "tau2_results.json",
    "BASE": "out", "NEW": "out", "FIGURE=X": "aggregate.pass_rate=0.02",
    "DRAFT.yaml": "drafted.yaml",
}
#: A placeholder's value after a given option, where it means something else there.
AFTER = {
    ("--trial", "N"): "0", ("--accept", "N"): "1", ("--out", "FILE"): "record.json",
    ("--trajectories", "FILE"): str(TAU_RUNS), ("--port", "N"): "0", ("--min-runs", "N"): "1",
}
#: Optional parts not run: `--reject` of the item `--accept` accepts on the same line.
LEFT_OUT = ("[--reject N]",)


def _shell_lines(text: str) -> Iterator[str]:
    """The command lines of the ```sh blocks, comments dropped."""
    for block in re.findall(r"```(?:sh|bash|shell)\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            command = re.split(r"\s+#", line, maxsplit=1)[0].strip()
            if command and not command.startswith("#"):
                yield command


def _filled(line: str) -> list[list[str]]:
    """The argument lists a README line stands for (`stats|clear` is two), placeholders filled."""
    for part in LEFT_OUT:
        line = line.replace(part, "")
    words = shlex.split(line.replace("[", " ").replace("]", " "))[1:]  # without `toolgrade`
    commands: list[list[str]] = [[]]
    for index, word in enumerate(words):
        before = words[index - 1] if index else ""
        choices = word.split("|") if "|" in word else [word]
        value = AFTER.get((before, word)) or VALUES.get(word)
        if word == "DIR" and words[0] == "import":
            value = f"imported-{words[1]}"  # not the graded folder
        if value is None and (word.isupper() or word.endswith("...")):
            raise AssertionError(f"README placeholder {word!r} in {line!r}: give it a value")
        commands = [[*c, value or choice] for c in commands for choice in choices]
    return commands


README_COMMANDS = [
    (line, args)
    for line in _shell_lines(README.read_text())
    if line.startswith("toolgrade ")
    for args in _filled(line)
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder with no settings file: the example, the script, the inputs; no local judge."""
    folder = tmp_path_factory.mktemp("readme")
    shutil.copytree(HELPDESK, folder / "helpdesk", ignore=shutil.ignore_patterns("toolgrade.toml"))
    (folder / "script.json").write_text(json.dumps(SCRIPT))
    (folder / "tau2_results.json").write_text(json.dumps(tau2_results()))
    set_lines = (ROOT / "calibration_sets" / "alternate_route.jsonl").read_text().splitlines()
    (folder / "alternate_route.jsonl").write_text("\n".join(set_lines[:6]) + "\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.setattr("toolgrade.judging.local.local_available", lambda *a, **k: False)
        patch.setenv("TOOLGRADE_CACHE_DIR", str(folder / "cache"))  # never the user's cache
        yield folder


def test_the_readme_has_commands_to_run() -> None:
    words = {args[0] for _, args in README_COMMANDS}
    assert {"validate", "run", "report", "show", "import", "cache"} <= words


@pytest.mark.parametrize(("line", "args"), README_COMMANDS,
                         ids=[" ".join(args) for _, args in README_COMMANDS])
def test_a_readme_command_runs(workdir: Path, line: str, args: list[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    if args[0] in ("report", "show", "adjudicate", "view", "compare"):  # they read an output folder
        _graded(workdir)
    if args[0] == "view":  # it serves until Ctrl-C: answer one real request, then stop
        monkeypatch.setattr(ViewerServer, "serve_forever", _serve_one_request)
    result = CliRunner().invoke(app, args)
    assert result.exit_code in (0, 1), f"{line}\n{' '.join(args)}\n{result.output}"
    assert "Traceback" not in result.output


def _serve_one_request(server: ViewerServer, *_: object, **__: object) -> None:
    """Instead of serving forever: fetch the list page through the real socket, then return."""
    pages: list[bytes] = []
    fetch = threading.Thread(target=lambda: pages.append(urllib.request.urlopen(
        server.url, timeout=30).read()))
    fetch.start()
    server.handle_request()
    fetch.join(timeout=30)
    assert pages and b"<html" in pages[0].lower()


def _graded(workdir: Path) -> None:
    if not (workdir / "out" / "summary.json").is_file():
        run = CliRunner().invoke(app, ["run", VALUES["SUITE"], VALUES["RUNS"], "--out", "out"])
        assert run.exit_code in (0, 1), run.output


def test_the_readme_pytest_line_runs(pytester: pytest.Pytester,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    [line] = re.findall(r"`(pytest --toolgrade-suite [^`]*)`", README.read_text())
    shutil.copytree(HELPDESK, pytester.path / "helpdesk",
                    ignore=shutil.ignore_patterns("toolgrade.toml"))
    monkeypatch.setattr("toolgrade.judging.local.local_available", lambda *a, **k: False)
    args = [VALUES.get(word, word) for word in shlex.split(line)[1:]]
    result = pytester.runpytest(*args, "-p", "no:cacheprovider")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stderr.str()
    assert "refund-damaged-01::arguments" in result.stdout.str() + "".join(
        str(r.nodeid) for r in result.reprec.getreports("pytest_runtest_logreport"))
