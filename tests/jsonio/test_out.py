"""Output JSON text stays valid JSON whatever floats it holds."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolgrade.jsonio import out as json_out


def _strict_loads(text: str) -> Any:
    def refuse(token: str) -> Any:
        raise AssertionError(f"{token} is not JSON")

    return json.loads(text, parse_constant=refuse)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_output_text_always_parses_strictly(value: Any) -> None:
    _strict_loads(json_out.dumps(value))


@given(JSON_VALUES.filter(lambda v: "NaN" not in json.dumps(v) and "Infinity" not in json.dumps(v)))
def test_finite_values_are_written_exactly_as_json_writes_them(value: Any) -> None:
    assert json_out.dumps(value, ensure_ascii=False) == json.dumps(value, ensure_ascii=False)


def test_non_finite_floats_become_strings() -> None:
    text = json_out.dumps({"a": [math.inf, -math.inf, math.nan, 1.5], "b": (math.inf,)})
    assert _strict_loads(text) == {"a": ["Infinity", "-Infinity", "NaN", 1.5], "b": ["Infinity"]}
