"""The report's runs section: the run views the picker kept, with what the filters offer.

The steps come from `transcripts.jsonl` in the output folder. A folder written before
toolgrade kept transcripts has none: the section then says so and the report is otherwise the
same (failure rows link to their case, as before).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE, read_transcripts
from toolgrade.models import Trajectory
from toolgrade.reporting.run_sample import RunPicker
from toolgrade.reporting.run_view import RunView, build_run_view, run_anchor, step_anchor


@dataclass(frozen=True)
class RunsSection:
    """Run views in results order, the cut, and the values each filter offers."""

    views: list[RunView]
    total: int
    cut: str
    missing: str
    checks: list[str]
    failures: list[str]
    agents: list[str]
    cases: list[str]
    #: The anchor of each run shown -> its number of steps.
    anchors: dict[str, int]

    def link(self, case_id: str, agent: str | None, trial: int, step: int | None) -> str | None:
        """Where a failure of a run shown here is pinned (its step, or the run's own failures
        when it names no step there); None when the run has no view."""
        run = run_anchor(case_id, agent, trial)
        n_steps = self.anchors.get(run)
        if n_steps is None:
            return None
        return step_anchor(run, step if step is not None and 0 <= step < n_steps else None)

    def top(self, case_id: str, agent: str | None, trial: int) -> str | None:
        """The anchor of a run's view, or None when the run has no view."""
        run = run_anchor(case_id, agent, trial)
        return run if run in self.anchors else None


def _same_run(record: dict[str, Any], run: Trajectory) -> bool:
    """Whether a transcript line is the run its results line graded."""
    key = (str(record.get("case_id")), record.get("agent"), int(record.get("trial") or 0))
    return key == (run.case_id, run.agent, run.trial)


def runs_section(path: Path, picker: RunPicker, total: int) -> RunsSection:
    """Read the kept runs' transcripts from `path` (a transcripts.jsonl) and build their views
    (`total`: the records of results.jsonl, which the picker was not offered when there are
    no transcripts)."""
    views: list[RunView] = []
    missing = ""
    if total and not path.is_file():
        missing = (f"No {TRANSCRIPTS_FILE} in this folder (it was written by an older "
                   "toolgrade): run `toolgrade run` again to see each run's transcript.")
    else:
        runs = read_transcripts(path, picker.kept.keys())
        unmatched = 0
        for position, record in sorted(picker.kept.items()):
            run = runs.get(position)
            if run is None or not _same_run(record, run):
                unmatched += 1
                continue
            views.append(build_run_view(record, run))
        if unmatched:
            missing = (f"{unmatched} run(s) have no readable transcript in {TRANSCRIPTS_FILE} "
                       "(the file is not from the same run as results.jsonl).")
    return RunsSection(
        views=views, total=total, cut=picker.cut(), missing=missing,
        checks=sorted({c for v in views for c in v.failed_checks}),
        failures=sorted({n for v in views for n in v.failure_names}),
        agents=sorted({v.agent or "" for v in views}),
        cases=sorted({v.case_id for v in views}),
        anchors={v.anchor: v.n_steps for v in views},
    )
