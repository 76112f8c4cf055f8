"""`toolgrade run` on two "machines" (processes with their own local cache folders) sharing one
Redis: the second asks the model nothing. And a run whose Redis is dead still grades, warned
once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from builders_adjudication import copy_example
from builders_redis import RedisServer, free_port
from toolgrade.cli.main import app

#: Every reply a verdict, so every answer is cached (an unparsed reply is asked again).
SCRIPT = {"rules": [{"when": "Where is my parcel", "reply": {"reason": "tracking", "verdict":
                                                            "pass"}}],
          "default": {"reason": "the route reaches the goal", "verdict": "fail"}}


def machine(tmp_path: Path, url: str) -> Path:
    """A copy of examples/adjudication judged by a script, caching layered on `url`."""
    folder = copy_example(tmp_path)
    (folder / "judge.json").write_text(json.dumps(SCRIPT))
    config = folder / "toolgrade.toml"
    text = config.read_text().replace("scripted/judge_script.json", "scripted/judge.json")
    text = text.replace("use_cache = false", "use_cache = true")
    text = text.replace("[judge.dimensions.result_interpretation]\nenabled = false\n", "")
    config.write_text(f'{text}\n[cache]\nbackend = "layered"\nurl = "{url}"\n')
    return folder


def run(folder: Path, cache_dir: Path, out: str) -> tuple[subprocess.CompletedProcess[str],
                                                          dict[str, Any]]:
    """`toolgrade run` in a process of its own; its result and summary.judges."""
    env = {**os.environ, "TOOLGRADE_CALIBRATION_DIR": str(folder / "records")}
    env.pop("TOOLGRADE_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-m", "toolgrade", "run", "suite.yaml", "runs", "--out", out,
         "--cache-dir", str(cache_dir), "--quiet"],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: a gate of the example may fail
    summary = json.loads((folder / out / "summary.json").read_text())
    return done, summary["judges"]


def calls(judges: dict[str, Any]) -> int:
    return sum(int(block.get("calls", 0)) for block in judges.values())


def hits(judges: dict[str, Any]) -> int:
    return sum(int(block.get("cache_hits", 0)) for block in judges.values())


def test_the_second_machine_makes_no_model_call(tmp_path: Path, redis_server: RedisServer) -> None:
    folder = machine(tmp_path, redis_server.url)
    _, first = run(folder, tmp_path / "machine-a", "out-a")
    _, second = run(folder, tmp_path / "machine-b", "out-b")
    assert calls(first) >= 4 and hits(first) == 0
    assert calls(second) == 0 and hits(second) == calls(first)
    # The same verdicts, each marked as replayed from the cache.
    results_a = (folder / "out-a" / "results.jsonl").read_text()
    results_b = (folder / "out-b" / "results.jsonl").read_text()
    assert '"cached": true' not in results_a and '"cached": true' in results_b
    assert results_b.replace('"cached": true', '"cached": false') == results_a


def test_a_run_with_redis_down_grades_everything_and_warns_once(tmp_path: Path) -> None:
    folder = machine(tmp_path, f"redis://127.0.0.1:{free_port()}/0")
    done, judges = run(folder, tmp_path / "machine-a", "out")
    assert calls(judges) >= 4
    assert all(int(b.get("errors", 0)) == 0 for b in judges.values())
    assert done.stderr.count("Redis unavailable") == 1, done.stderr
    # The local layer kept every verdict: the same machine asks nothing the second time.
    _, again = run(folder, tmp_path / "machine-a", "out-2")
    assert calls(again) == 0 and hits(again) == calls(judges)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--cache-backend", "redis"], 'backend "redis" needs url'),
        (["--cache-url", "http://cache:6379", "--cache-backend", "layered"],
         "'http://cache:6379': not a Redis URL (scheme 'http')"),
    ],
)
def test_bad_cache_options_stop_the_run_before_grading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: list[str], message: str
) -> None:
    folder = copy_example(tmp_path)
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(app, ["run", "suite.yaml", "runs", "--out", "out", *options])
    assert result.exit_code == 2
    assert f"configuration error: cache options: {message}" in result.output
    assert not (folder / "out").exists()  # nothing written


def test_the_command_line_backend_reaches_the_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, redis_server: RedisServer
) -> None:
    folder = machine(tmp_path, redis_server.url)
    config = folder / "toolgrade.toml"
    config.write_text(config.read_text().split("\n[cache]\n")[0])  # no [cache] in the file
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(app, [
        "run", "suite.yaml", "runs", "--out", "out", "--cache-dir", str(tmp_path / "a"),
        "--cache-backend", "redis", "--cache-url", redis_server.url, "--quiet"])
    assert result.exit_code in (0, 1), result.output
    assert redis_server.client().dbsize() == 4
    assert not (tmp_path / "a").exists()  # redis alone: the folder is never made
