"""`--engine ray --address A` on a cluster of two node processes on this machine (`ray start
--head` and `ray start --address`): the same outputs as `--jobs 1`, graded on both nodes.

The driver is a `toolgrade run` process of its own (one process joins one Ray cluster, and
the tests' local instance is another). About a minute on a busy 2-core machine, most of it
the two `ray start`s."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from builders_jobs import synthetic_suite
from builders_ray import two_node_cluster

OUTPUTS = ("results.jsonl", "transcripts.jsonl", "summary.json", "report.md", "report.html",
           "junit.xml")


def _toolgrade(args: list[str], env: dict[str, str] | None = None) -> str:
    command = [sys.executable, "-m", "toolgrade", "run", *args, "--no-judge"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    return done.stderr


def test_two_ray_nodes_give_the_outputs_of_one_process(tmp_path: Path) -> None:
    # 1,000 runs: five chunks of 200, more than the two nodes' CPUs, so both take some.
    suite, runs = synthetic_suite(tmp_path / "synth", n_runs=1000)
    inputs = [str(suite), str(runs)]
    _toolgrade([*inputs, "--out", str(tmp_path / "one"), "--jobs", "1", "-q"])
    with two_node_cluster(tmp_path) as cluster:
        said = _toolgrade(
            [*inputs, "--out", str(tmp_path / "ray"), "--engine", "ray", "--address",
             cluster.address],
            env=cluster.env,
        )
    assert "graded on Ray: 2 node(s)" in said, said[-2000:]
    for name in OUTPUTS:
        one, on_ray = (tmp_path / d / name for d in ("one", "ray"))
        assert one.read_bytes() == on_ray.read_bytes(), name
    summary = json.loads((tmp_path / "one" / "summary.json").read_text())
    assert summary["trajectories"] == 1000
