"""docs/contract.md lists the names, states and keys users rely on: it must match the code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

from toolgrade.models.figures.record import Status
from toolgrade.models.result_line import ResultLine
from toolgrade.models.summary import RunSummary
from toolgrade.vocabulary import CHECK_NAMES, FAILURES_BY_CHECK, JUDGE_DIMENSIONS

CONTRACT = Path(__file__).resolve().parents[1] / "docs" / "contract.md"


def _block(name: str) -> str:
    """The text between `<!-- contract:NAME -->` and `<!-- /contract:NAME -->`."""
    text = CONTRACT.read_text(encoding="utf-8")
    match = re.search(rf"<!-- contract:{name} -->\n(.*?)<!-- /contract:{name} -->", text, re.S)
    assert match, f"docs/contract.md has no contract:{name} block"
    return match.group(1)


def _names(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def test_the_checks_are_the_vocabularys_in_report_order() -> None:
    assert _names(_block("checks")) == list(CHECK_NAMES)


def test_every_failure_name_is_listed_under_its_check() -> None:
    listed: dict[str, list[str]] = {}
    for line in re.split(r"\n- ", "\n" + _block("failures")):
        if ":" in line:
            check, names = line.split(":", 1)
            listed[check.strip()] = _names(names)
    assert listed == {check: list(names) for check, names in FAILURES_BY_CHECK.items()}


def test_the_states_are_the_models() -> None:
    assert _names(_block("states")) == list(get_args(Status))


def test_the_judge_dimensions_are_the_vocabularys() -> None:
    assert _names(_block("dimensions")) == list(JUDGE_DIMENSIONS)


def test_the_results_line_keys_are_the_models_fields() -> None:
    assert _names(_block("results")) == list(ResultLine.model_fields)


def test_the_summary_keys_are_the_models_fields() -> None:
    assert _names(_block("summary")) == list(RunSummary.model_fields)


def test_every_linked_page_exists() -> None:
    text = CONTRACT.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        assert (CONTRACT.parent / target).is_file(), target


def test_no_source_or_doc_cites_a_design_document_users_do_not_have() -> None:
    root = CONTRACT.parents[1]
    files = [*root.joinpath("src", "toolgrade").rglob("*.py"), *root.joinpath("docs").glob("*.md"),
             root / "README.md"]
    citing = [str(f.relative_to(root)) for f in files if "DESIGN" in f.read_text(encoding="utf-8")]
    assert citing == []
