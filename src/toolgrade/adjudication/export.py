"""People's decisions as labelled calibration items (`toolgrade adjudicate --export-set DIR`).

One file per dimension, `DIR/<dimension>.jsonl`, in the shipped `calibration_sets/` format: a
`_provenance` header saying who labelled the items and how, then one item per decision, its
`inputs` exactly those the judge was given. Judge items carry their inputs in the decision;
a route decision's inputs are rebuilt from the suite as the selection check builds them
(`checks.adjudication.route_inputs`), the route's tools as the actual route. Each file is parsed
back with `calibration.calibrate.parse_set` before it is written, so `toolgrade calibrate --set`
accepts what is exported.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TypedDict

from toolgrade.errors import InputError, ToolgradeError
from toolgrade.jsonio.values import JsonObject
from toolgrade.loaders import Suite
from toolgrade.models import HumanDecisions, ItemDecision, RouteDecision, item_id, route_key

#: The prefix of exported item ids (`adj-<item id>`; `adj-route-<hash of case and route>`).
ID_PREFIX = "adj-"


@dataclass(frozen=True)
class Exported:
    """One file written: its dimension, path and how many items it holds."""

    dimension: str
    path: Path
    items: int


class SetLine(TypedDict):
    """One item of an exported set (`calibration.calibrate.CalibrationItem`'s JSON form)."""

    id: str
    inputs: JsonObject
    label: Literal["pass", "fail"]
    tags: list[str]
    note: str


class Provenance(TypedDict):
    """The `_provenance` header of an exported set: who labelled its items, and how."""

    author: str
    method: str
    annotators: list[str]
    source: str
    exported_at: str
    dimension: str
    items: int
    version: int


def _item_line(d: ItemDecision) -> SetLine:
    return {
        "id": f"{ID_PREFIX}{d.item}",
        "inputs": d.inputs,
        "label": d.decision,
        "tags": ["adjudicated", *([d.undecided.replace(" ", "_")] if d.undecided else [])],
        "note": _note(d.decision, d.by, d.decided_at, d.reason, d.case_ids),
    }


def _route_line(d: RouteDecision, suite: Suite) -> SetLine | None:
    from toolgrade.checks.adjudication import listed_routes, route_inputs

    case = suite.cases.get(d.case_id)
    spec = case.expected.selection if case is not None else None
    if case is None or spec is None:
        return None  # the case is gone, or lists no routes: nothing to rebuild the item from
    route = list(route_key(d.route))
    return {
        "id": f"{ID_PREFIX}route-{item_id('route', {'case': d.case_id, 'route': route})}",
        "inputs": route_inputs(case, listed_routes(spec), route),
        "label": d.verdict,
        "tags": ["adjudicated", "route"],
        "note": _note(d.verdict, d.by, d.decided_at, d.reason, [d.case_id]),
    }


def _note(label: str, by: str | None, at: str | None, reason: str, cases: list[str]) -> str:
    when = f" at {at}" if at else ""
    why = f": {reason}" if reason else ""
    return f"{label} by {by or 'an unnamed person'}{when}{why} (cases: {', '.join(cases)})"


def _provenance(dimension: str, lines: list[SetLine], people: set[str], source: Path,
                now: datetime) -> Provenance:
    return {
        "author": "people, through `toolgrade adjudicate`",
        "method": (
            "Each item is a judge question from graded runs that the judges left undecided "
            "(or an escalation judge decided), or a route people accepted or rejected; its "
            "label is the latest recorded decision of the person named in its note. One label "
            "per item: no item carries several annotators' labels."),
        "annotators": sorted(people),
        "source": str(source),
        "exported_at": now.isoformat(timespec="seconds"),
        "dimension": dimension,
        "items": len(lines),
        "version": 1,
    }


def set_lines(suite: Suite, decisions: HumanDecisions) -> dict[str, list[SetLine]]:
    """The calibration items of every decision, per dimension (ids unique in each)."""
    lines: dict[str, list[SetLine]] = defaultdict(list)
    for item in decisions.items:
        lines[item.dimension].append(_item_line(item))
    for route in decisions:
        line = _route_line(route, suite)
        if line is not None:
            lines["alternate_route"].append(line)
    return dict(sorted(lines.items()))


def _people(decisions: HumanDecisions) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for item in decisions.items:
        found[item.dimension].add(item.by or "an unnamed person")
    for route in decisions:
        found["alternate_route"].add(route.by or "an unnamed person")
    return found


def export_set(suite: Suite, decisions: HumanDecisions, source: Path, out_dir: Path,
               now: datetime | None = None) -> list[Exported]:
    """Write one calibration set per dimension with decisions into `out_dir`; return what was
    written. ToolgradeError (naming the folder or file) when it cannot be written."""
    from toolgrade.calibration.calibrate import parse_set

    stamp = now or datetime.now(UTC)
    people = _people(decisions)
    texts: dict[str, bytes] = {}
    for dimension, lines in set_lines(suite, decisions).items():
        header = {"_provenance": _provenance(dimension, lines, people[dimension], source, stamp)}
        text = "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in (header, *lines))
        texts[dimension] = text.encode("utf-8")
        try:  # what calibrate will read: refused here rather than there
            parse_set(texts[dimension], dimension=dimension, source=f"{dimension}.jsonl")
        except InputError as exc:
            raise ToolgradeError(f"--export-set: the {dimension} decisions do not make a valid "
                                 f"calibration set, nothing was written: {exc}") from exc
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ToolgradeError(f"--export-set {out_dir}: cannot create the folder: "
                             f"{exc.strerror}") from exc
    written = []
    for dimension, data in texts.items():
        path = out_dir / f"{dimension}.jsonl"
        try:
            path.write_bytes(data)
        except OSError as exc:
            raise ToolgradeError(f"--export-set {out_dir}: cannot write {path.name}: "
                                 f"{exc.strerror}") from exc
        written.append(Exported(dimension, path, data.count(b"\n") - 1))
    return written
