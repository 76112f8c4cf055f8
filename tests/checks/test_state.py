"""State assertions: dotted paths with each operator, and a real SQLite database file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolgrade.checks.state import (
    StateOutcome,
    check_state,
    resolve_path,
    same_value,
    sqlite_file,
)
from toolgrade.models import StateAssertion

STATE: dict[str, Any] = {
    "orders": [
        {"id": "A1", "status": "refunded", "items": ["mug", "lid"], "total": 25},
        {"id": "B2", "status": "open", "note": None},
    ],
    "user": {"name": "Ada Lovelace", "flags": {"vip": True}},
    "a.b": {"c": 1},
}


def one(spec: dict[str, Any], state: dict[str, Any] | None = STATE,
        base: Path | None = None) -> StateOutcome:
    assertion = StateAssertion.model_validate(spec)
    [outcome] = check_state([assertion], state, base or Path.cwd())
    return outcome


@pytest.mark.parametrize(
    ("spec", "passed"),
    [
        ({"path": "orders.0.status", "equals": "refunded"}, True),
        ({"path": "orders.1.status", "equals": "refunded"}, False),
        ({"path": "orders.-1.id", "equals": "B2"}, True),
        ({"path": "orders.0.total", "equals": 25.0}, True),
        ({"path": "orders.0.total", "equals": "25"}, False),
        ({"path": "user.flags.vip", "equals": 1}, False),
        ({"path": "orders.1.note", "equals": None}, True),
        ({"path": "orders.1.missing", "equals": None}, False),
        ({"path": "orders.5.id", "exists": True}, False),
        ({"path": "orders.1.note", "exists": True}, True),
        ({"path": "orders.1.refund", "exists": False}, True),
        ({"path": "orders.1.refund", "absent": True}, True),
        ({"path": "orders.0", "absent": True}, False),
        ({"path": "user.name", "contains": "Lovelace"}, True),
        ({"path": "user.name", "contains": "Byron"}, False),
        ({"path": "orders.0.items", "contains": "lid"}, True),
        ({"path": "orders.0.items", "contains": "cup"}, False),
        ({"path": "user.flags", "contains": "vip"}, True),
        ({"path": "orders.0.total", "contains": 2}, False),
        ({"path": "orders", "count": 2}, True),
        ({"path": "orders.0.items", "count": 3}, False),
        ({"path": "user", "count": 2}, True),
        ({"path": "orders.0.total", "count": 1}, False),
        ({"path": "a.b.c", "equals": 1}, True),
        ({"path": "orders.x", "exists": True}, False),
    ],
)
def test_path_operators(spec: dict[str, Any], passed: bool) -> None:
    assert one(spec).passed is passed


def test_mismatch_reports_expected_and_actual() -> None:
    outcome = one({"path": "orders.1.status", "equals": "refunded"})
    assert outcome.to_json() == {"path": "orders.1.status", "operator": "equals",
                                 "passed": False, "expected": "refunded", "actual": "open"}


def test_count_reports_the_actual_length() -> None:
    outcome = one({"path": "orders.0.items", "count": 3})
    assert (outcome.expected, outcome.actual) == (3, 2)


def test_several_operators_report_the_first_failing() -> None:
    outcome = one({"path": "orders.0.items", "exists": True, "count": 5})
    assert (outcome.passed, outcome.operator) == (False, "count")


def test_no_final_state_fails_with_actual_null() -> None:
    outcome = one({"path": "orders", "exists": False}, state=None)
    assert (outcome.passed, outcome.actual) == (False, None)
    assert outcome.error is not None


@given(st.dictionaries(st.text(alphabet="xyz", min_size=1), st.integers(), max_size=4))
def test_every_top_level_key_resolves_to_its_value(state: dict[str, int]) -> None:
    for key, value in state.items():
        assert resolve_path(state, key) == value


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                    lambda kids: st.lists(kids, max_size=3)
                    | st.dictionaries(st.text(max_size=2), kids, max_size=3),
                    max_leaves=8))
def test_same_value_is_reflexive(value: Any) -> None:
    assert same_value(value, value)


def test_same_value_is_type_aware() -> None:
    assert same_value(5, 5.0) and same_value([1, {"a": 2}], [1.0, {"a": 2}])
    assert not same_value(True, 1) and not same_value("5", 5) and not same_value([1], [1, 2])


# -- sqlite --------------------------------------------------------------------------------------


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE orders (id TEXT PRIMARY KEY, status TEXT, total REAL);
        INSERT INTO orders VALUES ('A1', 'refunded', 25.0), ('B2', 'open', 10.5);
        """
    )
    conn.commit()
    conn.close()
    return path


def test_sqlite_single_cell_compares_as_scalar(db: Path) -> None:
    outcome = one({"sqlite": "shop.db", "query": "SELECT status FROM orders WHERE id='A1'",
                   "equals": "refunded"}, base=db.parent)
    assert outcome.passed is True and outcome.actual == "refunded"


def test_sqlite_mismatch_names_query_expected_actual(db: Path) -> None:
    query = "SELECT status FROM orders WHERE id='B2'"
    outcome = one({"sqlite": str(db), "query": query, "equals": "refunded"}, state=None)
    assert outcome.to_json() == {"query": query, "operator": "equals", "passed": False,
                                 "expected": "refunded", "actual": "open"}


def test_sqlite_rows_compare_as_lists(db: Path) -> None:
    spec = {"sqlite": str(db), "query": "SELECT id, total FROM orders ORDER BY id",
            "equals": [["A1", 25], ["B2", 10.5]]}
    assert one(spec).passed is True


def test_sqlite_one_column_compares_with_a_flat_list(db: Path) -> None:
    spec = {"sqlite": str(db), "query": "SELECT id FROM orders ORDER BY id", "equals": ["A1", "B2"]}
    assert one(spec).passed is True


def test_sqlite_empty_result_equals_empty_list(db: Path) -> None:
    spec = {"sqlite": str(db), "query": "SELECT id FROM orders WHERE total > 100", "equals": []}
    assert one(spec).passed is True
    absent = {"sqlite": str(db), "query": "SELECT id FROM orders WHERE total > 100", "absent": True}
    assert one(absent).passed is True


def test_sqlite_count_and_contains(db: Path) -> None:
    assert one({"sqlite": str(db), "query": "SELECT * FROM orders", "count": 2}).passed is True
    assert one({"sqlite": str(db), "query": "SELECT status FROM orders",
                "contains": "open"}).passed is True


def test_sqlite_is_opened_read_only(db: Path) -> None:
    outcome = one({"sqlite": str(db), "query": "DELETE FROM orders", "equals": []})
    assert outcome.passed is False and "query failed" in (outcome.error or "")
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM orders").fetchone()[0] == 2
    conn.close()


def test_sqlite_missing_file_fails_without_creating_it(tmp_path: Path) -> None:
    outcome = one({"sqlite": "nope.db", "query": "SELECT 1", "equals": 1}, base=tmp_path)
    assert outcome.passed is False and "not found" in (outcome.error or "")
    assert not (tmp_path / "nope.db").exists()


def test_runs_own_database_takes_precedence(db: Path, tmp_path: Path) -> None:
    spec = StateAssertion.model_validate({"sqlite": "case.db", "query": "SELECT 1", "equals": 1})
    assert sqlite_file(spec, {"sqlite": "shop.db"}, tmp_path) == tmp_path / "shop.db"
    assert sqlite_file(spec, None, tmp_path) == tmp_path / "case.db"
    assert sqlite_file(spec, {"sqlite": str(db)}, Path("/elsewhere")) == db
    outcome = one({"sqlite": "case.db", "query": "SELECT count(*) FROM orders", "equals": 2},
                  state={"sqlite": "shop.db"}, base=tmp_path)
    assert outcome.passed is True
