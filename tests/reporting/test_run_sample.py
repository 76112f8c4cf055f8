"""Which runs get a view: all up to the limit, then a stated and bounded cut."""

from __future__ import annotations

from builders_reporting import check, failure, record
from toolgrade.reporting.run_sample import (
    EVERY_RUN_LIMIT,
    FAILING_LIMIT,
    PASSING_SAMPLE,
    RunPicker,
    slim_record,
)


def _offer(picker: RunPicker, n: int, failing_every: int, cases: int = 300,
           linked: frozenset[int] = frozenset()) -> None:
    for i in range(n):
        passed = i % failing_every != 0
        picker.offer(i, record(f"case-{i % cases}", trial=i // cases, passed=passed), i in linked)


def test_every_run_is_kept_up_to_the_limit() -> None:
    picker = RunPicker()
    _offer(picker, EVERY_RUN_LIMIT, failing_every=3)
    assert len(picker.kept) == EVERY_RUN_LIMIT and picker.every_run and picker.cut() == ""


def test_above_the_limit_failing_runs_stay_and_passing_ones_are_sampled() -> None:
    picker = RunPicker()
    _offer(picker, 3000, failing_every=4, linked=frozenset({1001, 2999}))  # 2999 passes
    failing = [p for p, r in picker.kept.items() if not r["aggregate"]["passed"]]
    passing = [p for p, r in picker.kept.items() if r["aggregate"]["passed"]]
    assert len(failing) == 750 == picker.failing  # every failing run: under FAILING_LIMIT
    # The first passing run of each case (300 cases), at most PASSING_SAMPLE, and linked ones.
    sampled = [p for p in passing if p not in (1001, 2999)]
    assert len(sampled) == PASSING_SAMPLE
    assert len({picker.kept[p]["case_id"] for p in sampled}) == PASSING_SAMPLE
    assert {1001, 2999} <= set(passing)
    assert picker.cut().startswith("3,000 runs, more than 1,000: showing all 750 failing runs")


def test_failing_runs_past_their_limit_are_cut_but_linked_ones_stay() -> None:
    picker = RunPicker()
    last = 5 * FAILING_LIMIT - 1
    _offer(picker, 5 * FAILING_LIMIT, failing_every=1, linked=frozenset({last}))
    assert len(picker.kept) == FAILING_LIMIT + 1 and last in picker.kept
    assert f"{FAILING_LIMIT + 1:,} of {5 * FAILING_LIMIT:,} failing runs" in picker.cut()


def test_a_kept_record_holds_what_the_view_reads_with_long_text_clipped() -> None:
    line = record("c", passed=False, selection=check(
        passed=False, failures=[failure("extra_tool", 1, "x" * 10_000)], per_tool={"a": {}}))
    slim = slim_record(line)
    kept = slim["checks"]["selection"]
    assert "per_tool" not in kept and len(kept["failures"][0]["message"]) == 600
    assert slim["case_id"] == "c" and slim["aggregate"] == line["aggregate"]
