"""The three aggregate modes (docs/case-format.md)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolgrade.models import CheckName, CheckResult, Scoring
from toolgrade.scoring.grading import aggregate, weighted_mean


def r(
    check: CheckName, score: float | None, passed: bool | None, applicable: bool = True
) -> CheckResult:
    return CheckResult(check=check, applicable=applicable, score=score, passed=passed)


MIXED = {
    "selection": r("selection", 1.0, True),
    "arguments": r("arguments", 0.5, False),
    "ordering": r("ordering", 1.0, True),
    "recovery": r("recovery", None, None, applicable=False),
}


def test_binary_needs_every_applicable_check() -> None:
    agg = aggregate(MIXED, Scoring(mode="binary"))
    assert agg.passed is False and agg.score == 0.0
    ok = {**MIXED, "arguments": r("arguments", 1.0, True)}
    assert aggregate(ok, Scoring(mode="binary")).passed is True


def test_not_applicable_is_never_a_pass() -> None:
    none = {name: r(name, None, None, applicable=False) for name in MIXED}  # type: ignore[misc]
    agg = aggregate(none, Scoring(mode="binary"))
    assert agg.passed is False and agg.score is None


def test_weighted_mean_ignores_not_applicable_and_defaults_weight_one() -> None:
    agg = aggregate(MIXED, Scoring(mode="weighted", threshold=0.8))
    assert agg.score is not None and abs(agg.score - (2.5 / 3)) < 1e-12
    assert agg.passed is True
    heavy = aggregate(MIXED, Scoring(mode="weighted", weights={"arguments": 3}, threshold=0.8))
    assert heavy.score is not None and abs(heavy.score - (3.5 / 5)) < 1e-12
    assert heavy.passed is False


def test_hybrid_needs_required_checks_and_threshold() -> None:
    scoring = Scoring(mode="hybrid", required=["arguments"], threshold=0.5)
    assert aggregate(MIXED, scoring).passed is False  # arguments required and failed
    scoring = Scoring(mode="hybrid", required=["selection"], threshold=0.8)
    assert aggregate(MIXED, scoring).passed is True
    scoring = Scoring(mode="hybrid", required=["selection"], threshold=0.9)
    assert aggregate(MIXED, scoring).passed is False  # mean 0.833 under threshold


def test_crashed_check_never_passes_and_scores_zero() -> None:
    crashed = {**MIXED, "arguments": r("arguments", None, None)}
    assert aggregate(crashed, Scoring(mode="binary")).passed is False
    agg = aggregate(crashed, Scoring(mode="weighted", threshold=0.0))
    assert agg.score is not None and abs(agg.score - 2 / 3) < 1e-12
    # Even a threshold the other checks reach does not pass a case with a check never graded.
    assert agg.passed is False
    assert aggregate(crashed, Scoring(mode="hybrid", threshold=0.0)).passed is False


scores = st.floats(min_value=0, max_value=1, allow_nan=False)


@given(
    scores,
    scores,
    scores,
    st.floats(min_value=0.01, max_value=10),
    st.floats(min_value=0.01, max_value=10),
)
def test_weighted_mean_is_within_the_scores(
    a: float, b: float, c: float, wa: float, wb: float
) -> None:
    results = {
        "selection": r("selection", a, True),
        "arguments": r("arguments", b, True),
        "ordering": r("ordering", c, True),
    }
    mean = weighted_mean(results, {"selection": wa, "arguments": wb})  # type: ignore[arg-type]
    assert mean is not None
    assert min(a, b, c) - 1e-9 <= mean <= max(a, b, c) + 1e-9


def test_a_weighted_mean_equal_to_the_threshold_passes_despite_float_rounding() -> None:
    # (1 + 0.4 + 1) / 3 is exactly 0.8, the default threshold, but 0.7999999999999999 in floats:
    # a case whose mean equals its threshold reached it and must pass.
    results = {
        "selection": r("selection", 1.0, True),
        "arguments": r("arguments", 0.4, False),
        "ordering": r("ordering", 1.0, True),
        "recovery": r("recovery", None, None, applicable=False),
    }
    assert aggregate(results, Scoring(mode="weighted")).passed is True
    hybrid = Scoring(mode="hybrid", required=["selection"])
    assert aggregate(results, hybrid).passed is True
    # A mean really under the threshold still fails.
    under = {**results, "arguments": r("arguments", 0.39, False)}
    assert aggregate(under, Scoring(mode="weighted")).passed is False


def test_a_check_that_could_score_nothing_counts_zero_in_a_weighted_mean() -> None:
    # An arguments check whose only fields were semantic and left unscored: score null.
    unscored = {**MIXED, "arguments": r("arguments", None, False)}
    agg = aggregate(unscored, Scoring(mode="weighted", threshold=0.5))
    assert agg.score == (1.0 + 0.0 + 1.0) / 3 and agg.passed is True
    assert aggregate(unscored, Scoring(mode="binary")).passed is False
