"""Start-up: a command imports only what it needs (checked through sys.modules, not timed).

Each case runs in a fresh interpreter, since this test session has long since imported
everything. The heavy modules are the ones that once made `toolgrade --help` take seconds:
jsonschema's IRI grammar (rfc3987_syntax, about 4 s), scipy.optimize (about 1 s), and the
judge stack (litellm, jinja2, diskcache, tenacity, the local runtime).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolgrade.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SUITE = ROOT / "examples" / "helpdesk" / "suite.yaml"
EXAMPLE_RUNS = ROOT / "examples" / "helpdesk" / "runs" / "mid-agent.steps.jsonl"
OTLP_EXPORTS = ROOT / "examples" / "otel" / "exports"

#: Never imported by a command that grades nothing with them.
JUDGE_STACK = ("litellm", "jinja2", "diskcache", "tenacity", "llama_cpp", "redis")
SLOW_IMPORTS = ("rfc3987_syntax", "scipy", "numpy")


def _modules_after(code: str) -> set[str]:
    """Every module imported once `code` has run in a fresh interpreter."""
    probe = f"import sys\n{code}\nprint(__import__('json').dumps(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return set(modules)


def _imported_after(code: str) -> set[str]:
    """The top-level packages imported once `code` has run in a fresh interpreter."""
    return {name.split(".")[0] for name in _modules_after(code)}


def _cli(*args: str) -> str:
    """Code that runs the command line with `args`, as the console script does."""
    return (
        "from toolgrade.cli.main import app\n"
        "try:\n"
        f"    app({list(args)!r})\n"
        "except SystemExit as exc:\n"
        "    assert exc.code in (0, None), exc.code\n"
    )


def test_importing_the_cli_imports_no_heavy_module() -> None:
    imported = _imported_after("import toolgrade.cli.main")
    assert imported.isdisjoint(JUDGE_STACK + SLOW_IMPORTS + ("jsonschema", "yaml")), imported


def test_help_loads_neither_the_models_nor_the_checks() -> None:
    loaded = _modules_after(_cli("--help"))
    for package in ("toolgrade.models", "toolgrade.checks", "toolgrade.loaders"):
        assert package not in loaded, sorted(m for m in loaded if m.startswith("toolgrade"))


@pytest.mark.parametrize(
    "args", [("--help",), ("mcp", "--help"), ("mcp", "record", "--help")]
)
def test_the_mcp_sdk_is_imported_only_by_a_command_that_talks_to_a_server(
    args: tuple[str, ...],
) -> None:
    imported = _imported_after(_cli(*args))
    assert imported.isdisjoint({"mcp", "mcp_types", "anyio", "httpx"}), imported


@pytest.mark.parametrize(
    "args",
    [
        ("validate", str(EXAMPLE_SUITE)),
        ("validate", str(EXAMPLE_SUITE), str(EXAMPLE_RUNS), str(OTLP_EXPORTS)),
        ("schema",),
        ("run", "--help"),
        ("calibrate", "--help"),
        ("show", "--help"),
        ("view", "--help"),
        ("adjudicate", "--help"),
        ("import", "tau2", "--help"),
    ],
)
def test_a_command_that_judges_nothing_imports_no_judge_or_slow_module(
    args: tuple[str, ...],
) -> None:
    imported = _imported_after(_cli(*args))
    assert imported.isdisjoint(JUDGE_STACK + SLOW_IMPORTS), imported & set(
        JUDGE_STACK + SLOW_IMPORTS
    )


def test_validating_a_suite_alone_loads_no_check_runner_or_run_reader() -> None:
    loaded = _modules_after(_cli("validate", str(EXAMPLE_SUITE)))
    for module in (
        "toolgrade.checks.arguments.check",
        "toolgrade.checks.selection",
        "toolgrade.scoring.runner",
        "toolgrade.loaders.runs",
        "toolgrade.loaders.otlp",
    ):
        assert module not in loaded, module


def test_validating_a_suite_checks_its_schemas_without_the_iri_grammar() -> None:
    imported = _imported_after(_cli("validate", str(EXAMPLE_SUITE)))
    assert "jsonschema" in imported  # the tool schemas were checked...
    assert "rfc3987_syntax" not in imported  # ...without building the IRI grammar


def test_show_and_adjudicate_read_a_run_folder_without_the_judges_or_slow_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    monkeypatch.chdir(EXAMPLE_SUITE.parent)
    graded = CliRunner().invoke(
        app, ["run", str(EXAMPLE_SUITE), str(EXAMPLE_RUNS), "--out", str(out), "--no-judge", "-q"]
    )
    assert graded.exit_code in (0, 1), graded.output
    loaded = _modules_after(_cli("show", str(out), "refund-damaged-01"))
    imported = {name.split(".")[0] for name in loaded}
    assert imported.isdisjoint(JUDGE_STACK + SLOW_IMPORTS + ("jsonschema", "yaml")), imported
    assert "toolgrade.checks" not in loaded and "toolgrade.loaders.suite" not in loaded
    # adjudicate loads the suite (yaml, jsonschema) to find the routes, but no judge.
    imported = _imported_after(_cli("adjudicate", str(out), "--no-input"))
    assert imported.isdisjoint(JUDGE_STACK + SLOW_IMPORTS), imported
