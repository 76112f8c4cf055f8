"""`toolgrade adjudicate RESULTS_DIR`: review adjudicated routes, record decisions, promote them.

Thin: reading and grouping live in `toolgrade.adjudication`, the file in
`toolgrade.loaders.adjudications`; both are imported when the command runs, not with the
command line (see `cli.main`).
"""

from __future__ import annotations

import getpass
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from toolgrade.cli.common import EXIT_OK, input_errors_exit, out
from toolgrade.errors import InputError, ToolgradeError

if TYPE_CHECKING:
    from toolgrade.adjudication import RouteGroup
    from toolgrade.loaders import Suite
    from toolgrade.models import HumanDecisions, RouteDecision

Decision = Literal["accept", "reject"]


def _user() -> str:
    """Who decides, when --by does not say: the login name, else "unknown"."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no USER/LOGNAME and no passwd entry (some containers)
        return "unknown"


def in_terminal() -> bool:
    """True when a person can answer prompts (stdin is a terminal)."""
    return sys.stdin.isatty()


def _suite_path(results_dir: Path, given: Path | None) -> Path:
    """--suite, else the suite `toolgrade run` recorded in summary.json."""
    if given is not None:
        return given
    summary = results_dir / "summary.json"
    try:
        recorded = json.loads(summary.read_text(encoding="utf-8")).get("suite")
    except (OSError, ValueError, AttributeError) as exc:
        raise ToolgradeError(f"{summary}: not readable ({exc}); name the suite with --suite") \
            from exc
    if not isinstance(recorded, str):
        raise ToolgradeError(f"{summary}: names no suite; name it with --suite")
    return Path(recorded)


def _load(suite_path: Path) -> tuple[Suite, Path, HumanDecisions]:
    from toolgrade.loaders import load_suite
    from toolgrade.loaders.adjudications import adjudications_path, load_decisions

    suite = load_suite(suite_path)
    path = adjudications_path(suite_path)
    decisions, problems = load_decisions(path, suite.cases)
    if problems:
        raise InputError(problems)
    return suite, path, decisions


def _describe(group: RouteGroup, decisions: HumanDecisions) -> list[str]:
    listed = " | ".join(", ".join(r) or "(no tool)" for r in group.listed)
    verdicts = ", ".join(f"{v} x{n}" for v, n in sorted(group.verdicts.items())) or "not asked"
    lines = [
        f"[{group.number}] {group.key}  route: {', '.join(group.route) or '(no tool)'}",
        f"    listed routes: {listed}",
        *([f"    free calls beside it: {', '.join(sorted(group.free))}"] if group.free else []),
        f"    cases: {', '.join(group.cases)}   runs: {len(group.runs)} ({'; '.join(group.runs)})",
        f"    judge: {verdicts}",
    ]
    lines += [f"      - {reason}" for reason in group.reasons]
    decided = group.decisions(decisions)
    for case, d in decided.items():
        why = f": {d.reason}" if d.reason else ""
        lines.append(f"    decision ({case}): {d.decision} by {d.by or '?'}{why}")
    if not decided:
        lines.append("    decision: none yet")
    return lines


def _flagged(groups: list[RouteGroup], wanted: list[str], decision: Decision, reason: str,
             by: str) -> list[RouteDecision]:
    from toolgrade.adjudication import decide_group
    from toolgrade.adjudication.routes import find_group

    made: list[RouteDecision] = []
    for name in wanted:
        group = find_group(groups, name)
        if group is None:
            known = ", ".join(f"{g.number} ({g.key})" for g in groups) or "none"
            raise ToolgradeError(f"--{decision} {name}: no such adjudicated route; known: {known}")
        made += decide_group(group, decision, reason, by)
    return made


def _refuse_contradictions(made: list[RouteDecision]) -> None:
    """One command may not both accept and reject a route (`--accept 1 --reject a99b854b`):
    recording both would leave the later line to win silently."""
    said: dict[tuple[str, tuple[str, ...]], str] = {}
    for d in made:
        key = (d.case_id, tuple(d.route))
        if said.setdefault(key, d.decision) != d.decision:
            route = ", ".join(d.route) or "(no tool)"
            raise ToolgradeError(f"route {route} of case {d.case_id!r} is both accepted and "
                                 "rejected in one command: nothing was recorded")


def _interactive(groups: list[RouteGroup], decisions: HumanDecisions, path: Path, by: str) -> int:
    """Ask about each route not decided yet for every case; each answer is saved at once."""
    from toolgrade.adjudication import decide_group
    from toolgrade.loaders.adjudications import append_decisions

    saved = 0
    for group in groups:
        if len(group.decisions(decisions)) == len(group.cases):
            continue
        out.print("\n".join(_describe(group, decisions)), markup=False)
        answer = typer.prompt("accept, reject, skip or quit? [a/r/s/q]", default="s").strip()
        if answer[:1].lower() == "q":
            break
        if answer[:1].lower() not in ("a", "r"):
            continue
        decision: Decision = "accept" if answer[:1].lower() == "a" else "reject"
        reason = typer.prompt("reason (optional)", default="", show_default=False)
        saved += append_decisions(path, decide_group(group, decision, reason, by))
    return saved


def adjudicate(
    results_dir: Annotated[Path, typer.Argument(help="A `toolgrade run` output folder.")],
    suite: Annotated[
        Path | None, typer.Option(help="The suite (default: the one the run recorded).")
    ] = None,
    accept: Annotated[
        list[str] | None, typer.Option(help="Accept a route: its number or key as listed.")
    ] = None,
    reject: Annotated[
        list[str] | None, typer.Option(help="Reject a route: its number or key as listed.")
    ] = None,
    reason: Annotated[str, typer.Option(help="Why (recorded with --accept/--reject).")] = "",
    by: Annotated[str | None, typer.Option(help="Who decides (default: your user name).")] = None,
    promote: Annotated[
        bool, typer.Option("--promote", help="Write accepted routes into the suite's alternatives.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="List the routes as JSON.")] = False,
    no_input: Annotated[
        bool, typer.Option("--no-input", help="Never prompt, even in a terminal.")
    ] = False,
) -> None:
    """List the routes judges adjudicated in RESULTS_DIR, record people's decisions on them,
    and promote accepted routes into the suite.

    Decisions go to the adjudications file beside the suite (suite.adjudications.jsonl); later
    runs apply them before asking the judge. In a terminal, with no --accept/--reject/--json/
    --promote, each undecided route is asked about in turn.
    """
    from toolgrade.adjudication import collect_groups
    from toolgrade.loaders.adjudications import append_decisions

    with input_errors_exit():
        suite_path = _suite_path(results_dir, suite)
        loaded, path, decisions = _load(suite_path)
        groups = collect_groups(results_dir / "results.jsonl", loaded) \
            if (results_dir / "results.jsonl").is_file() else []
        who = by or _user()
        made = _flagged(groups, accept or [], "accept", reason, who)
        made += _flagged(groups, reject or [], "reject", reason, who)
        _refuse_contradictions(made)
        saved = append_decisions(path, made)
        asking = not (made or as_json or promote or no_input) and in_terminal()
        if asking and groups:
            saved += _interactive(groups, decisions, path, who)
        decisions = _load(suite_path)[2] if saved else decisions
        if as_json:
            typer.echo(json.dumps([g.to_json(decisions) for g in groups], indent=2))
        elif made:  # only the routes just decided
            decided = {(d.case_id, tuple(d.route)) for d in made}
            for group in groups:
                if any((case, group.route) in decided for case in group.cases):
                    out.print("\n".join(_describe(group, decisions)), markup=False)
        elif not (asking and groups):
            _print_listing(groups, decisions, results_dir)
        if saved:
            out.print(f"recorded {saved} decision(s) in {path}", markup=False)
        if promote:
            _promote(suite_path, loaded, decisions)
    raise typer.Exit(EXIT_OK)


def _print_listing(groups: list[RouteGroup], decisions: HumanDecisions, results_dir: Path
                   ) -> None:
    if not groups:
        out.print(f"no adjudicated routes in {results_dir}", markup=False)
        return
    out.print(f"{len(groups)} adjudicated route(s) in {results_dir}:", markup=False)
    for group in groups:
        out.print("\n".join(_describe(group, decisions)), markup=False)


def _promote(suite_path: Path, suite: Suite, decisions: HumanDecisions) -> None:
    from toolgrade.adjudication import promote_routes

    done = promote_routes(suite_path, suite, decisions)
    if not done:
        out.print("nothing to promote: no accepted route that the suite does not list",
                  markup=False)
    for p in done:
        route = ", ".join(p.route) or "(no tool)"
        out.print(f"promoted {route} into {p.case_id} alternatives ({p.file})", markup=False)
