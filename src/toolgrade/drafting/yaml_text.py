"""The drafted suite as YAML text, every inferred line ending in a `# review:` comment.

Written by hand because the comments are the point: a YAML library that round-trips comments
is not a dependency, and PyYAML drops them. Values are written in flow style as JSON-like
text that PyYAML reads back as the same value (strings always quoted, so `no`, `01234` or a
date stay strings; floats always with a dot or an exponent PyYAML reads as a float).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from toolgrade.drafting.catalogue import DraftTool
from toolgrade.drafting.infer import DraftCase, Line

#: Characters a YAML file may not hold as they are (outside YAML's printable set, or read as
#: line breaks inside a quoted string): escaped.
_UNPRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")


def _string(text: str) -> str:
    """A double-quoted YAML string (JSON's escapes, plus those YAML needs beyond them)."""
    return _UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group(0)):04x}",
                            json.dumps(text, ensure_ascii=False))


def flow(value: Any) -> str:
    """`value` as one line of YAML flow text."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return {"inf": ".inf", "-inf": "-.inf"}.get(str(value), ".nan")
        text = repr(value)
        mantissa, e, exponent = text.partition("e")
        if e and "." not in mantissa:  # PyYAML reads `1e-05` as a string, `1.0e-05` as a float
            text = f"{mantissa}.0e{exponent}"
        return text
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_string(str(k))}: {flow(v)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return _string(str(value))


def _review(note: str) -> str:
    return "  # review: " + " ".join(note.split())


def _line(indent: int, key: str, line: Line) -> str:
    return f"{' ' * indent}{key}: {flow(line.value)}{_review(line.review)}"


def _tools(tools: Mapping[str, DraftTool]) -> list[str]:
    out = ["tools:"]
    for name, tool in tools.items():
        out.append(f"  {_string(name)}:")
        if tool.description:
            out.append(f"    description: {flow(tool.description)}")
        out.append(f"    side_effect: {flow(tool.side_effect)}"
                   + _review(f"{'a write' if tool.side_effect else 'read-only'}, from "
                             f"{tool.source}"))
        out.append(f"    parameters: {flow(tool.parameters)}")
    return out


def _case(case: DraftCase) -> list[str]:
    left_out = (_review(f"{case.left_out} run(s) left out: they stopped short of a write "
                        "another run made") if case.left_out else "")
    out = [f"  - id: {flow(case.id)}",
           f"    metadata: {flow({'drafted_from_runs': case.runs})}{left_out}",
           _line(4, "input", case.input), "    expected:", "      selection:"]
    out += [_line(8, key, line) for key, line in case.selection.items()]
    if case.arguments:
        out.append("      arguments:")
        for call in case.arguments:
            out.append(f"        - tool: {flow(call.tool)}{_review(call.review)}")
            if call.args:
                out.append("          args:")
                out += [_line(12, _string(k), line)
                        for k, line in call.args.items()]
    if case.before or case.budgets is not None:
        out.append("      ordering:")
    if case.before:
        out.append("        before:")
        out += [f"          - {flow(line.value)}{_review(line.review)}" for line in case.before]
    if case.groups is not None:
        out.append(_line(8, "groups", case.groups))
    if case.budgets is not None:
        out.append(_line(8, "max_calls", case.budgets))
    if case.faults is not None:
        out += ["      recovery:", _line(8, "faults", case.faults)]
    if case.state:
        out.append("      state:")
        out += [f"        - {flow(line.value)}{_review(line.review)}" for line in case.state]
    return out


def suite_text(cases: Sequence[DraftCase], tools: Mapping[str, DraftTool],
               header: Sequence[str]) -> str:
    """The whole drafted suite file."""
    out = [f"# {line}" for line in header]
    out += ["", *_tools(tools), "", "cases:"]
    for case in cases:
        out += [*_case(case), ""]
    return "\n".join(out).rstrip("\n") + "\n"
