"""A rich progress bar for long runs, showing judge calls and cache hits as they happen."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from toolgrade.cli.common import err
from toolgrade.cli.judges import JudgeSetup
from toolgrade.scoring.runner import ProgressHook


@contextmanager
def progress_bar(enabled: bool, total: int, judges: JudgeSetup) -> Iterator[ProgressHook | None]:
    """Yield a progress hook (None when disabled) drawing on stderr."""
    if not enabled:
        yield None
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
