"""The suite's sha256 that `run` records: a file's bytes, a folder's files with their names."""

from __future__ import annotations

import hashlib
from pathlib import Path

from toolgrade.loaders.suite_digest import suite_sha256


def test_a_file_is_the_sha256_of_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_bytes(b"cases: []\n")
    assert suite_sha256(path) == hashlib.sha256(b"cases: []\n").hexdigest()


def test_a_folder_changes_with_a_file_name_or_content(tmp_path: Path) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "a.yaml").write_text("cases: []\n")
    (folder / "notes.txt").write_text("not a suite file")
    first = suite_sha256(folder)
    (folder / "notes.txt").write_text("changed, and still not a suite file")
    assert suite_sha256(folder) == first
    (folder / "a.yaml").rename(folder / "b.yaml")
    renamed = suite_sha256(folder)
    assert renamed != first
    (folder / "b.yaml").write_text("cases: [] \n")
    assert suite_sha256(folder) != renamed
