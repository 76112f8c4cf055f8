"""The report's runs section: the run views the picker kept, with what the filters offer.

The steps come from `transcripts.jsonl` in the output folder. A folder written before
toolgrade kept transcripts has none: the section then says so and the report is otherwise the
same (failure rows link to their case, as before).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE, read_transcripts
from toolgrade.models import Case, Trajectory
from toolgrade.models.figures import ResultRecord
from toolgrade.models.summary import RunSummary
from toolgrade.reporting.run_sample import RunPicker
from toolgrade.reporting.run_view import RunView, build_run_view, run_anchor, step_anchor

#: Bytes of run views report.html embeds at most (estimated, `view_bytes`): the rest of the
#: page is tables of bounded size, so the page stays under ~10 MB however many runs there are.
BYTE_BUDGET = 6_000_000
#: Markup around a step and around a run, in bytes, for the estimate.
_STEP_MARKUP, _RUN_MARKUP = 420, 1800
#: Where to see every run, said wherever the page leaves runs out.
VIEWER_HINT = "`toolgrade view DIR` serves every run, with paging, search and the same filters."


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
    #: Runs the picker chose that the byte budget left out.
    over_budget: int = 0

    @property
    def left_out(self) -> str:
        """What the page leaves out and where to see it, in a sentence ("" if nothing)."""
        missing = self.total - len(self.views)
        if missing <= 0 or (self.missing and not self.views):
            return ""  # no transcripts at all: `missing` says why and what to do
        budget = (f" ({self.over_budget:,} of them past the budget of "
                  f"{BYTE_BUDGET / 1e6:g} MB of run views)" if self.over_budget else "")
        return (f"{missing:,} of {self.total:,} runs have no view on this page{budget}. "
                f"{VIEWER_HINT}")

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


def _same_run(record: ResultRecord, run: Trajectory) -> bool:
    """Whether a transcript line is the run its results line graded."""
    key = (str(record.get("case_id")), record.get("agent"), int(record.get("trial") or 0))
    return key == (run.case_id, run.agent, run.trial)


def suite_cases(summary: RunSummary) -> dict[str, Case] | None:
    """The cases of the suite the summary names (`toolgrade run` records its path), or None
    when it names none or it no longer loads: the run views then show no reference."""
    from toolgrade.errors import ToolgradeError
    from toolgrade.loaders import load_suite

    where = summary.suite
    if where is None or not Path(where).exists():
        return None
    try:
        return load_suite(Path(where)).cases
    except (ToolgradeError, OSError, ValueError):
        return None


def view_bytes(view: RunView) -> int:
    """About how many bytes a run's view takes in report.html (its text plus markup)."""
    size = _RUN_MARKUP + sum(len(p.message) + len(p.expected or "") + len(p.actual or "") + 200
                             for p in (*view.run_failures, *view.judges, *view.adjudications))
    if view.reference is not None:
        size += sum(len(a) + len(b) + 60 for a, b in (*view.reference.task,
                                                       *view.reference.expected))
    for block in view.blocks:
        for s in block.steps:
            size += _STEP_MARKUP + len(s.args or "") + len(s.result or "") + len(s.label)
            size += sum(len(p.message) + len(p.expected or "") + len(p.actual or "") + 200
                        for p in (*s.failures, *s.judges))
    return size


def _within_budget(views: list[RunView], picker: RunPicker,
                   positions: list[int]) -> tuple[list[RunView], int]:
    """The views that fit the byte budget, linked ones first, then the worst; results order."""
    linked = picker.linked
    order = sorted(range(len(views)), key=lambda i: (positions[i] not in linked,
                                                     tuple(-x for x in picker.rank.get(
                                                         positions[i], (0, 0.0, 0, 0)))))
    spent, keep = 0, set[int]()
    for i in order:
        size = view_bytes(views[i])
        if spent + size > BYTE_BUDGET and keep:
            continue
        spent += size
        keep.add(i)
    return [v for i, v in enumerate(views) if i in keep], len(views) - len(keep)


def runs_section(path: Path, picker: RunPicker, total: int,
                 cases: Mapping[str, Case] | None = None) -> RunsSection:
    """Read the kept runs' transcripts from `path` (a transcripts.jsonl) and build their views
    (`total`: the records of results.jsonl, which the picker was not offered when there are
    no transcripts); `cases` (the suite, when at hand) give each view its task and reference.
    """
    views: list[RunView] = []
    positions: list[int] = []
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
            views.append(build_run_view(record, run, (cases or {}).get(run.case_id)))
            positions.append(position)
        if unmatched:
            missing = (f"{unmatched} run(s) have no readable transcript in {TRANSCRIPTS_FILE} "
                       "(the file is not from the same run as results.jsonl).")
    views, over = _within_budget(views, picker, positions)
    return RunsSection(
        views=views, total=total, cut=picker.cut(), missing=missing, over_budget=over,
        checks=sorted({c for v in views for c in v.failed_checks}),
        failures=sorted({n for v in views for n in v.failure_names}),
        agents=sorted({v.agent or "" for v in views}),
        cases=sorted({v.case_id for v in views}),
        anchors={v.anchor: v.n_steps for v in views},
    )
