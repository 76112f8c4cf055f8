"""Promoting accepted routes into a suite's alternatives: YAML stays as written around the
edit, JSONL rewrites one line, and a suite that would no longer load is put back."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml

from toolgrade.adjudication.promote import add_to_jsonl, add_to_yaml, promote_routes
from toolgrade.errors import ToolgradeError
from toolgrade.loaders import load_suite
from toolgrade.models import RouteDecision

CATALOGUE = """\
tools:
  a: {}
  b: {}
  c: {}
  "d:x": {}
"""


def _alternatives(text: str, case: str = "c1") -> list[list[str]]:
    [found] = [c for c in yaml.safe_load(text)["cases"] if c["id"] == case]
    routes: list[list[str]] = found["expected"]["selection"].get("alternatives", [])
    return routes


def _suite(body: str) -> str:
    return CATALOGUE + "cases:\n" + textwrap.indent(textwrap.dedent(body), "  ")


@pytest.mark.parametrize(
    "selection",
    [
        # no alternatives, flow tools, a comment kept in place
        "selection:\n  tools: [a]  # the usual route\n  judge_alternates: true\n",
        # no alternatives, block tools
        "selection:\n  judge_alternates: true\n  tools:\n    - a\n  # a trailing note\n",
        # flow alternatives
        "selection:\n  tools: [a]\n  alternatives: [[b]]\n  judge_alternates: true\n",
        # block alternatives
        "selection:\n  tools: [a]\n  alternatives:\n    - [b]\n  judge_alternates: true\n",
        # the whole selection in flow style
        "selection: {tools: [a], judge_alternates: true}\n",
    ],
)
def test_yaml_routes_are_appended_and_the_rest_kept(selection: str) -> None:
    case = "- id: c1\n  expected:\n" + textwrap.indent(selection, "    ")
    text = _suite(case + "- id: c2\n  expected: {selection: {tools: [b]}}\n")
    edited = add_to_yaml(text, "c1", [("c",), ("a", "d:x")])
    before = _alternatives(text)
    assert _alternatives(edited) == [*before, ["c"], ["a", "d:x"]]
    assert _alternatives(edited, "c2") == []
    # Every original line but the one holding a flow list edited in place is still there,
    # in order (comments included).
    kept = iter(edited.splitlines())
    untouched = [x for x in text.splitlines()
                 if "alternatives: [" not in x and "{tools: [a]" not in x]
    assert all(any(line == other for other in kept) for line in untouched)


def test_jsonl_rewrites_only_the_case_line() -> None:
    lines = [json.dumps({"id": "c0"}),
             json.dumps({"id": "c1", "expected": {"selection": {"tools": ["a"]}}})]
    edited = add_to_jsonl("\n".join(lines) + "\n", 2, [("b",)])
    first, second, last = edited.split("\n")
    assert first == lines[0] and last == ""
    assert json.loads(second)["expected"]["selection"] == {"tools": ["a"], "alternatives": [["b"]]}


def _decision(case: str, route: list[str], decision: str = "accept") -> RouteDecision:
    return RouteDecision.model_validate({"case_id": case, "route": route, "decision": decision})


def test_only_accepted_unlisted_routes_are_promoted(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(_suite("- id: c1\n  expected:\n    selection: {tools: [a], "
                           "alternatives: [[b]]}\n"))
    suite = load_suite(path)
    done = promote_routes(path, suite, [
        _decision("c1", ["b"]),            # listed already
        _decision("c1", ["c"], "reject"),  # rejected
        _decision("c1", ["c", "a"]),       # new
    ])
    assert [(p.case_id, p.route) for p in done] == [("c1", ("a", "c"))]
    assert _alternatives(path.read_text()) == [["b"], ["a", "c"]]


def test_a_suite_that_no_longer_loads_is_put_back(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    original = _suite("- id: c1\n  expected:\n    selection: {tools: [a], forbidden: [zz]}\n")
    path.write_text(original)
    suite = load_suite(path)
    with pytest.raises(ToolgradeError, match="left as it was"):
        promote_routes(path, suite, [_decision("c1", ["zz"])])  # both expected and forbidden
    assert path.read_text() == original


def test_a_jsonl_suite_is_promoted(tmp_path: Path) -> None:
    path = tmp_path / "suite.jsonl"
    case = {"id": "c1", "tools": {"a": {}, "b": {}},
            "expected": {"selection": {"tools": ["a"], "judge_alternates": True}}}
    path.write_text(json.dumps({"id": "c0"}) + "\n" + json.dumps(case) + "\n")
    done = promote_routes(path, load_suite(path), [_decision("c1", ["b"])])
    assert len(done) == 1
    assert load_suite(path).cases["c1"].expected.selection.alternatives == [["b"]]  # type: ignore[union-attr]
