"""Shared CLI plumbing: consoles, exit codes, and turning errors into messages."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn, TypeVar

import typer
from rich.console import Console

from toolgrade.errors import ConfigError, EmptyInputError, InputError, ToolgradeError

EXIT_OK, EXIT_GATE, EXIT_INPUT = 0, 1, 2
#: Where `run` writes, and what `validate` skips inside a runs folder, unless --out says.
DEFAULT_OUT = Path("toolgrade-out")
#: The span or resource attribute that names a trace's case, unless --case-attribute says.
CASE_ATTRIBUTE_HELP = (
    "OTLP trace exports: the span or resource attribute holding the case id "
    "(default toolgrade.case_id)."
)

# Logs and CI capture are not terminals; give their tables room instead of rich's 80 columns.
_WIDTH = None if sys.stdout.isatty() else 120
out = Console(highlight=False, soft_wrap=True, width=_WIDTH)
err = Console(stderr=True, highlight=False, soft_wrap=True, width=_WIDTH)

#: `--allow-empty`, shared by `run` and `validate`.
ALLOW_EMPTY_HELP = (
    "Accept run files that hold no run (exit 0, nothing graded); without it they are bad "
    "input (exit 2), so that a CI job that recorded nothing does not pass."
)

T = TypeVar("T")


def refuse_together(**given: bool) -> None:
    """`ConfigError` (exit 2) when more than one of these flags was given: each asks for
    something the others contradict, and picking one silently hides the mistake. Keys are the
    flags' names with `_` for `-` (`no_judge` is `--no-judge`)."""
    named = [f"--{name.replace('_', '-')}" for name, on in given.items() if on]
    if len(named) > 1:
        raise ConfigError(f"{', '.join(named[:-1])} and {named[-1]} cannot be given together")


def fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    """Print to stderr and exit with `code`."""
    err.print(message, markup=False)
    raise typer.Exit(code)


@contextmanager
def input_errors_exit() -> Iterator[None]:
    """Turn toolgrade errors into exit 2 with every problem listed, one per line."""
    try:
        yield
    except InputError as exc:
        err.print(
            f"toolgrade: {len(exc.problems)} problem(s) in the input; nothing was graded:",
            markup=False,
        )
        for problem in exc.problems:
            err.print(f"  {problem}", markup=False)
        raise typer.Exit(EXIT_INPUT) from exc
    except ConfigError as exc:
        fail(f"toolgrade: configuration error: {exc}")
    except EmptyInputError as exc:
        fail(f"toolgrade: {exc}; nothing was graded (--allow-empty accepts an empty input)")
    except ToolgradeError as exc:
        fail(f"toolgrade: {exc}")


def guarded(fn: Callable[[], T]) -> T:
    """Call `fn` with toolgrade errors turned into exit 2."""
    with input_errors_exit():
        return fn()
    raise AssertionError("unreachable")  # pragma: no cover
