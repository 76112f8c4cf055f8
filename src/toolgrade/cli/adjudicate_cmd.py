"""`toolgrade adjudicate RESULTS_DIR`: review what judges decided or left undecided, record
people's decisions, promote accepted routes, export decisions as calibration sets.

Thin: reading, grouping, deciding and exporting live in `toolgrade.adjudication`, the file in
`toolgrade.loaders.adjudications`; both are imported when the command runs, not with the
command line (see `cli.main`).
"""

from __future__ import annotations

import getpass
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolgrade.cli.common import EXIT_OK, input_errors_exit, out
from toolgrade.errors import InputError, ToolgradeError

if TYPE_CHECKING:
    from toolgrade.adjudication import RouteGroup
    from toolgrade.adjudication.items import ItemJson, JudgeItem
    from toolgrade.adjudication.routes import RouteGroupJson
    from toolgrade.loaders import Suite
    from toolgrade.models import HumanDecisions


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


def _listed(results_dir: Path, suite: Suite) -> tuple[list[RouteGroup], list[JudgeItem]]:
    """The run's adjudicated routes, then its undecided judge items, numbered on from them."""
    from toolgrade.adjudication import collect_groups
    from toolgrade.adjudication.items import collect_items

    results = results_dir / "results.jsonl"
    if not results.is_file():
        return [], []
    groups = collect_groups(results, suite)
    return groups, collect_items(results, start=len(groups) + 1)


def _ask(prompt: str, choices: dict[str, str]) -> str | None:
    """The choice a person typed (its first letter), "quit", or None to skip."""
    answer = typer.prompt(prompt, default="s").strip()[:1].lower()
    return "quit" if answer == "q" else choices.get(answer)


def _interactive(groups: list[RouteGroup], items: list[JudgeItem], decisions: HumanDecisions,
                 path: Path, by: str) -> int:
    """Ask about each route not decided yet for every case, then each judge item left for
    people with no decision; each answer is saved at once."""
    from toolgrade.adjudication.decide import decide
    from toolgrade.loaders.adjudications import append_decisions

    saved = 0
    pending: list[Any] = [g for g in groups if len(g.decisions(decisions)) < len(g.cases)]
    pending += [i for i in items if i.left_for_people and decisions.item(i.item) is None]
    for target in pending:
        is_route = not hasattr(target, "item")
        out.print("\n".join(_describe(target, decisions) if is_route
                            else target.describe(decisions)), markup=False)
        said = _ask("accept, reject, skip or quit? [a/r/s/q]", {"a": "accept", "r": "reject"}) \
            if is_route else _ask("pass, fail, skip or quit? [p/f/s/q]",
                                  {"p": "pass", "f": "fail", "a": "pass", "r": "fail"})
        if said == "quit":
            break
        if said is None:
            continue
        reason = typer.prompt("reason (optional)", default="", show_default=False)
        saved += append_decisions(path, decide(target, said, reason, by))  # type: ignore[arg-type]
    return saved


def adjudicate(
    results_dir: Annotated[Path, typer.Argument(help="A `toolgrade run` output folder.")],
    suite: Annotated[
        Path | None, typer.Option(help="The suite (default: the one the run recorded).")
    ] = None,
    accept: Annotated[
        list[str] | None,
        typer.Option(help="Accept a route, or pass a judge item: its number or key as listed."),
    ] = None,
    reject: Annotated[
        list[str] | None,
        typer.Option(help="Reject a route, or fail a judge item: its number or key as listed."),
    ] = None,
    reason: Annotated[str, typer.Option(help="Why (recorded with --accept/--reject).")] = "",
    by: Annotated[str | None, typer.Option(help="Who decides (default: your user name).")] = None,
    label: Annotated[
        str | None,
        typer.Option(help="With --reject of a result_interpretation item: misread_result or "
                     "false_success_claim (the failure the recovery check reports)."),
    ] = None,
    decisions_file: Annotated[
        Path | None,
        typer.Option("--decisions", help="Record the decisions in this JSON Lines file, one a "
                     'line: {"id": N or KEY, "decision": pass|fail|accept|reject, "reason"?, '
                     '"by"?, "label"?}.'),
    ] = None,
    export_set: Annotated[
        Path | None,
        typer.Option("--export-set", help="Write every decision as labelled calibration items, "
                     "one DIMENSION.jsonl per dimension in this folder (`toolgrade calibrate "
                     "--set` reads them)."),
    ] = None,
    promote: Annotated[
        bool, typer.Option("--promote", help="Write accepted routes into the suite's alternatives.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="List the routes and judge items as JSON.")
    ] = False,
    no_input: Annotated[
        bool, typer.Option("--no-input", help="Never prompt, even in a terminal.")
    ] = False,
) -> None:
    """List the routes judges adjudicated and the judge items no judge decided in RESULTS_DIR,
    record people's decisions on them, promote accepted routes into the suite, and export the
    decisions as calibration sets.

    Decisions go to the adjudications file beside the suite (suite.adjudications.jsonl); later
    runs apply them before asking any judge. In a terminal, with no --accept/--reject/
    --decisions/--json/--promote/--export-set, each undecided route and item is asked about in
    turn.
    """
    from toolgrade.adjudication.decide import from_file, from_flags, refuse_contradictions
    from toolgrade.loaders.adjudications import append_decisions

    with input_errors_exit():
        suite_path = _suite_path(results_dir, suite)
        loaded, path, decisions = _load(suite_path)
        groups, items = _listed(results_dir, loaded)
        who = by or _user()
        made = from_flags(groups, items, accept or [], "accept", reason, who, label)
        made += from_flags(groups, items, reject or [], "reject", reason, who, label)
        if decisions_file is not None:
            made += from_file(decisions_file, groups, items, who)
        refuse_contradictions(made)
        saved = append_decisions(path, made)
        quiet = made or as_json or promote or export_set is not None or no_input
        asking = not quiet and in_terminal() and bool(groups or items)
        if asking:
            saved += _interactive(groups, items, decisions, path, who)
        decisions = _load(suite_path)[2] if saved else decisions
        if as_json:
            listed: list[RouteGroupJson | ItemJson] = [g.to_json(decisions) for g in groups]
            listed += [i.to_json(decisions) for i in items]
            typer.echo(json.dumps(listed, indent=2))
        elif made:
            _print_decided(groups, items, decisions, made)
        elif not asking and export_set is None and not promote:
            _print_listing(groups, items, decisions, results_dir)
        if saved:
            out.print(f"recorded {saved} decision(s) in {path}; they apply on the next run",
                      markup=False)
        if promote:
            _promote(suite_path, loaded, decisions)
        if export_set is not None:
            _export(loaded, decisions, path, export_set)
    raise typer.Exit(EXIT_OK)


def _print_decided(groups: list[RouteGroup], items: list[JudgeItem], decisions: HumanDecisions,
                   made: list[Any]) -> None:
    """Only the routes and items just decided."""
    routes = {(d.case_id, tuple(d.route)) for d in made if hasattr(d, "case_id")}
    keys = {d.item for d in made if hasattr(d, "item")}
    for group in groups:
        if any((case, group.route) in routes for case in group.cases):
            out.print("\n".join(_describe(group, decisions)), markup=False)
    for item in items:
        if item.item in keys:
            out.print("\n".join(item.describe(decisions)), markup=False)


def _export(suite: Suite, decisions: HumanDecisions, source: Path, out_dir: Path) -> None:
    from toolgrade.adjudication.export import export_set

    written = export_set(suite, decisions, source, out_dir)
    if not written:
        out.print(f"nothing to export: no decision recorded in {source}", markup=False)
    for done in written:
        out.print(f"exported {done.items} labelled {done.dimension} item(s) to {done.path} "
                  f"(toolgrade calibrate --dimension {done.dimension} --set {done.path})",
                  markup=False)


def _print_listing(groups: list[RouteGroup], items: list[JudgeItem], decisions: HumanDecisions,
                   results_dir: Path) -> None:
    if not groups and not items:
        out.print(f"no adjudicated routes in {results_dir} and no undecided judge items",
                  markup=False)
        return
    if groups:
        out.print(f"{len(groups)} adjudicated route(s) in {results_dir}:", markup=False)
    for group in groups:
        out.print("\n".join(_describe(group, decisions)), markup=False)
    if items:
        left = sum(i.left_for_people for i in items)
        out.print(f"{len(items)} judge item(s) the judge did not decide in {results_dir} "
                  f"({left} left for people, {len(items) - left} decided by the escalation "
                  "judge):", markup=False)
    for item in items:
        out.print("\n".join(item.describe(decisions)), markup=False)


def _promote(suite_path: Path, suite: Suite, decisions: HumanDecisions) -> None:
    from toolgrade.adjudication import promote_routes

    done = promote_routes(suite_path, suite, decisions)
    if not done:
        out.print("nothing to promote: no accepted route that the suite does not list",
                  markup=False)
    for p in done:
        route = ", ".join(p.route) or "(no tool)"
        out.print(f"promoted {route} into {p.case_id} alternatives ({p.file})", markup=False)
