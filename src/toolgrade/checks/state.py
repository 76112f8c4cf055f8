"""Environment-state assertions: what the run left behind, not what the agent said it did.

Two kinds of assertion (models.case.StateAssertion):

- a dotted ``path`` into the run's ``final_state`` (list indices as numbers: ``orders.0.status``)
  with one operator: ``equals``, ``exists``, ``absent``, ``contains`` or ``count``;
- a ``sqlite`` database file with a ``query`` whose result is compared (usually with ``equals``).

Every assertion yields one `StateOutcome`; nothing here raises for bad run data, because a
missing database or an unreadable state is a finding about the run, not a crash of the grader.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgrade.models import StateAssertion
from toolgrade.models.figures import StateRecord

#: Operators in the order they are evaluated when an assertion sets several.
OPERATORS: tuple[str, ...] = ("equals", "exists", "absent", "contains", "count")

#: What `resolve_path` returns for a path that names nothing (None is a value).
MISSING = object()


@dataclass(frozen=True)
class StateOutcome:
    """The result of one state assertion: what was expected, what was found."""

    target: str
    kind: str  # "path" or "sqlite"
    operator: str
    passed: bool
    expected: Any
    actual: Any
    error: str | None = None

    def to_json(self) -> StateRecord:
        """The figures form: `{path|query, operator, passed, expected, actual[, error]}`."""
        out: StateRecord
        if self.kind == "path":
            out = {"path": self.target, "operator": self.operator, "passed": self.passed,
                   "expected": self.expected, "actual": self.actual}
        else:
            out = {"query": self.target, "operator": self.operator, "passed": self.passed,
                   "expected": self.expected, "actual": self.actual}
        if self.error is not None:
            out["error"] = self.error
        return out


def same_value(a: Any, b: Any) -> bool:
    """Type-aware equality: 5 == 5.0, but True != 1 and "5" != 5; containers compared deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    return bool(a == b)


def resolve_path(state: Any, path: str) -> Any:
    """The value at a dotted path, or `MISSING`.

    A dict key may itself contain dots: at each mapping the shortest run of segments that names
    an existing key is taken, so ``{"a.b": 1}`` is reachable as ``a.b``.
    """
    parts = path.split(".")
    return _walk(state, parts)


def _walk(node: Any, parts: list[str]) -> Any:
    if not parts:
        return node
    if isinstance(node, dict):
        for end in range(1, len(parts) + 1):
            key = ".".join(parts[:end])
            if key in node:
                found = _walk(node[key], parts[end:])
                if found is not MISSING:
                    return found
        return MISSING
    if isinstance(node, list):
        try:
            index = int(parts[0])
        except ValueError:
            return MISSING
        if -len(node) <= index < len(node):
            return _walk(node[index], parts[1:])
    return MISSING


def _operators(assertion: StateAssertion) -> list[str]:
    return [op for op in OPERATORS if op in assertion.model_fields_set]


def _contains(container: Any, item: Any) -> bool:
    if isinstance(container, str):
        return isinstance(item, str) and item in container
    if isinstance(container, list):
        return any(same_value(x, item) for x in container)
    if isinstance(container, dict):
        return isinstance(item, str) and item in container
    return False


@dataclass(frozen=True)
class _Target:
    """What an assertion is evaluated against.

    `value` is compared by equals; `found` answers exists/absent; `has_value` says whether equals
    and contains can hold at all; `size` answers count; `member` answers contains.
    """

    value: Any
    found: bool
    has_value: bool
    size: int | None
    member: Callable[[Any], bool]


def _apply(op: str, expected: Any, t: _Target) -> bool:
    """One operator against a target."""
    if op == "equals":
        return t.has_value and same_value(t.value, expected)
    if op == "exists":
        return t.found == bool(expected)
    if op == "absent":
        return (not t.found) == bool(expected)
    if op == "contains":
        return t.has_value and t.member(expected)
    return t.size is not None and t.size == expected  # count


def _size(value: Any) -> int | None:
    return len(value) if isinstance(value, list | dict | str) else None


def _judge_ops(assertion: StateAssertion, target: str, kind: str, t: _Target) -> StateOutcome:
    """Evaluate every operator set on the assertion; report the first that fails."""
    ops = _operators(assertion)
    failing = [op for op in ops if not _apply(op, getattr(assertion, op), t)]
    op = failing[0] if failing else ops[0]
    actual = t.size if op == "count" else (t.value if t.has_value else None)
    return StateOutcome(target, kind, op, not failing, getattr(assertion, op), actual)


def check_path(assertion: StateAssertion, final_state: Mapping[str, object] | None) -> StateOutcome:
    """A dotted-path assertion against the run's final state (None: nothing was recorded)."""
    path = assertion.path or ""
    if final_state is None:
        op = _operators(assertion)[0]
        # exists:false / absent:true hold trivially on an empty world, but a run that recorded
        # no state cannot show anything: it is a mismatch with actual null.
        return StateOutcome(path, "path", op, False, getattr(assertion, op), None,
                            error="the run recorded no final_state")
    value = resolve_path(final_state, path)
    found = value is not MISSING
    target = _Target(
        value=value if found else None,
        found=found,
        has_value=found,
        size=_size(value) if found else None,
        member=lambda item: _contains(value, item),
    )
    return _judge_ops(assertion, path, "path", target)


def sqlite_file(
    assertion: StateAssertion, final_state: Mapping[str, object] | None, base_dir: Path
) -> Path:
    """Which database file an assertion reads.

    The run's own database (``final_state: {sqlite: path}``) wins, because each trial may leave its
    own copy; otherwise the file named by the assertion. Relative paths resolve against `base_dir`.
    """
    run_db = final_state.get("sqlite") if isinstance(final_state, dict) else None
    name = run_db if isinstance(run_db, str) and run_db else assertion.sqlite or ""
    path = Path(name)
    return path if path.is_absolute() else base_dir / path


def run_query(db: Path, query: str) -> list[list[Any]]:
    """Run a query on a database opened read-only; rows as lists."""
    uri = db.resolve().as_uri() + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True)
    try:
        return [list(row) for row in conn.execute(query).fetchall()]
    finally:
        conn.close()


def query_value(rows: list[list[Any]], expected: Any) -> Any:
    """Shape a query result for comparison.

    One row of one cell compares as a scalar; a one-column result compares as a flat list when the
    expected value is a flat list; otherwise the rows as lists.
    """
    if len(rows) == 1 and len(rows[0]) == 1:
        return rows[0][0]
    flat_expected = isinstance(expected, list) and not any(isinstance(x, list) for x in expected)
    if rows and all(len(r) == 1 for r in rows) and flat_expected:
        return [r[0] for r in rows]
    return rows


def check_sqlite(
    assertion: StateAssertion, final_state: Mapping[str, object] | None, base_dir: Path
) -> StateOutcome:
    """A query assertion against a real database file."""
    query = assertion.query or ""
    db = sqlite_file(assertion, final_state, base_dir)
    op = _operators(assertion)[0]
    if not db.is_file():
        return StateOutcome(query, "sqlite", op, False, getattr(assertion, op), None,
                            error=f"database not found: {db}")
    try:
        rows = run_query(db, query)
    except sqlite3.Error as exc:
        return StateOutcome(query, "sqlite", op, False, getattr(assertion, op), None,
                            error=f"query failed: {exc}")
    cells = [cell for row in rows for cell in row]
    # For a query, exists/absent ask whether any row came back, count is the number of rows and
    # contains looks among all cells; equals compares the shaped result (an empty one is []).
    target = _Target(
        value=query_value(rows, assertion.equals),
        found=bool(rows),
        has_value=True,
        size=len(rows),
        member=lambda item: any(same_value(c, item) for c in cells),
    )
    return _judge_ops(assertion, query, "sqlite", target)


def check_state(
    assertions: list[StateAssertion], final_state: Mapping[str, object] | None, base_dir: Path
) -> list[StateOutcome]:
    """Evaluate every assertion, in order."""
    out: list[StateOutcome] = []
    for a in assertions:
        is_db = a.sqlite is not None
        out.append(check_sqlite(a, final_state, base_dir) if is_db else check_path(a, final_state))
    return out
