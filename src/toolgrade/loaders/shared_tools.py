"""A YAML suite's shared `tools` catalogue: checked once, where it is written.

Every case inherits the shared entries it does not define itself. A problem in a shared entry
is reported once, at the shared entry's line, instead of once per case that inherits it (a
suite of 200 cases would otherwise print the same misspelt key 200 times).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from toolgrade.errors import InputProblem
from toolgrade.loaders.locate import Path_, line_for, problems_from_validation
from toolgrade.models import ToolSpec

#: Why a JSON Schema is invalid, or None (the suite loader's memoised check).
SchemaCheck = Callable[[dict[str, Any]], str | None]


def shared_tool_problems(
    file: str, tools: Mapping[str, Any], lines: Mapping[Path_, int], schema_error: SchemaCheck
) -> list[InputProblem]:
    """Every problem of the shared catalogue's entries, located at their own lines."""
    problems: list[InputProblem] = []
    for name, spec in tools.items():
        where: Path_ = ("tools", name)
        try:
            tool = ToolSpec.model_validate(spec)
        except ValidationError as exc:
            problems += problems_from_validation(
                exc, data=spec, file=file, prefix=where, lines=lines, default_line=lines.get(where)
            )
            continue
        message = schema_error(tool.parameters)
        if message is not None:
            field = (*where, "parameters")
            reason = f"not a valid JSON Schema: {message}"
            line = line_for(field, lines, None)
            problems.append(InputProblem(file, line, f"tools.{name}.parameters", reason))
    return problems


def inherited(case: Any, tools: Mapping[str, Any]) -> frozenset[str]:
    """The shared tool names a case takes as they are (it defines no entry of its own)."""
    own = case.get("tools") if isinstance(case, dict) else None
    own_names = set(own) if isinstance(own, dict) else set()
    return frozenset(name for name in tools if name not in own_names)


def about_inherited(field: str, case_prefix: str, names: frozenset[str]) -> bool:
    """Whether a case's problem lies in a tool it inherited (already reported once)."""
    head = f"{case_prefix}.tools." if case_prefix else "tools."
    if not field.startswith(head):
        return False
    rest = field[len(head):]
    return any(rest == n or rest.startswith((f"{n}.", f"{n}[")) for n in names)
