"""Judge-free field results reused across runs equal the ones computed afresh."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.checks.arguments.check import field_results
from toolgrade.checks.arguments.comparators import parse_args
from toolgrade.checks.arguments.settled import _key, judge_free_results
from toolgrade.checks.call_identity import exact_key

_SCALARS = st.sampled_from([5, 5.0, -0.0, 0.0, 0, True, 1, "5", "a", None, float("nan")])
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=2)
    | st.dictionaries(st.sampled_from(["x", "y"]), inner, max_size=2),
    max_leaves=4,
)
_ARGS = st.dictionaries(st.sampled_from(["n", "s", "o"]), _VALUES, max_size=3)
_SPEC = parse_args({"n": 5, "s": {"$regex": "^[0-9]$"}, "o": {"$unordered": [1, "a"]}})


def _fresh(args: dict[str, Any]) -> Any:
    return field_results(_SPEC, args, None)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ARGS, min_size=1, max_size=6))
def test_reused_results_equal_fresh_ones(runs: list[dict[str, Any]]) -> None:
    for args in runs:
        reused = judge_free_results(_SPEC, args, lambda args=args: _fresh(args))
        assert repr(reused) == repr(_fresh(args))


@settings(max_examples=300, deadline=None)
@given(_VALUES, _VALUES)
def test_equal_keys_are_the_same_value_written_the_same_way(a: Any, b: Any) -> None:
    if exact_key(a) == exact_key(b):
        assert repr(a) == repr(b)


def test_types_and_signs_are_told_apart() -> None:
    assert exact_key(5) != exact_key(5.0)
    assert exact_key(1) != exact_key(True)
    assert exact_key(0.0) != exact_key(-0.0)
    assert exact_key({"a": 1, "b": 2}) != exact_key({"b": 2, "a": 1})
    assert exact_key((1,)) is None


@settings(max_examples=300, deadline=None)
@given(_ARGS | _VALUES)
def test_the_flat_key_is_exact_key(args: Any) -> None:
    assert _key(args) == exact_key(args)
