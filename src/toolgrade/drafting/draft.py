"""`toolgrade draft`: read recorded runs, draft one case per task, write and validate the suite.

Runs are read as `toolgrade run` reads them (every accepted format). They are grouped by
their case id (every run format names one), or with `by_input` by their task input (for runs
recorded with an id per run rather than per task), and each group becomes a case, built from
the chosen agent's runs. The suite is written to a temporary file beside the target, loaded back
with the suite loader, and only then moved into place, so a draft that would not validate is
never left behind.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolgrade.drafting.catalogue import DraftTool, read_catalogue, tools_for
from toolgrade.drafting.infer import (
    DraftCase,
    draft_arguments,
    draft_faults,
    draft_selection,
    draft_state,
    stopped_short,
    task_input,
)
from toolgrade.drafting.ordering import draft_budgets, draft_ordering
from toolgrade.drafting.yaml_text import suite_text
from toolgrade.errors import InputError, InputProblem, ToolgradeError
from toolgrade.loaders import load_suite
from toolgrade.loaders.runs import iter_runs, run_files
from toolgrade.models import Case, Trajectory


@dataclass(frozen=True)
class DraftOptions:
    """Which runs to draft from and how."""

    agent: str | None = None
    min_runs: int = 1
    tools: Path | None = None
    free_reads: bool = False
    guards: bool = True
    by_input: bool = False


@dataclass
class Draft:
    """What was drafted: the cases, the tools, the groups left out and the validated suite."""

    cases: list[DraftCase]
    tools: dict[str, DraftTool]
    runs: int
    skipped: dict[str, int] = field(default_factory=dict)
    suite: list[Case] = field(default_factory=list)


def read_runs(paths: Sequence[Path]) -> list[Trajectory]:
    """Every run of the files or folders; `InputError` with every problem found."""
    runs: list[Trajectory] = []
    problems: list[InputProblem] = []
    for _, _, run, found in iter_runs(run_files(paths)):
        problems += found
        if run is not None:
            runs.append(run)
    if problems:
        raise InputError(problems)
    return runs


def _group_key(run: Trajectory, by_input: bool) -> str:
    """The run's case id; with `by_input`, its task input (runs with none: their case id)."""
    if by_input:
        task = task_input([run]).value
        if task is not None:
            return "input:" + json.dumps(task, sort_keys=True, ensure_ascii=False)
    return "case:" + run.case_id


def group_runs(runs: Sequence[Trajectory], agent: str | None, by_input: bool = False
               ) -> dict[str, list[Trajectory]]:
    """The runs of `agent` (all runs when None) grouped by case id (`by_input`: by task input),
    keyed by the first run's case id, in the order groups first appear."""
    groups: dict[str, list[Trajectory]] = {}
    for run in runs:
        if agent is None or run.agent == agent:
            groups.setdefault(_group_key(run, by_input), []).append(run)
    named: dict[str, list[Trajectory]] = {}
    for members in groups.values():
        case_id = members[0].case_id
        while case_id in named:  # two inputs whose first runs share a case id
            case_id += "-2"
        named[case_id] = members
    return named


def draft_case(case_id: str, runs: Sequence[Trajectory], tools: dict[str, DraftTool],
               options: DraftOptions) -> DraftCase:
    """One case from its runs (those that gave up short of another run's write left out)."""
    short = stopped_short(runs, tools)
    everyone = len(runs)
    runs = [run for run in runs if run not in short] or list(runs)
    task = task_input(runs)
    before, groups = draft_ordering(runs, task.value, tools, options.guards,
                                    options.free_reads)
    selection = draft_selection(runs, tools, options.free_reads)
    return DraftCase(
        id=case_id, runs=len(runs), left_out=everyone - len(runs), input=task, selection=selection,
        arguments=draft_arguments(runs, tools, options.free_reads),
        before=before, groups=groups, budgets=draft_budgets(runs, tools, options.free_reads),
        faults=draft_faults(runs),
        state=draft_state(runs))


def draft_suite(paths: Sequence[Path], options: DraftOptions) -> Draft:
    """The draft from the runs in `paths`; `ToolgradeError` when there is nothing to draft."""
    runs = read_runs(paths)
    groups = group_runs(runs, options.agent, options.by_input)
    if not groups:
        who = f" of agent {options.agent!r}" if options.agent else ""
        raise ToolgradeError(f"no runs{who} in {', '.join(map(str, paths))}: nothing to draft")
    catalogue = read_catalogue(options.tools) if options.tools else {}
    kept = {c: rs for c, rs in groups.items() if len(rs) >= options.min_runs}
    tools = tools_for((call.tool for rs in kept.values() for run in rs for _, call in run.calls),
                      catalogue)
    cases = [draft_case(c, rs, tools, options) for c, rs in kept.items()]
    skipped = {c: len(rs) for c, rs in groups.items() if len(rs) < options.min_runs}
    return Draft(cases=cases, tools=tools, runs=sum(case.runs for case in cases),
                 skipped=skipped)


def header(draft: Draft, paths: Sequence[Path], options: DraftOptions) -> list[str]:
    """The comment lines at the top of the file: what it was drafted from."""
    who = f"agent {options.agent}" if options.agent else "every agent"
    left_out = sum(case.left_out for case in draft.cases)
    gave_up = f"; {left_out} that stopped short of a write left out" if left_out else ""
    return [
        f"Drafted by `toolgrade draft` from {draft.runs} runs ({who}{gave_up}) in "
        + ", ".join(p.as_posix() for p in paths) + ".",
        "Every line marked `# review:` was inferred from those runs: check each before",
        "trusting a grade (docs/draft.md says how each is inferred).",
    ]


def write_draft(draft: Draft, out: Path, header_lines: Sequence[str]) -> Draft:
    """Write the suite to `out` once it loads back as a valid suite; `draft.suite` holds the
    loaded cases. A draft that does not load leaves `out` as it was."""
    if not draft.cases:
        raise ToolgradeError("no case has enough runs (see --min-runs): nothing written")
    text = suite_text(draft.cases, draft.tools, header_lines)
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=".draft-", suffix=".yaml", dir=out.parent)
    staged = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as fh:
            fh.write(text)
        draft.suite = list(load_suite(staged).cases.values())
        os.replace(staged, out)
    finally:
        staged.unlink(missing_ok=True)
    return draft
