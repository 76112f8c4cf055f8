"""The shared verdicts of `aggregate` are the ones each record used to build."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolgrade.models import Aggregate, CheckResult, Scoring
from toolgrade.scoring.grading import aggregate

_RESULT = st.builds(
    CheckResult,
    check=st.sampled_from(["selection", "arguments", "ordering", "recovery"]),
    applicable=st.booleans(),
    score=st.sampled_from([None, 0.0, 0.5, 1.0]),
    passed=st.sampled_from([None, False, True]),
)


@given(st.lists(_RESULT, max_size=4), st.sampled_from(["binary", "weighted", "hybrid"]))
def test_shared_verdicts_equal_fresh_ones(results: list[CheckResult], mode: str) -> None:
    by_check = {r.check: r for r in results}
    got = aggregate(by_check, Scoring(mode=mode))  # type: ignore[arg-type]
    applicable = [r for r in by_check.values() if r.applicable]
    if not applicable:
        assert got == Aggregate(mode=mode, score=None, passed=False)  # type: ignore[arg-type]
    elif mode == "binary":
        passed = all(r.passed is True for r in applicable)
        assert got == Aggregate(mode="binary", score=1.0 if passed else 0.0, passed=passed)
    assert got.model_config.get("frozen") is True  # what makes sharing one safe
