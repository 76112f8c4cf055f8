"""Suite loading: YAML, JSONL, folders, shared catalogue, and every located validation error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders_foundation import SIMPLE_CASE, write_jsonl, write_yaml_suite
from toolgrade.errors import InputError, InputProblem
from toolgrade.loaders import load_suite


def _problems(path: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load_suite(path)
    return [str(p) for p in info.value.problems]


def test_yaml_suite_merges_shared_catalogue(tmp_path: Path) -> None:
    suite = load_suite(write_yaml_suite(tmp_path, SIMPLE_CASE))
    case = suite.cases["c1"]
    assert set(case.tools) == {"lookup_order", "refund"}
    assert case.tools["refund"].side_effect is True
    assert suite.sources["c1"].line is not None


def test_case_tools_override_shared(tmp_path: Path) -> None:
    path = write_yaml_suite(
        tmp_path,
        """
    - id: c1
      tools: {refund: {side_effect: false}}
    """,
    )
    assert load_suite(path).cases["c1"].tools["refund"].side_effect is False


def test_shared_groups_merge_into_ordering(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "groups: {retrieval: [a, b]}\ncases:\n  - id: c1\n"
        "    expected: {ordering: {before: [['@retrieval', c]]}}\n"
    )
    case = load_suite(path).cases["c1"]
    assert case.expected.ordering is not None
    assert case.expected.ordering.groups == {"retrieval": ["a", "b"]}


def test_unknown_key_names_file_line_and_field(tmp_path: Path) -> None:
    path = write_yaml_suite(
        tmp_path,
        """
    - id: c1
      expected:
        selection:
          tols: [refund]
    """,
    )
    problems = _problems(path)
    assert len(problems) == 1
    text = problems[0]
    lines = path.read_text().splitlines()
    line = next(number for number, text in enumerate(lines, 1) if "tols" in text)
    assert text == f"{path}:{line}: cases[0].expected.selection.tols: unknown key"


def test_wrong_type_names_field(tmp_path: Path) -> None:
    path = write_yaml_suite(
        tmp_path,
        """
    - id: c1
      expected:
        selection: {tools: [refund], no_tool: maybe}
    """,
    )
    (problem,) = _problems(path)
    assert "cases[0].expected.selection.no_tool" in problem
    assert "bool" in problem


def test_a_value_no_alternative_of_a_union_takes_is_one_problem_naming_each(
    tmp_path: Path,
) -> None:
    path = write_yaml_suite(
        tmp_path,
        """
    - id: c1
      expected:
        selection: {tools: [refund]}
        recovery:
          faults:
            - {tool: refund, nth: 1.5}
    """,
    )
    (problem,) = _problems(path)
    assert "cases[0].expected.recovery.faults[0].nth:" in problem
    assert "valid integer" in problem and "; or: " in problem and "'all'" in problem


def test_every_problem_is_listed(tmp_path: Path) -> None:
    path = write_yaml_suite(
        tmp_path,
        """
    - id: c1
      bogus: 1
    - id: c2
      scoring: {mode: fancy}
    - task_type: x
    """,
    )
    problems = _problems(path)
    fields = " | ".join(problems)
    assert "cases[0].bogus: unknown key" in fields
    assert "cases[1].scoring.mode" in fields
    assert "cases[2].id: required field missing" in fields
    assert len(problems) == 3


def test_duplicate_case_id(tmp_path: Path) -> None:
    path = write_yaml_suite(tmp_path, "- id: c1\n- id: c1\n")
    (problem,) = _problems(path)
    assert "duplicate case id 'c1'" in problem
    assert "cases[1].id" in problem


def test_malformed_yaml_names_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("cases:\n  - id: c1\n    expected: {selection: [\n")
    (problem,) = _problems(path)
    assert problem.startswith(f"{path}:")
    assert "malformed YAML" in problem


def test_malformed_yaml_is_one_line_naming_the_file_not_a_unicode_string(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("cases:\n  - id: c1\n    expected: {selection: {tools: [a, b]}\n  - id: c2\n")
    (problem,) = _problems(path)
    assert problem == (
        f"{path}:4: malformed YAML: expected ',' or '}}', but got '-' (column 3), "
        "in a flow mapping started at line 3"
    )


def test_yaml_without_cases_list(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("case: []\n")
    problems = _problems(path)
    assert any("needs a 'cases:' list" in p for p in problems)


def test_unknown_top_level_key(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("cases: [{id: c1}]\nextra: 1\n")
    (problem,) = _problems(path)
    assert problem == f"{path}:2: extra: unknown key"


def test_jsonl_suite_and_malformed_line(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [{"id": "a"}, "{not json", {"id": "b", "oops": 1}])
    problems = _problems(path)
    assert any(p.startswith(f"{path}:2: malformed JSON") for p in problems)
    assert f"{path}:3: oops: unknown key" in problems


def test_folder_suite(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "a.jsonl", [{"id": "a"}])
    (tmp_path / "b.yaml").write_text("cases: [{id: b}]\n")
    assert set(load_suite(tmp_path).cases) == {"a", "b"}


def test_invalid_json_schema_in_catalogue(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl", [{"id": "a", "tools": {"t": {"parameters": {"type": "objekt"}}}}]
    )
    (problem,) = _problems(path)
    assert "tools.t.parameters: not a valid JSON Schema" in problem


def test_bad_comparator_reported_before_grading(tmp_path: Path) -> None:
    record = {
        "id": "a",
        "expected": {"arguments": [{"tool": "t", "args": {"x": {"approx": "ten"}}}]},
    }
    path = write_jsonl(tmp_path / "s.jsonl", [record])
    (problem,) = _problems(path)
    assert "expected.arguments[0].args.x" in problem


def test_unknown_ordering_group_reported(tmp_path: Path) -> None:
    record = {"id": "a", "expected": {"ordering": {"before": [["@nope", "t"]]}}}
    path = write_jsonl(tmp_path / "s.jsonl", [record])
    (problem,) = _problems(path)
    assert "expected.ordering" in problem and "nope" in problem


def test_missing_path(tmp_path: Path) -> None:
    (problem,) = _problems(tmp_path / "missing.yaml")
    assert "no such file" in problem


def test_schema_roundtrip_json(tmp_path: Path) -> None:
    # A suite written as JSONL from model dumps loads back identically.
    suite = load_suite(write_yaml_suite(tmp_path, SIMPLE_CASE))
    dumped = [json.loads(c.model_dump_json()) for c in suite.cases.values()]
    again = load_suite(write_jsonl(tmp_path / "again.jsonl", dumped))
    assert again.cases == suite.cases


def test_check_problems_point_at_the_field_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "cases:\n"
        "  - id: a\n"
        "    expected:\n"
        "      arguments:\n"
        "        - tool: t\n"
        "          args:\n"
        "            ok: 1\n"
        "            x: {approx: ten}\n"
        "      ordering:\n"
        "        groups: {g: [t]}\n"
        "        before:\n"
        '          - ["@nope", t]\n',
        encoding="utf-8",
    )
    found = {p.field: p.line for p in _problem_objects(path)}
    assert found == {
        "cases[0].expected.arguments[0].args.x": 8,
        "cases[0].expected.ordering.before[0]": 12,
    }


def _problem_objects(path: Path) -> list[InputProblem]:
    with pytest.raises(InputError) as info:
        load_suite(path)
    return info.value.problems


def test_keys_written_twice_are_reported_with_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "cases:\n"
        "  - id: c1\n"
        "    expected:\n"
        "      selection: {tools: [a, b]}\n"
        "      selection: {tools: [a]}\n",
        encoding="utf-8",
    )
    (problem,) = _problem_objects(path)
    assert (problem.line, problem.field) == (5, "cases[0].expected.selection")
    assert problem.reason.startswith("duplicate key (first at line 4)")
    jsonl = tmp_path / "s.jsonl"
    jsonl.write_text('{"id": "a", "id": "b"}\n', encoding="utf-8")
    (problem,) = _problem_objects(jsonl)
    assert problem.line == 1 and "duplicate key 'id'" in problem.reason


def test_a_shared_catalogue_that_is_not_a_mapping_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("tools: [lookup, refund]\ngroups: x\ncases:\n  - id: a\n", encoding="utf-8")
    found = {p.field: p.reason for p in _problem_objects(path)}
    assert found == {
        "tools": "must be a mapping of tool name to its spec, got list",
        "groups": "must be a mapping of group name to its tools, got str",
    }


@pytest.mark.parametrize(
    ("selection", "reason"),
    [
        ({"no_tool": True, "tools": ["a"]}, "no_tool: true means no call is expected"),
        ({"forbidden": ["reset"]}, "selection needs `tools`"),
        ({"tools": ["a", "b"], "forbidden": ["b"]}, "b: both expected and forbidden"),
        ({"tools": ["a"], "alternatives": [["c"]], "forbidden": ["c"]}, "c: both expected"),
    ],
)
def test_contradictory_selections_are_refused(
    tmp_path: Path, selection: dict[str, object], reason: str
) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [{"id": "a", "expected": {"selection": selection}}])
    (problem,) = _problems(path)
    assert "expected.selection" in problem and reason in problem


def test_an_explicitly_empty_route_is_allowed(tmp_path: Path) -> None:
    case = {"id": "a", "expected": {"selection": {"tools": []}}}
    path = write_jsonl(tmp_path / "s.jsonl", [case])
    assert list(load_suite(path).cases) == ["a"]


@pytest.mark.parametrize("ref", ["#/$defs/nope", "https://example.com/order.json"])
def test_an_unresolvable_ref_is_reported_before_grading(tmp_path: Path, ref: str) -> None:
    parameters = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": ref}},
        "$defs": {"A": {"type": "string"}},
    }
    path = write_jsonl(
        tmp_path / "s.jsonl", [{"id": "a", "tools": {"t": {"parameters": parameters}}}]
    )
    (problem,) = _problems(path)
    assert (
        f"tools.t.parameters: not a valid JSON Schema: $ref '{ref}' cannot be resolved" in problem
    )


def test_resolvable_refs_and_anchors_are_accepted(tmp_path: Path) -> None:
    parameters = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#code"}},
        "$defs": {"A": {"type": "string"}, "B": {"$anchor": "code", "type": "integer"}},
    }
    path = write_jsonl(
        tmp_path / "s.jsonl", [{"id": "a", "tools": {"t": {"parameters": parameters}}}]
    )
    assert list(load_suite(path).cases) == ["a"]


def test_a_problem_in_a_shared_tool_is_reported_once_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "tools:\n"
        "  lookup: {side_effekt: true}\n"
        "  refund: {parameters: {type: objekt}}\n"
        "cases:\n"
        "  - id: c1\n"
        "    expected: {selection: {tools: [lookup]}}\n"
        "  - id: c2\n"
        "    tools: {lookup: {description: own}}\n"
        "    expected: {selection: {tools: [refund, lookupp]}, nope: 1}\n",
        encoding="utf-8",
    )
    found = [(p.line, p.field) for p in _problem_objects(path)]
    assert found == [
        (2, "tools.lookup.side_effekt"),
        (3, "tools.refund.parameters"),
        (9, "cases[1].expected.nope"),
    ]


def test_comparator_problems_are_reported_beside_shape_errors(tmp_path: Path) -> None:
    record = {
        "id": "a",
        "expected": {
            "selection": {"tols": ["t"]},
            "arguments": [{"tool": "t", "args": {"x": {"approx": "ten"}}}],
        },
    }
    path = write_jsonl(tmp_path / "s.jsonl", [record])
    found = {p.field for p in _problem_objects(path)}
    assert found == {"expected.selection.tols", "expected.arguments[0].args.x"}


def test_a_merged_key_a_mapping_overrides_is_not_a_duplicate(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "tools:\n"
        "  base: &base {description: b}\n"
        "  a: {<<: *base, description: tool a}\n"
        "cases:\n"
        "  - id: c1\n"
        "    expected: {selection: &sel {tools: [a]}}\n"
        "  - id: c2\n"
        "    expected:\n"
        "      selection: {<<: *sel, tools: [a, a]}\n",
        encoding="utf-8",
    )
    suite = load_suite(path)
    selection = suite.cases["c2"].expected.selection
    assert selection is not None and selection.tools == ["a", "a"]
    assert suite.cases["c1"].tools["a"].description == "tool a"


def test_routes_given_only_as_alternatives_make_the_first_the_route(tmp_path: Path) -> None:
    case = {"id": "a", "expected": {"selection": {"alternatives": [["x"], ["y"]]}}}
    selection = load_suite(write_jsonl(tmp_path / "s.jsonl", [case])).cases["a"].expected.selection
    assert selection is not None
    assert (selection.tools, selection.alternatives) == (["x"], [["y"]])


@pytest.mark.parametrize(
    "parameters",
    [
        # Parts carrying their own $id: a ref inside one is relative to it.
        {
            "$id": "https://example.com/root",
            "type": "object",
            "properties": {"item": {"$ref": "https://example.com/item"}},
            "$defs": {
                "item": {
                    "$id": "https://example.com/item",
                    "properties": {"sku": {"$ref": "#/$defs/sku"}},
                    "$defs": {"sku": {"type": "string"}},
                }
            },
        },
        # A "$ref" key inside data keywords is data, not a reference.
        {
            "type": "object",
            "properties": {"x": {"type": "object", "examples": [{"$ref": "#/nowhere"}],
                                 "default": {"$ref": "#/nowhere"}}},
        },
    ],
)
def test_refs_in_nested_id_schemas_and_in_data_are_not_refused(
    tmp_path: Path, parameters: dict[str, object]
) -> None:
    case = {"id": "a", "tools": {"t": {"parameters": parameters}}}
    assert list(load_suite(write_jsonl(tmp_path / "s.jsonl", [case])).cases) == ["a"]


def test_ordering_problems_are_reported_beside_shape_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "cases:\n"
        "  - id: a\n"
        "    expected:\n"
        "      selection: {tols: [t]}\n"
        "      ordering:\n"
        "        groups: {g: [t]}\n"
        "        before:\n"
        '          - ["@nope", t]\n'
        "        max_calls: {answer: 1}\n",
        encoding="utf-8",
    )
    found = sorted((p.file, p.line, p.field) for p in _problem_objects(path))
    assert found == [
        (str(path), 4, "cases[0].expected.selection.tols"),
        (str(path), 8, "cases[0].expected.ordering.before[0]"),
        (str(path), 9, "cases[0].expected.ordering.max_calls.answer"),
    ]


def test_a_mode_is_vetted_beside_shape_errors_without_guessing_the_selection(
    tmp_path: Path,
) -> None:
    # No sequence and no selection: the mode has nothing to compare with, shape error or not.
    bare = {"id": "a", "input": 1, "nope": 1, "expected": {"ordering": {"mode": "exact"}}}
    # A selection with a typo may well list the tools once fixed: no mode problem is guessed.
    typo = {"id": "b", "expected": {"selection": {"tols": ["t"]}, "ordering": {"mode": "exact"}}}
    path = write_jsonl(tmp_path / "s.jsonl", [bare, typo])
    found = sorted((p.line, p.field) for p in _problem_objects(path))
    assert found == [(1, "expected.ordering.mode"), (1, "nope"), (2, "expected.selection.tols")]


def test_an_ordering_with_a_shape_error_is_not_vetted_further(tmp_path: Path) -> None:
    # The group's members are not a list: "unknown group" on the before pair would be false.
    record = {"id": "a", "expected": {"ordering": {"groups": {"g": "t"}, "before": [["@g", "t"]]}}}
    path = write_jsonl(tmp_path / "s.jsonl", [record])
    assert [p.field for p in _problem_objects(path)] == ["expected.ordering.groups.g"]


def test_an_expected_tool_missing_from_the_catalogue_is_a_suite_problem(tmp_path: Path) -> None:
    # A run following this reference would fail selection as unknown_tool.
    path = write_yaml_suite(
        tmp_path,
        """
    - id: c1
      expected:
        selection: {tools: [lookup_order, refnud], alternatives: [[lookup_order]]}
        arguments:
          - tool: refnud
            args: {order_id: A1}
        recovery:
          faults: [{tool: lookup_order}]
          fallbacks: {lookup_order: [search_orders]}
          escalate_with: human
    """,
    )
    found = _problems(path)
    fields = [p.split(": ")[1] for p in found]
    assert fields == [
        "cases[0].expected.selection.tools[1]",
        "cases[0].expected.arguments[0].tool",
        "cases[0].expected.recovery.fallbacks.lookup_order",
        "cases[0].expected.recovery.escalate_with",
    ], found
    assert "'refnud' is not in the tool catalogue" in found[0]
    line = path.read_text().splitlines().index("      selection: {tools: [lookup_order, refnud], "
                                               "alternatives: [[lookup_order]]}") + 1
    assert found[0].startswith(f"{path}:{line}:")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('tools: {refund: {side_effect: "yes"}}\n  expected: {selection: {tools: []}}',
         "cases[0].tools.refund.side_effect"),
        ('expected: {selection: {tools: [], no_tool: 1}}', "cases[0].expected.selection.no_tool"),
        ('expected: {recovery: {faults: [{tool: refund, nth: "2"}]}}',
         "cases[0].expected.recovery.faults[0].nth"),
        ('expected: {recovery: {faults: [{tool: refund}], max_retries: "2"}}',
         "cases[0].expected.recovery.max_retries"),
        ('expected: {ordering: {max_calls: {refund: "1"}}}',
         "cases[0].expected.ordering.max_calls.refund"),
        ('expected: {selection: {tools: []}}\n  scoring: {mode: weighted, threshold: "0.5"}',
         "cases[0].scoring.threshold"),
    ],
)
def test_case_values_of_the_wrong_type_are_refused_not_coerced(
    tmp_path: Path, body: str, field: str
) -> None:
    # A quoted "yes" or "2" is a mistake to report, as in runs and settings, not a guess.
    path = write_yaml_suite(tmp_path, f"- id: c1\n  {body}\n")
    (problem,) = _problems(path)
    assert f": {field}: " in problem, problem
