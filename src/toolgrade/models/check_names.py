"""Which check names a result may carry: the four of the closed vocabulary, plus any check
added to the registry (`checks.registry.register`, which admits its name here).

Results and records name their check with `RegisteredCheck`: to mypy it is `CheckName`, so
code reading the four checks keeps its literal types; at run time any registered name passes,
and any other is refused as before.
"""

from __future__ import annotations

from typing import Annotated, Any, cast

from pydantic import PlainValidator
from pydantic_core import PydanticCustomError

from toolgrade.vocabulary import CHECK_NAMES, CheckName

#: Names of registered checks beyond the four, in registration order (`checks.registry` keeps
#: this in step; kept here too so that reports list the checks without importing any).
_ADMITTED: dict[str, None] = {}


def admit_check(name: str) -> None:
    """Accept `name` as a check's name from now on."""
    _ADMITTED[name] = None


def retire_check(name: str) -> None:
    """Stop accepting `name` (a registered check taken away again)."""
    _ADMITTED.pop(name, None)


def registered_names() -> tuple[CheckName, ...]:
    """Every registered check's name in report order: the four, then those added."""
    return (*CHECK_NAMES, *cast(tuple[CheckName, ...], tuple(_ADMITTED)))


def is_check_name(name: object) -> bool:
    """Whether `name` names a shipped or a registered check."""
    return name in CHECK_NAMES or name in _ADMITTED


def _check_name(value: Any) -> CheckName:
    if not isinstance(value, str) or not is_check_name(value):
        expected = ", ".join(repr(n) for n in registered_names())
        raise PydanticCustomError("check_name", "Input should be {expected}",
                                  {"expected": expected})
    return cast(CheckName, value)  # a registered check may be beyond the literal four


#: A check's name as results carry it (see the module's docstring).
RegisteredCheck = Annotated[CheckName, PlainValidator(_check_name)]
