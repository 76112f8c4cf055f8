"""jsonschema, imported without building the IRI grammar at start-up.

`jsonschema[format-nongpl]` registers its `iri` and `iri-reference` format checkers by importing
`rfc3987_syntax`, which compiles a Lark grammar at import: about 4 seconds of CPU before any
toolgrade command could print a line, whether or not a schema ever says `format: iri`. Here
jsonschema is imported with that one module hidden, and the two checkers are registered again
as thin functions that import `rfc3987_syntax` the first time an IRI is actually checked: the
same verdicts, paid for only by the suites that use those formats.

Every toolgrade module that needs jsonschema imports its names from here, so this import is the
first one in the process. When jsonschema was already imported (by the user, or by another
library), its checkers are left exactly as they are.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable


def _import_jsonschema() -> None:
    """Import jsonschema, deferring the IRI grammar when rfc3987_syntax would supply it."""
    if "jsonschema" in sys.modules:
        return
    # jsonschema prefers the `rfc3987` package when installed; only rfc3987_syntax is slow.
    defer = (
        "rfc3987_syntax" not in sys.modules
        and importlib.util.find_spec("rfc3987") is None
        and importlib.util.find_spec("rfc3987_syntax") is not None
    )
    if not defer:
        importlib.import_module("jsonschema")
        return
    # A None entry makes `import rfc3987_syntax` raise ImportError, which jsonschema treats as
    # "not installed" and skips; the entry is removed at once so a later import finds the module.
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]
    try:
        importlib.import_module("jsonschema")
    finally:
        del sys.modules["rfc3987_syntax"]
    _register_deferred_iri_checkers()


def _deferred_iri_check(term: str) -> Callable[[object], bool]:
    """A format check for one RFC 3987 term that loads the grammar on its first string."""

    def check(instance: object) -> bool:
        if not isinstance(instance, str):
            return True  # as jsonschema's own checker: formats only constrain strings
        from rfc3987_syntax import is_valid_syntax  # type: ignore[import-untyped]

        return bool(is_valid_syntax(term, instance))

    check.__name__ = f"is_{term}"
    return check


def _register_deferred_iri_checkers() -> None:
    """Register `iri` and `iri-reference` on the drafts jsonschema registers them on."""
    from jsonschema import Draft7Validator, Draft201909Validator, Draft202012Validator

    for term, name in (("iri", "iri"), ("iri_reference", "iri-reference")):
        check = _deferred_iri_check(term)
        for validator in (Draft7Validator, Draft201909Validator, Draft202012Validator):
            validator.FORMAT_CHECKER.checks(name, raises=ValueError)(check)


_import_jsonschema()

# Imported after the guarded import above, which must come first.
from jsonschema import Draft202012Validator  # noqa: E402
from jsonschema.exceptions import SchemaError, ValidationError, best_match  # noqa: E402

__all__ = ["Draft202012Validator", "SchemaError", "ValidationError", "best_match"]
