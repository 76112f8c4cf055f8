"""Tables about the whole run: failures and examples, cases, reliability, judges, gates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolgrade.calibration.records import MODEL_GAIN_MIN
from toolgrade.models.combination import SIGNALS_MODEL
from toolgrade.models.summary import (
    AdjudicatedAggregate,
    CaseReliability,
    GateResult,
    JudgeSummary,
    RunSummary,
)
from toolgrade.reporting.digest import Digest, FailureExample
from toolgrade.reporting.run_view import run_label
from toolgrade.reporting.runs_section import RunsSection
from toolgrade.reporting.tables import DASH, Table, anchor, calibration_text, fmt
from toolgrade.scoring.tallies import MAX_K

#: pass@k / pass^k columns shown when trials allow them (all k would not fit a page).
SHOWN_K = (1, 2, 3, 5, 10)


def failure_counts_table(summary: RunSummary, digest: Digest) -> Table | None:
    """Failure names by count (most first), each linked to its examples."""
    counts: dict[str, int] = dict(summary.failures.items()) or dict(digest.totals)
    if not counts:
        return None
    ordered = sorted(counts.items(), key=lambda kv: (-int(kv[1]), kv[0]))
    peak = max(int(c) for _, c in ordered) or 1
    rows = [[name, digest.failure_check.get(name, DASH), fmt(count)] for name, count in ordered]
    return Table("failures", "Failures by name", ["failure", "check", "count"], rows,
                 links=[anchor("failure", name) for name, _ in ordered],
                 bars=[int(c) / peak for _, c in ordered])


def _step_links(examples: list[FailureExample], runs: RunsSection | None,
                run_column: int, step_column: int | None) -> list[dict[int, str]]:
    """Per example row, its run and step cells linked to the run view (when it has one); with
    no step column, the run cell links to where the failure is pinned."""
    out: list[dict[int, str]] = []
    for e in examples:
        pinned = runs.link(e.case_id, e.agent, e.trial, e.step) if runs else None
        top = runs.top(e.case_id, e.agent, e.trial) if runs else None
        if pinned is None or top is None:
            out.append({})
        elif step_column is None:
            out.append({run_column: pinned})
        else:
            out.append({run_column: top, step_column: pinned})
    return out


def failure_example_tables(digest: Digest, runs: RunsSection | None = None) -> list[Table]:
    """Per failure name, the first examples: case, run, step and the check's message; with
    run views, the run and step cells link to the failure pinned on its step."""
    tables = []
    for name in sorted(digest.examples, key=lambda n: (-digest.totals[n], n)):
        examples = digest.examples[name]
        omitted = digest.omitted(name)
        note = f"first {len(examples)} of {digest.totals[name]} shown" if omitted else ""
        tables.append(Table(
            anchor("failure", name), f"Failure: {name}", ["case", "run", "step", "message"],
            [[e.case_id, run_label(e.agent, e.trial), fmt(e.step), e.message] for e in examples],
            note=note, links=[anchor("case", e.case_id) for e in examples],
            cell_links=_step_links(examples, runs, 1, 2),
        ))
    return tables


def crashes_table(digest: Digest, runs: RunsSection | None = None) -> Table | None:
    """Checks that raised instead of grading, with the error (first examples)."""
    if not digest.crash_total:
        return None
    shown = len(digest.crashes)
    note = f"first {shown} of {digest.crash_total} shown" if shown < digest.crash_total else ""
    rows = [[e.case_id, run_label(e.agent, e.trial), e.check, e.message] for e in digest.crashes]
    return Table("crashes", "Crashed checks", ["case", "run", "check", "error"], rows, note=note,
                 links=[anchor("case", e.case_id) for e in digest.crashes],
                 cell_links=_step_links(digest.crashes, runs, 1, None))


def cases_table(digest: Digest, summary: RunSummary | None = None) -> Table | None:
    """Per case: runs, passes, unscored runs and failure names with counts; a case no run
    named (the summary's `cases_without_runs`) is a row with 0 runs, so the table lists every
    case. The unscored column is there only when some run was unscored."""
    named = summary.cases_without_runs if summary is not None else []
    unrun = [c for c in named if c not in digest.cases]
    if not digest.cases and not unrun:
        return None
    rows: list[list[str]] = []
    ids: list[str | None] = []
    some_unscored = any(t.unscored for t in digest.cases.values())
    for case_id in sorted([*digest.cases, *unrun]):
        tally = digest.cases.get(case_id)
        if tally is None:
            row = [case_id, "0", "0", DASH, "no run"]
            rows.append([*row[:4], "0", *row[4:]] if some_unscored else row)
        else:
            by_count = sorted(tally.failures.items(), key=lambda kv: (-kv[1], kv[0]))
            names = ", ".join(f"{n} x{c}" for n, c in by_count)
            unscored = [fmt(tally.unscored)] if some_unscored else []
            rows.append([case_id, fmt(tally.runs), fmt(tally.passed),
                         fmt(tally.passed / tally.runs), *unscored, names or DASH])
        ids.append(anchor("case", case_id))
    columns = ["case", "runs", "passed", "pass rate", *(["unscored"] if some_unscored else []),
               "failures"]
    note = ("unscored: runs that did not pass only because items were left undecided "
            "(never counted as passes; see the checks above for why)." if some_unscored else "")
    return Table("cases", "Cases", columns, rows, row_ids=ids, note=note)


def _ks(reliability: Mapping[str, CaseReliability]) -> list[str]:
    # The summary holds k up to MAX_K only: the largest column is min(largest n, MAX_K).
    largest = min(max((r.n for r in reliability.values()), default=0), MAX_K)
    wanted = {k for k in SHOWN_K if k <= largest} | ({largest} if largest else set())
    return [str(k) for k in sorted(wanted)]


def reliability_table(summary: RunSummary, digest: Digest) -> Table | None:
    """pass@k and pass^k per case (per case and agent when several agents ran)."""
    reliability = summary.reliability
    if not reliability:
        return None
    ks = _ks(reliability)
    agents = set(summary.agents)
    rows, links = [], []
    for key, block in sorted(reliability.items()):
        at, hat = block.pass_at_k, block.pass_hat_k
        rows.append([key, fmt(block.n), fmt(block.c),
                     *(fmt(at.get(k)) for k in ks), *(fmt(hat.get(k)) for k in ks)])
        # With several agents every key is `case_id@agent` (summary.reliability_key).
        case_id = _case_of(key, digest, agents) if len(agents) > 1 else key
        links.append(anchor("case", case_id) if case_id in digest.cases else None)
    columns = ["case", "n", "c", *(f"pass@{k}" for k in ks), *(f"pass^{k}" for k in ks)]
    return Table("reliability", "Reliability: pass@k and pass^k per case", columns, rows,
                 links=links, note="n trials, c passing (aggregate); a dash: k larger than n.")


def _case_of(key: str, digest: Digest, agents: set[str]) -> str | None:
    """The case of a `case_id@agent` key: the split whose two sides are a case and an agent
    of this run (either may hold an `@`; the runner refuses keys two pairs could spell)."""
    at = key.find("@")
    while at != -1:
        if key[:at] in digest.cases and key[at + 1 :] in agents:
            return key[:at]
        at = key.find("@", at + 1)
    return None


def _calibration(record: Any) -> str:
    return calibration_text(record)


#: Under the judges table when a dimension is judged by its signals alone: why, and how to
#: ask a model instead.
SIGNALS_NOTE = (
    "signals: judged by the dimension's deterministic signals alone, weighed as their "
    "calibration record fitted them; the default wherever the local model's record adds less "
    f"than {MODEL_GAIN_MIN} ranking AUC over the signals (docs/calibration.md, the signals "
    "judge). To ask a model, name it in [judge.dimensions.<dimension>] model."
)


def _model(block: JudgeSummary) -> str:
    model = block.model
    if model is None:
        return block.status or "off"
    if model == SIGNALS_MODEL:
        return f"{model} (deterministic signals, no model asked)"
    return f"{model} (small local model)" if model.startswith("local/") else model


def judges_table(summary: RunSummary) -> Table | None:
    """Each judge's model, usage and calibration status."""
    if not summary.judges:
        return None
    rows = []
    for dimension, block in sorted(summary.judges.items()):
        cost, off = block.cost_usd, block.model is None
        rows.append([dimension, _model(block), fmt(block.calls), fmt(block.cache_hits),
                     fmt(block.unscored), fmt(block.errors), fmt(block.tokens),
                     DASH if cost is None else f"${float(cost):.4f}",
                     DASH if off else _calibration(block.calibration)])
    signals = any(block.model == SIGNALS_MODEL for block in summary.judges.values())
    return Table("judges", "Judges", ["dimension", "model", "calls", "cache hits", "unscored",
                                      "errors", "tokens", "cost", "calibration"], rows,
                 note=SIGNALS_NOTE if signals else "")


def gates_table(summary: RunSummary) -> Table | None:
    """Each configured gate with its value, minimum and result."""
    if not summary.gates:
        return None
    rows = [[f"{g.check}.{g.metric}", *_gate_figures(g), "pass" if g.passed else "FAIL"]
            for g in summary.gates]
    return Table("gates", "Gates", ["figure", "value", "minimum", "result"], rows)


def _gate_figures(gate: GateResult) -> tuple[str, str]:
    """Value and minimum, with more decimals when a failed value would read as its minimum
    (0.8996 is not shown as 0.900 beside a minimum of 0.900 and FAIL)."""
    value, minimum = gate.value, gate.threshold
    counts = gate.metric.startswith("stages.") or gate.check == "coverage"
    if counts and isinstance(value, float):
        # A count of faults or cases (13, not 13.000); the gate's value is written as a float.
        return fmt(int(value) if value.is_integer() else value), fmt(minimum)
    digits = 3
    if not gate.passed and isinstance(value, float):
        while digits < 17 and fmt(value, digits) == fmt(float(minimum), digits):
            digits += 1
    return fmt(value, digits), fmt(minimum, digits)


#: Labels of the "Adjudicated routes" table's rows: selection's routes, recovery's quality.
_ADJUDICATED = ("selection (routes)", "recovery (quality)")


def adjudication_table(summary: RunSummary) -> Table | None:
    """What judges and people decided, with the pass rates with and without adjudication."""
    block = summary.adjudication
    if block is None:
        return None
    rows = []
    for tally, label in ((block.selection, _ADJUDICATED[0]), (block.recovery, _ADJUDICATED[1])):
        if tally is None or (not tally.adjudicated and not tally.blocked_by_hard_fail):
            continue  # no case asked this check's judge to decide
        judge, human = tally.judge, tally.human
        rows.append([label, fmt(tally.adjudicated), fmt(judge.pass_), fmt(judge.fail),
                     fmt(judge.unscored), fmt(human.pass_), fmt(human.fail),
                     fmt(tally.blocked_by_hard_fail), fmt(tally.pass_rate),
                     fmt(tally.pass_rate_without)])
    overall = block.aggregate or AdjudicatedAggregate()
    rows.append(["aggregate", DASH, DASH, DASH, DASH, DASH, DASH, DASH,
                 fmt(overall.pass_rate), fmt(overall.pass_rate_without)])
    columns = ["check", "adjudicated", "judge pass", "judge fail", "judge unscored",
               "human accept", "human reject", "hard fail (not overridden)", "pass rate",
               "pass rate without adjudication"]
    note = ("Runs on no listed route decided by the alternate_route judge or a person's "
            "recorded decision, and recovery_quality verdicts that decide (judge_quality). "
            "An adjudicated pass is not a listed route: compare the two pass rates; "
            "`toolgrade adjudicate` lists the routes.")
    return Table("adjudication", "Adjudicated routes", columns, rows, note=note)
