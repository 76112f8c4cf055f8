"""A one-time self-test of the llama.cpp runtime in a child process, before the first load.

A llama.cpp built for another CPU (a native build that picked AMX or AVX-512 kernels, copied or
cached onto a machine that cannot run them) does not fail on import: it dies with SIGILL inside
the first long-enough prompt, taking the whole toolgrade process with it and printing nothing
useful. So before the model is first loaded in-process, a child process loads it and evaluates
a prompt of about 150 tokens the way the judge does. A child killed by a signal becomes one
clear `LocalModelError` naming the signal, the likely cause and the rebuild command. A passing
test is remembered per build of the runtime (its library files' names, sizes and mtimes), so it
costs one model load per machine and build, not per run.

Nothing here imports llama_cpp in the parent process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from toolgrade.errors import LocalModelError
from toolgrade.judging.local.files import default_cache_dir

#: The runtime version the `local` extra pins (also in pyproject.toml and the Makefile).
LLAMA_CPP_VERSION = "0.3.36"
#: Portable build flags: nothing newer than AVX2/FMA/F16C is compiled in. The Makefile's
#: LLAMA_CMAKE_ARGS holds the same list (a test keeps the two equal).
PORTABLE_CMAKE_ARGS = (
    "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON "
    "-DGGML_F16C=ON -DGGML_BMI2=OFF -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF "
    "-DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF "
    "-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
)
#: What a user runs to replace a runtime that cannot run on this CPU.
REBUILD_COMMAND = (
    f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --no-cache-dir --force-reinstall '
    f"--no-deps llama-cpp-python=={LLAMA_CPP_VERSION}"
)
#: The self-test's prompt length in words (about 150 tokens): past the few dozen tokens after
#: which a wrongly-built runtime switches to the kernels that crash (matrix-matrix batches).
SELFTEST_WORDS = 60
SELFTEST_TIMEOUT_S = 900.0
#: Set to "1" to skip the self-test (e.g. a sandbox that forbids subprocesses).
SKIP_ENV = "TOOLGRADE_SKIP_RUNTIME_SELFTEST"

#: (argv, timeout) -> (returncode, stdout, stderr); tests pass a fake.
ChildRunner = Callable[[list[str], float], tuple[int, str, str]]


def _run_child(argv: list[str], timeout: float) -> tuple[int, str, str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    return done.returncode, done.stdout, done.stderr


def runtime_files() -> list[Path]:
    """The llama_cpp package's shared libraries (found without importing it)."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(next(iter(spec.submodule_search_locations)))
    return sorted(
        p for p in root.rglob("*")
        if p.is_file() and (".so" in p.name or p.suffix in (".dylib", ".dll"))
    )


def build_fingerprint(files: list[Path]) -> str:
    """A short digest naming one build of the runtime: its libraries' names, sizes, mtimes."""
    digest = hashlib.sha256()
    for path in files:
        stat = path.stat()
        digest.update(f"{path.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def marker_path(fingerprint: str, cache_dir: Path | None = None) -> Path:
    """Where a passed self-test of this build is remembered."""
    base = cache_dir or default_cache_dir().parent / "runtime"
    return base / f"selftest-{fingerprint}.ok"


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def crash_message(returncode: int, stderr: str) -> str:
    """The one message a user sees when the runtime's self-test died or failed."""
    if returncode < 0:
        name = _signal_name(returncode)
        cause = (
            "it was built for CPU instructions this machine does not have (a native build, or "
            "a cached wheel built on another machine, e.g. with AMX or AVX-512 kernels)"
            if -returncode == signal.SIGILL
            else "the runtime crashed while evaluating a prompt"
        )
        head = f"the local judge's llama.cpp runtime died with {name} in its self-test: {cause}"
    else:
        tail = stderr.strip().splitlines()[-1:] or ["no error output"]
        head = f"the local judge's llama.cpp runtime failed its self-test (exit {returncode}: "
        head += f"{tail[0][:300]})"
    return f"{head}. Rebuild it for this machine with:\n  {REBUILD_COMMAND}"


def ensure_runtime_ok(
    model_path: Path,
    *,
    run: ChildRunner = _run_child,
    files: list[Path] | None = None,
    cache_dir: Path | None = None,
) -> Path | None:
    """Run the self-test once per runtime build; raise `LocalModelError` if it fails.

    Returns the marker remembering the pass (None when skipped by `TOOLGRADE_SKIP_RUNTIME_
    SELFTEST=1`).
    """
    if os.environ.get(SKIP_ENV) == "1":
        return None
    marker = marker_path(build_fingerprint(files if files is not None else runtime_files()),
                         cache_dir)
    if marker.is_file():
        return marker
    argv = [sys.executable, "-m", "toolgrade.judging.local.self_test", str(model_path)]
    try:
        code, out, err = run(argv, SELFTEST_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise LocalModelError(
            f"the local judge's runtime self-test took over {SELFTEST_TIMEOUT_S:.0f} s; "
            f"set {SKIP_ENV}=1 to skip it on a very slow machine"
        ) from exc
    if code != 0:
        raise LocalModelError(crash_message(code, err))
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(out.strip().splitlines()[-1] if out.strip() else "ok\n", encoding="utf-8")
    return marker


def _selftest_main(model_path: str) -> None:
    """The child: load the model as the judge does and evaluate a long prompt."""
    from toolgrade.judging.local.runtime import LlamaTokenModel, load_llama

    llama = load_llama(model_path)
    model = LlamaTokenModel(llama)
    words = " ".join(f"word{i % 50}" for i in range(SELFTEST_WORDS))
    model.feed(model.prompt_tokens([{"role": "user", "content": words}]))
    model.last_logits()
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")
    print(json.dumps({"ok": True, "system_info": info.strip()}))
    llama.close()


if __name__ == "__main__":  # pragma: no cover - the child process
    _selftest_main(sys.argv[1])
