"""Per-case aggregation of the four check results by the case's scoring mode (docs/case-format.md).

- binary: passes when every applicable check passes (score 1.0 or 0.0).
- weighted: weighted mean of applicable check scores against `threshold`; a check not named in
  `weights` weighs 1.0; weights are renormalised over the applicable checks. A mean equal to
  the threshold reaches it, also when float rounding puts it a hair under (`reaches`).
- hybrid: the `required` checks must pass (a required check that is not applicable does not
  block) and the weighted mean must reach `threshold`.

Nothing applicable means nothing was shown: score None, not passed. A check that crashed
(passed None while applicable) never passes, scores 0 in the weighted mean, and keeps the case
from passing in every mode: a weighted mean over the other checks must not pass a case one of
whose checks was never graded.

A check left `unscored` (it did not pass only because items were undecided) decides nothing
either way: the run passes only if it passes with each such check counted as failed with score
0, fails only if it fails with each counted as passed with score 1, and is otherwise `unscored`,
naming the checks that keep it open (`Aggregate.unscored_checks`). The score shown stays the
mean of the scores as graded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from toolgrade.models import Aggregate, CheckName, CheckResult, Scoring
from toolgrade.scoring.unscored import is_unscored

#: Relative slack when a figure meets a minimum: a mean of floats can land one rounding step
#: under a value it equals exactly ((1 + 1 + 0.4) / 3 is 0.7999999999999999 in floats), and a
#: figure equal to its minimum must reach it.
REACH_TOLERANCE = 1e-9


def reaches(value: float, minimum: float) -> bool:
    """`value >= minimum`, counting a value within floating-point rounding of it as equal."""
    return value >= minimum or math.isclose(value, minimum, rel_tol=REACH_TOLERANCE)


def _applicable(results: Mapping[CheckName, CheckResult]) -> dict[CheckName, CheckResult]:
    return {name: r for name, r in results.items() if r.applicable}


def weighted_mean(
    results: Mapping[CheckName, CheckResult], weights: Mapping[CheckName, float]
) -> float | None:
    """Weighted mean of the applicable check scores, or None when nothing is applicable."""
    applicable = _applicable(results)
    total = sum(weights.get(name, 1.0) for name in applicable)
    if not applicable or total <= 0:
        return None
    return sum(weights.get(n, 1.0) * (r.score or 0.0) for n, r in applicable.items()) / total


#: The verdicts that take no arithmetic: nothing applicable (per mode), and binary's two. An
#: `Aggregate` is frozen, so records can share them instead of each validating its own.
_NOTHING_SHOWN = {
    mode: Aggregate(mode=mode, score=None, passed=False)
    for mode in ("binary", "weighted", "hybrid")
}
_BINARY = {
    True: Aggregate(mode="binary", score=1.0, passed=True),
    False: Aggregate(mode="binary", score=0.0, passed=False),
}


def _binary(results: Mapping[CheckName, CheckResult]) -> Aggregate:
    """Binary mode: passes when every applicable check passes."""
    applicable = _applicable(results)
    if not applicable:
        return _NOTHING_SHOWN["binary"]
    return _BINARY[all(r.passed is True for r in applicable.values())]


def aggregate(results: Mapping[CheckName, CheckResult], scoring: Scoring) -> Aggregate:
    """The case-level verdict for one trajectory, unscored checks deciding nothing."""
    open_checks = [
        name for name, r in results.items()
        if r.applicable and r.passed is False and is_unscored(r)
    ]
    if not open_checks:
        return _decide(results, scoring)
    graded = _decide(results, scoring)
    worst = _decide(_counted_as(results, open_checks, False), scoring)
    if worst.passed:
        return graded.model_copy(update={"passed": True, "status": "pass"})
    best = _decide(_counted_as(results, open_checks, True), scoring)
    if not best.passed:
        return graded.model_copy(update={"passed": False, "status": "fail"})
    return graded.model_copy(
        update={"passed": False, "status": "unscored", "unscored_checks": tuple(open_checks)}
    )


def _counted_as(
    results: Mapping[CheckName, CheckResult], names: list[CheckName], passed: bool
) -> dict[CheckName, CheckResult]:
    """The results with the checks `names` counted as passed with score 1, or as failed with
    score 0."""
    change = {"passed": passed, "score": 1.0 if passed else 0.0}
    return {
        name: r.model_copy(update=change) if name in names else r for name, r in results.items()
    }


def _decide(results: Mapping[CheckName, CheckResult], scoring: Scoring) -> Aggregate:
    """The verdict of the results as they stand, by the case's scoring mode."""
    if scoring.mode == "binary":
        return _binary(results)
    applicable = _applicable(results)
    if not applicable:
        return _NOTHING_SHOWN[scoring.mode]
    score = weighted_mean(applicable, scoring.weights)
    crashed = any(r.passed is None for r in applicable.values())
    reached = score is not None and reaches(score, scoring.threshold) and not crashed
    if scoring.mode == "weighted":
        return Aggregate(mode="weighted", score=score, passed=reached)
    required_ok = all(
        applicable[name].passed is True for name in scoring.required if name in applicable
    )
    return Aggregate(mode="hybrid", score=score, passed=required_ok and reached)
