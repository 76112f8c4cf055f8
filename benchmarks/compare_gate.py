"""How often `toolgrade compare --max-drop` fails when nothing changed, and when a drop is real.

    python benchmarks/compare_gate.py [--reps N] [--resamples B] [--seed S] [--json FILE]

A seeded simulation through the code `compare` runs (`figure_change`, `evaluate_drops`): each
case has its own pass probability (drawn from Beta(4, 1): mean 0.8, some hard cases), and each
grading draws every case's trials from it. Per suite size and trials per case:

- **false alarms**: base and new drawn from the same probabilities (nothing changed); the share
  of repetitions where the gate fails. Target: at most 5%.
- **power**: new drawn from probabilities scaled so the mean pass rate is 10 points lower; the
  share of repetitions where the gate fails (higher is better).

Both for `--max-drop aggregate.pass_rate=0.02` (the README's example) and `=0.05`, with B
bootstrap resamples per comparison (default 2,000 here, to keep the run short; `compare` uses
10,000). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from toolgrade.comparison.compare import Settings, evaluate_drops, figure_change
from toolgrade.comparison.folders import RunOutcome

FIGURE = "aggregate.pass_rate"
SIZES = (20, 50, 100, 200)
TRIALS = (1, 3)
MAX_DROPS = (0.02, 0.05)
DROP = 0.10


def _grading(probabilities: np.ndarray, trials: int,
             rng: np.random.Generator) -> dict[str, list[RunOutcome]]:
    passed = rng.random((len(probabilities), trials)) < probabilities[:, None]
    return {f"c{i}": [RunOutcome(f"c{i}", None, t, {FIGURE: bool(passed[i, t])}, ())
                      for t in range(trials)] for i in range(len(probabilities))}


def _fails(base: dict[str, list[RunOutcome]], new: dict[str, list[RunOutcome]],
           settings: Settings, limit: float) -> bool:
    change = figure_change(FIGURE, base, new, sorted(base), settings)
    [gate] = evaluate_drops([change], {FIGURE: limit})
    return not gate.passed


def simulate(n: int, trials: int, reps: int, resamples: int, seed: int) -> dict[str, Any]:
    """False-alarm rate and power at a 10-point drop, per maximum drop."""
    rng = np.random.default_rng([seed, n, trials])
    alarms = dict.fromkeys(MAX_DROPS, 0)
    caught = dict.fromkeys(MAX_DROPS, 0)
    for rep in range(reps):
        p = rng.beta(4.0, 1.0, size=n)
        dropped = p * (1.0 - DROP / p.mean())
        base = _grading(p, trials, rng)
        same, worse = _grading(p, trials, rng), _grading(dropped, trials, rng)
        settings = Settings(resamples=resamples, seed=rep)
        for limit in MAX_DROPS:
            alarms[limit] += _fails(base, same, settings, limit)
            caught[limit] += _fails(base, worse, settings, limit)
    return {f"max_drop={limit}": {"false_alarm_rate": alarms[limit] / reps,
                                  "power_at_10_points": caught[limit] / reps}
            for limit in MAX_DROPS}


def main() -> None:
    """Run every setting and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = {"reps": args.reps, "resamples": args.resamples, "seed": args.seed,
               "settings": {f"cases={n},trials={k}": simulate(n, k, args.reps, args.resamples,
                                                               args.seed)
                            for n in SIZES for k in TRIALS}}
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
