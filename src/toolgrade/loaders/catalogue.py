"""A suite's `tools_from`: an MCP catalogue file read into the suite's shared tools.

A YAML suite names the file (`tools_from: tools.json`) or the file and its settings
(`tools_from: {file: tools.json, side_effects: {reset_password: destructive}, on_drift:
unscored}`); a JSONL suite does the same on its header line (its first). Each catalogue tool
becomes a shared tool: its `inputSchema` validates arguments, its annotations give its
side-effect class unless `side_effects` names one, and the suite's own `tools` entries win
whole. Every case is stamped with the catalogue's hashes, for drift. A problem names the
catalogue file and the field (`tools[2].inputSchema`); docs/mcp.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from toolgrade.errors import InputProblem, NotUtf8Error, read_utf8
from toolgrade.loaders.locate import Path_, problems_from_validation
from toolgrade.models.case import StrictModel
from toolgrade.models.catalogue import (
    CATALOGUE_FORMAT,
    CatalogueStamp,
    SideEffectClass,
    SuiteCatalogue,
    side_effect_class,
)

#: Why a JSON Schema is invalid, or None (the suite loader's memoised check).
SchemaCheck = Callable[[dict[str, Any]], str | None]
#: The key that names a catalogue file: at the top of a YAML suite, on a JSONL suite's header.
TOOLS_FROM_KEY = "tools_from"


class ToolsFrom(StrictModel):
    """`tools_from` written as a mapping: the file and how the suite reads it."""

    file: str = Field(min_length=1, description="The catalogue file, relative to the suite.")
    side_effects: dict[str, SideEffectClass] = Field(
        default_factory=dict,
        description="A tool's side-effect class (read, write, destructive) where the "
        "catalogue's annotations would say otherwise.",
    )
    on_drift: Literal["flag", "unscored"] = Field(
        default="flag",
        description="flag: report drift; unscored: a run that saw another catalogue is unscored.",
    )


@dataclass
class LoadedCatalogue:
    """A catalogue as a suite takes it: tool specs (suite `tools` entries) and the stamp."""

    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    stamp: SuiteCatalogue | None = None


def read_tools_from(
    value: Any, suite_file: Path, lines: Mapping[Path_, int], schema_error: SchemaCheck
) -> tuple[LoadedCatalogue, list[InputProblem]]:
    """The tools and stamp of a suite's `tools_from`, or the problems that stop them."""
    line = lines.get((TOOLS_FROM_KEY,))
    spec, problems = _tools_from(value, str(suite_file), lines, line)
    if spec is None:
        return LoadedCatalogue(), problems
    path = suite_file.parent / spec.file
    raw, problem = read_catalogue_json(path)
    if problem is not None:
        return LoadedCatalogue(), [problem]
    tools, problems = catalogue_tools(raw, str(path), schema_error)
    unknown = sorted(set(spec.side_effects) - {str(t["name"]) for t in tools})
    problems += [
        InputProblem(str(suite_file), line, f"{TOOLS_FROM_KEY}.side_effects.{name}",
                     f"{name!r} is not a tool of {spec.file}")
        for name in unknown
    ]
    if problems:
        return LoadedCatalogue(), problems
    stamp = CatalogueStamp.of_tools(tools)
    return LoadedCatalogue(
        tools={str(t["name"]): _spec(t, spec.side_effects.get(str(t["name"]))) for t in tools},
        stamp=SuiteCatalogue(hash=stamp.hash, tools=stamp.tools, file=spec.file,
                             on_drift=spec.on_drift),
    ), []


def read_catalogue_json(path: Path) -> tuple[Any, InputProblem | None]:
    """A catalogue file's JSON, or the problem that stops it (missing, not UTF-8, malformed)."""
    if not path.is_file():
        return None, InputProblem(str(path), None, "", "no such catalogue file")
    try:
        text = read_utf8(path)
    except NotUtf8Error as exc:
        return None, InputProblem(str(path), exc.line, "", str(exc))
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        reason = f"malformed JSON: {exc.msg} (column {exc.colno})"
        return None, InputProblem(str(path), exc.lineno, "", reason)
    except RecursionError:
        return None, InputProblem(str(path), None, "", "malformed JSON: nested too deeply")


def _tools_from(
    value: Any, file: str, lines: Mapping[Path_, int], line: int | None
) -> tuple[ToolsFrom | None, list[InputProblem]]:
    data = {"file": value} if isinstance(value, str) else value
    try:
        return ToolsFrom.model_validate(data), []
    except ValidationError as exc:
        return None, problems_from_validation(
            exc, data=data, file=file, prefix=(TOOLS_FROM_KEY,), lines=lines, default_line=line
        )


def catalogue_tools(
    raw: Any, file: str, schema_error: SchemaCheck
) -> tuple[list[dict[str, Any]], list[InputProblem]]:
    """The tools of a catalogue file's JSON, each checked: a name, object fields, and
    schemas that are valid JSON Schemas."""
    if not isinstance(raw, dict) or raw.get("format") != CATALOGUE_FORMAT:
        reason = f"not a catalogue file (no \"format\": \"{CATALOGUE_FORMAT}\"); write one " \
                 "with `toolgrade mcp catalogue`"
        return [], [InputProblem(file, None, "format", reason)]
    tools = raw.get("tools")
    if not isinstance(tools, list):
        return [], [InputProblem(file, None, "tools", "must be a list of tools")]
    problems: list[InputProblem] = []
    seen: set[str] = set()
    for i, tool in enumerate(tools):
        problems += _tool_problems(tool, f"tools[{i}]", file, seen, schema_error)
    return [t for t in tools if isinstance(t, dict)], problems


def _tool_problems(
    tool: Any, where: str, file: str, seen: set[str], schema_error: SchemaCheck
) -> list[InputProblem]:
    if not isinstance(tool, dict):
        return [InputProblem(file, None, where, "a tool must be a JSON object")]
    name = tool.get("name")
    if not isinstance(name, str) or not name:
        return [InputProblem(file, None, f"{where}.name", "a tool needs a name")]
    if name in seen:
        return [InputProblem(file, None, f"{where}.name", f"duplicate tool {name!r}")]
    seen.add(name)
    found = []
    for key in ("inputSchema", "outputSchema"):
        schema = tool.get(key)
        if schema is None and key == "outputSchema":
            continue
        message = schema_error(schema) if isinstance(schema, dict) else "must be a JSON object"
        if message is not None:
            found.append(InputProblem(file, None, f"{where}.{key}",
                                      f"tool {name!r}: not a valid JSON Schema: {message}"))
    annotations = tool.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        found.append(InputProblem(file, None, f"{where}.annotations", "must be a JSON object"))
    return found


def _spec(tool: Mapping[str, Any], override: SideEffectClass | None) -> dict[str, Any]:
    """A catalogue tool as a suite `tools` entry."""
    kind = override or side_effect_class(tool.get("annotations"))
    spec: dict[str, Any] = {"description": tool.get("description") or "",
                            "parameters": tool["inputSchema"]}
    if kind != "read":
        spec["side_effect"] = True
    if kind == "destructive":
        spec["destructive"] = True
    return spec
