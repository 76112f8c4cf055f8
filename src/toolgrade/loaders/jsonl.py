"""JSON Lines reading that reports malformed lines instead of stopping at the first."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolgrade.errors import InputProblem


def iter_jsonl(path: Path) -> Iterator[tuple[int, Any, InputProblem | None]]:
    """Yield (line number, parsed value or None, problem or None) for each non-blank line."""
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line), None
            except json.JSONDecodeError as exc:
                reason = f"malformed JSON: {exc.msg} (column {exc.colno})"
                yield number, None, InputProblem(str(path), number, "", reason)
