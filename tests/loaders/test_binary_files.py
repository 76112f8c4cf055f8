"""A file that is not text, given as runs or as a suite, is one problem, not one per line."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from builders_foundation import SIMPLE_CASE, write_yaml_suite
from toolgrade.cli.main import app
from toolgrade.errors import InputError
from toolgrade.jsonio.lines import binary_problem
from toolgrade.loaders import load_runs, load_suite

runner = CliRunner()


def _noise(path: Path, n_bytes: int = 5000, nul: bool = True) -> Path:
    """Seeded random bytes broken into lines, as a compiled program or an archive would be."""
    data = bytearray(random.Random(7).randbytes(n_bytes))
    for at in range(0, n_bytes, 80):
        data[at] = 0x0A  # many lines, so that a line-by-line reader would report many
    if not nul:
        data = data.replace(b"\x00", b"\x01")
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("nul", [True, False])
def test_a_binary_runs_file_is_one_problem(tmp_path: Path, nul: bool) -> None:
    path = _noise(tmp_path / "runs.jsonl", nul=nul)
    with pytest.raises(InputError) as info:
        load_runs([path])
    assert [str(p) for p in info.value.problems] == [f"{path}: not a text file"]


@pytest.mark.parametrize("name", ["suite.jsonl", "suite.yaml"])
def test_a_binary_suite_file_is_one_problem(tmp_path: Path, name: str) -> None:
    path = _noise(tmp_path / name)
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert [str(p) for p in info.value.problems] == [f"{path}: not a text file"]


def test_validate_exits_2_with_the_one_line(tmp_path: Path) -> None:
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    runs = _noise(tmp_path / "runs.jsonl")
    result = runner.invoke(app, ["validate", str(suite), str(runs)])
    assert result.exit_code == 2
    assert f"{runs}: not a text file" in result.output
    assert "1 problem(s)" in result.output


def test_a_utf16_file_is_told_to_be_saved_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes('{"case_id": "c1"}\n'.encode("utf-16"))  # with its byte-order mark
    problem = binary_problem(path)
    assert problem is not None and "UTF-16" in problem.reason and "UTF-8" in problem.reason


@pytest.mark.parametrize(
    "content",
    [
        b'{"case_id": "c1", "steps": []}\n',
        '{"case_id": "caf\u00e9"}\n'.encode("latin-1"),  # text with a bad byte: told per line
        b"\xef\xbb\xbf{}\n",  # a byte-order mark
        b"",
    ],
)
def test_text_files_are_text(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(content)
    assert binary_problem(path) is None


def test_a_latin1_runs_file_still_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes('{"case_id": "caf\u00e9", "steps": []}\n'.encode("latin-1"))
    with pytest.raises(InputError) as info:
        load_runs([path])
    assert str(info.value.problems[0]).startswith(f"{path}:1: not UTF-8 text: byte 0xe9")
