"""JSON Lines reading that reports malformed lines instead of stopping at the first.

Only UTF-8 text gets through: bytes that are not UTF-8, lone surrogate escapes (`"\\ud800"`, which
no UTF-8 output can hold) and values past the bounds of `jsonio.bounds` (nesting, one string's
size, integer digits) are each reported on their line, never passed on to a crash later. The
bare tokens `NaN`, `Infinity` and `-Infinity`, which Python's `json.dumps` writes by default but
JSON does not allow, are read as those strings: a recorded trace is not refused for them, and
every output stays valid JSON. A number too large for a float (`1e999`, valid JSON) reads as
infinity, as in every JSON reader; outputs write it with `jsonio.out`.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolgrade.errors import InputProblem
from toolgrade.jsonio import keys as json_keys

# MAX_DEPTH, too_deep and value_depth are re-exported for their older importers.
from toolgrade.jsonio.bounds import MAX_DEPTH as MAX_DEPTH
from toolgrade.jsonio.bounds import BoundsError, loads_bounded
from toolgrade.jsonio.bounds import too_deep as too_deep
from toolgrade.jsonio.bounds import value_depth as value_depth

#: An escaped UTF-16 surrogate, the only way JSON text can produce a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def iter_jsonl(
    path: Path, *, unique_keys: bool = False
) -> Iterator[tuple[int, Any, InputProblem | None]]:
    """Yield (line number, parsed value or None, problem or None) for each non-blank line.

    `unique_keys`: a key written twice in one object is a problem (Python keeps the last
    silently), at the cost of building each object in Python: for suites, not run files.
    """
    for number, line in iter_text_lines(path):
        value, problem = decode_line(path, number, line, unique_keys=unique_keys)
        yield number, value, problem


#: How much of a file `binary_problem` looks at, and the share of it that may be noise (bytes
#: that are not UTF-8, control characters) in a text file: a few accented letters saved as
#: Latin-1 are a text file with problems on their lines, a binary is nearly all noise.
SNIFF_BYTES = 8192
MAX_NOISE = 0.1
_TEXT_CONTROLS = frozenset("\t\n\r\f\v\b\x1b")
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def binary_problem(path: Path) -> InputProblem | None:
    """One problem for a file that is not text at all (a binary given by mistake), or None.

    Read line by line, a binary file would make one problem per line of noise, none of them
    the reason. A file that cannot be read is left to the reader, which says why.
    """
    try:
        with path.open("rb") as fh:
            sample = fh.read(SNIFF_BYTES)
    except OSError:
        return None
    if sample.startswith(_UTF16_BOMS):
        return InputProblem(str(path), None, "", "UTF-16 text, not UTF-8 (save the file as UTF-8)")
    text = sample.decode("utf-8", errors="replace")
    noise = sum(1 for c in text if c == "\ufffd" or (c < " " and c not in _TEXT_CONTROLS))
    if b"\x00" in sample or noise > MAX_NOISE * max(len(text), 1):
        return InputProblem(str(path), None, "", "not a text file")
    return None


def iter_text_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Yield (line number, text) for each non-blank line, undecoded.

    A byte-order mark is dropped. Bytes that are not UTF-8 are kept as surrogate escapes, so the
    line is still yielded and `text_problem` can name it instead of the whole file failing.
    """
    with path.open(encoding="utf-8-sig", errors="surrogateescape") as fh:
        for number, line in enumerate(fh, start=1):
            if line.strip():
                yield number, line


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield (line number, text) for each non-blank line of JSON Lines text already read.

    Lines end at "\n" only: str.splitlines() would also split at U+2028, U+2029 and NEL, which
    JSON allows raw inside a string (as `json.dumps(ensure_ascii=False)` writes them).
    """
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, line


def utf8_error(line: str) -> UnicodeEncodeError | None:
    """Why a line read by `iter_text_lines` is not UTF-8 text (its undecodable bytes are kept as
    surrogate escapes), or None."""
    if line.isascii():  # a flag lookup: the common case costs nothing
        return None
    try:
        line.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc
    return None


def text_problem(path: Path, number: int, line: str) -> InputProblem | None:
    """The problem of a line holding bytes that are not UTF-8, or None."""
    exc = utf8_error(line)
    if exc is None:
        return None
    code = ord(line[exc.start])
    what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else "a character"
    reason = f"not UTF-8 text: {what} at column {exc.start + 1} (save the file as UTF-8)"
    return InputProblem(str(path), number, "", reason)


def decode_line(
    path: Path, number: int, line: str, *, unique_keys: bool = False
) -> tuple[Any, InputProblem | None]:
    """(parsed value, None), or (None, the problem naming the file, line and column)."""
    problem = text_problem(path, number, line)
    if problem is not None:
        return None, problem
    try:
        # Without its line break, a line cut short is reported where it ends, not at
        # "column 1" of the next line.
        value = loads_bounded(
            line.rstrip("\r\n"),
            parse_constant=_constant_as_text,
            object_pairs_hook=json_keys.unique_keys if unique_keys else None,
        )
    except json.JSONDecodeError as exc:
        return None, _problem(path, number, f"malformed JSON: {exc.msg} (column {exc.colno})")
    except json_keys.DuplicateKeyError as exc:
        return None, _problem(path, number, f"not valid JSON: {exc}")
    except BoundsError as exc:
        return None, _problem(path, number, exc.reason)
    reason = surrogate_problem(line, value)
    return (None, _problem(path, number, reason)) if reason else (value, None)


def surrogate_problem(line: str, value: Any) -> str | None:
    """Why a value parsed from `line` (a line or a whole document) holds a string no output
    could write (a lone surrogate), or None."""
    if _SURROGATE_ESCAPE.search(line):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return "a string holds a lone surrogate escape (\\ud800-\\udfff): not Unicode text"
    return None


def _constant_as_text(name: str) -> str:
    """`NaN`, `Infinity`, `-Infinity` as the strings they spell (JSON has no such numbers)."""
    return name


def _problem(path: Path, number: int, reason: str) -> InputProblem:
    return InputProblem(str(path), number, "", reason)
