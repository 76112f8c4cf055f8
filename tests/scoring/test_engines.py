"""The `Engine` protocol: every engine declares what callers use, the one size threshold, and
the engine `--engine`/`--jobs`/`--address` name."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolgrade.errors import ConfigError
from toolgrade.scoring import engines
from toolgrade.scoring.engines import Engine, LocalProcesses, Serial, hands_out
from toolgrade.scoring.ray_engine import RayEngine
from toolgrade.scoring.runner import engine_named

#: What the protocol declares (its public members), read from the class itself.
DECLARED = sorted(name for name in vars(Engine) if not name.startswith("_"))


def test_the_protocol_declares_what_callers_use() -> None:
    assert DECLARED == ["close", "describe", "open", "ordered_map", "parallel"]


@pytest.mark.parametrize("engine", [Serial(), LocalProcesses(2), RayEngine()],
                         ids=["serial", "processes", "ray"])
def test_every_engine_implements_every_declared_member(engine: Engine) -> None:
    missing = [name for name in DECLARED if not hasattr(type(engine), name)]
    assert missing == []


def test_only_ray_describes_where_it_graded() -> None:
    ray = RayEngine()
    ray.note("node-a", 11)
    ray.note("node-a", 12)
    assert Serial().describe() is None and LocalProcesses(2).describe() is None
    assert ray.describe() == "graded on Ray: 1 node(s), 2 worker process(es)"


def test_opening_and_closing_a_local_engine_twice_is_harmless() -> None:
    for engine in (Serial(), LocalProcesses(2)):
        engine.close()
        engine.close()
    Serial().open()


def test_the_one_threshold_is_bytes_of_run_files(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_bytes(b"x" * 100)
    monkeypatch.setattr(engines, "PARALLEL_BYTES", 100)
    assert hands_out(LocalProcesses(2), [runs])
    assert not hands_out(Serial(), [runs])  # this process, whatever the size
    assert not hands_out(LocalProcesses(1), [runs])
    monkeypatch.setattr(engines, "PARALLEL_BYTES", 101)
    assert not hands_out(LocalProcesses(2), [runs, tmp_path / "missing.jsonl"])


def test_the_engine_the_options_name() -> None:
    assert engine_named("local", jobs=1, address=None) == Serial()
    assert engine_named("local", jobs=3, address=None) == LocalProcesses(3)
    with pytest.raises(ConfigError, match="--address is the Ray cluster's"):
        engine_named("local", jobs=2, address="127.0.0.1:1")
