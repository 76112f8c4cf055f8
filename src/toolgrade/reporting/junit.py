"""junit.xml: one testcase per case, trial and check, for CI test viewers.

Names follow the pytest plugin: `case_id::check`, with `[agent:trial]` appended when a case has
several runs; the classname is the agent (or "toolgrade"). A failed check is a <failure>
carrying the failure names and messages; a check with no reference is <skipped/>, and so is an
unscored check (its message says `unscored (not a pass)`, how many items and why); a crashed
check is an <error/>. Testcases are taken one record at a time (`JunitCases`: while the runner
grades, or from results.jsonl streamed once), so memory does not grow with the run; the XML is
built as text, escaped exactly as ElementTree would escape it (an element per testcase cost
more than grading the run did).
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from toolgrade.models import CheckName
from toolgrade.models.check_names import registered_names as check_names
from toolgrade.models.figures import (
    CheckRecord,
    ResultRecord,
    UnscoredField,
    block_view,
    check_blocks,
)
from toolgrade.models.status import check_status, describe, unscored_items

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


def _outcome(check: str, result: CheckRecord) -> _Outcome:
    if not result.get("applicable"):
        return _Outcome("skipped", f"{check}: not applicable (no reference in the case)", "")
    if "error" in result and result.get("passed") is None:
        return _Outcome("error", f"{check} crashed", str(result["error"]))
    if result.get("passed") is True:
        return _Outcome(None, "", "")
    if check_status(check, result) == "unscored":
        # Neither a pass nor a failure: skipped, saying why; the gates decide what it means.
        return _Outcome("skipped", unscored_message(check, result), "")
    failures = result.get("failures") or []
    unscored = block_view(result).get("unscored_fields") or []
    names = ", ".join(dict.fromkeys(str(f.get("name")) for f in failures))
    names = names or ("unscored fields" if unscored else "not passed")
    score = result.get("score")
    shown = "n/a" if score is None else f"{float(score):.3f}"
    lines = [f"{f.get('name')} at step {f.get('step')}: {f.get('message', '')}" for f in failures]
    lines += [unscored_line(u) for u in unscored]
    return _Outcome("failure", f"{check} failed (score {shown}): {names}", "\n".join(lines))


#: Undecided items named in an unscored check's message (the rest are counted).
ITEMS_NAMED = 3


def unscored_message(check: str, result: CheckRecord) -> str:
    """`arguments unscored (not a pass): 1 free-text field needs a judge: run with ...
    [refund.reason at step 3]`: why a check that did not pass is not a failure either."""
    items = unscored_items(check, result)
    named = ", ".join(i.where for i in items[:ITEMS_NAMED])
    more = f" and {len(items) - ITEMS_NAMED} more" if len(items) > ITEMS_NAMED else ""
    return f"{check} unscored (not a pass): {'; '.join(describe(items))} [{named}{more}]"


def unscored_line(field: UnscoredField) -> str:
    """`refund.reason at step 3 unscored: no judge configured`: why a field counts as no match."""
    return (
        f"{field.get('tool')}.{field.get('field')} at step {field.get('step')} unscored: "
        f"{field.get('reason')}"
    )


def _attrs(attrs: dict[str, str]) -> str:
    return "".join(f' {key}="{_escape_attr(value)}"' for key, value in attrs.items())


#: ElementTree's attribute escapes, in its order ("&" first, so no entity is escaped twice).
_ATTR_ESCAPES = (
    ("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("\r", "&#13;"),
    ("\n", "&#10;"), ("\t", "&#09;"),
)  # fmt: skip


def _escape_attr(value: str) -> str:
    """Attribute escaping exactly as ElementTree writes it (so the file is unchanged)."""
    for raw, escaped in _ATTR_ESCAPES:
        if raw in value:
            value = value.replace(raw, escaped)
    return value


def _escape_text(value: str) -> str:
    """Element text escaping as ElementTree writes it."""
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _name_parts(case_id: str, check: str, agent: str | None, trial: int) -> tuple[str, str]:
    """A testcase's name attribute as it is written, in two parts: up to the run suffix, and
    the suffix (`[agent:trial]`, kept only when the case has several runs). Escaping works
    character by character, so the parts escaped apart join into the name escaped whole."""
    whole = check_test_id(case_id, check, agent, trial, several_runs=True)
    plain = check_test_id(case_id, check, agent, trial, several_runs=False)
    head = "<testcase" + _attrs({"name": xml_text(plain)})[:-1]  # the closing quote waits
    return head, _escape_attr(xml_text(whole[len(plain):]))


def _after_name(record: ResultRecord, check: CheckName) -> tuple[str, str | None]:
    """A testcase's XML after its name attribute (the name waits for the run count), and its
    outcome tag (None: passed)."""
    rest = _attrs({"classname": xml_text(record.get("agent") or "toolgrade"), "time": "0"})
    outcome = _outcome(check, check_blocks(record["checks"])[check])
    if outcome.tag is None:
        return rest + " />", None
    attrs = {"message": xml_text(outcome.message)}
    text = ""
    if outcome.tag != "skipped":
        attrs["type"] = check
        text = _escape_text(xml_text(outcome.text))
    # ElementTree closes an element with no text as `<tag ... />`.
    child = f"<{outcome.tag}{_attrs(attrs)}" + (f">{text}</{outcome.tag}>" if text else " />")
    return f"{rest}>{child}</testcase>", outcome.tag


def _pending_line(record: ResultRecord, runs_per_case: Counter[str],
                   outcomes: Counter[str]) -> str:
    """One record's testcases as a pending line, counting its run and its outcomes: its case,
    then per testcase the XML before the run suffix, the suffix and the XML after it (the
    suffix is kept or dropped when the file is written and the case's runs are counted)."""
    case_id = str(record.get("case_id"))
    runs_per_case[case_id] += 1
    agent, trial = record.get("agent"), int(record.get("trial") or 0)
    testcases = []
    for check in check_names():
        if check in (record.get("checks") or {}):
            rest, tag = _after_name(record, check)
            outcomes["tests"] += 1
            if tag is not None:
                outcomes[tag] += 1
            head, suffix = _name_parts(case_id, check, agent, trial)
            testcases.append([head, suffix, '"' + rest])
    return json.dumps([case_id, testcases]) + "\n"


class JunitPart:
    """The testcases of a few records, in memory: what a worker process sends the parent's
    `JunitCases.merge` (`toolgrade run --jobs N`)."""

    def __init__(self) -> None:
        self.pending: list[str] = []
        self.runs_per_case: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()

    def add(self, record: ResultRecord) -> None:
        """Take one record's testcases."""
        self.pending.append(_pending_line(record, self.runs_per_case, self.outcomes))


class JunitCases:
    """The testcases of junit.xml, taken one results record at a time; `write` makes the file.

    A testcase's name carries `[agent:trial]` only when its case has several runs, which is
    known once every record was seen, so each testcase waits in a temporary file (its name
    parts and the rest of its XML) and is named when the file is written. Memory does not grow
    with the number of records.
    """

    def __init__(self) -> None:
        # Owned by this object for its whole life: `write` or `close` closes (and deletes) it.
        self._pending: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self._runs_per_case: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()

    def add(self, record: ResultRecord) -> None:
        """Take one record's testcases (one per check it holds)."""
        self._pending.write(_pending_line(record, self._runs_per_case, self.outcomes))

    def merge(self, part: JunitPart) -> None:
        """Take the testcases of the records right after those taken so far."""
        self._pending.write("".join(part.pending))
        self._runs_per_case.update(part.runs_per_case)
        self.outcomes.update(part.outcomes)

    def write(self, path: Path, suite_name: str = "toolgrade") -> None:
        """Write junit.xml with every testcase taken so far, then let the pending file go."""
        attrs = {"name": suite_name, "tests": str(self.outcomes["tests"]),
                 "failures": str(self.outcomes["failure"]), "errors": str(self.outcomes["error"]),
                 "skipped": str(self.outcomes["skipped"]), "time": "0"}
        self._pending.seek(0)
        with path.open("w", encoding="utf-8") as fh:
            fh.write('<?xml version="1.0" encoding="utf-8"?>\n')
            fh.write(f"<testsuites{_attrs(attrs)}>\n  <testsuite{_attrs(attrs)}>\n")
            for line in self._pending:
                case_id, testcases = json.loads(line)
                several = self._runs_per_case[case_id] > 1
                fh.write("".join(f"    {head}{suffix if several else ''}{rest}\n"
                                 for head, suffix, rest in testcases))
            fh.write("  </testsuite>\n</testsuites>\n")
        self.close()

    def close(self) -> None:
        """Drop the pending testcases (the temporary file is deleted)."""
        self._pending.close()

