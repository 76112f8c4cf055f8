"""The viewer's pages: the list of runs (filters, search, pager) and one run's view, as HTML,
and the list as JSON.

A run's view is the report's own `RunView` (`build_run_view`), so the viewer shows the same
steps, pinned failures and verdicts as report.html and `toolgrade show`. Every value shown is
agent or suite text: the template is rendered with autoescaping on, and control characters
are made spaces as in the other reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, TypedDict
from urllib.parse import urlencode

import jinja2

from toolgrade.errors import ToolgradeError
from toolgrade.loaders.runs import read_line
from toolgrade.models import Trajectory
from toolgrade.models.check_names import registered_names as check_names
from toolgrade.reporting.digest import printable
from toolgrade.reporting.run_view import Pinned, RunView, build_run_view
from toolgrade.reporting.tables import fmt
from toolgrade.reporting.viewer.index import RunIndex, RunRow
from toolgrade.reporting.viewer.query import MAX_PAGE_SIZE, SORTS, STATUSES, Page, Query, Searcher

#: Lines of results.jsonl that failed to read, listed by number on the list page.
PROBLEMS_SHOWN = 20
#: The page sizes the list offers.
PAGE_SIZES = (25, 50, 100, 200, MAX_PAGE_SIZE)


class NotFound(ToolgradeError, LookupError):
    """No run at the index asked for (the message says why: out of range, or an unreadable
    line of results.jsonl)."""


@dataclass(frozen=True)
class RunDetail:
    """A run's view with where it came from, and what could not be shown of it."""

    row: RunRow
    view: RunView
    transcript_line: int | None
    note: str  # why the steps are missing, or ""


def _printable(value: Any) -> Any:
    if isinstance(value, str) and not hasattr(value, "__html__"):  # markup stays as it is
        return printable(value)
    return value


def url(path: str, params: dict[str, str] | None = None) -> str:
    """`path` with `params` as its query string (none when empty)."""
    return f"{path}?{urlencode(params)}" if params else path


def step_failures(view: RunView) -> list[tuple[int, Pinned]]:
    """Each failure pinned to a step, with the step's index: the run page's list of links."""
    return [(s.index, p) for b in view.blocks for s in b.steps for p in s.failures]


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("toolgrade.reporting", "templates"),
        autoescape=True,  # every value shown is agent or suite text
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_printable,
    )
    env.globals.update(url=url, fmt=fmt, step_failures=step_failures, CHECKS=check_names(),
                       STATUSES=STATUSES, SORTS=SORTS, PAGE_SIZES=PAGE_SIZES)
    return env


def _render(**context: Any) -> str:
    return _environment().get_template("viewer.html.jinja").render(**context)


def filter_options(index: RunIndex) -> dict[str, list[tuple[str, str]]]:
    """(value, text) of each choice of each filter: the runs behind a status or a failure
    are counted, so a filter that would match nothing is not offered."""
    count = "{} ({:,})".format
    return {
        "status": [(s, count(s, index.statuses[s])) for s in STATUSES if index.statuses[s]],
        "check": [(c, c) for c in check_names()],
        "failure": [(f, count(f, n)) for f, n in sorted(index.failures.items())],
        "agent": [(a, a) for a in index.agents],
    }


def render_list(index: RunIndex, page: Page) -> str:
    """The list page: what the folder holds, the filters, one page of matching runs."""
    problems = [index.problems[i] for i in sorted(index.problems)[:PROBLEMS_SHOWN]]
    return _render(kind="list", title=f"toolgrade view: {index.folder}", index=index,
                   page=page, query=page.query, problems=problems,
                   options=filter_options(index))


def _steps_or_note(index: RunIndex, row: RunRow) -> tuple[Trajectory | None, int | None, str]:
    """The run's steps from transcripts.jsonl, or why there are none."""
    if not index.transcripts_path.is_file():
        return None, None, (f"No {index.transcripts_path.name} in this folder (written by an "
                            "older toolgrade): run `toolgrade run` again to see the steps.")
    found = index.transcript_line(row.index)
    if found is None:
        return None, None, (f"{index.transcripts_path.name} has no line for this run (it holds "
                            "fewer runs than results.jsonl).")
    number, text = found
    run, problems = read_line(text, index.transcripts_path, number)
    if run is None:
        reason = problems[0] if problems else "not a run"
        return None, number, f"The transcript could not be read: {reason}"
    if (run.case_id, run.agent, run.trial) != (row.case_id, row.agent, row.trial):
        return None, number, (f"{index.transcripts_path.name} line {number} is another run "
                              f"({run.case_id} {run.agent}:{run.trial}): the two files are "
                              "not from the same run.")
    return run, number, ""


def run_detail(index: RunIndex, number: int) -> RunDetail:
    """The view of the `number`-th run (0-based). Raises NotFound saying why there is none."""
    row = index.row(number)
    if row is None:
        problem = index.problems.get(number)
        if problem is not None:
            raise NotFound(f"run {number} could not be read: {problem}")
        raise NotFound(f"no run {number}: the folder holds runs 0 to {len(index.rows) - 1}")
    run, line, note = _steps_or_note(index, row)
    steps = run or Trajectory(case_id=row.case_id, agent=row.agent, trial=row.trial)
    return RunDetail(row=row, view=build_run_view(index.record(row), steps),
                     transcript_line=line, note=note)


def render_run(index: RunIndex, searcher: Searcher, query: Query, number: int) -> str:
    """The run page: the run's view, and links back to the list and to the runs before and
    after it under the list's filters (`query`). Raises NotFound."""
    detail = run_detail(index, number)
    before, after, position = searcher.neighbours(query, number)
    back = query.params(page=position // query.size + 1 if position is not None else 1)
    links = query.params(page=1)
    return _render(kind="run", title=f"{detail.view.case_id} · {detail.view.label}",
                   index=index, detail=detail, view=detail.view, query=query, back=back,
                   links=links, before=before, after=after)


def render_error(status: int, message: str) -> str:
    """A page saying what went wrong (a bad query, a run that is not there)."""
    return _render(kind="error", title=f"toolgrade view: {status}", status=status,
                   message=message)


class CellJson(TypedDict):
    """One check of a row in the JSON API."""

    outcome: str
    score: float | None


class RowJson(TypedDict):
    """A list row in the JSON API."""

    index: int
    line: int
    case_id: str
    agent: str | None
    trial: int
    status: str
    score: float | None
    checks: dict[str, CellJson]
    failures: list[str]
    url: str


class ProblemJson(TypedDict):
    """A results line that could not be read."""

    line: int | None
    reason: str


class PageJson(TypedDict):
    """`/api/runs`: one page of runs."""

    total: int
    matched: int
    page: int
    pages: int
    size: int
    runs: list[RowJson]
    problems: list[ProblemJson]


def row_json(row: RunRow) -> RowJson:
    """A list row as the JSON API gives it."""
    return {
        "index": row.index, "line": row.line, "case_id": row.case_id, "agent": row.agent,
        "trial": row.trial, "status": row.status, "score": row.score,
        "checks": {name: {"outcome": c.outcome, "score": c.score}
                   for name, c in zip(check_names(), row.checks, strict=True)},
        "failures": list(row.failures), "url": f"/run/{row.index}",
    }


def page_json(index: RunIndex, page: Page) -> PageJson:
    """`/api/runs`: one page of matching runs, the counts, and the lines that failed to read."""
    return {
        "total": page.total, "matched": page.matched, "page": page.query.page,
        "pages": page.pages, "size": page.query.size,
        "runs": [row_json(r) for r in page.rows],
        "problems": [{"line": p.line, "reason": p.reason}
                     for _, p in sorted(index.problems.items())],
    }
