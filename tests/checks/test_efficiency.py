"""Step efficiency: C = (1/n) * sum of s_min / s_i per task type, over successful runs."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders_ordering import ordering_case, record, tools_run
from toolgrade.checks.efficiency import StepEfficiency, run_succeeded
from toolgrade.models import Case

OK: Mapping[str, bool | None] = {"selection": True, "ordering": True}
FAILED: Mapping[str, bool | None] = {"selection": False, "ordering": True}


def add_run(
    acc: StepEfficiency, case: Case, n_calls: int, passed: Mapping[str, bool | None] = OK
) -> None:
    """Add one run of `n_calls` distinct calls to the accumulator."""
    trajectory = tools_run(*["t"] * n_calls, case_id=case.id)
    acc.add(case, trajectory, record(case, trajectory, passed=passed))


def test_pooled_efficiency_hand_computed_over_two_task_types() -> None:
    acc = StepEfficiency()
    r1 = ordering_case(case_id="r1", task_type="refund")
    r2 = ordering_case(case_id="r2", task_type="refund")
    l1 = ordering_case(case_id="l1", task_type="lookup")
    add_run(acc, r1, 3)
    add_run(acc, r1, 4)
    add_run(acc, r2, 6)
    add_run(acc, r2, 2, FAILED)  # fewer steps but failed: neither in the sum nor in s_min
    add_run(acc, l1, 2)
    add_run(acc, l1, 5)
    add_run(acc, l1, 0)  # no calls: skipped
    # refund: s_min = 3; C = (3/3 + 3/4 + 3/6) / 3 = 2.25 / 3 = 0.75
    # lookup: s_min = 2; C = (2/2 + 2/5) / 2 = 1.4 / 2 = 0.7
    summary = acc.summary()
    assert summary["efficiency"] == {
        "lookup": pytest.approx(0.7),
        "refund": pytest.approx(0.75),
    }
    assert summary["efficiency_n"] == {"lookup": 2, "refund": 3}


def test_task_type_defaults_to_case_id() -> None:
    acc = StepEfficiency()
    add_run(acc, ordering_case(case_id="solo"), 2)
    assert acc.efficiency() == {"solo": 1.0}


def test_min_steps_overrides_the_pool() -> None:
    acc = StepEfficiency()
    case = ordering_case(case_id="r1", task_type="refund", min_steps=2)
    add_run(acc, case, 3)
    add_run(acc, case, 4)
    # Pool alone would give s_min = 3: (3/3 + 3/4) / 2 = 0.875.
    # min_steps = 2 wins: (2/3 + 2/4) / 2 = 7/12.
    assert acc.efficiency()["refund"] == pytest.approx(7 / 12)


def test_min_steps_case_and_pooled_case_share_a_task_type() -> None:
    acc = StepEfficiency()
    declared = ordering_case(case_id="a", task_type="t", min_steps=1)
    pooled = ordering_case(case_id="b", task_type="t")
    add_run(acc, declared, 2)  # 1/2
    add_run(acc, pooled, 4)  # pooled s_min = 2 (the declared case's run counts in the pool): 2/4
    assert acc.efficiency()["t"] == pytest.approx(0.5)


def test_run_below_declared_min_steps_counts_as_one() -> None:
    acc = StepEfficiency()
    add_run(acc, ordering_case(case_id="a", min_steps=5), 3)
    assert acc.efficiency()["a"] == 1.0


def test_task_type_with_no_successful_run_reports_none() -> None:
    acc = StepEfficiency()
    add_run(acc, ordering_case(case_id="a"), 3, FAILED)
    assert acc.summary() == {"efficiency": {"a": None}, "efficiency_n": {"a": 0}}


def test_success_means_every_applicable_check_passed() -> None:
    case = ordering_case()
    run = tools_run("a")
    assert run_succeeded(record(case, run, passed={"selection": True, "ordering": None}))
    assert not run_succeeded(record(case, run, passed={"selection": True, "ordering": False}))
    # No applicable check at all proves nothing.
    assert not run_succeeded(record(case, run, passed={"selection": None, "ordering": None}))
    crashed = record(case, run).model_copy(update={"error": "boom"})
    assert not run_succeeded(crashed)


def test_memory_is_bounded_by_distinct_step_counts() -> None:
    acc = StepEfficiency()
    case = ordering_case(case_id="a")
    for i in range(200):
        add_run(acc, case, 2 + i % 3)
    assert len(acc._pools["a"]) == 3
    assert acc.counts() == {"a": 200}


runs = st.lists(
    st.tuples(
        st.sampled_from(["x", "y"]),  # task type
        st.integers(0, 12),  # tool calls
        st.booleans(),  # passed
        st.none() | st.integers(1, 6),  # min_steps
    ),
    max_size=25,
)


@given(runs)
def test_efficiency_is_in_zero_one(pool: list[tuple[str, int, bool, int | None]]) -> None:
    acc = StepEfficiency()
    for i, (task, n_calls, passed, min_steps) in enumerate(pool):
        case = ordering_case(case_id=f"c{i}", task_type=task, min_steps=min_steps)
        add_run(acc, case, n_calls, OK if passed else FAILED)
    counted = {
        task: sum(1 for t, n, p, _ in pool if t == task and n > 0 and p) for task in ("x", "y")
    }
    for task, value in acc.efficiency().items():
        assert acc.counts()[task] == counted[task]
        if counted[task] == 0:
            assert value is None
        else:
            assert value is not None and 0.0 < value <= 1.0
