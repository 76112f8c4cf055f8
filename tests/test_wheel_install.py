"""The built wheel installs into a fresh virtual environment and grades the helpdesk example.

What users get is the wheel, not the source tree: a template, prompt or calibration file left
out of the package data only shows here. The wheel is built as `pip` would build it (`python
-m build --wheel`, isolated, setuptools from the package index), installed with `--no-deps`
into a new virtual environment, and run from there. The dependencies come from this test
environment's site-packages by a path entry, so the test stays fast and needs no network
beyond the build backend; `toolgrade` itself must come from the wheel, which the test checks.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HELPDESK = REPO / "examples" / "helpdesk"


def _clean_env() -> dict[str, str]:
    """This process's environment without what would put another toolgrade on the path."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


@pytest.fixture(scope="module")
def fresh_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment holding the freshly built wheel."""
    work = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(work / "dist"), str(REPO)],
        capture_output=True, text=True, timeout=600, env=_clean_env(), check=False)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheel = next((work / "dist").glob("toolgrade-*.whl"))
    env = work / "env"
    venv.EnvBuilder(with_pip=True).create(env)
    python = env / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        capture_output=True, text=True, timeout=300, env=_clean_env(), check=False)
    assert installed.returncode == 0, installed.stderr[-2000:]
    # The dependencies, borrowed by a plain path entry: it adds the directory to sys.path but
    # runs none of its .pth files, so this environment's editable toolgrade stays out.
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                              "['purelib'])"], capture_output=True, text=True,
                             env=_clean_env(), check=True)
    borrowed = "\n".join(site.getsitepackages())
    (Path(purelib.stdout.strip()) / "borrowed_deps.pth").write_text(borrowed + "\n")
    return env


def _run(env: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(env / "bin" / "toolgrade"), *args], capture_output=True,
                          text=True, timeout=600, env=_clean_env(), cwd=env, check=False)


def test_toolgrade_comes_from_the_wheel(fresh_env: Path) -> None:
    found = subprocess.run([str(fresh_env / "bin" / "python"), "-c",
                            "import toolgrade; print(toolgrade.__file__)"],
                           capture_output=True, text=True, cwd=fresh_env, env=_clean_env(),
                           check=True)
    assert str(fresh_env) in found.stdout and str(REPO / "src") not in found.stdout


def test_the_wheel_grades_the_helpdesk_example_with_no_judge(fresh_env: Path,
                                                             tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _run(fresh_env, "run", str(HELPDESK / "suite.yaml"), str(HELPDESK / "runs"),
                  "--no-judge", "--out", str(out))
    assert result.returncode in (0, 1), result.stdout[-2000:] + result.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["trajectories"] == 90 and summary["errors"] == 0
    assert (out / "report.html").stat().st_size > 0
    results = (out / "results.jsonl").read_text().splitlines()
    assert len(results) == summary["trajectories"]
