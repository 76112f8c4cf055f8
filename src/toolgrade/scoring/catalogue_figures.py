"""The summary's `mcp` block, for a suite that takes its tools from an MCP catalogue
(`tools_from`): tool coverage and catalogue drift (docs/mcp.md).

Coverage: the share of the catalogue's tools the suite's cases expect (in a route, an
alternative or an expected call), the share the runs called, and the tools never expected and
never called. Drift: how many runs saw another catalogue than the suite's, and per tool how
many runs saw it added, removed or changed. A suite without `tools_from` has no block, so its
summary keeps the keys it always had.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from toolgrade.models import Case, Trajectory, TrajectoryResult
from toolgrade.models.catalogue import SuiteCatalogue


def expected_tools(case: Case) -> set[str]:
    """The tools a case's reference expects: its routes' and its expected calls'."""
    tools: set[str] = set()
    selection = case.expected.selection
    if selection is not None:
        tools.update(selection.tools)
        tools.update(t for route in selection.alternatives for t in route)
    tools.update(call.tool for call in case.expected.arguments or [])
    return tools


class CatalogueFigures:
    """Coverage and drift folded one run at a time; parts merge (runs with --jobs)."""

    def __init__(self, cases: Iterable[Case] = ()) -> None:
        self.catalogue: SuiteCatalogue | None = None
        self.expected: set[str] = set()
        for case in cases:
            if case.catalogue is not None:
                self.catalogue = self.catalogue or case.catalogue
                self.expected |= expected_tools(case)
        self.runs = 0
        self.recorded = 0
        self.drifted = 0
        self.called: Counter[str] = Counter()
        self.drift: dict[str, Counter[str]] = {}

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Take one graded run of a case stamped by `tools_from` (others are not counted)."""
        if case.catalogue is None:
            return
        self.runs += 1
        self.recorded += run.catalogue is not None
        self.called.update(t for t in run.tool_names if t in case.catalogue.tools)
        if record.drift:
            self.drifted += 1
            for name, kind in record.drift.by_tool().items():
                self.drift.setdefault(name, Counter())[kind] += 1

    def merge(self, other: CatalogueFigures) -> None:
        """Add a part's counts (the runs right after these)."""
        self.runs += other.runs
        self.recorded += other.recorded
        self.drifted += other.drifted
        self.called.update(other.called)
        for name, kinds in other.drift.items():
            self.drift.setdefault(name, Counter()).update(kinds)

    def to_json(self) -> dict[str, Any] | None:
        """The `mcp` block, or None for a suite without `tools_from`."""
        if self.catalogue is None:
            return None
        tools = sorted(self.catalogue.tools)
        expected = [t for t in tools if t in self.expected]
        called = [t for t in tools if self.called[t]]
        n = len(tools)
        return {
            "catalogue": {"file": self.catalogue.file, "hash": self.catalogue.hash, "tools": n},
            "coverage": {
                "expected": len(expected),
                "expected_share": len(expected) / n if n else None,
                "called": len(called),
                "called_share": len(called) / n if n else None,
                "never_expected": [t for t in tools if t not in self.expected],
                "never_called": [t for t in tools if not self.called[t]],
                "calls": {t: self.called[t] for t in tools},
            },
            "drift": {
                "on_drift": self.catalogue.on_drift,
                "runs": self.runs,
                "recorded": self.recorded,
                "with_drift": self.drifted,
                "tools": {name: dict(sorted(kinds.items()))
                          for name, kinds in sorted(self.drift.items())},
            },
        }


def coverage_lines(cases: Iterable[Case], called: Iterable[str] | None = None) -> list[str]:
    """What `validate` prints of tool coverage for a suite with `tools_from` (none for
    another): the catalogue tools the cases expect, and with runs (`called`: the catalogue
    tools they called) the tools the runs called, each with those never exercised."""
    figures = CatalogueFigures(cases)
    if figures.catalogue is None:
        return []
    figures.called.update(called or ())
    block = figures.to_json()
    assert block is not None  # a catalogue was found
    coverage, catalogue = block["coverage"], block["catalogue"]
    of = f"of {catalogue['tools']} tools of {catalogue['file']}"
    lines = [f"tool coverage: {coverage['expected']} {of} expected by the cases; never "
             f"expected: {', '.join(coverage['never_expected']) or 'none'}"]
    if called is not None:
        lines.append(f"tool coverage: {coverage['called']} {of} called by the runs; never "
                     f"called: {', '.join(coverage['never_called']) or 'none'}")
    return lines
