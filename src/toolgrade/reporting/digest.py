"""The records of `results.jsonl`, taken one at a time, keeping only what the reports show.

A run can hold millions of trajectories, so nothing here grows with the number of lines:
memory is bounded by the number of cases (per-case tallies) and by a fixed number of
examples per failure name.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from toolgrade.errors import ToolgradeError
from toolgrade.models.figures import ResultRecord, as_record, check_blocks
from toolgrade.models.status import aggregate_status

#: Examples kept per failure name; the rest are only counted.
EXAMPLES_PER_FAILURE = 20
#: Longest failure message kept, in characters (agent text can be arbitrarily long).
MESSAGE_CHARS = 240
# Terminal escapes and other control characters in agent text would garble every report.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class FailureExample:
    """One trajectory that showed a failure: where, and what the check said."""

    case_id: str
    agent: str | None
    trial: int
    check: str
    step: int | None
    message: str


@dataclass
class CaseTally:
    """What the reports say about one case across its runs."""

    runs: int = 0
    passed: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    #: Runs that did not pass only because items were left undecided (status `unscored`).
    unscored: int = 0


@dataclass
class Digest:
    """The bounded extract of results.jsonl that the reports render."""

    cases: dict[str, CaseTally] = field(default_factory=dict)
    examples: dict[str, list[FailureExample]] = field(default_factory=dict)
    totals: Counter[str] = field(default_factory=Counter)
    failure_check: dict[str, str] = field(default_factory=dict)
    crashes: list[FailureExample] = field(default_factory=list)
    crash_total: int = 0
    lines: int = 0
    #: The record (its 0-based line in results.jsonl) of each kept example and crash row,
    #: in step with `examples` and `crashes`: what `merge` needs to say which rows it linked.
    example_lines: dict[str, list[int]] = field(default_factory=dict)
    crash_lines: list[int] = field(default_factory=list)

    @property
    def kept(self) -> int:
        """Failure and crash examples kept so far (a record that adds one is linked from
        the report)."""
        return sum(len(v) for v in self.examples.values()) + len(self.crashes)

    def omitted(self, name: str) -> int:
        """Trajectory-failures of `name` not listed as examples."""
        return self.totals[name] - len(self.examples.get(name, []))

    def add(self, record: ResultRecord) -> None:
        """Fold one results.jsonl record in."""
        self.lines += 1
        tally = self.cases.setdefault(str(record.get("case_id")), CaseTally())
        tally.runs += 1
        aggregate = record.get("aggregate") or {}
        tally.passed += bool(aggregate.get("passed"))
        status = aggregate.get("status") or aggregate_status(
            record.get("checks") or {}, bool(aggregate.get("passed")))
        tally.unscored += status == "unscored"
        _add_failures(self, record, tally)

    def merge(self, part: Digest) -> set[int]:
        """Take the digest of the records right after those taken so far, as if each had been
        added here; return the records of `part` (0-based, in its order) that now have a
        failure example or crash row here, i.e. that the report links to."""
        offset, linked = self.lines, set()
        self.lines += part.lines
        for case_id, theirs in part.cases.items():
            tally = self.cases.setdefault(case_id, CaseTally())
            tally.runs += theirs.runs
            tally.passed += theirs.passed
            tally.unscored += theirs.unscored
            tally.failures.update(theirs.failures)
        self.totals.update(part.totals)
        for name, check in part.failure_check.items():
            self.failure_check.setdefault(name, check)
        for name, examples in part.examples.items():
            kept = self.examples.setdefault(name, [])
            taken = _take(kept, self.example_lines.setdefault(name, []), examples,
                          part.example_lines.get(name, []), offset)
            linked.update(taken)
        linked.update(_take(self.crashes, self.crash_lines, part.crashes, part.crash_lines, offset))
        self.crash_total += part.crash_total
        return linked


def _take(kept: list[FailureExample], lines: list[int], more: list[FailureExample],
          more_lines: list[int], offset: int) -> list[int]:
    """Fill `kept` up to `EXAMPLES_PER_FAILURE` from `more` (first come, first kept); return
    the lines (in `more`'s numbering) of the examples taken."""
    room = max(0, EXAMPLES_PER_FAILURE - len(kept))
    kept.extend(more[:room])
    taken = more_lines[:room]
    lines.extend(offset + line for line in taken)
    return taken


#: The keys every results.jsonl record has, with their JSON types.
_RECORD_KEYS = {"case_id": str, "checks": dict, "aggregate": dict}


def iter_records(results_path: Path) -> Iterator[ResultRecord]:
    """The records of a results file, one at a time (blank lines skipped).

    Raises `ToolgradeError` naming the file and line of the first line that is not JSON or not
    shaped like a record: rendering a foreign file would report nonsense.
    """
    with results_path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise ToolgradeError(f"{results_path}:{number}: not valid JSON: {exc}") from exc
            problem = _record_problem(record)
            if problem:
                raise ToolgradeError(f"{results_path}:{number}: not a toolgrade record: {problem}")
            yield as_record(record)


def _record_problem(record: object) -> str | None:
    if not isinstance(record, dict):
        return "expected a JSON object"
    for key, kind in _RECORD_KEYS.items():
        if not isinstance(record.get(key), kind):
            return f"{key}: expected a JSON {'string' if kind is str else 'object'}"
    return None


def printable(text: str) -> str:
    """`text` with each control character (terminal escapes, line breaks) made a space."""
    return _CONTROL.sub(" ", text)


def clip(text: str, limit: int = MESSAGE_CHARS) -> str:
    """`text` on one line, without control characters, at most `limit` characters."""
    flat = " ".join(printable(str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _example(record: ResultRecord, check: str, step: int | None, message: str
             ) -> FailureExample:
    return FailureExample(case_id=str(record.get("case_id")), agent=record.get("agent"),
                          trial=int(record.get("trial") or 0), check=check,
                          step=step if isinstance(step, int) else None, message=clip(message or ""))


def _add_failures(digest: Digest, record: ResultRecord, tally: CaseTally) -> None:
    for check, result in sorted(check_blocks(record.get("checks") or {}).items()):
        if isinstance(result, dict) and "error" in result and result.get("passed") is None:
            digest.crash_total += 1
            if len(digest.crashes) < EXAMPLES_PER_FAILURE:
                digest.crashes.append(_example(record, check, None, result["error"]))
                digest.crash_lines.append(digest.lines - 1)
        for failure in (result or {}).get("failures") or []:
            name = str(failure.get("name", "unknown"))
            digest.totals[name] += 1
            tally.failures[name] += 1
            digest.failure_check.setdefault(name, check)
            kept = digest.examples.setdefault(name, [])
            if len(kept) < EXAMPLES_PER_FAILURE:
                kept.append(_example(record, check, failure.get("step"), failure.get("message")))
                digest.example_lines.setdefault(name, []).append(digest.lines - 1)
