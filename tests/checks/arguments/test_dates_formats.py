"""Skipping formats a text cannot match gives the same first match as trying them all."""

from __future__ import annotations

from datetime import date, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.checks.arguments import dates

_PIECES = st.sampled_from(
    ["March", "Mar", "1", "01", "2024", "24", ",", "/", ".", ":", " ", "10", "30", "PM", "Fri"]
)


def _every_format(text: str) -> date | None:
    """The former loop: every format and time suffix, in order, until one parses."""
    for fmt in dates._DATE_FORMATS:
        for suffix in dates._TIME_SUFFIXES:
            try:
                moment = datetime.strptime(text, fmt + suffix)
            except ValueError:
                continue
            return moment if suffix else moment.date()
    return None


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=7).map("".join))
def test_same_first_match_as_every_format(text: str) -> None:
    assert dates._parse_formats(text) == _every_format(text)


def test_named_forms_still_parse() -> None:
    for text in ("March 1, 2024", "Fri, Mar 1, 2024", "03/01/2024 2 PM", "01.03.2024 10:30"):
        assert dates._parse_formats(text) == _every_format(text) is not None
