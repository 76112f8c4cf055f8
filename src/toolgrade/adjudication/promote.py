"""Writing accepted routes back into the suite's `alternatives`, keeping the file readable.

YAML suites are edited as text, at the places the YAML parser reports, so comments, key order
and layout stay as the author wrote them: a flow list (`alternatives: [[a, b]]`) gets the route
appended inside it, a block list gets a `- [a, b]` line, and a selection without
`alternatives` gets an `alternatives: [[a, b]]` line after its `tools`. A JSONL suite has the
case's line rewritten. The suite is loaded again afterwards; if it no longer loads, every file
is put back as it was and the problems are raised.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

from toolgrade.errors import InputError, ToolgradeError
from toolgrade.loaders import Suite, load_suite
from toolgrade.models import RouteDecision, RouteKey, route_key


@dataclass(frozen=True)
class Promotion:
    """One route added to one case's alternatives, in one file."""

    case_id: str
    route: RouteKey
    file: str


def _flow(route: Iterable[str]) -> str:
    return "[" + ", ".join(json.dumps(t) if _needs_quotes(t) else t for t in route) + "]"


def _needs_quotes(name: str) -> bool:
    # A plain YAML scalar must read back as this very string.
    try:
        return yaml.safe_load(name) != name or any(c in name for c in ",[]{}#:")
    except yaml.YAMLError:
        return True


def _get(node: yaml.Node, key: str) -> tuple[yaml.Node, yaml.Node] | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    return next(((k, v) for k, v in node.value if getattr(k, "value", None) == key), None)


def _after_line(text: str, index: int) -> int:
    """The index just after the end of the line holding `index`."""
    end = text.find("\n", index)
    return len(text) if end == -1 else end + 1


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _selection_node(root: yaml.Node, case_id: str) -> yaml.MappingNode:
    cases = _get(root, "cases")
    items = cases[1].value if cases is not None and isinstance(cases[1], yaml.SequenceNode) else []
    for item in items:
        found = _get(item, "id")
        if found is not None and found[1].value == case_id:
            expected = _get(item, "expected")
            selection = _get(expected[1], "selection") if expected is not None else None
            if selection is not None and isinstance(selection[1], yaml.MappingNode):
                return selection[1]
    raise ToolgradeError(f"case {case_id!r}: no `expected.selection` mapping found to extend")


def add_to_yaml(text: str, case_id: str, routes: list[RouteKey]) -> str:
    """`text` with `routes` appended to the case's `expected.selection.alternatives`."""
    root = yaml.compose(text)
    if root is None:
        raise ToolgradeError(f"case {case_id!r}: the suite file is empty")
    selection = _selection_node(root, case_id)
    flows = [_flow(r) for r in routes]
    pair = _get(selection, "alternatives")
    if pair is not None and isinstance(pair[1], yaml.SequenceNode):
        value = pair[1]
        if value.flow_style or not value.value:
            start, end = value.start_mark.index, value.end_mark.index
            inner = text[start:end].strip()[1:-1].strip()
            return text[:start] + "[" + ", ".join([*([inner] if inner else []), *flows]) + "]" \
                + text[end:]
        at = _after_line(text, value.value[-1].end_mark.index)
        indent = " " * value.start_mark.column
        lines = "".join(f"{indent}- {f}\n" for f in flows)
        return text[:at] + lines + text[at:]
    entry = "alternatives: [" + ", ".join(flows) + "]"
    if selection.flow_style:
        close = selection.end_mark.index - 1  # the closing brace
        return text[:close].rstrip() + ", " + entry + text[close:]
    keys = [k for k, _ in selection.value]
    indent = " " * keys[0].start_mark.column
    tools = _get(selection, "tools")
    # After `tools`, on the line after its value's end (a block list's own end mark lies past
    # any comments that follow it, so its last item's is used); else before the first key.
    last: yaml.Node | None = tools[1] if tools is not None else None
    if isinstance(last, yaml.SequenceNode) and not last.flow_style and last.value:
        last = last.value[-1]
    if last is not None and getattr(last, "flow_style", True):
        at = _after_line(text, last.end_mark.index)
    else:
        at = _line_start(text, keys[0].start_mark.index)
    return str(text[:at] + indent + entry + "\n" + text[at:])


def add_to_jsonl(text: str, line: int, routes: list[RouteKey]) -> str:
    """`text` with `routes` appended to the alternatives of the case on line `line`."""
    lines = text.split("\n")
    case = json.loads(lines[line - 1])
    selection = case.setdefault("expected", {}).setdefault("selection", {})
    selection["alternatives"] = [*selection.get("alternatives", []), *map(list, routes)]
    lines[line - 1] = json.dumps(case, ensure_ascii=False)
    return "\n".join(lines)


def _new_routes(suite: Suite, decisions: Iterable[RouteDecision]) -> dict[str, list[RouteKey]]:
    """Accepted routes not yet listed, per case (a reject, or a route listed already, is not)."""
    out: dict[str, list[RouteKey]] = {}
    for d in decisions:
        case = suite.cases.get(d.case_id)
        spec = case.expected.selection if case is not None else None
        if d.decision != "accept" or spec is None:
            continue
        listed = {route_key(r) for r in (spec.tools, *spec.alternatives)}
        key = route_key(d.route)
        if key not in listed and key not in out.get(d.case_id, []):
            out.setdefault(d.case_id, []).append(key)
    return out


def promote_routes(
    suite_path: Path, suite: Suite, decisions: Iterable[RouteDecision]
) -> list[Promotion]:
    """Add every accepted, not yet listed route to its case's alternatives; return what was
    added. Raises ToolgradeError (files restored) when the edited suite does not load."""
    wanted = _new_routes(suite, decisions)
    originals: dict[Path, str] = {}
    done: list[Promotion] = []
    for case_id, routes in wanted.items():
        source = suite.sources[case_id]
        path = Path(source.file)
        current = path.read_text(encoding="utf-8")  # with this run's earlier edits
        originals.setdefault(path, current)
        if path.suffix == ".jsonl":
            if source.line is None:
                raise ToolgradeError(f"{path}: case {case_id!r} has no line to rewrite")
            edited = add_to_jsonl(current, source.line, routes)
        else:
            edited = add_to_yaml(current, case_id, routes)
        path.write_text(edited, encoding="utf-8")
        done += [Promotion(case_id, r, str(path)) for r in routes]
    try:
        load_suite(suite_path)
    except InputError as exc:
        for path, text in originals.items():
            path.write_text(text, encoding="utf-8")
        raise ToolgradeError(f"{suite_path}: the suite did not load after adding the routes, "
                             f"so it was left as it was:\n  {exc}") from exc
    return done
