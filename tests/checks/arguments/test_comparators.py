"""The comparator language: parsing, validation, value semantics and optimal pairing."""

from __future__ import annotations

import itertools
import math
from datetime import date, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolgrade.checks.arguments.comparators import (
    SpecError,
    bfcl_normalize,
    parse_date,
    parse_spec,
    typed_equal,
    validate_arg_spec,
)
from toolgrade.checks.arguments.pairing import FieldResult, compare, optimal_pairs


def check(spec: Any, value: Any, present: bool = True, ask: Any = None) -> FieldResult:
    """Compare one value with one reference spec at field `f`."""
    return compare(parse_spec(spec), present, value, "f", ask)


def status(spec: Any, value: Any, present: bool = True) -> str:
    """The status of comparing one value with one reference spec."""
    return check(spec, value, present).status


# --- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        "A123", 5, 2.5, True, None, [1, 2], {"city": "Paris"},
        {"exact": 5}, {"exact": "x", "normalize": True}, {"one_of": ["a", {"absent": True}]},
        {"approx": 25, "tol": 0.01}, {"approx": 25, "rel": 0.1}, {"date": "March 1, 2024"},
        {"date": "2024-03-01T10:00", "tz": "Europe/Paris"}, {"casefold": "Paris"},
        {"regex": "^[A-Z]\\d+$"}, {"semantic": "damaged", "rubric": "meaning only"},
        {"any": True}, {"absent": True}, {"unordered": [1, {"approx": 2, "tol": 1}]},
        {"address": {"zip": {"regex": "\\d{5}"}}},
    ],
)  # fmt: skip
def test_valid_specs_have_no_problem(spec: Any) -> None:
    assert validate_arg_spec(spec) == []
    parse_spec(spec)


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ({"approx": 25, "tolerance": 0.1}, "unknown key 'tolerance' beside comparator 'approx'"),
        ({"regex": "a", "tol": 1}, "unknown key 'tol' beside comparator 'regex'"),
        ({"exact": 1, "regex": "1"}, "exactly one"),
        ({"one_of": "a"}, "'one_of' must be a non-empty list"),
        ({"one_of": []}, "'one_of' must be a non-empty list"),
        ({"approx": "25"}, "'approx' must be a finite number"),
        ({"approx": 25, "tol": -1}, "'tol' must be a finite non-negative number"),
        ({"approx": True}, "'approx' must be a finite number"),
        ({"approx": math.inf}, "'approx' must be a finite number"),
        ({"approx": 1, "tol": math.inf}, "'tol' must be a finite non-negative number"),
        ({"date": "not a date"}, "'date' is not a recognisable date"),
        ({"date": "2024-03-01", "tz": "Mars/Olympus"}, "'tz' is not a known time zone"),
        ({"date": "2024-03-01", "tz": "+25:00"}, "'tz' is not a known time zone"),
        ({"date": "2024-03-01", "tz": "+05:75"}, "'tz' is not a known time zone"),
        ({"regex": "("}, "'regex' does not compile"),
        ({"casefold": 3}, "'casefold' must be a string"),
        ({"semantic": "x", "rubric": 3}, "'rubric' must be a string"),
        ({"semantic": "  "}, "'semantic' needs the meaning to compare with"),
        ({"any": False}, "'any' must be true"),
        ({"absent": "yes"}, "'absent' must be true"),
        ({"unordered": "abc"}, "'unordered' must be a list"),
        ({"exact": "x", "normalize": "yes"}, "'normalize' must be true or false"),
    ],
)
def test_invalid_specs_name_the_problem(spec: Any, needle: str) -> None:
    problems = validate_arg_spec(spec)
    assert len(problems) == 1
    assert needle in problems[0]
    with pytest.raises(ValueError) as info:
        parse_spec(spec)
    assert needle in str(info.value)


def test_nested_problems_carry_dotted_paths() -> None:
    spec = {"address": {"zip": {"regex": "("}}, "items": [{"qty": {"approx": 1, "foo": 2}}]}
    problems = validate_arg_spec(spec)
    assert problems[0].startswith("address.zip: ")
    assert problems[1].startswith("items[0].qty: unknown key 'foo'")
    with pytest.raises(SpecError) as info:
        parse_spec(spec)
    assert info.value.problems == problems


def test_every_problem_is_reported_not_only_the_first() -> None:
    assert len(validate_arg_spec({"a": {"approx": "x"}, "b": {"regex": "["}})) == 2


# --- exact -----------------------------------------------------------------------------------


@given(st.integers(min_value=-(2**52), max_value=2**52))
def test_int_equals_same_float_but_not_its_string(n: int) -> None:
    assert typed_equal(n, float(n))
    assert typed_equal(float(n), n)
    assert not typed_equal(str(n), n)
    assert not typed_equal(n, str(n))


@pytest.mark.parametrize(("a", "b"), [(True, 1), (1, True), (False, 0), (0.0, False), (None, 0)])
def test_bool_and_none_are_not_numbers(a: Any, b: Any) -> None:
    assert not typed_equal(a, b)


def test_exact_is_type_aware_at_any_depth() -> None:
    assert status(5, 5.0) == "match"
    assert status("5", 5) == "wrong"
    assert status(True, 1) == "wrong"
    assert status({"exact": {"a": [1, 2.0]}}, {"a": [1.0, 2]}) == "match"
    assert status({"exact": {"a": 1}}, {"a": 1, "b": 2}) == "wrong"  # exact: no extra keys


def test_yaml_date_reference_equals_its_iso_text() -> None:
    assert status(date(2024, 3, 1), "2024-03-01") == "match"
    assert status(date(2024, 3, 1), "2024-03-02") == "wrong"
    assert status(datetime(2024, 3, 1, 10, 0), "2024-03-01T10:00:00") == "match"


def test_normalize_option_folds_strings_like_bfcl() -> None:
    assert bfcl_normalize("New York, N.Y.") == "newyorkny"
    assert status({"exact": "New York, NY", "normalize": True}, "new-york ny") == "match"
    assert status({"exact": "New York, NY"}, "new-york ny") == "wrong"
    assert status({"exact": ["It's", "A_B"], "normalize": True}, ["its", "ab"]) == "match"
    assert (
        status({"one_of": ["San Francisco", "SF"], "normalize": True}, "san_francisco") == "match"
    )


def test_strict_option_keeps_integers_and_floats_apart() -> None:
    # Lenient by default, as JSON Schema is: 5.0 is the integer 5.
    assert status({"exact": 5}, 5.0) == "match"
    assert status({"exact": 5, "strict": True}, 5.0) == "wrong"
    assert status({"exact": 5, "strict": True}, 5) == "match"
    assert status({"exact": 2.0, "strict": True}, 2) == "wrong"
    assert status({"exact": 5, "strict": True}, True) == "wrong"
    # At any depth, and through one_of to its options.
    assert status({"exact": [1, 2], "strict": True}, [1, 2.0]) == "wrong"
    assert status({"one_of": [3, 4], "strict": True}, 4.0) == "wrong"
    assert status({"one_of": [3, 4], "strict": True}, 4) == "match"
    assert status({"one_of": [3, {"absent": True}], "strict": True}, None, present=False) == (
        "match")
    assert not typed_equal(1, 1.0, strict=True)
    assert typed_equal({"a": [1]}, {"a": [1.0]})


def test_strict_option_must_be_a_flag() -> None:
    assert any("'strict' must be true or false" in p
               for p in validate_arg_spec({"exact": 1, "strict": "yes"}))
    problems = validate_arg_spec({"approx": 1, "strict": True})
    assert any("unknown key 'strict'" in p for p in problems)


# --- one_of, any, absent ---------------------------------------------------------------------


def test_one_of_with_absent_accepts_omission() -> None:
    spec = {"one_of": ["standard", {"absent": True}]}
    assert status(spec, None, present=False) == "match"
    assert status(spec, "standard") == "match"
    assert status(spec, "express") == "wrong"
    assert status({"one_of": ["standard"]}, None, present=False) == "missing"


def test_one_of_options_may_be_comparators() -> None:
    spec = {"one_of": [{"approx": 10, "tol": 1}, {"regex": "ten"}]}
    assert status(spec, 10.5) == "match"
    assert status(spec, "ten") == "match"
    assert status(spec, 12) == "wrong"


def test_any_and_absent() -> None:
    assert status({"any": True}, None) == "match"
    assert status({"any": True}, None, present=False) == "missing"
    assert status({"absent": True}, None, present=False) == "match"
    assert status({"absent": True}, None) == "wrong"  # present, even as null


# --- approx ----------------------------------------------------------------------------------


def test_approx_absolute_tolerance_is_inclusive() -> None:
    assert status({"approx": 25.0, "tol": 0.01}, 25.01) == "match"
    assert status({"approx": 25.0, "tol": 0.01}, 24.99) == "match"
    assert status({"approx": 25.0, "tol": 0.01}, 25.02) == "wrong"


def test_approx_relative_tolerance() -> None:
    assert status({"approx": 100, "rel": 0.1}, 109) == "match"
    assert status({"approx": 100, "rel": 0.1}, 111) == "wrong"
    assert status({"approx": -100, "rel": 0.1}, -91) == "match"


def test_approx_needs_a_number() -> None:
    assert status({"approx": 25, "tol": 1}, "25") == "wrong"
    assert status({"approx": 1, "tol": 1}, True) == "wrong"
    assert status({"approx": 0.3}, 0.1 + 0.2) == "match"  # default: float closeness only
    assert status({"approx": 0.3}, 0.31) == "wrong"


@pytest.mark.parametrize("spec", [{"approx": 25, "tol": 0.01}, {"approx": 25, "rel": 0.5}])
@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_an_infinite_value_is_never_within_a_tolerance(spec: dict[str, Any], value: float) -> None:
    assert status(spec, value) == "wrong"


@given(st.floats(-1e6, 1e6), st.floats(0, 100), st.floats(-200, 200))
def test_approx_agrees_with_the_tolerance(e: float, tol: float, delta: float) -> None:
    got = status({"approx": e, "tol": tol}, e + delta)
    if abs(delta) <= tol * 0.999:
        assert got == "match"
    if abs(delta) >= tol * 1.001 + 1e-3:
        assert got == "wrong"


# --- dates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "2024-03-01", "2024-03-01T10:30:00", "2024-03-01T10:30:00Z", "2024-03-01 10:30",
        "20240301", "March 1, 2024", "march 1 2024", "Mar 1, 2024", "Mar. 1st, 2024",
        "1 Mar 2024", "1 March 2024", "01 March, 2024", "Friday, March 1, 2024",
        "03/01/2024", "3/1/2024", "2024/03/01", "01.03.2024", "March 1, 2024 2 PM",
        "Fri, 01 Mar 2024 10:00:00 +0000",
        "2024-03-01 10:30 UTC",
        "3/1/24",
        "March 1, 2024 10:30 GMT",
    ],
)  # fmt: skip
def test_date_formats_name_the_same_day(text: str) -> None:
    parsed = parse_date(text)
    assert parsed is not None
    day = parsed.date() if isinstance(parsed, datetime) else parsed
    assert day == date(2024, 3, 1)
    assert status({"date": "2024-03-01"}, text) == "match"


def test_slashes_with_year_last_are_us_month_first() -> None:
    assert parse_date("03/01/2024") == date(2024, 3, 1)
    assert status({"date": "2024-01-03"}, "03/01/2024") == "wrong"


def test_date_mismatches() -> None:
    assert status({"date": "2024-03-01"}, "2024-03-02") == "wrong"
    assert status({"date": "2024-03-01"}, "tomorrow") == "wrong"
    assert status({"date": "2024-03-01"}, 20240301) == "wrong"


def test_without_tz_only_the_calendar_date_counts() -> None:
    assert status({"date": "2024-03-01T09:00"}, "2024-03-01T17:45:00+02:00") == "match"
    assert status({"date": "2024-03-02T04:30:00Z"}, "2024-03-01T23:30:00-05:00") == "wrong"


def test_with_tz_datetimes_compare_as_instants() -> None:
    spec = {"date": "2024-03-02T04:30:00Z", "tz": "UTC"}
    assert status(spec, "2024-03-01T23:30:00-05:00") == "match"
    assert status(spec, "2024-03-01T23:31:00-05:00") == "wrong"
    paris = {"date": "2024-03-01T10:00", "tz": "Europe/Paris"}  # naive: local Paris time
    assert status(paris, "2024-03-01T09:00:00Z") == "match"
    assert status(paris, "2024-03-01T10:00:00Z") == "wrong"
    assert status({"date": "2024-03-01T15:30", "tz": "+05:30"}, "2024-03-01T10:00Z") == "match"


@pytest.mark.parametrize("value", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+05:00"])
def test_a_date_out_of_range_in_the_zone_is_wrong_not_a_crash(value: str) -> None:
    result = check({"date": "2024-03-01T10:00", "tz": "UTC"}, value)
    assert result.status == "wrong"
    assert "out of the range of dates" in result.findings[0].reason


def test_with_tz_a_date_only_side_compares_days_in_that_zone() -> None:
    spec = {"date": "2024-03-02", "tz": "UTC"}
    assert status(spec, "2024-03-01T23:30:00-05:00") == "match"
    assert status({"date": "2024-03-01", "tz": "UTC"}, "2024-03-01T23:30:00-05:00") == "wrong"


# --- casefold and regex ----------------------------------------------------------------------


def test_casefold_folds_case_and_whitespace() -> None:
    assert status({"casefold": "New  York"}, " new york ") == "match"
    assert status({"casefold": "Straße"}, "STRASSE") == "match"
    assert status({"casefold": "New York"}, "Newyork") == "wrong"
    assert status({"casefold": "5"}, 5) == "wrong"


def test_casefold_matches_canonically_equivalent_spellings() -> None:
    # "CAFE" + U+0301 (combining acute) is "CAFÉ" decomposed; folding alone left the two apart.
    assert status({"casefold": "Café"}, "CAFE\u0301") == "match"
    assert status({"casefold": "cafe\u0301"}, "CAFÉ") == "match"
    assert status({"semantic": "Café crème"}, "CAFE\u0301 CRE\u0300ME") == "match"
    assert status({"casefold": "Café"}, "CAFE") == "wrong"
    assert status("New York", "new york") == "wrong"  # bare values are exact: casing counts


def test_regex_is_a_full_match_on_the_text() -> None:
    assert status({"regex": "[A-Z]\\d+"}, "A123") == "match"
    assert status({"regex": "[A-Z]\\d+"}, "xA123") == "wrong"
    assert status({"regex": "[A-Z]\\d+"}, "A123x") == "wrong"
    assert status({"regex": "\\d+"}, 42) == "match"
    assert status({"regex": "true|false"}, True) == "match"  # JSON text of non-strings


# --- nested objects and lists ----------------------------------------------------------------


def test_nested_objects_compare_field_by_field_with_dotted_paths() -> None:
    spec = {
        "city": "Paris",
        "zip": {"regex": "\\d{5}"},
        "geo": {"lat": {"approx": 48.85, "tol": 0.01}},
    }
    good = {"city": "Paris", "zip": "75001", "geo": {"lat": 48.857}, "extra": "ignored"}
    assert status(spec, good) == "match"
    bad = check(spec, {"city": "Lyon", "geo": {"lat": 40}})
    assert bad.status == "wrong"
    assert [(f.kind, f.path) for f in bad.findings] == [
        ("wrong", "f.city"), ("missing", "f.zip"), ("wrong", "f.geo.lat"),
    ]  # fmt: skip
    assert bad.similarity == 0.0
    assert status(spec, "Paris") == "wrong"


def test_lists_compare_in_order() -> None:
    assert status([1, 2], [1, 2.0]) == "match"
    assert status([1, 2], [2, 1]) == "wrong"
    short = check([1, 2, 3], [1, 2])
    assert short.status == "wrong"
    assert short.similarity == pytest.approx(2 / 3)
    assert status([{"casefold": "a"}], ["A"]) == "match"


def test_unordered_lists_are_multisets() -> None:
    assert status({"unordered": [1, 2, 2]}, [2, 1, 2]) == "match"
    assert status({"unordered": [1, 2, 2]}, [2, 1, 1]) == "wrong"
    assert status({"unordered": [1, 2]}, [2, 1, 3]) == "wrong"
    items = {"unordered": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": {"approx": 2, "tol": 0.5}}]}
    assert status(items, [{"sku": "B", "qty": 2.4}, {"sku": "A", "qty": 1}]) == "match"


def test_unordered_pairs_items_optimally_not_greedily() -> None:
    # Item 0 accepts either value; greedy would give it "x" and leave item 1 unmatched.
    spec = {"unordered": [{"one_of": ["x", "y"]}, "x"]}
    assert status(spec, ["x", "y"]) == "match"


# --- semantic --------------------------------------------------------------------------------


def test_semantic_shortcuts_need_no_judge() -> None:
    def ask(*_: Any) -> Any:
        raise AssertionError("judge called")

    assert check({"semantic": "Arrived damaged"}, "Arrived damaged", ask=ask).status == "match"
    assert check({"semantic": "Arrived damaged"}, " arrived  DAMAGED", ask=ask).status == "match"


def test_semantic_without_shortcut_asks_or_is_unscored() -> None:
    spec = {"semantic": "the item arrived damaged", "rubric": "meaning"}
    undecided = check(spec, "box was crushed")
    assert (undecided.status, undecided.similarity) == ("unscored", 0.5)
    seen: list[tuple[Any, ...]] = []

    def ask(cmp: Any, value: Any, path: str) -> tuple[str, str]:
        seen.append((cmp.text, cmp.rubric, value, path))
        return ("pass", "") if "crushed" in value else ("fail", "different")

    assert check(spec, "box was crushed", ask=ask).status == "match"
    assert seen == [("the item arrived damaged", "meaning", "box was crushed", "f")]
    failed = check(spec, "changed my mind", ask=ask)
    assert failed.status == "wrong"
    assert "different" in failed.findings[0].reason


# --- optimal pairing -------------------------------------------------------------------------


@given(
    st.integers(1, 4).flatmap(
        lambda n: st.integers(1, 4).flatmap(
            lambda m: st.lists(
                st.lists(st.integers(0, 5), min_size=m, max_size=m), min_size=n, max_size=n
            )
        )
    )
)
def test_optimal_pairs_reach_the_brute_force_maximum(matrix: list[list[int]]) -> None:
    n, m = len(matrix), len(matrix[0])
    pairs = optimal_pairs(n, m, lambda i, j: matrix[i][j])
    assert len(pairs) == min(n, m)
    assert len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs)
    best = max(
        sum(matrix[i][j] for i, j in zip(rows, cols, strict=False))
        for rows in itertools.permutations(range(n), min(n, m))
        for cols in itertools.permutations(range(m), min(n, m))
    )
    assert sum(matrix[i][j] for i, j in pairs) == best


def test_optimal_pairs_break_ties_by_position() -> None:
    assert optimal_pairs(3, 3, lambda i, j: 1.0) == [(0, 0), (1, 1), (2, 2)]
    assert optimal_pairs(0, 3, lambda i, j: 1.0) == []


def test_approx_without_tolerance_forgives_rounding_around_zero() -> None:
    # 0.1 + 0.2 - 0.3 is 5.55e-17: float rounding, as `approx: 0.3` forgives for 0.1 + 0.2.
    # A relative-only closeness refused it, although `tol: 0` (a stricter-looking spec) took it.
    rounded = 0.1 + 0.2 - 0.3
    assert status({"approx": 0}, rounded) == "match"
    assert status({"approx": 0, "tol": 0}, rounded) == "match"
    assert status({"approx": 0}, 0.001) == "wrong"
    assert status({"approx": 1e12}, 1e12 + 1) == "match"  # relative rounding on large values
    assert status({"approx": 1e12}, 1e12 + 10_000) == "wrong"
