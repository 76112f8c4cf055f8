"""The runtime self-test: a child dying of a signal becomes one clear error, once per build."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from toolgrade.errors import LocalModelError
from toolgrade.judging.local import self_test as rc

REPO = Path(__file__).resolve().parents[2]


class FakeChild:
    """Records the argv it was asked to run and answers with a fixed outcome."""

    def __init__(self, code: int, out: str = '{"ok": true}\n', err: str = "") -> None:
        self.code, self.out, self.err = code, out, err
        self.calls: list[list[str]] = []

    def __call__(self, argv: list[str], timeout: float) -> tuple[int, str, str]:
        self.calls.append(argv)
        return self.code, self.out, self.err


def _lib(tmp_path: Path, name: str = "libggml-cpu.so", body: bytes = b"x") -> Path:
    path = tmp_path / "lib" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return path


@pytest.fixture(autouse=True)
def _no_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(rc.SKIP_ENV, raising=False)


def test_a_passing_self_test_is_remembered_per_build(tmp_path: Path) -> None:
    child = FakeChild(0)
    files = [_lib(tmp_path)]
    marker = rc.ensure_runtime_ok(tmp_path / "m.gguf", run=child, files=files,
                                  cache_dir=tmp_path / "c")
    assert marker is not None and marker.is_file()
    rc.ensure_runtime_ok(tmp_path / "m.gguf", run=child, files=files, cache_dir=tmp_path / "c")
    assert len(child.calls) == 1  # the second load trusts the marker
    assert child.calls[0][1:3] == ["-m", "toolgrade.judging.local.self_test"]


def test_a_rebuilt_runtime_is_tested_again(tmp_path: Path) -> None:
    child = FakeChild(0)
    rc.ensure_runtime_ok(tmp_path / "m", run=child, files=[_lib(tmp_path)], cache_dir=tmp_path)
    rebuilt = [_lib(tmp_path, body=b"a different, longer build")]
    rc.ensure_runtime_ok(tmp_path / "m", run=child, files=rebuilt, cache_dir=tmp_path)
    assert len(child.calls) == 2


def test_sigill_names_the_cause_and_the_rebuild_command(tmp_path: Path) -> None:
    child = FakeChild(-int(signal.SIGILL), out="")
    with pytest.raises(LocalModelError) as caught:
        rc.ensure_runtime_ok(tmp_path / "m", run=child, files=[_lib(tmp_path)], cache_dir=tmp_path)
    message = str(caught.value)
    assert "SIGILL" in message and "CPU instructions" in message
    assert rc.REBUILD_COMMAND in message and "--no-cache-dir" in message
    assert not list(tmp_path.glob("selftest-*.ok"))  # a failure is not remembered


def test_another_signal_and_an_exit_code_are_explained(tmp_path: Path) -> None:
    assert "SIGSEGV" in rc.crash_message(-int(signal.SIGSEGV), "")
    message = rc.crash_message(1, "Traceback...\nValueError: bad magic\n")
    assert "exit 1" in message and "bad magic" in message and rc.REBUILD_COMMAND in message


def test_the_skip_variable_runs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(rc.SKIP_ENV, "1")
    child = FakeChild(-4)
    assert rc.ensure_runtime_ok(tmp_path / "m", run=child, files=[], cache_dir=tmp_path) is None
    assert child.calls == []


def test_the_makefile_builds_with_the_documented_portable_flags() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"LLAMA_CMAKE_ARGS \?= (.*?)\n(?!\s)", makefile, re.DOTALL)
    assert match is not None
    flags = " ".join(match.group(1).replace("\\\n", " ").split())
    assert flags == rc.PORTABLE_CMAKE_ARGS
    assert "--no-cache-dir" in makefile
    assert "-DGGML_NATIVE=OFF" in flags and "-DGGML_AMX_TILE=OFF" in flags
    version = re.search(r"llama-cpp-python==([0-9.]+)", (REPO / "pyproject.toml").read_text())
    assert version is not None and version.group(1) == rc.LLAMA_CPP_VERSION
