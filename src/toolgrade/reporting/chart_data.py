"""The figures each chart of report.html draws, read from summary.json (and the score counts)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import markupsafe

from toolgrade.reporting.charts import (
    ScoreHistogram,
    pass_hat_k_lines,
    pass_rate_bars,
    score_histogram,
)
from toolgrade.reporting.tables import CHECKS

#: The group name of a run with one agent or none.
ALL_RUNS = "all runs"


@dataclass(frozen=True)
class Charts:
    """The SVG charts the report shows, in order; a chart with nothing to draw is left out."""

    svgs: tuple[markupsafe.Markup, ...]


def _rate(block: Any) -> float | None:
    value = (block or {}).get("pass_rate") if isinstance(block, dict) else None
    return float(value) if isinstance(value, int | float) else None


def check_pass_rates(summary: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """Per agent (or `all runs` with fewer than two agents), each check's pass rate."""
    agents = summary.get("agents") or {}
    if len(agents) >= 2:
        return {name: {c: _rate(((tally or {}).get("checks") or {}).get(c)) for c in CHECKS}
                for name, tally in sorted(agents.items())}
    checks = summary.get("checks") or {}
    return {ALL_RUNS: {c: _rate(checks.get(c)) for c in CHECKS}}


def _agent_of(key: str, agents: set[str]) -> str:
    """The agent of a reliability key (`case_id@agent` when several agents ran)."""
    for agent in sorted(agents, key=len, reverse=True):
        if key.endswith("@" + agent):
            return agent
    return ALL_RUNS


def pass_hat_k(summary: dict[str, Any]) -> dict[str, list[tuple[int, float]]]:
    """Per agent, the mean pass^k over its cases at each k some case has."""
    agents = set(summary.get("agents") or {}) if len(summary.get("agents") or {}) >= 2 else set()
    sums: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for key, block in (summary.get("reliability") or {}).items():
        for k, value in ((block or {}).get("pass_hat_k") or {}).items():
            if isinstance(value, int | float) and str(k).isdigit():
                sums[_agent_of(str(key), agents)][int(k)].append(float(value))
    return {agent: [(k, sum(v) / len(v)) for k, v in sorted(by_k.items())]
            for agent, by_k in sorted(sums.items())}


def build_charts(summary: dict[str, Any], scores: ScoreHistogram | None) -> Charts:
    """Every chart the summary (and the score counts, when taken) has figures for."""
    drawn = [pass_rate_bars(check_pass_rates(summary)),
             score_histogram(scores) if scores is not None else None,
             pass_hat_k_lines(pass_hat_k(summary))]
    return Charts(svgs=tuple(svg for svg in drawn if svg is not None))
