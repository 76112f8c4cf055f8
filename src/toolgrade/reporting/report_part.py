"""A chunk's share of the reports, taken in a worker process (`toolgrade run --jobs N`).

The worker folds each record of its chunk into a digest and the JUnit testcases, and notes
what the choice of run views needs (case, pass, score, failures); the parent's
`ReportStream.merge` takes the part in input order, as if it had taken each record itself.
Light to import: a worker loads it, not the report templates.
"""

from __future__ import annotations

from toolgrade.models.figures import ResultRecord
from toolgrade.reporting.digest import Digest
from toolgrade.reporting.junit import JunitPart
from toolgrade.reporting.run_sample import RunFacts


class ReportPart:
    """What the reports need of a chunk of results.jsonl records."""

    def __init__(self) -> None:
        self.digest = Digest()
        self.junit = JunitPart()
        #: Per record, in order: what choosing its run view needs.
        self.runs: list[RunFacts] = []

    def add(self, record: ResultRecord) -> None:
        """Take one record's JSON form."""
        self.digest.add(record)
        self.junit.add(record)
        self.runs.append(RunFacts.of(record))
