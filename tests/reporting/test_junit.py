"""junit.xml parsed back: one testcase per case-trial and check, names, outcomes, counts."""

from __future__ import annotations

import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from builders_reporting import HOSTILE, check, failure, record, small_records, write_results
from toolgrade.reporting.digest import iter_records
from toolgrade.reporting.junit import JunitCases, _outcome, check_test_id, xml_text
from toolgrade.vocabulary import CHECK_NAMES as CHECKS


def _write_junit(path: Path, records: list[dict[str, Any]]) -> None:
    cases = JunitCases()
    for rec in records:
        cases.add(rec)
    cases.write(path)


def _junit(tmp_path: Path, records: list[dict[str, object]]) -> ET.Element:
    # Through results.jsonl, as `toolgrade report` reads it back.
    results = write_results(tmp_path / "results.jsonl", records)
    path = tmp_path / "junit.xml"
    _write_junit(path, list(iter_records(results)))
    return ET.parse(path).getroot()


def _cases(root: ET.Element) -> dict[str, ET.Element]:
    return {str(c.get("name")): c for c in root.iter("testcase")}


def test_one_testcase_per_case_trial_and_check(tmp_path: Path) -> None:
    root = _junit(tmp_path, small_records())
    cases = _cases(root)
    assert len(cases) == 12  # 3 lines x 4 checks, all names distinct
    # refund-01 has two runs: names carry [agent:trial]; chat|02 has one: plain case::check.
    assert "refund-01::selection[bot:0]" in cases and "refund-01::recovery[bot:1]" in cases
    assert "chat|02::ordering" in cases
    assert cases["refund-01::selection[bot:0]"].get("classname") == "bot"
    assert cases["chat|02::selection"].get("classname") == "toolgrade"


def test_outcomes_failure_skipped_and_error(tmp_path: Path) -> None:
    cases = _cases(_junit(tmp_path, small_records()))
    assert list(cases["refund-01::selection[bot:0]"]) == []  # passed
    failed = cases["refund-01::selection[bot:1]"].find("failure")
    assert failed is not None
    assert failed.get("message") == "selection failed (score 0.500): substitution, extra_tool"
    evidence = "substitution at step 1: expected lookup_order, called search_orders"
    assert evidence in (failed.text or "")
    assert cases["refund-01::recovery[bot:0]"].find("skipped") is not None
    crashed = cases["chat|02::ordering"].find("error")
    assert crashed is not None and "kaboom" in (crashed.text or "")


def test_a_check_short_only_of_unscored_fields_is_skipped_saying_why(tmp_path: Path) -> None:
    unscored = [{"tool": "refund", "step": 3, "field": "reason", "reason": "no judge configured"}]
    arguments = check(passed=False, score=1.0, unscored_fields=unscored)
    cases = _cases(_junit(tmp_path, [record("c1", arguments=arguments)]))
    assert cases["c1::arguments"].find("failure") is None  # unscored is not a failure...
    skipped = cases["c1::arguments"].find("skipped")
    assert skipped is not None  # ...nor a pass
    assert skipped.get("message") == (
        "arguments unscored (not a pass): 1 free-text field needs a judge: run with "
        "--judge-model MODEL or install the local judge (pip install 'toolgrade[local]') "
        "[refund.reason at step 3]")


def test_unscored_fields_beside_a_real_failure_still_fail(tmp_path: Path) -> None:
    unscored = [{"tool": "refund", "step": 3, "field": "reason", "reason": "no judge configured"}]
    arguments = check(passed=False, score=0.5, unscored_fields=unscored,
                      failures=[failure("wrong_value", 3, "refund.amount: 3 != 25")])
    cases = _cases(_junit(tmp_path, [record("c1", arguments=arguments)]))
    failed = cases["c1::arguments"].find("failure")
    assert failed is not None
    assert failed.get("message") == "arguments failed (score 0.500): wrong_value"
    assert failed.text is not None
    assert "refund.reason at step 3 unscored: no judge configured" in failed.text


def test_suite_counts_match_the_testcases(tmp_path: Path) -> None:
    root = _junit(tmp_path, small_records())
    assert root.tag == "testsuites"
    suite = root.find("testsuite")
    assert suite is not None
    for element in (root, suite):
        assert element.get("tests") == "12"
        assert element.get("failures") == "2"  # refund-01 trial 1: selection and arguments
        assert element.get("errors") == "1"
        assert element.get("skipped") == "6"  # 2 per line: no reference


def test_hostile_text_stays_well_formed(tmp_path: Path) -> None:
    lines = [record("x<&\"'>\x00", agent="a\x1b]", passed=False,
                    selection=check(passed=False, score=0.0,
                                    failures=[failure("extra_tool", 1, HOSTILE + "\x00\x0b")]))]
    cases = _cases(_junit(tmp_path, lines))
    name = "x<&\"'>::selection"
    assert name in cases
    text = cases[name].find("failure").text or ""  # type: ignore[union-attr]
    assert "<script>alert(1)</script>" in text and "\x00" not in text
    assert cases[name].get("classname") == "a]"


def test_test_ids_match_the_pytest_plugin_naming() -> None:
    assert check_test_id("c1", "selection", "bot", 2, several_runs=True) == "c1::selection[bot:2]"
    assert check_test_id("c1", "ordering", None, 0, several_runs=True) == "c1::ordering[agent:0]"
    assert check_test_id("c1", "ordering", "bot", 0, several_runs=False) == "c1::ordering"


@given(st.text(max_size=40))
def test_xml_text_always_parses(text: str) -> None:
    element = ET.Element("t", {"a": xml_text(text)})
    element.text = xml_text(text)
    back = ET.fromstring(ET.tostring(element, encoding="unicode"))
    assert back.get("a") == xml_text(text)


def _element_tree_testcase(rec: dict[str, Any], check_name: str, several: bool = False) -> str:
    """The testcase as ElementTree serialises it: the oracle for the text-built XML."""
    name = check_test_id(str(rec["case_id"]), check_name, rec["agent"], rec["trial"], several)
    case = ET.Element(
        "testcase", {"name": xml_text(name), "classname": xml_text(rec["agent"] or "toolgrade"),
                     "time": "0"},
    )
    outcome = _outcome(check_name, rec["checks"][check_name])
    if outcome.tag is not None:
        child = ET.SubElement(case, outcome.tag, {"message": xml_text(outcome.message)})
        if outcome.tag != "skipped":
            child.set("type", check_name)
            child.text = xml_text(outcome.text)
    return ET.tostring(case, encoding="unicode")


_any_text = st.text(alphabet=st.sampled_from(list("ab &<>\"'\r\n\t\x00\x1b|é")), max_size=12)


@given(
    case_id=_any_text,
    agent=st.one_of(st.none(), _any_text),
    passed=st.sampled_from([True, False, None]),
    applicable=st.booleans(),
    message=_any_text,
    with_failures=st.booleans(),
)
def test_testcases_are_written_exactly_as_element_tree_would(
    case_id: str, agent: str | None, passed: bool | None, applicable: bool, message: str,
    with_failures: bool,
) -> None:
    failures = [failure("extra_tool", 1, message)] if with_failures else []
    block = check(applicable=applicable, passed=passed, score=0.5, failures=failures)
    if passed is None and applicable:
        block["error"] = message
    rec = record(case_id, agent=agent, selection=block)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "junit.xml"
        _write_junit(path, [rec])
        # newline="": element text may hold "\r", which must come back as written.
        with path.open(encoding="utf-8", newline="") as fh:
            text = fh.read()
    body = text.split(">\n", 3)[3].removesuffix("  </testsuite>\n</testsuites>\n")
    assert body == "".join(f"    {_element_tree_testcase(rec, check)}\n" for check in CHECKS)


@given(case_id=_any_text, agent=st.one_of(st.none(), _any_text),
       trial=st.integers(min_value=0, max_value=12))
def test_names_with_a_run_suffix_are_written_as_element_tree_would(
    case_id: str, agent: str | None, trial: int
) -> None:
    # Two runs of one case: every name carries `[agent:trial]`, escaped with the rest.
    recs = [record(case_id, trial=t, agent=agent) for t in (trial, trial + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "junit.xml"
        _write_junit(path, recs)
        with path.open(encoding="utf-8", newline="") as fh:
            text = fh.read()
    body = text.split(">\n", 3)[3].removesuffix("  </testsuite>\n</testsuites>\n")
    assert body == "".join(f"    {_element_tree_testcase(rec, check, several=True)}\n"
                           for rec in recs for check in CHECKS)
