"""Inputs that only Python's lenient readers accept are reported on their line, never crash later.

NaN and Infinity (read as text), float overflow, bytes that are not UTF-8, lone surrogate
escapes, a byte-order mark and deep nesting, in run files, JSONL suites, YAML suites and
settings files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders_foundation import steps_run, write_yaml_suite
from toolgrade.errors import ConfigError, InputError
from toolgrade.jsonio.lines import MAX_DEPTH, decode_line
from toolgrade.loaders import load_runs, load_suite
from toolgrade.loaders.runs import parse_line, read_line
from toolgrade.settings import load_settings

CALL = '{"case_id":"c1","steps":[{"tool":"t","args":{"x":%s}}]}'


def _run_problems(tmp_path: Path, *lines: bytes) -> list[str]:
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    with pytest.raises(InputError) as info:
        load_runs([path])
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ('"\\ud800"', "lone surrogate"),
        ('"caf\xe9"', "not UTF-8 text: byte 0xe9 at column"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), f"nested deeper than {MAX_DEPTH}"),
        ("[" * 5000 + "]" * 5000, f"nested deeper than {MAX_DEPTH}"),
    ],
)
def test_non_strict_run_values_are_located(tmp_path: Path, value: str, reason: str) -> None:
    good = json.dumps(steps_run("c1", ("t", {"x": 1}))).encode()
    line = (CALL % value).encode("latin-1" if "\xe9" in value else "utf-8")
    (problem,) = _run_problems(tmp_path, good, line)
    assert problem.startswith(f"{tmp_path / 'r.jsonl'}:2: ") and reason in problem


@pytest.mark.parametrize(
    "value",
    ['"\\ud83d\\ude00 is fine"', '"NaN and 1e999 and Infinity as text"', "1e300", "-2.5E+10"],
)
def test_strict_values_that_look_alike_are_read(tmp_path: Path, value: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(CALL % value + "\n", encoding="utf-8")
    (run,) = load_runs([path])
    assert run.calls[0][1].args == {"x": json.loads(value)}


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_python_s_non_json_numbers_read_as_the_strings_they_spell(
    tmp_path: Path, token: str
) -> None:
    # json.dumps writes them by default: a recorded trace is read, not refused, and every
    # output stays valid JSON.
    line = ('{"case_id":"c1","steps":[{"tool":"t","args":{"x":TOKEN},'
            '"result":{"status":"ok","content":[TOKEN]}}]}').replace("TOKEN", token)
    run, problems = read_line(line, tmp_path / "r.jsonl", 1)
    assert problems == [] and run is not None
    call = run.calls[0][1]
    assert call.args == {"x": token} and call.result is not None
    assert call.result.content == [token]


def test_a_number_too_large_for_a_float_reads_as_infinity_on_both_paths(tmp_path: Path) -> None:
    plain, _ = read_line(CALL % "1e999", tmp_path, 1)
    value, problem = decode_line(tmp_path, 1, CALL % "1e999")
    careful, _ = parse_line(value, "r.jsonl", 1)
    assert problem is None
    chat = (
        '{"case_id":"c1","messages":[{"role":"assistant","tool_calls":[{"id":"1",'
        '"function":{"name":"t","arguments":"{\\"x\\": 1e999}"}}]}]}'
    )
    from_chat, problems = read_line(chat, tmp_path, 1)
    assert problems == []
    for run in (plain, careful, from_chat):
        assert run is not None and run.calls[0][1].args == {"x": float("inf")}


def test_nesting_past_the_fast_path_but_within_the_limit_is_read(tmp_path: Path) -> None:
    depth = MAX_DEPTH - 10  # deeper than pydantic-core's 200, so read the careful way
    trajectory, problems = read_line(CALL % ("[" * depth + "]" * depth), tmp_path, 1)
    assert problems == [] and trajectory is not None


def test_byte_order_mark_is_dropped_in_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("\ufeff" + json.dumps(steps_run("c1")) + "\n", encoding="utf-8")
    (run,) = load_runs([path])
    assert run.case_id == "c1"
    suite = tmp_path / "s.jsonl"
    suite.write_text("\ufeff" + json.dumps({"id": "a"}) + "\n", encoding="utf-8")
    assert list(load_suite(suite).cases) == ["a"]


def test_jsonl_suite_reads_nan_as_text(tmp_path: Path) -> None:
    suite = tmp_path / "s.jsonl"
    suite.write_text('{"id": "a"}\n{"id": "b", "metadata": {"w": NaN}}\n', encoding="utf-8")
    assert load_suite(suite).cases["b"].metadata == {"w": "NaN"}


def test_yaml_suite_with_latin1_byte_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes(b'cases:\n  - id: c1\n    input: "caf\xe9"\n')
    with pytest.raises(InputError) as info:
        load_suite(path)
    (problem,) = info.value.problems
    assert problem.line == 3
    assert problem.reason == "not UTF-8 text: byte 0xe9 (save the file as UTF-8)"


def test_settings_file_with_latin1_byte_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "toolgrade.toml"
    path.write_bytes(b'[gates]\n"selection.f1" = 0.9 # caf\xe9\n')
    with pytest.raises(ConfigError, match=r"toolgrade.toml:2: not UTF-8 text: byte 0xe9"):
        load_settings(path)


def test_weights_must_be_finite_and_not_negative(tmp_path: Path) -> None:
    path = write_yaml_suite(
        tmp_path,
        """
        - id: c1
          scoring: {mode: weighted, weights: {selection: .nan, arguments: -1}, threshold: .inf}
        """,
    )
    with pytest.raises(InputError) as info:
        load_suite(path)
    found = {p.field: p.reason for p in info.value.problems}
    assert set(found) == {
        "cases[0].scoring.weights.selection",
        "cases[0].scoring.weights.arguments",
        "cases[0].scoring.threshold",
    }
    assert "finite" in found["cases[0].scoring.weights.selection"]
    assert "greater than or equal to 0" in found["cases[0].scoring.weights.arguments"]
