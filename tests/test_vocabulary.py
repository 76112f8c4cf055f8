"""The closed vocabulary: every failure belongs to exactly one check."""

from __future__ import annotations

from typing import get_args

from toolgrade.vocabulary import (
    CHECK_NAMES,
    FAILURES_BY_CHECK,
    JUDGE_DIMENSIONS,
    CheckName,
    FailureName,
    JudgeDimension,
)


def test_every_failure_name_belongs_to_one_check() -> None:
    listed = [name for names in FAILURES_BY_CHECK.values() for name in names]
    assert sorted(listed) == sorted(get_args(FailureName))
    assert len(listed) == len(set(listed))
    assert tuple(FAILURES_BY_CHECK) == CHECK_NAMES


def test_the_tuples_match_their_literals() -> None:
    assert get_args(CheckName) == CHECK_NAMES
    assert get_args(JudgeDimension) == JUDGE_DIMENSIONS
