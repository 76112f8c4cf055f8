"""The sha256 of a suite as graded: `summary.json`'s `suite_sha256`, which `toolgrade compare`
reads to tell whether two gradings held the agent to the same suite."""

from __future__ import annotations

import hashlib
from pathlib import Path

from toolgrade.loaders.suite import suite_files


def suite_sha256(path: Path) -> str:
    """The sha256 of the suite's bytes: a file's content; a folder's files in name order,
    each preceded by its path inside the folder (a renamed file is another suite)."""
    digest = hashlib.sha256()
    if not path.is_dir():
        digest.update(path.read_bytes())
        return digest.hexdigest()
    for file in suite_files(path):
        digest.update(file.relative_to(path).as_posix().encode("utf-8") + b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()
