"""Turning pydantic validation errors into located input problems.

Pydantic reports a location as a tuple of keys and indices, interleaved with union tags such as
`function-after[...]` or `int`; we keep the parts that exist in the data so the field a user
sees is the one they wrote, and look up the line where that field stands.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from toolgrade.errors import InputProblem

Path_ = tuple[str | int, ...]


def data_path(data: Any, loc: Sequence[str | int], error_type: str) -> Path_:
    """The part of a pydantic `loc` that names real keys and indices in `data`."""
    path: list[str | int] = []
    node = data
    for part in loc:
        in_mapping = isinstance(node, Mapping) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if in_mapping or in_list:
            path.append(part)
            node = node[part]
    if error_type == "missing" and loc and (not path or path[-1] != loc[-1]):
        path.append(loc[-1])
    return tuple(path)


def dotted(path: Path_) -> str:
    """`cases[2].expected.selection` style rendering of a path."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def undotted(field: str) -> Path_:
    """The path `dotted` renders as `field` (a key holding a dot or bracket is split, which
    only makes `line_for` settle on a shallower line)."""
    path: list[str | int] = []
    for key, index in _PART.findall(field):
        path.append(int(index) if index else key)
    return tuple(path)


_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def line_for(path: Path_, lines: Mapping[Path_, int], default: int | None) -> int | None:
    """The line of the deepest prefix of `path` whose line is known."""
    for end in range(len(path), -1, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return default


def _reason(err: Mapping[str, Any]) -> str:
    if err["type"] == "extra_forbidden":
        return "unknown key"
    msg = str(err["msg"])
    if err["type"] == "missing":
        return "required field missing"
    return msg.removeprefix("Value error, ")


def problems_from_validation(
    exc: ValidationError,
    *,
    data: Any,
    file: str,
    prefix: Path_ = (),
    lines: Mapping[Path_, int] | None = None,
    default_line: int | None = None,
) -> list[InputProblem]:
    """One located problem per pydantic error, deduplicated; the errors of a union's
    alternatives at one field (`nth: 1.5` is neither an integer nor 'all') become one problem
    naming each alternative, not one problem each."""
    reasons: dict[tuple[Path_, bool], list[str]] = {}
    for err in exc.errors():
        path = data_path(data, err["loc"], err["type"])
        # A loc that ends past its data path ends in a union tag (`int`, `literal['all']`).
        alternative = bool(path) and err["loc"][-1:] != path[-1:]
        found = reasons.setdefault((prefix + path, alternative), [])
        reason = _reason(err)
        if reason not in found:
            found.append(reason)
    problems: list[InputProblem] = []
    for (full, alternative), found in reasons.items():
        line = line_for(full, lines or {}, default_line)
        field = dotted(full)
        joined = ["; or: ".join(found)] if alternative else found
        problems += [InputProblem(file=file, line=line, field=field, reason=r) for r in joined]
    return problems
