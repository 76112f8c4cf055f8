"""One named failure as results record it (`models.results.Failure.to_json`).

The figure modules keep their annotations evaluated (no `from __future__ import annotations`):
`NotRequired` is then seen at run time, in `__required_keys__` and by pydantic.
"""

from typing import NotRequired

from typing_extensions import TypedDict

from toolgrade.vocabulary import FailureName


class FailureRecord(TypedDict):
    """`{name, step, message}`; the failure's evidence keys sit beside them, each failure
    with its own. Those read by name elsewhere (the run view's expected and actual) are
    listed, as `object`: evidence is whatever the check found, so check a value's type."""

    name: FailureName
    step: int | None
    message: str
    expected: NotRequired[object]
    actual: NotRequired[object]
    value: NotRequired[object]
    constraint: NotRequired[object]
    limit: NotRequired[object]
