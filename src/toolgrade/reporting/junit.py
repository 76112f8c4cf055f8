"""junit.xml: one testcase per case, trial and check, for CI test viewers.

Names follow the pytest plugin: `case_id::check`, with `[agent:trial]` appended when a case has
several runs; the classname is the agent (or "toolgrade"). A failed check is a <failure>
carrying the failure names and messages; a check with no reference is <skipped/>; a crashed
check is an <error/>. The file is written testcase by testcase while results.jsonl is streamed,
so memory does not grow with the run; the XML is built as text, escaped exactly as ElementTree
would escape it (building an element per testcase cost more than grading the run).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Mapping
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


def _attrs(attrs: dict[str, str]) -> str:
    return "".join(f' {key}="{_escape_attr(value)}"' for key, value in attrs.items())


def _escape_attr(value: str) -> str:
    """Attribute escaping exactly as ElementTree writes it (so the file is unchanged)."""
    if "&" in value:
        value = value.replace("&", "&amp;")
    for raw, escaped in _ATTR_ESCAPES:
        if raw in value:
            value = value.replace(raw, escaped)
    return value


_ATTR_ESCAPES = (
    ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("\r", "&#13;"), ("\n", "&#10;"),
    ("\t", "&#09;"),
)  # fmt: skip


def _escape_text(value: str) -> str:
    """Element text escaping as ElementTree writes it."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _testcase(record: dict[str, Any], check: str, several: bool) -> tuple[str, str | None]:
    """One testcase element as a line of XML, and its outcome tag (None: passed)."""
    agent = record.get("agent")
    trial = int(record.get("trial") or 0)
    name = check_test_id(str(record.get("case_id")), check, agent, trial, several)
    head = "<testcase" + _attrs(
        {"name": xml_text(name), "classname": xml_text(agent or "toolgrade"), "time": "0"}
    )
    outcome = _outcome(check, record["checks"][check])
    if outcome.tag is None:
        return head + " />", None
    attrs = {"message": xml_text(outcome.message)}
    text = ""
    if outcome.tag != "skipped":
        attrs["type"] = check
        text = _escape_text(xml_text(outcome.text))
    # ElementTree closes an element with no text as `<tag ... />`.
    child = f"<{outcome.tag}{_attrs(attrs)}" + (f">{text}</{outcome.tag}>" if text else " />")
    return f"{head}>{child}</testcase>", outcome.tag


def _write_cases(fh: IO[str], results_path: Path, runs_per_case: Mapping[str, int]) -> Counter[str]:
    """Write every testcase to `fh` in one pass; return the outcome counts for the header."""
    outcomes: Counter[str] = Counter()
    for record in iter_records(results_path):
        several = runs_per_case.get(str(record.get("case_id")), 0) > 1
        for check in CHECKS:
            if check in (record.get("checks") or {}):
                element, tag = _testcase(record, check, several)
                outcomes["tests"] += 1
                if tag is not None:
                    outcomes[tag] += 1
                fh.write("    " + element + "\n")
    return outcomes


def _runs_per_case(results_path: Path) -> Counter[str]:
    return Counter(str(record.get("case_id")) for record in iter_records(results_path))


def write_junit(
    path: Path,
    results_path: Path,
    suite_name: str = "toolgrade",
    runs_per_case: Mapping[str, int] | None = None,
) -> None:
    """Write `path` from `results_path`, streaming.

    The testcases go to a temporary file beside `path` in one pass over the results, which
    also counts the outcomes the header needs; the file is then assembled. `runs_per_case`
    (runs per case id, as the report digest already knows them) saves a counting pass.
    """
    counts = _runs_per_case(results_path) if runs_per_case is None else runs_per_case
    with tempfile.TemporaryFile("w+", encoding="utf-8", dir=path.parent) as cases:
        outcomes = _write_cases(cases, results_path, counts)
        attrs = {"name": suite_name, "tests": str(outcomes["tests"]),
                 "failures": str(outcomes["failure"]), "errors": str(outcomes["error"]),
                 "skipped": str(outcomes["skipped"]), "time": "0"}
        cases.seek(0)
        with path.open("w", encoding="utf-8") as fh:
            fh.write('<?xml version="1.0" encoding="utf-8"?>\n')
            fh.write(f"<testsuites{_attrs(attrs)}>\n  <testsuite{_attrs(attrs)}>\n")
            shutil.copyfileobj(cases, fh)
            fh.write("  </testsuite>\n</testsuites>\n")
