"""The identity memo the checks keep their per-case plans and derived data in."""

from __future__ import annotations

from toolgrade.checks.memo import IdentityMemo


def test_made_once_per_object_and_bounded() -> None:
    made: list[str] = []

    def make(obj: list[str]) -> str:
        made.append(obj[0])
        return obj[0].upper()

    memo: IdentityMemo[list[str], str] = IdentityMemo(limit=2)
    a, b, equal_to_a = ["a"], ["b"], ["a"]
    assert memo(a, make) == "A" and memo(a, make) == "A"
    assert memo(equal_to_a, make) == "A"  # equal but another object: made again
    assert made == ["a", "a"]
    memo(b, make)  # past the limit: starts afresh
    memo(a, make)
    assert made == ["a", "a", "b", "a"]
