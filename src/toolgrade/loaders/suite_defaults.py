"""Suite-wide defaults: keys a suite sets once instead of on every case.

A YAML suite writes them at the top (`defaults: {selection: {allow_reads: true}}`); a JSONL
suite writes them as its first line (`{"defaults": {...}}`), for the cases of that file. Today
the free-call keys of `expected.selection` (`allowed`, `allow_reads`, `allow_failed`) and the
case keys `grounding` and `text_calls` can be defaulted. A selection default fills a key a
case leaves out, only in cases that have an `expected.selection` (it never makes the check
applicable) and not in `no_tool: true` cases (which allow no call at all); `grounding` and
`text_calls` are filled into every case without its own. A case's own value wins whole (an
own `allowed` list replaces the default list, an own `grounding` the default one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, StrictBool, ValidationError

from toolgrade.errors import InputProblem
from toolgrade.loaders.locate import Path_, problems_from_validation
from toolgrade.models.case import GroundingExpectation, StrictModel

#: The key that holds the defaults, at the top of a YAML suite or alone on a JSONL line.
DEFAULTS_KEY = "defaults"


class SelectionDefaults(StrictModel):
    """The selection keys a suite may default: the free calls."""

    allowed: list[str] | None = Field(
        default=None, description="Default `expected.selection.allowed` of every case."
    )
    allow_reads: StrictBool | None = Field(
        default=None, description="Default `expected.selection.allow_reads` of every case."
    )
    allow_failed: StrictBool | None = Field(
        default=None, description="Default `expected.selection.allow_failed` of every case."
    )


class SuiteDefaults(StrictModel):
    """Defaults merged into every case of a suite file (a case's own keys win)."""

    selection: SelectionDefaults | None = None
    grounding: GroundingExpectation | None = Field(
        default=None, description="Default `grounding` of every case without its own."
    )
    text_calls: StrictBool | None = Field(
        default=None, description="Default `text_calls` of every case without its own."
    )

    def is_empty(self) -> bool:
        """True when nothing would be merged."""
        no_selection = self.selection is None or not self.selection.model_fields_set
        return no_selection and self.grounding is None and self.text_calls is None


NO_DEFAULTS = SuiteDefaults()


def read_defaults(
    value: Any, file: str, lines: Mapping[Path_, int], line: int | None, prefix: Path_ = ()
) -> tuple[SuiteDefaults, list[InputProblem]]:
    """Validate a `defaults` mapping; problems name the file, line and key."""
    try:
        return SuiteDefaults.model_validate(value), []
    except ValidationError as exc:
        found = problems_from_validation(
            exc, data=value, file=file, prefix=prefix, lines=lines, default_line=line
        )
        return NO_DEFAULTS, found


def apply_defaults(case: Any, defaults: SuiteDefaults) -> Any:
    """The case mapping with the defaults filled in where it leaves them out."""
    if not isinstance(case, dict):
        return case
    if defaults.grounding is not None and "grounding" not in case:
        case = {**case, "grounding": defaults.grounding.model_dump(exclude_unset=True)}
    if defaults.text_calls is not None and "text_calls" not in case:
        case = {**case, "text_calls": defaults.text_calls}
    return _apply_selection_defaults(case, defaults)


def _apply_selection_defaults(case: dict[str, Any], defaults: SuiteDefaults) -> Any:
    """The case mapping with the selection defaults filled in where it has a selection."""
    if defaults.selection is None:
        return case
    expected = case.get("expected")
    selection = expected.get("selection") if isinstance(expected, dict) else None
    if not isinstance(selection, dict) or selection.get("no_tool") is True:
        return case
    filled = {
        key: getattr(defaults.selection, key)
        for key in sorted(defaults.selection.model_fields_set)
        if key not in selection
    }
    if not filled:
        return case
    assert isinstance(expected, dict)  # narrowed above: selection came from it
    return {**case, "expected": {**expected, "selection": {**selection, **filled}}}


def is_defaults_line(value: Any) -> bool:
    """Whether a JSONL suite line holds the file's defaults rather than a case."""
    return isinstance(value, dict) and DEFAULTS_KEY in value and "id" not in value


def _catalogue(case: Any) -> dict[str, Any]:
    tools = case.get("tools") if isinstance(case, dict) else None
    return tools if isinstance(tools, dict) else {}


def own_allowed_outside_catalogue(case: Any) -> list[tuple[int, str]]:
    """(index, name) of each tool a case's own `allowed` names that its non-empty catalogue
    lacks: a typo there would free nothing, silently. Read before defaults are filled in, since
    a suite-wide default may rightly name a tool only some cases have."""
    expected = case.get("expected") if isinstance(case, dict) else None
    selection = expected.get("selection") if isinstance(expected, dict) else None
    allowed = selection.get("allowed") if isinstance(selection, dict) else None
    tools = _catalogue(case)
    if not tools or not isinstance(allowed, list):
        return []
    return [(i, name) for i, name in enumerate(allowed)
            if isinstance(name, str) and name not in tools]


def default_allowed_in_no_catalogue(defaults: SuiteDefaults, cases: list[Any]) -> list[str]:
    """The default `allowed` names that no case of the file has in its catalogue (when some
    case has one): such a default frees nothing anywhere, so it is a typo."""
    allowed = defaults.selection.allowed if defaults.selection is not None else None
    catalogues = [_catalogue(case) for case in cases]
    if not allowed or not any(catalogues):
        return []
    return [name for name in allowed if not any(name in tools for tools in catalogues)]


def outside_catalogue_reason(tool: str, where: str) -> str:
    """Why a free tool missing from the catalogue is refused."""
    return (f"{tool!r} is not in {where}, so allowing it frees nothing (a call of it fails as "
            "unknown_tool); add it to `tools` or fix the name")
