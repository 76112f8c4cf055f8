"""Suite-wide defaults for the free-call keys: YAML `defaults:` and a JSONL first line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolgrade.errors import InputError
from toolgrade.loaders import load_suite

YAML = """\
defaults:
  selection: {allow_reads: true, allowed: [search_kb]}
tools:
  lookup: {}
  search_kb: {}
  refund: {side_effect: true}
cases:
  - id: plain
    expected: {selection: {tools: [refund]}}
  - id: own
    expected: {selection: {tools: [refund], allow_reads: false, allowed: []}}
  - id: none
    expected: {ordering: {max_calls: {lookup: 2}}}
  - id: no-tool
    expected: {selection: {no_tool: true}}
"""


def _problems(path: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_suite(path)
    return [str(p) for p in info.value.problems]


def test_yaml_defaults_fill_cases_that_leave_the_keys_out(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(YAML)
    cases = load_suite(path).cases
    plain = cases["plain"].expected.selection
    assert plain is not None and plain.allow_reads is True and plain.allowed == ["search_kb"]
    own = cases["own"].expected.selection
    assert own is not None and own.allow_reads is False and own.allowed == []
    assert cases["none"].expected.selection is None  # a default never makes selection apply
    no_tool = cases["no-tool"].expected.selection
    assert no_tool is not None and no_tool.no_tool and not no_tool.allow_reads


def test_jsonl_first_line_defaults_apply_to_that_file(tmp_path: Path) -> None:
    rows = [
        {"defaults": {"selection": {"allow_reads": True}}},
        {"id": "a", "expected": {"selection": {"tools": []}}},
    ]
    (tmp_path / "one.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "two.jsonl").write_text(
        json.dumps({"id": "b", "expected": {"selection": {"tools": []}}}) + "\n")
    cases = load_suite(tmp_path).cases
    a, b = cases["a"].expected.selection, cases["b"].expected.selection
    assert a is not None and a.allow_reads is True
    assert b is not None and b.allow_reads is False


def test_unknown_default_keys_are_located(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(YAML.replace("allowed: [search_kb]", "alowed: [search_kb]")
                    .replace("defaults:\n", "defaults:\n  ordering: {}\n"))
    assert _problems(path) == [
        f"{path}:2: defaults.ordering: unknown key",
        f"{path}:3: defaults.selection.alowed: unknown key",
    ]


def test_jsonl_defaults_line_problems_are_located(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    rows = [
        {"defaults": {"selection": {"allow_reads": "yes"}}, "extra": 1},
        {"id": "a", "expected": {"selection": {"tools": []}}},
        {"defaults": {}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    problems = _problems(path)
    assert f"{path}:1: extra: unknown key beside 'defaults'" in problems
    assert any(p.startswith(f"{path}:1: defaults.selection.allow_reads:") for p in problems)
    assert any(p.startswith(f"{path}:3: defaults: a defaults line must be the first")
               for p in problems)


def test_default_clashing_with_a_case_is_reported_on_the_case(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "defaults: {selection: {allowed: [reset]}}\ncases:\n"
        "  - id: c\n    expected: {selection: {tools: [], forbidden: [reset]}}\n")
    problems = _problems(path)
    assert len(problems) == 1 and "both allowed and forbidden" in problems[0]
    assert problems[0].startswith(f"{path}:4: cases[0].expected.selection")



def test_a_free_tool_missing_from_the_catalogue_is_located(tmp_path: Path) -> None:
    # A typo in `allowed` would free nothing and leave the run's lookups as extra_tool, with
    # no hint why: refused like a typo in `tools`, on the case's own line.
    path = tmp_path / "s.yaml"
    path.write_text(
        "defaults: {selection: {allowed: [serch_kb, lookup]}}\n"
        "tools: {lookup: {}, refund: {side_effect: true}}\ncases:\n"
        "  - id: c\n    expected:\n      selection:\n        tools: [refund]\n"
        "        allowed: [lookup, lookp]\n")
    assert _problems(path) == [
        f"{path}:1: defaults.selection.allowed: 'serch_kb' is not in any case's tool "
        "catalogue, so allowing it frees nothing (a call of it fails as unknown_tool); add it "
        "to `tools` or fix the name",
        f"{path}:8: cases[0].expected.selection.allowed[1]: 'lookp' is not in the tool "
        "catalogue, so allowing it frees nothing (a call of it fails as unknown_tool); add it "
        "to `tools` or fix the name",
    ]


def test_a_default_free_tool_only_some_cases_have_is_fine(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    rows = [
        {"defaults": {"selection": {"allowed": ["search_kb"]}}},
        {"id": "a", "tools": {"x": {}, "search_kb": {}},
         "expected": {"selection": {"tools": ["x"]}}},
        {"id": "b", "tools": {"x": {}}, "expected": {"selection": {"tools": ["x"]}}},
        {"id": "c", "tools": {"x": {}},
         "expected": {"selection": {"tools": ["x"], "allowed": ["y"]}}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert _problems(path) == [
        f"{path}:4: expected.selection.allowed[0]: 'y' is not in the tool catalogue, so "
        "allowing it frees nothing (a call of it fails as unknown_tool); add it to `tools` or "
        "fix the name"]
    rows.pop()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    selection = load_suite(path).cases["b"].expected.selection
    assert selection is not None and selection.allowed == ["search_kb"]
