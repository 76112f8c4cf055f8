"""Errors users see: every input problem names the file, the line and the field.

Every error toolgrade raises is a `ToolgradeError`; the command line prints its message and
exits 2 (docs/contract.md, "Exit codes"). The tree, with where each class lives when not here
(a second base in brackets: code that catches that one keeps working):

    ToolgradeError
    ├── InputError                   problems in the suite or runs, each file:line: field
    ├── EmptyInputError              the run files hold no run
    ├── ConfigError                  settings, gates, judge floors, judge models
    │   └── ProviderAuthError        a judge provider refused the credentials
    ├── NotUtf8Error [ValueError]    a text file that is not UTF-8
    ├── BoundsError [ValueError]     a value past the loaders' bounds (jsonio/bounds.py)
    ├── DuplicateKeyError [ValueError]  an object naming a key twice (jsonio/keys.py)
    ├── YamlBoundsError [yaml ConstructorError]  the same, in YAML (loaders/yaml_lines.py)
    ├── AdapterError [ValueError]    a run message that cannot be read (adapters/common.py)
    ├── SpecError [ValueError]       a reference argument that is not a valid comparator
    │                                (checks/arguments/comparators.py)
    ├── CalibrationError             a calibration that cannot proceed (calibration/calibrate.py)
    ├── PromptError [ValueError]     a judge template missing, malformed or misused
    ├── TransientError               a judge provider failure worth retrying
    ├── MissingKeyError              a judge call refused before it is made: no key variable set
    ├── CacheStorageError            the verdict cache's database cannot be read or written
    ├── LocalModelError              the embedded judge model cannot be used
    │   └── PromptTooLong [ValueError]  a prompt past its context (judging/local/runtime.py)
    ├── McpServerError               an MCP server unreachable or answering wrongly
    │                                (mcp/catalogue.py)
    ├── StaleIndex                   results.jsonl changed under the viewer's index
    │                                (reporting/viewer/index.py)
    ├── QueryError [ValueError]      a viewer query parameter it cannot use
    │                                (reporting/viewer/query.py)
    ├── NotFound [LookupError]       no run at the viewer's index (reporting/viewer/pages.py)
    ├── NotDecoded [ValueError]      an output BFCL's decoder fails (importers/bfcl_ast.py)
    ├── ToolFault                    an injected tool error raised to the agent (harness.py)
    └── ToolgradeCheckFailure [AssertionError]  a check that did not pass, in the pytest plugin
                                     (pytest_plugin.py)

Private exceptions (a leading underscore) are signals inside one module and never leave it.
tests/test_errors.py holds this tree to the code.
"""

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


class NotUtf8Error(ToolgradeError, ValueError):
    """A text input file holds bytes that are not UTF-8; `line` is where the first one is."""

    def __init__(self, line: int, byte: int) -> None:
        self.line = line
        super().__init__(f"not UTF-8 text: byte 0x{byte:02x} (save the file as UTF-8)")


class PromptError(ToolgradeError, ValueError):
    """A template is missing, malformed, or was given the wrong inputs.

    A `ToolgradeError`, so the command line reports a broken template as bad configuration
    (exit 2) rather than with a traceback; messages start with `file:line:` where known.
    """


class TransientError(ToolgradeError):
    """A provider failure worth retrying (rate limit, timeout, server error) not from litellm."""


class MissingKeyError(ToolgradeError):
    """A call that could only be refused: its provider's key variable is not set. Raised
    before litellm is imported (which takes seconds), read as a refused credential."""

    def __init__(self, model: str, variable: str) -> None:
        super().__init__(f"Missing credentials: {variable} is not set for {model}")
        self.variable = variable


class CacheStorageError(ToolgradeError):
    """The cache's database could not be read or written (full or read-only disk, lock)."""


class LocalModelError(ToolgradeError):
    """The embedded model cannot be used (extra not installed, or a corrupt file)."""


def read_utf8(path: Path) -> str:
    """A text file's content (a byte-order mark dropped); raises `NotUtf8Error` with the line."""
    return decode_utf8(path.read_bytes())


def decode_utf8(data: bytes) -> str:
    """UTF-8 bytes as text (a byte-order mark dropped); raises `NotUtf8Error` with the line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotUtf8Error(data.count(b"\n", 0, exc.start) + 1, data[exc.start]) from exc
