"""`toolgrade show`: a run's transcript with its failures pinned, in the terminal (rich).

The same `RunView` as the HTML report's run view, so both show the same steps and the same
failures. Agent text is printed as `rich.text.Text`, never parsed as markup: `[bold]` in a
tool result stays those characters.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.text import Text

from toolgrade.errors import ToolgradeError
from toolgrade.loaders.transcripts import TRANSCRIPTS_FILE, read_transcripts
from toolgrade.reporting.digest import iter_records
from toolgrade.reporting.run_view import Pinned, RunView, StepView, build_run_view

_OUTCOME_STYLE = {"pass": "green", "FAIL": "bold red", "crashed": "bold red", "n/a": "dim",
                  "unscored": "yellow"}


def find_run_views(
    out_dir: Path, case_id: str, agent: str | None = None, trial: int | None = None
) -> list[RunView]:
    """The views of the graded runs of `case_id` in a `toolgrade run --out` folder (narrowed
    to one agent and/or trial), in results order. Raises ToolgradeError saying what is missing."""
    results, transcripts = out_dir / "results.jsonl", out_dir / TRANSCRIPTS_FILE
    if not results.is_file():
        raise ToolgradeError(f"{out_dir}: no results.jsonl here; run `toolgrade run SUITE RUNS "
                             f"--out {out_dir}` first")
    wanted, others = {}, []
    for position, record in enumerate(iter_records(results)):
        if record["case_id"] != case_id:
            continue
        if (agent is None or record.get("agent") == agent) and \
                (trial is None or record.get("trial") == trial):
            wanted[position] = record
        else:
            others.append(f"{record.get('agent')}:{record.get('trial')}")
    if not wanted:
        hint = f" (its runs: {', '.join(others[:10])})" if others else ""
        raise ToolgradeError(f"{results}: no graded run of case {case_id!r} matches{hint}")
    if not transcripts.is_file():
        raise ToolgradeError(f"{out_dir}: no {TRANSCRIPTS_FILE} (written by `toolgrade run` since "
                             "run views exist); run `toolgrade run` again to keep transcripts")
    runs = read_transcripts(transcripts, wanted.keys())
    views = []
    for position, record in wanted.items():
        run = runs.get(position)
        if run is None or (run.case_id, run.agent, run.trial) != (
                record["case_id"], record.get("agent"), record.get("trial")):
            raise ToolgradeError(f"{transcripts}: line {position + 1} is not the run of "
                                 f"results.jsonl line {position + 1}: the files are from "
                                 "different runs")
        views.append(build_run_view(record, run))
    return views


def _pinned_lines(pins: tuple[Pinned, ...], indent: str, judge: bool = False,
                  decided: bool = False) -> list[Text]:
    lines = []
    for p in pins:
        mark, style = ("decided", "magenta") if decided else (
            ("judge", "cyan") if judge else ("x", "bold red"))
        line = Text(f"{indent}{mark} ", style=style)
        line.append(f"{p.check} ", style="dim")
        line.append(p.name, style=style)
        line.append(f": {p.message}")
        lines.append(line)
        if p.expected is not None:
            lines.append(Text(f"{indent}    expected: ", style="dim") + Text(p.expected))
            lines.append(Text(f"{indent}    actual:   ", style="dim") + Text(p.actual or ""))
    return lines


def _step_lines(step: StepView, indent: str) -> list[Text]:
    head = Text(f"{indent}step {step.index}  ", style="bold")
    if step.kind == "call":
        head.append(step.label, style="bold")
        status = step.status or "no result"
        head.append(f"  [{status}]", style="red" if status == "error" else "green")
    else:
        head.append(step.label, style="dim")
    if step.fault:
        head.append(f"  {step.fault}", style="yellow")
    lines = [head]
    if step.kind == "call":
        lines.append(Text(f"{indent}    args:   ", style="dim") + Text(step.args or ""))
        result = step.result if step.result is not None else "(none recorded)"
        lines.append(Text(f"{indent}    result: ", style="dim") + Text(result))
    elif step.result:
        lines.append(Text(f"{indent}    ") + Text(step.result))
    lines += _pinned_lines(step.failures, f"{indent}    ")
    lines += _pinned_lines(step.judges, f"{indent}    ", judge=True)
    return lines


def run_view_lines(view: RunView) -> list[Text]:
    """The run view as lines of rich text: header, scores, run failures, judges, steps."""
    head = Text(f"{view.case_id} · {view.label} · ", style="bold")
    head.append(view.verdict, style=_OUTCOME_STYLE[view.verdict])
    head.append(f"  score {view.score} ({view.mode})", style="dim")
    scores = Text()
    for number, c in enumerate(view.checks):
        scores.append(f"{'   ' if number else ''}{c.check} {c.score} ")
        scores.append(c.outcome, style=_OUTCOME_STYLE.get(c.outcome, ""))
    lines = [head, scores]
    if view.run_failures or view.judges or view.adjudications:
        lines.append(Text("run", style="bold"))
        lines += _pinned_lines(view.run_failures, "    ")
        lines += _pinned_lines(view.adjudications, "    ", decided=True)
        lines += _pinned_lines(view.judges, "    ", judge=True)
    for block in view.blocks:
        indent = ""
        if block.group is not None:
            lines.append(Text(f"parallel group {block.group}: {len(block.steps)} calls issued "
                              "together", style="blue"))
            indent = "  | "
        for step in block.steps:
            lines += _step_lines(step, indent)
    return lines


def print_run_view(console: Console, view: RunView) -> None:
    """Print one run view (long lines are left whole: the terminal wraps them)."""
    for line in run_view_lines(view):
        console.print(line, soft_wrap=True)
