"""JSON Lines reading that reports malformed lines instead of stopping at the first."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolgrade.errors import InputProblem


def iter_jsonl(path: Path) -> Iterator[tuple[int, Any, InputProblem | None]]:
    """Yield (line number, parsed value or None, problem or None) for each non-blank line."""
    for number, line in iter_text_lines(path):
        value, problem = decode_line(path, number, line)
        yield number, value, problem


def iter_text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Yield (line number, text) for each non-blank line, undecoded."""
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if line.strip():
                yield number, line


def decode_line(path: Path, number: int, line: str) -> tuple[Any, InputProblem | None]:
    """(parsed value, None), or (None, the problem naming the file, line and column)."""
    try:
        # Without its line break, a line cut short is reported where it ends, not at
        # "column 1" of the next line.
        return json.loads(line.rstrip("\r\n")), None
    except json.JSONDecodeError as exc:
        reason = f"malformed JSON: {exc.msg} (column {exc.colno})"
        return None, InputProblem(str(path), number, "", reason)
