"""Errors users see: every input problem names the file, the line and the field."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: How much of one long value a message shows, and of a whole message: a 5 MB value echoed
#: back buries the problem (and the terminal).
SHOWN_VALUE_CHARS = 80
SHOWN_MESSAGE_CHARS = 400
_LONG_WORD = re.compile(rf"\S{{{SHOWN_VALUE_CHARS + 1},}}")


def shorten(text: str) -> str:
    """`text` with each run of more than `SHOWN_VALUE_CHARS` non-blank characters cut to its
    first `SHOWN_VALUE_CHARS` and its length, and the whole cut at `SHOWN_MESSAGE_CHARS`."""
    if len(text) <= SHOWN_VALUE_CHARS:
        return text
    text = _LONG_WORD.sub(
        lambda m: f"{m.group()[:SHOWN_VALUE_CHARS]}... ({len(m.group()):,} chars)", text
    )
    if len(text) > SHOWN_MESSAGE_CHARS:
        text = f"{text[:SHOWN_MESSAGE_CHARS]}... ({len(text):,} chars)"
    return text


@dataclass(frozen=True, order=True)
class InputProblem:
    """One problem in one input file."""

    file: str
    line: int | None
    field: str
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        # A field is a path of keys and indexes, long only when a key is: cut only the absurd.
        field = self.field if len(self.field) <= SHOWN_MESSAGE_CHARS else shorten(self.field)
        reason = shorten(self.reason)
        return f"{where}: {field}: {reason}" if field else f"{where}: {reason}"


class ToolgradeError(Exception):
    """Base of the errors the CLI turns into exit code 2."""


class InputError(ToolgradeError):
    """One or more problems in the suite or runs; nothing was graded."""

    def __init__(self, problems: list[InputProblem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.file, p.line or 0, p.field))
        super().__init__("\n".join(str(p) for p in self.problems))


class EmptyInputError(ToolgradeError):
    """The run files hold no run: a CI job that recorded nothing must not pass for it."""

    def __init__(self, files: list[str]) -> None:
        self.files = files
        shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
        super().__init__(f"no runs read from {shown}")


class ConfigError(ToolgradeError):
    """Bad configuration (settings file, gates, judge floors)."""


class ProviderAuthError(ConfigError):
    """A judge provider refused the credentials (or none were given): every later call would be
    refused the same way, so grading stops at the first, naming the model and what it needs."""

    def __init__(self, model: str, needs: str, detail: str) -> None:
        self.model = model
        super().__init__(
            f"the judge model {model} cannot be called: its credentials are missing or refused"
            f" ({detail}): {needs}; grading stopped, no other item was asked"
        )


class NotUtf8Error(ValueError):
    """A text input file holds bytes that are not UTF-8; `line` is where the first one is."""

    def __init__(self, line: int, byte: int) -> None:
        self.line = line
        super().__init__(f"not UTF-8 text: byte 0x{byte:02x} (save the file as UTF-8)")


def read_utf8(path: Path) -> str:
    """A text file's content (a byte-order mark dropped); raises `NotUtf8Error` with the line."""
    return decode_utf8(path.read_bytes())


def decode_utf8(data: bytes) -> str:
    """UTF-8 bytes as text (a byte-order mark dropped); raises `NotUtf8Error` with the line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotUtf8Error(data.count(b"\n", 0, exc.start) + 1, data[exc.start]) from exc
