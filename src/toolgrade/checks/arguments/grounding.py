"""Grounding: argument values that come from nowhere (reference-free; docs/case-format.md).

An ID, email address or phone number the agent sends should be one it was given: by the case
input, a user (or system) message of the run, or an earlier tool result. One found in none of
them is a likely fabrication. The test needs no reference, so it runs on every run
(`figures.ungrounded` of the arguments check); a case or suite with `grounding` makes each such
value an `ungrounded_value` failure.

How values are recognised (string values, at any depth of the arguments):
- `email`: `local@domain.tld`;
- `phone`: an optional `+`, then digits with spaces, dots, dashes or brackets, 7 to 15 digits,
  starting with `+` or `(` or in three or more digit groups (`555-123-2002`); a bare run of
  digits is a number, and a date (2025-03-05) or a range (2023-2024) is no phone number;
- `id`: one token of 3 to 40 characters from letters, digits and `_-#:./`, with at least one
  letter and one digit (`A123`, `#W5442520`, `TRK-448812`); dates and times have no letter;
- `number` (only when the case lists it): an int or float argument, not a bool.
Free text (anything with a space that is no phone number) is never tested.

When a value counts as seen: its text, case-folded, occurs in the text of a source, each source
read as its string or, for structured content, its JSON; an ID's letters and digits occur in a
source's letters and digits (`SW1A1AA` for `SW1A 1AA`, `W5442520` for `#W5442520`); a phone
number's digits occur in a source's digits; a number occurs as a token (25.0 as `25`).
Sources are the case input, the tool catalogue the agent was given (descriptions and schemas:
an enum value or an example is seen there), every user, system or developer message before the
call, and the result of every call before it (a call issued in the same parallel group has not
been seen).
"""

from __future__ import annotations

import json
import json.encoder
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolgrade.checks.memo import IdentityMemo
from toolgrade.jsonio.leaves import leaves
from toolgrade.models import Case, Failure, Message, ToolCall, Trajectory
from toolgrade.models.figures import UngroundedValue

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
_PHONE = re.compile(r"\+?\(?[0-9][0-9 ().-]{5,}[0-9]")
#: Dates read like phone numbers (2025-03-05, 05.03.2025): never one.
_DATE = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}|[0-9]{1,2}[.-][0-9]{1,2}[.-][0-9]{2,4}")
_ID = re.compile(r"[A-Za-z0-9_#:./-]{3,40}")
_LETTER = re.compile(r"[A-Za-z]")
_DIGIT = re.compile(r"[0-9]")
_DIGIT_GROUP = re.compile(r"[0-9]+")
#: The kinds tested when no `grounding` says otherwise (the figure on every run).
DEFAULT_KINDS = ("id", "email", "phone")
#: Roles whose messages are given to the agent (an assistant message is its own words).
SOURCE_ROLES = frozenset({"user", "system", "developer"})


@dataclass(frozen=True)
class Ungrounded:
    """One argument value found in nothing the agent had seen."""

    step: int
    tool: str
    field: str
    value: Any
    kind: str

    def to_json(self) -> UngroundedValue:
        """`{step, tool, field, value, kind}`."""
        return {"step": self.step, "tool": self.tool, "field": self.field, "value": self.value,
                "kind": self.kind}

    def failure(self) -> Failure:
        """The `ungrounded_value` failure for this value."""
        return Failure(
            name="ungrounded_value",
            step=self.step,
            message=f"{self.tool}.{self.field}: {self.kind} {self.value!r} appears in no user "
            "message, earlier tool result or case input",
            evidence=dict(self.to_json()),
        )


def value_kind(value: Any, kinds: tuple[str, ...]) -> str | None:
    """The kind of an argument value among `kinds`, or None when it is not tested."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return "number" if "number" in kinds else None
    if not isinstance(value, str):
        return None
    key = (value, kinds)
    if key not in _KINDS_SEEN:
        if len(_KINDS_SEEN) >= _KINDS_LIMIT:
            _KINDS_SEEN.clear()
        _KINDS_SEEN[key] = _text_kind(value.strip(), kinds)
    return _KINDS_SEEN[key]


#: A string's kind, per (string, kinds): runs send the same IDs and words again and again, and
#: the three patterns cost more than the lookup. Bounded: past the limit it starts afresh.
_KINDS_SEEN: dict[tuple[str, tuple[str, ...]], str | None] = {}
_KINDS_LIMIT = 65536


def _text_kind(text: str, kinds: tuple[str, ...]) -> str | None:
    if "email" in kinds and _EMAIL.fullmatch(text):
        return "email"
    if "phone" in kinds and _is_phone(text):
        return "phone"
    if "id" in kinds and _ID.fullmatch(text) and _LETTER.search(text) and _DIGIT.search(text):
        return "id"
    return None


def _is_phone(text: str) -> bool:
    if not _PHONE.fullmatch(text) or _DATE.fullmatch(text):
        return False
    digits = len(_digits(text))
    groups = len(_DIGIT_GROUP.findall(text))
    # A `+`, brackets or three digit groups: "2023-2024" (a season) has two and is no number.
    return 7 <= digits <= 15 and (text.startswith(("+", "(")) or groups >= 3)


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every scalar in an arguments value, with its dotted path (`items[0].sku`); strings are
    kept as the agent wrote them (an ID inside a JSON string is still that string's text).
    The paths are `jsonio.leaves`'; the top level of an object, the usual arguments, is read
    here and only nested values go through the walker (their paths start at their key)."""
    if path or not (type(value) is dict or isinstance(value, Mapping)):
        for leaf in leaves(value, path=path):
            yield leaf.path, leaf.value
        return
    for k, item in value.items():
        name = k if type(k) is str else str(k)
        # A JSON scalar is told by its type: the abstract `Mapping` test costs more than the rest.
        if type(item) not in _SCALARS and isinstance(item, Mapping | list | tuple):
            for leaf in leaves(item, path=name):
                yield leaf.path, leaf.value
        else:
            yield name, item


_SCALARS = frozenset({str, int, float, bool, type(None)})
_STR = frozenset({str})


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return _encode(content)


#: `json.dumps(content, ensure_ascii=False, default=str)`, the text a structured source is read
#: as: a source read is most of what grounding costs. `JSONEncoder.encode` builds a new C
#: encoder on every call; this one is built once, with the arguments `encode` passes it, so the
#: text is the same (tests compare the two). None without the C accelerator.
_MARKERS: dict[int, Any] = {}
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)
_MAKE_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODE: Any = (
    None
    if _MAKE_ENCODER is None
    else _MAKE_ENCODER(
        _MARKERS, str, json.encoder.encode_basestring, None, ": ", ", ", False, False, True
    )
)


def _encode(content: Any) -> str:
    """`content` as JSON text, through the one C encoder when there is one and it is free."""
    if _C_ENCODE is None or _MARKERS:
        # Marks left: the encoder is busy (another thread, mid-callback) or was left broken.
        # `encode` builds its own, with fresh marks.
        return _ENCODER.encode(content)
    try:
        return "".join(_C_ENCODE(content, 0))
    except BaseException:
        # The encoder marks the containers it is inside of; an error leaves marks behind that
        # would read as a circular reference next time. `encode` starts from fresh marks.
        _MARKERS.clear()
        raise


class _Known:
    """A case's own sources (input and catalogue) as case-folded text, with its other forms
    built once per case, not once per run; what was looked up in them is remembered, since
    the runs of a case send the same IDs again and again."""

    #: Lookups remembered per case before the memo starts afresh (it only saves time).
    LIMIT = 4096

    def __init__(self, text: str) -> None:
        self.text = text
        self._forms: dict[str, str] = {}
        self._found: dict[tuple[str, str], bool] = {}

    def form(self, name: str, reduce: Callable[[str], str]) -> str:
        """The text reduced by `reduce` (letters and digits only; digits only)."""
        if name not in self._forms:
            self._forms[name] = reduce(self.text)
        return self._forms[name]

    def holds(
        self, needle: str, name: str = "", reduce: Callable[[str], str] | None = None
    ) -> bool:
        """Whether `needle` occurs in the text, or in its form `name` when `reduce` is given
        (`name` "number": `needle` is a number's text, found as a token)."""
        key = (name, needle)
        hit = self._found.get(key)
        if hit is None:
            if name == "number":
                hit = _shown_in(needle, self.text)
            else:
                hit = needle in (self.text if reduce is None else self.form(name, reduce))
            if len(self._found) >= self.LIMIT:
                self._found.clear()
            self._found[key] = hit
        return hit


@dataclass(frozen=True)
class _Probe:
    """What a value's test still asks of a run's sources, once the case's own did not hold it:
    it is grounded when one of `needles` (form, text) occurs in that form of the sources (form
    "number": the text is a number's, found as a token)."""

    kind: str
    needles: tuple[tuple[str, str], ...]


def _probe(known: _Known, value: Any, kind: str) -> _Probe | None:
    """The probe of a value of `kind`, or None when the case's own sources hold it (it is then
    grounded in every run): the rule of `_Seen.holds`, its case half decided here."""
    if kind == "number":
        shown = _shown(value)
        return None if known.holds(shown, "number") else _Probe(kind, (("number", shown),))
    text = str(value).strip().casefold()
    if kind == "phone":
        digits = _digits(text)
        held = known.holds(digits, "digits", _digits)
        return None if held else _Probe(kind, (("digits", digits),))
    if known.holds(text):
        return None
    if kind != "id":
        return _Probe(kind, (("", text),))
    # An ID written differently (`SW1A1AA` for `SW1A 1AA`, `W5442520` for `#W5442520`).
    squashed = _squash(text)
    if known.holds(squashed, "alnum", _squash):
        return None
    return _Probe(kind, (("", text), ("alnum", squashed)))


class _CaseGrounding:
    """Everything grounding derives from a case alone, made once per case: its own sources,
    the kinds tested and the exempt paths, and each string value's probe (runs of a case send
    the same IDs and words again and again)."""

    #: Probes remembered per case before the memo starts afresh (it only saves time).
    LIMIT = 4096

    def __init__(self, case: Case) -> None:
        grounding = case.grounding
        self.known = _fold_case_sources(case)
        self.kinds = tuple(grounding.kinds) if grounding is not None else DEFAULT_KINDS
        self.exempt = frozenset(grounding.exempt) if grounding is not None else frozenset()
        self._probes: dict[str, _Probe | None] = {}

    def probe(self, value: Any) -> _Probe | None:
        """The value's probe; None when it is not tested or the case's sources hold it."""
        if type(value) is not str:  # a number, or not tested; bools and 1 must stay apart
            kind = value_kind(value, self.kinds)
            return None if kind is None else _probe(self.known, value, kind)
        probes = self._probes
        if value in probes:
            return probes[value]
        kind = value_kind(value, self.kinds)
        made = None if kind is None else _probe(self.known, value, kind)
        if len(probes) >= self.LIMIT:
            probes.clear()
        probes[value] = made
        return made


class _Seen:
    """What the agent had seen so far. Contents are kept as given and turned into case-folded
    text only when a value is tested and not found in the case's own sources; the
    letters-and-digits and digits-only forms are built, once per source, only when an ID or a
    phone number is not found as written.

    Each form of the sources is searched as one text, the sources joined by line breaks, grown
    as sources come: a tested value holds no line break (emails, IDs and phone numbers have no
    whitespace, numbers are tokens and a line break is no digit or dot), so it occurs in the
    joined text exactly when it occurs in one of the sources.
    """

    def __init__(self, known: _Known) -> None:
        self._known = known
        self._raw: list[Any] = []
        self._folded: list[str] = []  # the folded text of `_raw`, up to where it was needed
        self._forms: dict[str, list[str]] = {}  # form -> that form of `_folded`, so far
        self._joined: dict[str, tuple[int, str]] = {}  # form -> (sources joined, their text)

    def add(self, content: Any) -> None:
        if content is not None:
            self._raw.append(content)

    def text(self, name: str) -> str:
        """The sources seen so far as one text, in form `name` ("" and "number": folded;
        "alnum" and "digits": `_squash` and `_digits` of each folded source)."""
        name = "" if name == "number" else name
        count = len(self._raw)
        hit = self._joined.get(name)
        if hit is not None and hit[0] == count:
            return hit[1]
        joined = "\n".join(self._formed(name) if name else self._folded_all())
        self._joined[name] = (count, joined)
        return joined

    def _folded_all(self) -> list[str]:
        """The folded text of every source, folding those not yet folded."""
        folded = self._folded
        if len(folded) < len(self._raw):
            folded.extend(_text(content).casefold() for content in self._raw[len(folded) :])
        return folded

    def _formed(self, name: str) -> list[str]:
        """Every source's folded text reduced to form `name`, reducing those not yet reduced."""
        folded = self._folded_all()
        parts = self._forms.setdefault(name, [])
        if len(parts) < len(folded):
            reduce = _squash if name == "alnum" else _digits
            parts.extend(reduce(part) for part in folded[len(parts) :])
        return parts

    def finds(self, probe: _Probe) -> bool:
        """Whether one of a probe's needles occurs in the sources seen so far."""
        for name, needle in probe.needles:
            text = self.text(name)
            if _shown_in(needle, text) if name == "number" else needle in text:
                return True
        return False

    def holds(self, value: Any, kind: str) -> bool:
        """Whether `value` (of `kind`) occurs in the case's sources or anything seen so far."""
        probe = _probe(self._known, value, kind)
        return probe is None or self.finds(probe)


def _squash(text: str) -> str:
    """Lowercase ASCII letters and digits only (what `[^0-9a-z]` removed leaves)."""
    return text.encode("ascii", "ignore").translate(None, _NOT_ALNUM).decode("ascii")


def _digits(text: str) -> str:
    """ASCII digits only (what `[^0-9]` removed leaves)."""
    return text.encode("ascii", "ignore").translate(None, _NOT_DIGIT).decode("ascii")


# The bytes `_squash` and `_digits` delete, after dropping every non-ASCII character: a byte
# translation is some fifteen times quicker than the regular expression on a source's text.
_NOT_ALNUM = bytes(b for b in range(128) if not (48 <= b <= 57 or 97 <= b <= 122))
_NOT_DIGIT = bytes(b for b in range(128) if not 48 <= b <= 57)


def _shown(value: float) -> str:
    """A number as the text it would be written as (25.0 as `25`)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _shown_in(shown: str, text: str) -> bool:
    """Whether a number's text occurs in `text` as a token, not inside a longer number."""
    return re.search(rf"(?<![0-9.]){re.escape(shown)}(?![0-9])", text) is not None


#: What grounding derives from each case, per case object: a case is graded once per run and
#: never changes.
_CASE_GROUNDING: IdentityMemo[Case, _CaseGrounding] = IdentityMemo()


def _case_sources(case: Case) -> _Known:
    """The input and the tool catalogue (descriptions and schemas), case-folded, once per case."""
    return _CASE_GROUNDING(case, _CaseGrounding).known


def _fold_case_sources(case: Case) -> _Known:
    parts = [m.get("content") for m in case.input_messages()]
    for spec in case.tools.values():
        parts += [spec.description, spec.parameters]
    return _Known("\n".join(_text(p).casefold() for p in parts if p is not None))


def ungrounded_values(case: Case, run: Trajectory) -> list[Ungrounded]:
    """Every tested argument value of the run's calls that nothing before it grounds."""
    grounding = _CASE_GROUNDING(case, _CaseGrounding)
    seen = _Seen(grounding.known)
    found: list[Ungrounded] = []
    pending: list[ToolCall] = []  # results of the current parallel group, not yet seen
    group: object = None
    for step, item in enumerate(run.steps):
        if isinstance(item, Message):
            if pending:
                _flush(seen, pending)
            if item.role in SOURCE_ROLES:
                seen.add(item.content)
            continue
        if pending and (item.group is None or item.group != group):
            _flush(seen, pending)
        group = item.group
        _test_call(grounding, seen, step, item, found)
        pending.append(item)
    return found


def _test_call(
    grounding: _CaseGrounding, seen: _Seen, step: int, call: ToolCall, found: list[Ungrounded]
) -> None:
    """Append to `found` each tested value of one call that nothing seen before it grounds."""
    exempt = grounding.exempt
    for path, value in _call_leaves(call.args):
        probe = grounding.probe(value)
        if probe is None or (exempt and f"{call.tool}.{path}" in exempt) or seen.finds(probe):
            continue
        found.append(Ungrounded(step, call.tool, path, value, probe.kind))


def _call_leaves(args: Any) -> Iterable[tuple[str, Any]]:
    """`_leaves(args, "")`. Arguments that are one object of scalars under string keys (the
    usual call) are their own leaves, path and value: the walk is only for anything nested."""
    flat = type(args) is dict and _SCALARS.issuperset(map(type, args.values()))
    return args.items() if flat and _STR.issuperset(map(type, args)) else _leaves(args, "")


def _flush(seen: _Seen, pending: list[ToolCall]) -> None:
    for call in pending:
        if call.result is not None:
            seen.add(call.result.content)
    pending.clear()
