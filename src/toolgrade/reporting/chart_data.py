"""The figures each chart of report.html draws, read from summary.json (and the score counts)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import markupsafe

from toolgrade.models.check_names import registered_names as check_names
from toolgrade.models.summary import AgentCheck, CheckSummary, RunSummary
from toolgrade.reporting.charts import (
    ScoreHistogram,
    pass_hat_k_lines,
    pass_rate_bars,
    score_histogram,
)

#: The group name of a run with one agent or none.
ALL_RUNS = "all runs"


@dataclass(frozen=True)
class Charts:
    """The SVG charts the report shows, in order; a chart with nothing to draw is left out."""

    svgs: tuple[markupsafe.Markup, ...]


def _rate(block: CheckSummary | AgentCheck | None) -> float | None:
    return float(block.pass_rate) if block is not None and block.pass_rate is not None else None


def check_pass_rates(summary: RunSummary) -> dict[str, dict[str, float | None]]:
    """Per agent (or `all runs` with fewer than two agents), each check's pass rate."""
    agents = summary.agents
    if len(agents) >= 2:
        return {name: {c: _rate(tally.checks.get(c)) for c in check_names()}
                for name, tally in sorted(agents.items())}
    return {ALL_RUNS: {c: _rate(summary.checks.of(c)) for c in check_names()}}


def _agent_of(key: str, agents: set[str]) -> str:
    """The agent of a reliability key (`case_id@agent` when several agents ran)."""
    for agent in sorted(agents, key=len, reverse=True):
        if key.endswith("@" + agent):
            return agent
    return ALL_RUNS


def pass_hat_k(summary: RunSummary) -> dict[str, list[tuple[int, float]]]:
    """Per agent, the mean pass^k over its cases at each k some case has."""
    agents = set(summary.agents) if len(summary.agents) >= 2 else set()
    sums: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for key, block in summary.reliability.items():
        for k, value in block.pass_hat_k.items():
            if k.isdigit():
                sums[_agent_of(key, agents)][int(k)].append(float(value))
    return {agent: [(k, sum(v) / len(v)) for k, v in sorted(by_k.items())]
            for agent, by_k in sorted(sums.items())}


def build_charts(summary: RunSummary, scores: ScoreHistogram | None) -> Charts:
    """Every chart the summary (and the score counts, when taken) has figures for."""
    drawn = [pass_rate_bars(check_pass_rates(summary)),
             score_histogram(scores) if scores is not None else None,
             pass_hat_k_lines(pass_hat_k(summary))]
    return Charts(svgs=tuple(svg for svg in drawn if svg is not None))
