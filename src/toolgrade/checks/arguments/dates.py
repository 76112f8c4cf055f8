"""Reading dates and time zones in the formats people and agents write them.

Used by the `date` comparator: same calendar date (or the same instant, with `tz`) whatever the
input format. Standard library only (no dateutil), so the formats accepted are listed here.
"""

from __future__ import annotations

import email.utils
import re
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# Day-first and month-first forms cannot both be read from "03/01/2024": slashes with the year
# last are read as US month/day, dots with the year last as day.month (European usage).
_DATE_FORMATS = (
    "%Y/%m/%d", "%m/%d/%Y", "%m/%d/%y", "%Y.%m.%d", "%d.%m.%Y",
    "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y",
    "%d %B %Y", "%d %b %Y", "%d %B, %Y", "%d %b, %Y",
    "%A, %B %d, %Y", "%a, %b %d, %Y", "%A %B %d %Y", "%a %b %d %Y",
    "%A, %d %B %Y", "%a, %d %b %Y",
)  # fmt: skip
_TIME_SUFFIXES = ("", " %H:%M", " %H:%M:%S", " %I:%M %p", " %I:%M:%S %p", " %I %p")
_ORDINAL = re.compile(r"(?<=\d)(st|nd|rd|th)\b", re.IGNORECASE)
_ABBREV_DOT = re.compile(r"\b([A-Za-z]{3,4})\.")
_UTC_SUFFIX = re.compile(r"\s*(UTC|GMT|Z)$", re.IGNORECASE)
_OFFSET = re.compile(r"^([+-])(\d{2}):?(\d{2})$")


def parse_date(value: Any) -> date | None:
    """A date or datetime read from common formats, or None when unrecognised.

    ISO 8601 (date, datetime, offsets, `Z`), RFC 2822, "March 1, 2024", "1 Mar 2024",
    "Friday, March 1, 2024", "2024/03/01", "03/01/2024" and "03/01/24" (US: month/day),
    "01.03.2024" (day.month), each optionally followed by a time ("10:30", "10:30:00",
    "2 PM", a trailing UTC/GMT). Ordinals ("1st") and abbreviation dots ("Mar.") are ignored.
    """
    if isinstance(value, date):
        return value
    if not isinstance(value, str):
        return None
    return _parse_date_text(" ".join(value.split()))


@lru_cache(maxsize=4096)
def _parse_date_text(text: str) -> date | None:
    iso = _parse_iso(text)
    if iso is not None:
        return iso
    utc = _UTC_SUFFIX.search(text) is not None
    cleaned = _ABBREV_DOT.sub(r"\1", _ORDINAL.sub("", _UTC_SUFFIX.sub("", text)))
    cleaned = cleaned.replace("Sept ", "Sep ")
    moment = _parse_iso(cleaned) or _parse_formats(cleaned)
    if moment is None:
        return _rfc2822(text)
    if utc and isinstance(moment, datetime) and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


def _parse_iso(text: str) -> date | None:
    for parse in (date.fromisoformat, datetime.fromisoformat):
        try:
            return parse(text)
        except ValueError:
            pass
    return None


def _parse_formats(text: str) -> date | None:
    for fmt in _DATE_FORMATS:
        for suffix in _TIME_SUFFIXES:
            if not _could_match(text, fmt + suffix):
                continue
            try:
                moment = datetime.strptime(text, fmt + suffix)
            except ValueError:
                continue
            return moment if suffix else moment.date()
    return None


#: Characters a format matches only as themselves: a text without one cannot match a format
#: that has it. Skipping those formats saves compiling their patterns (about a millisecond
#: each, on the first unusual date a process reads) and gives the same first match.
_LITERALS = "/.,:"
#: Directives that match only words (month and day names, AM/PM).
_WORD_DIRECTIVES = ("%B", "%b", "%A", "%a", "%p")
_LETTER = re.compile(r"[A-Za-z]")


@lru_cache(maxsize=256)
def _format_needs(fmt: str) -> tuple[str, bool]:
    """The literal characters a format needs, and whether it needs letters."""
    bare = re.sub(r"%.", "", fmt)
    return "".join(c for c in _LITERALS if c in bare), any(d in fmt for d in _WORD_DIRECTIVES)


def _could_match(text: str, fmt: str) -> bool:
    """False when `text` lacks something `fmt` cannot match without (strptime would fail)."""
    literals, words = _format_needs(fmt)
    if words and _LETTER.search(text) is None:
        return False
    return all(c in text for c in literals)


def _rfc2822(text: str) -> datetime | None:
    try:
        return email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None


def parse_tz(name: Any) -> tzinfo | None:
    """A time zone from an IANA name ("Europe/Paris"), "UTC"/"Z", or an offset ("+05:30")."""
    if not isinstance(name, str) or not name:
        return None
    if name.upper() in ("UTC", "Z", "GMT"):
        return UTC
    offset = _OFFSET.match(name)
    if offset:
        sign = -1 if offset.group(1) == "-" else 1
        hours, minutes = int(offset.group(2)), int(offset.group(3))
        if hours > 23 or minutes > 59:  # timezone() refuses offsets of a day or more
            return None
        return timezone(sign * timedelta(hours=hours, minutes=minutes))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def in_zone(moment: datetime, zone: tzinfo) -> datetime:
    """A naive datetime is read as local time in `zone`; an aware one is converted to it."""
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment.astimezone(zone)


def day_in(value: date, zone: tzinfo | None) -> date:
    """The calendar day of a date, or of a datetime seen in `zone` when one is given."""
    if not isinstance(value, datetime):
        return value
    return (in_zone(value, zone) if zone is not None else value).date()
