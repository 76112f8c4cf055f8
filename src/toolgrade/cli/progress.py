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
def progress_bar(enabled: bool, total: int, judges: JudgeSetup) -> Iterator[ProgressHook | None]:
    """Yield a progress hook (None when disabled) reporting on stderr."""
    if not enabled:
        yield None
        return
    if not err.is_terminal:
        yield _log_lines(total, judges)
        return
    columns = (
        TextColumn("grading"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[judge]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err, transient=False) as bar:
        task = bar.add_task("grading", total=total, judge=judges.status_line())

        def hook(done: int, _total: int) -> None:
            bar.update(task, completed=done, judge=judges.status_line())

        yield hook


def _log_lines(total: int, judges: JudgeSetup) -> ProgressHook:
    step = max(1, total // 10)

    def hook(done: int, _total: int) -> None:
        if done % step == 0 or done == total:
            err.print(f"graded {done}/{total} ({judges.status_line()})", markup=False)

    return hook
