"""A chunk's share of the reports, taken in a worker process (`toolgrade run --jobs N`).

The worker folds each record of its chunk into a digest and the JUnit testcases, and notes
what the choice of run views needs (case and pass); the parent's `ReportStream.merge` takes
the part in input order, as if it had taken each record itself. Light to import: a worker
loads it, not the report templates.
"""

from __future__ import annotations

from typing import Any

from toolgrade.reporting.digest import Digest
from toolgrade.reporting.junit import JunitPart


class ReportPart:
    """What the reports need of a chunk of results.jsonl records."""

    def __init__(self) -> None:
        self.digest = Digest()
        self.junit = JunitPart()
        #: Per record, in order: (case_id, whether its aggregate passed).
        self.runs: list[tuple[str, bool]] = []

    def add(self, record: dict[str, Any]) -> None:
        """Take one record's JSON form."""
        self.digest.add(record)
        self.junit.add(record)
        passed = bool((record.get("aggregate") or {}).get("passed"))
        self.runs.append((str(record.get("case_id")), passed))
