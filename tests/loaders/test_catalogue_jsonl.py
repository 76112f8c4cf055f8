"""`tools_from` in a JSONL suite: on the file's header line (its first), beside or instead of
`defaults`, applying to every case of the file as a YAML suite's does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from builders_mcp import write_catalogue
from toolgrade.errors import InputError
from toolgrade.loaders import load_suite

ROOT = Path(__file__).resolve().parents[2]
MCP = ROOT / "examples" / "mcp"
CASE = {"id": "c1", "expected": {"selection": {"tools": ["lookup_order", "refund"],
                                               "allow_reads": True}}}


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _problems(path: Path) -> list[str]:
    with pytest.raises(InputError) as caught:
        load_suite(path)
    return [str(p) for p in caught.value.problems]


def test_the_example_suite_as_jsonl_loads_the_same_cases(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_bytes((MCP / "tools.json").read_bytes())
    data = yaml.safe_load((MCP / "suite.yaml").read_text(encoding="utf-8"))
    cases = []
    for case in data["cases"]:  # JSONL has no shared groups: each case carries them
        ordering = case.get("expected", {}).get("ordering")
        if ordering is not None:
            ordering["groups"] = {**data["groups"], **ordering.get("groups", {})}
        cases.append(case)
    jsonl = _write(tmp_path / "suite.jsonl", [{"tools_from": data["tools_from"]}, *cases])
    from_yaml, from_jsonl = load_suite(MCP / "suite.yaml"), load_suite(jsonl)
    assert list(from_jsonl.cases) == list(from_yaml.cases)
    for case_id, case in from_yaml.cases.items():
        assert from_jsonl.cases[case_id] == case
    assert all(case.catalogue is not None for case in from_jsonl.cases.values())


def test_a_header_holds_defaults_and_tools_from_together(tmp_path: Path) -> None:
    write_catalogue(tmp_path / "tools.json")
    header = {"defaults": {"selection": {"allow_failed": True}},
              "tools_from": {"file": "tools.json", "on_drift": "unscored"}}
    case = load_suite(_write(tmp_path / "suite.jsonl", [header, CASE])).cases["c1"]
    assert case.expected.selection is not None and case.expected.selection.allow_failed
    assert case.tools["refund"].side_effect_class == "write"
    assert case.catalogue is not None and case.catalogue.on_drift == "unscored"


def test_a_case_s_own_tool_entry_wins_whole(tmp_path: Path) -> None:
    write_catalogue(tmp_path / "tools.json")
    own = {**CASE, "tools": {"refund": {"parameters": {"type": "object"}}}}
    case = load_suite(_write(tmp_path / "suite.jsonl", [{"tools_from": "tools.json"}, own]))
    assert case.cases["c1"].tools["refund"].side_effect_class == "read"


def test_tools_from_anywhere_but_the_header_is_refused_at_its_line(tmp_path: Path) -> None:
    write_catalogue(tmp_path / "tools.json")
    late = _write(tmp_path / "late.jsonl", [CASE, {"tools_from": "tools.json"}])
    assert f"{late}:2: tools_from: a tools_from line must be the first line of the file " \
           "(it applies to its cases)" in _problems(late)
    in_case = _write(tmp_path / "in_case.jsonl", [{**CASE, "tools_from": "tools.json"}])
    assert _problems(in_case) == [
        f"{in_case}:1: tools_from: a case cannot name a catalogue: put {{\"tools_from\": ...}} "
        "on the file's first line, where it applies to every case of the file"]


def test_header_problems_name_the_file_and_line(tmp_path: Path) -> None:
    extra = _write(tmp_path / "extra.jsonl", [{"tools_from": "tools.json", "x": 1}, CASE])
    write_catalogue(tmp_path / "tools.json")
    assert f"{extra}:1: x: unknown key beside 'tools_from'" in _problems(extra)
    missing = _write(tmp_path / "missing.jsonl", [{"tools_from": "nowhere.json"}, CASE])
    assert any("nowhere.json" in p and "no such catalogue file" in p
               for p in _problems(missing))
    bad = _write(tmp_path / "bad.jsonl", [{"tools_from": {"file": "tools.json", "on_drift": 3}},
                                          CASE])
    assert any(p.startswith(f"{bad}:1: tools_from.on_drift") for p in _problems(bad))
