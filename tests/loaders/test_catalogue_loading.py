"""A suite's `tools_from`: catalogue tools as shared tools, side-effect classes, the stamp."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders_mcp import HELPDESK_TOOLS, mcp_tool, write_catalogue, write_mcp_suite
from toolgrade.errors import InputError
from toolgrade.loaders import load_suite

CASE = """\
  - id: c1
    expected:
      selection: {tools: [lookup_order, refund], allow_reads: true}
"""


def test_tools_come_from_the_catalogue_with_their_side_effect_classes(tmp_path: Path) -> None:
    write_catalogue(tmp_path / "tools.json")
    case = load_suite(write_mcp_suite(tmp_path, CASE)).cases["c1"]
    classes = {name: spec.side_effect_class for name, spec in case.tools.items()}
    assert classes == {"lookup_order": "read", "refund": "write",
                       "delete_account": "destructive", "search_kb": "read"}
    assert case.tools["lookup_order"].parameters["required"] == ["order_id"]
    assert case.free_tools() == {"lookup_order", "search_kb"}


def test_every_case_carries_the_catalogue_stamp(tmp_path: Path) -> None:
    document = json.loads(write_catalogue(tmp_path / "tools.json").read_text())
    case = load_suite(write_mcp_suite(tmp_path, CASE)).cases["c1"]
    assert case.catalogue is not None
    assert case.catalogue.hash == document["hash"]
    assert case.catalogue.tools["refund"] == document["tools"][1]["hash"]


def test_the_suite_settings_override_the_annotations(tmp_path: Path) -> None:
    write_catalogue(tmp_path / "tools.json")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "tools_from: {file: tools.json, side_effects: {search_kb: write}, on_drift: unscored}\n"
        "tools:\n  refund: {parameters: {type: object}}\n"
        f"cases:\n{CASE}", encoding="utf-8")
    case = load_suite(suite).cases["c1"]
    assert case.tools["search_kb"].side_effect_class == "write"
    assert case.tools["refund"].side_effect_class == "read"  # the suite's own entry wins whole
    assert case.catalogue is not None and case.catalogue.on_drift == "unscored"


def test_a_broken_schema_is_one_line_naming_the_catalogue_and_tool(tmp_path: Path) -> None:
    broken = [*HELPDESK_TOOLS[:1], mcp_tool("refund") | {"inputSchema": {"type": "objekt"}}]
    write_catalogue(tmp_path / "tools.json", broken)
    with pytest.raises(InputError) as caught:
        load_suite(write_mcp_suite(tmp_path, CASE))
    lines = str(caught.value).splitlines()
    assert len(lines) == 1
    assert "tools.json" in lines[0] and "tools[1].inputSchema" in lines[0]
    assert "'refund': not a valid JSON Schema" in lines[0]


@pytest.mark.parametrize(("content", "reason"), [
    ("{not json", "malformed JSON"),
    ('{"tools": []}', "not a catalogue file"),
])
def test_a_file_that_is_no_catalogue_is_refused(tmp_path: Path, content: str, reason: str) -> None:
    (tmp_path / "tools.json").write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=reason):
        load_suite(write_mcp_suite(tmp_path, CASE))


def test_a_missing_catalogue_and_an_unknown_override_are_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such catalogue file"):
        load_suite(write_mcp_suite(tmp_path, CASE, tools_from="nope.json"))
    write_catalogue(tmp_path / "tools.json")
    with pytest.raises(InputError, match=r"'nope' is not a tool of tools\.json"):
        load_suite(write_mcp_suite(tmp_path, CASE,
                                   tools_from="{file: tools.json, side_effects: {nope: read}}"))


def test_a_case_cannot_write_the_stamp_itself(tmp_path: Path) -> None:
    write_catalogue(tmp_path / "tools.json")
    with pytest.raises(InputError, match="catalogue: unknown key"):
        load_suite(write_mcp_suite(tmp_path, CASE + "    catalogue: {hash: x}\n"))


def test_destructive_implies_a_write_and_refuses_a_read(tmp_path: Path) -> None:
    suite = tmp_path / "s.yaml"
    suite.write_text("tools:\n  wipe: {destructive: true, side_effect: false}\n"
                     "cases:\n  - id: c\n", encoding="utf-8")
    with pytest.raises(InputError, match="cannot have side_effect: false"):
        load_suite(suite)
