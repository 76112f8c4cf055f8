"""junit.xml: one testcase per case, trial and check, for CI test viewers.

Names follow the pytest plugin: `case_id::check`, with `[agent:trial]` appended when a case has
several runs; the classname is the agent (or "toolgrade"). A failed check is a <failure>
carrying the failure names and messages; a check with no reference is <skipped/>; a crashed
check is an <error/>. The file is written testcase by testcase while results.jsonl is streamed
a second time, so memory does not grow with the run.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from toolgrade.reporting.digest import iter_records
from toolgrade.reporting.tables import CHECKS

# XML 1.0 cannot carry most control characters even escaped; agent text may hold them.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def xml_text(value: Any) -> str:
    """`value` as text that is legal in an XML 1.0 document (invalid characters dropped)."""
    return _INVALID_XML.sub("", str(value))


def check_test_id(case_id: str, check: str, agent: str | None, trial: int,
                  several_runs: bool) -> str:
    """`case_id::check`, plus `[agent:trial]` when the case has several runs (as in the plugin)."""
    suffix = f"[{agent or 'agent'}:{trial}]" if several_runs else ""
    return f"{case_id}::{check}{suffix}"


@dataclass
class _Outcome:
    tag: str | None  # None: passed
    message: str
    text: str


def _outcome(check: str, result: dict[str, Any]) -> _Outcome:
    if not result.get("applicable"):
        return _Outcome("skipped", f"{check}: not applicable (no reference in the case)", "")
    if "error" in result and result.get("passed") is None:
        return _Outcome("error", f"{check} crashed", str(result["error"]))
    if result.get("passed") is True:
        return _Outcome(None, "", "")
    failures = result.get("failures") or []
    names = ", ".join(dict.fromkeys(str(f.get("name")) for f in failures)) or "not passed"
    score = result.get("score")
    shown = "n/a" if score is None else f"{float(score):.3f}"
    lines = [f"{f.get('name')} at step {f.get('step')}: {f.get('message', '')}" for f in failures]
    return _Outcome("failure", f"{check} failed (score {shown}): {names}", "\n".join(lines))


def _testcase(record: dict[str, Any], check: str, several: bool) -> tuple[ET.Element, str | None]:
    agent = record.get("agent")
    trial = int(record.get("trial") or 0)
    name = check_test_id(str(record.get("case_id")), check, agent, trial, several)
    case = ET.Element("testcase", {"name": xml_text(name),
                                   "classname": xml_text(agent or "toolgrade"), "time": "0"})
    outcome = _outcome(check, record["checks"][check])
    if outcome.tag is not None:
        child = ET.SubElement(case, outcome.tag, {"message": xml_text(outcome.message)})
        if outcome.tag != "skipped":
            child.set("type", check)
            child.text = xml_text(outcome.text)
    return case, outcome.tag


def _count(results_path: Path) -> tuple[Counter[str], Counter[str]]:
    runs_per_case: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    for record in iter_records(results_path):
        runs_per_case[str(record.get("case_id"))] += 1
        for check in CHECKS:
            if check in (record.get("checks") or {}):
                outcomes["tests"] += 1
                tag = _outcome(check, record["checks"][check]).tag
                if tag is not None:
                    outcomes[tag] += 1
    return runs_per_case, outcomes


def _write_cases(fh: IO[str], results_path: Path, runs_per_case: Counter[str]) -> None:
    for record in iter_records(results_path):
        several = runs_per_case[str(record.get("case_id"))] > 1
        for check in CHECKS:
            if check in (record.get("checks") or {}):
                element, _ = _testcase(record, check, several)
                fh.write("    " + ET.tostring(element, encoding="unicode") + "\n")


def write_junit(path: Path, results_path: Path, suite_name: str = "toolgrade") -> None:
    """Write `path` from `results_path` in two streaming passes (counts, then testcases)."""
    runs_per_case, outcomes = _count(results_path)
    attrs = {"name": suite_name, "tests": str(outcomes["tests"]),
             "failures": str(outcomes["failure"]), "errors": str(outcomes["error"]),
             "skipped": str(outcomes["skipped"]), "time": "0"}
    # The root elements are written by hand so testcases can be streamed between them;
    # quoteattr-equivalent escaping comes from ElementTree on a throwaway element.
    head = ET.tostring(ET.Element("testsuite", attrs), encoding="unicode").removesuffix(" />")
    with path.open("w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0" encoding="utf-8"?>\n')
        fh.write(head.replace("<testsuite", "<testsuites", 1) + ">\n")
        fh.write("  " + head + ">\n")
        _write_cases(fh, results_path, runs_per_case)
        fh.write("  </testsuite>\n</testsuites>\n")
