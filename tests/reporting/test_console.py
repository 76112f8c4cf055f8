"""The terminal scorecard: names from the user's files are printed as written, never as markup."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from builders_reporting import as_summary
from toolgrade.reporting.console import print_scorecard


def _summary() -> dict[str, Any]:
    tally = {"trajectories": 1, "pass_rate": 1.0, "mean_score": 1.0, "checks": {}}
    return {
        "cases": 1,
        "trajectories": 3,
        "checks": {"ordering": {"pass_rate": 1.0, "efficiency": {"refund[red]v2": 1.0}}},
        "aggregate": {"pass_rate": 1.0, "mean_score": 1.0},
        "agents": {"claude[bold]v2": tally, "bad[/x]": tally, "gpt [2024]": tally},
        "judges": {
            "argument_equivalence": {"model": "provider/m[dim]", "calls": 1, "cache_hits": 0,
                                     "unscored": 0, "errors": 0, "tokens": 10},
        },
    }


def test_agent_task_type_and_model_names_are_not_read_as_rich_markup() -> None:
    console = Console(record=True, width=200, color_system=None)
    print_scorecard(console, as_summary(_summary()))  # a closing tag like "[/x]" raised MarkupError
    text = console.export_text()
    for name in ("claude[bold]v2", "bad[/x]", "gpt [2024]", "refund[red]v2", "provider/m[dim]"):
        assert name in text


def test_scorecard_shows_given_selection_and_coverage() -> None:
    summary = _summary()
    summary["checks"]["arguments"] = {"pass_rate": 0.5, "given_selection": {
        "n": 2, "pass_rate": 1.0, "exact_rate": 1.0, "field_accuracy": 1.0}}
    summary["checks"]["coverage"] = {"no_tool": 2, "multi_turn": 0}
    console = Console(record=True, width=200)
    print_scorecard(console, as_summary(summary))
    text = console.export_text()
    assert "given selection (n 2): pass 1.000" in text
    assert "hard-case coverage (cases): no_tool 2, multi_turn 0" in text
