"""Progress for long runs, showing judge calls and cache hits as they happen.

On a terminal a rich progress bar redraws in place; in a log (CI, a pipe) a plain line is
printed at every tenth of the run instead, since a bar that never redraws says nothing there.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from toolgrade.cli.common import err
from toolgrade.composition.judges import JudgeSetup
from toolgrade.scoring.outputs import ProgressHook


@contextmanager
def progress_bar(
    enabled: bool, total: int | None, judges: JudgeSetup, verb: str = "graded"
) -> Iterator[ProgressHook | None]:
    """Yield a progress hook (None when disabled) reporting on stderr.

    `total`: the runs to grade, when known beforehand; the hook's own `total` argument is
    followed either way (validating and grading in one pass knows it only at the end).
    `verb`: what the count says was done to the runs ("graded"; "read" in the one pass, where
    a bad line found late means nothing was graded after all).
    """
    if not enabled:
        yield None
        return
    if not err.is_terminal:
        yield _log_lines(judges, verb)
        return
    columns = (
        TextColumn("grading" if verb == "graded" else verb),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[judge]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err, transient=False) as bar:
        task = bar.add_task("grading", total=total, judge=judges.status_line())

        def hook(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, judge=judges.status_line())

        yield hook


def _log_lines(judges: JudgeSetup, verb: str) -> ProgressHook:
    printed = -1

    def hook(done: int, total: int) -> None:
        nonlocal printed
        step = max(1, total // 10)
        if done != printed and (done % step == 0 or done == total):
            printed = done
            err.print(f"{verb} {done}/{total} ({judges.status_line()})", markup=False)

    return hook
