"""The adjudications file: people's decisions on routes and judge items, kept beside the suite
(JSON Lines; a line with an `item` key is a judge item's, any other a route's).

`suite.yaml` (or `suite.jsonl`) keeps its decisions in `suite.adjudications.jsonl` in the same
folder; a suite folder keeps them in `adjudications.jsonl` inside it. Such files are never read
as suite or run files. Lines are only ever appended: a later decision on the same (case, route)
replaces an earlier one (on the same item, likewise), and the history stays readable.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from toolgrade.errors import InputProblem
from toolgrade.jsonio import out as json_out
from toolgrade.jsonio.lines import iter_jsonl
from toolgrade.loaders.locate import problems_from_validation
from toolgrade.models import HumanDecisions, ItemDecision, RouteDecision

#: The suffix of a suite file's adjudications file (`suite.yaml` -> `suite.adjudications.jsonl`).
ADJUDICATIONS_SUFFIX = ".adjudications.jsonl"
#: The name of a suite folder's adjudications file.
FOLDER_ADJUDICATIONS = "adjudications.jsonl"


def adjudications_path(suite_path: Path) -> Path:
    """Where the decisions on `suite_path`'s routes are kept."""
    if suite_path.is_dir():
        return suite_path / FOLDER_ADJUDICATIONS
    return suite_path.with_name(suite_path.stem + ADJUDICATIONS_SUFFIX)


def is_adjudications_file(path: Path) -> bool:
    """True for a file holding decisions (so folders of suites or runs skip it)."""
    return path.name == FOLDER_ADJUDICATIONS or path.name.endswith(ADJUDICATIONS_SUFFIX)


def load_decisions(
    path: Path, case_ids: Iterable[str] | None = None
) -> tuple[HumanDecisions, list[InputProblem]]:
    """The decisions in `path` (none when it does not exist) and each bad line's problem.

    `case_ids`: the suite's cases; a decision naming another case is a problem (a typo, or a
    case renamed since), not silently ignored.
    """
    if not path.is_file():
        return HumanDecisions(), []
    known = set(case_ids) if case_ids is not None else None
    decisions: list[RouteDecision] = []
    items: list[ItemDecision] = []
    problems: list[InputProblem] = []
    for line, value, problem in iter_jsonl(path):
        if problem is not None:
            problems.append(problem)
            continue
        kind: type[RouteDecision | ItemDecision] = \
            ItemDecision if isinstance(value, dict) and "item" in value else RouteDecision
        try:
            decision = kind.model_validate(value)
        except ValidationError as exc:
            problems += problems_from_validation(exc, data=value, file=str(path), default_line=line)
            continue
        if isinstance(decision, ItemDecision):
            # Keyed by its inputs, not its cases: it applies wherever the question comes up.
            items.append(decision)
            continue
        if known is not None and decision.case_id not in known:
            problems.append(InputProblem(str(path), line, "case_id",
                                         f"no case {decision.case_id!r} in the suite"))
            continue
        decisions.append(decision)
    return HumanDecisions(decisions, items), problems


def append_decisions(path: Path, decisions: Iterable[RouteDecision | ItemDecision]) -> int:
    """Append `decisions` to `path` (created if needed), one JSON line each; return how many."""
    lines = [
        json_out.dumps(d.model_dump(mode="json", exclude_none=True), ensure_ascii=False) + "\n"
        for d in decisions
    ]
    if lines:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.writelines(lines)
    return len(lines)
