"""Which runs get a view: all up to the limit, then the worst, a few per case, stated."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from builders_reporting import check, failure, record
from toolgrade.reporting.run_sample import (
    EVERY_RUN_LIMIT,
    FAILING_LIMIT,
    PASSING_SAMPLE,
    PER_CASE,
    RunFacts,
    RunPicker,
    badness,
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


def _scored(case_id: str, trial: int, score: float, failures: int = 1) -> dict[str, Any]:
    line = record(case_id, trial=trial, passed=False, selection=check(
        passed=False, score=score, failures=[failure("extra_tool")] * failures))
    line["aggregate"]["score"] = score
    return line


def test_above_the_limit_the_worst_runs_stay_a_few_per_case() -> None:
    picker = RunPicker()
    _offer(picker, 3000, failing_every=4, linked=frozenset({1001, 2999}))  # 2999 passes
    failing = [p for p, r in picker.kept.items() if not r["aggregate"]["passed"]]
    passing = [p for p, r in picker.kept.items() if r["aggregate"]["passed"]]
    per_case = Counter(picker.kept[p]["case_id"] for p in failing)
    # 75 cases fail (every fourth), 10 runs each: PER_CASE of each, the earliest on a tie.
    assert len(per_case) == 75 and set(per_case.values()) == {PER_CASE}
    assert picker.failing == 750 and len(failing) == 75 * PER_CASE
    assert all(p < 300 * PER_CASE for p in failing)
    # The first passing run of each case (300 cases), at most PASSING_SAMPLE, and linked ones.
    sampled = [p for p in passing if p not in (1001, 2999)]
    assert len(sampled) == PASSING_SAMPLE
    assert len({picker.kept[p]["case_id"] for p in sampled}) == PASSING_SAMPLE
    assert {1001, 2999} <= set(passing)
    assert picker.cut().startswith(f"3,000 runs, more than {EVERY_RUN_LIMIT:,}: showing 225 "
                                   "of 750 failing runs (the worst first")


def test_failing_runs_past_their_limit_are_the_worst_and_linked_ones_stay() -> None:
    picker = RunPicker()
    n = 5 * FAILING_LIMIT
    scores = [(i * 7919) % n / n for i in range(n)]  # every score once, in shuffled order
    for i, score in enumerate(scores):
        picker.offer(i, _scored(f"case-{i}", 0, score), linked=i == n - 1)
    kept = picker.kept
    assert len(kept) == FAILING_LIMIT + 1 and n - 1 in kept
    worst = sorted(range(n), key=lambda i: scores[i])[:FAILING_LIMIT]
    assert set(kept) - {n - 1} == set(worst)
    assert f"showing {FAILING_LIMIT + 1:,} of {n:,} failing runs" in picker.cut()


def test_the_stream_choice_is_the_best_choice_made_knowing_every_run() -> None:
    rng = random.Random(7)
    picker = RunPicker()
    facts = []
    for i in range(EVERY_RUN_LIMIT * 3):
        line = _scored(f"case-{rng.randrange(120)}", i, rng.choice([0.0, 0.25, 0.5]),
                       rng.randrange(1, 4))
        facts.append((badness(RunFacts.of(line), i), line["case_id"], i))
        picker.offer(i, line, linked=False)
    chosen, per_case = set(), Counter[str]()
    for _key, case_id, i in sorted(facts, reverse=True):
        if per_case[case_id] < PER_CASE and len(chosen) < FAILING_LIMIT:
            per_case[case_id] += 1
            chosen.add(i)
    assert set(picker.kept) == chosen


def test_only_the_records_shown_are_loaded() -> None:
    picker, loaded = RunPicker(), []
    for i in range(2 * EVERY_RUN_LIMIT):
        line = _scored(f"case-{i % 50}", i, (i % 10) / 10)
        picker.take(i, RunFacts.of(line), False, lambda line=line: loaded.append(1) or line)
    assert len(picker.kept) == len(loaded) == 50 * PER_CASE


def test_a_kept_record_holds_what_the_view_reads_with_long_text_clipped() -> None:
    line = record("c", passed=False, selection=check(
        passed=False, failures=[failure("extra_tool", 1, "x" * 10_000)], per_tool={"a": {}}))
    slim = slim_record(line)
    kept = slim["checks"]["selection"]
    assert "per_tool" not in kept and len(kept["failures"][0]["message"]) == 600
    assert slim["case_id"] == "c" and slim["aggregate"] == line["aggregate"]
