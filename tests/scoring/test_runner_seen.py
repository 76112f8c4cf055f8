"""The duplicate-run index of validate_inputs: same messages, across files, trials and agents."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders_foundation import SIMPLE_CASE, steps_run, write_jsonl, write_yaml_suite
from toolgrade.errors import InputError
from toolgrade.scoring.runner import validate_inputs


def problems(suite: Path, runs: list[Path]) -> list[str]:
    """The problems validate_inputs raises."""
    with pytest.raises(InputError) as info:
        validate_inputs(suite, runs)
    return [str(p) for p in info.value.problems]


def test_a_duplicate_in_another_file_names_where_it_was_first(tmp_path: Path) -> None:
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    first = write_jsonl(tmp_path / "a.jsonl", [steps_run("c1", trial=0), steps_run("c1", trial=1)])
    second = write_jsonl(tmp_path / "b.jsonl", [steps_run("c1", trial=2), steps_run("c1", trial=1)])
    assert problems(suite, [first, second]) == [
        f"{second}:2: trial: duplicate run of case 'c1' trial 1 agent 'a' (first at {first}:2)"
    ]


def test_same_trial_of_other_agents_is_no_duplicate(tmp_path: Path) -> None:
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    runs = write_jsonl(
        tmp_path / "r.jsonl",
        [steps_run("c1", agent="a"), steps_run("c1", agent="b"), steps_run("c1", agent=None)],
    )
    assert validate_inputs(suite, [runs]).n_runs == 3


def test_every_repeat_points_at_the_first_run(tmp_path: Path) -> None:
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    runs = write_jsonl(tmp_path / "r.jsonl", [steps_run("c1", agent=None)] * 3)
    assert problems(suite, [runs]) == [
        f"{runs}:{n}: trial: duplicate run of case 'c1' trial 0 agent None (first at {runs}:1)"
        for n in (2, 3)
    ]


TWO_CASES = """
- id: "a@b"
  expected:
    selection: {tools: [lookup_order]}
- id: a
  expected:
    selection: {tools: [lookup_order]}
"""


@pytest.mark.parametrize(
    ("first", "second", "key"),
    [
        (("a@b", "c"), ("a", "b@c"), "a@b@c"),
        (("a", None), ("a", "(unnamed)"), "a@(unnamed)"),
    ],
)
def test_pairs_whose_reliability_keys_are_spelt_alike_are_refused(
    tmp_path: Path, first: tuple[str, str | None], second: tuple[str, str | None], key: str
) -> None:
    suite = write_yaml_suite(tmp_path, TWO_CASES)
    runs = write_jsonl(
        tmp_path / "r.jsonl",
        [steps_run(case, agent=agent) for case, agent in (first, second)],
    )
    (problem,) = problems(suite, [runs])
    assert problem.startswith(f"{runs}:2: agent: case {second[0]!r} by agent {second[1]!r}")
    assert f"share the reliability key {key!r}" in problem


def test_an_agent_name_holding_an_at_sign_is_no_clash(tmp_path: Path) -> None:
    suite = write_yaml_suite(tmp_path, TWO_CASES)
    runs = write_jsonl(
        tmp_path / "r.jsonl", [steps_run("a", agent="gpt@2024"), steps_run("a", agent="gpt")]
    )
    assert validate_inputs(suite, [runs]).n_runs == 2
