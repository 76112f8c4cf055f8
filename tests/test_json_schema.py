"""jsonschema imported with the IRI grammar deferred: same format checkers, same verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

#: (format, value): valid and invalid IRIs and IRI references, non-ASCII included.
SAMPLES = [
    ("iri", "https://example.com/caf\u00e9?q=1#top"),
    ("iri", "http://exa mple.com/"),
    ("iri", "no-scheme/path"),
    ("iri", 42),
    ("iri-reference", "../a/b?c"),
    ("iri-reference", "http://[::1"),
]

_REPORT = """
import json, sys
from jsonschema import Draft7Validator, Draft201909Validator, Draft202012Validator
drafts = (Draft7Validator, Draft201909Validator, Draft202012Validator)
formats = [sorted(d.FORMAT_CHECKER.checkers) for d in drafts]
grammar_at_start = "rfc3987_syntax" in sys.modules
samples = json.loads(sys.argv[1])
verdicts = [Draft202012Validator.FORMAT_CHECKER.conforms(v, f) for f, v in samples]
print(json.dumps({"formats": formats, "grammar_at_start": grammar_at_start,
                  "verdicts": verdicts}))
"""


def _report(first_import: str) -> dict[str, Any]:
    """Formats, whether the grammar was built before any check, and the sample verdicts, in a
    fresh interpreter that imports `first_import` before anything else."""
    code = f"import {first_import}\n{_REPORT}"
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(SAMPLES)], capture_output=True, text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_iri_formats_are_checked_as_jsonschema_checks_them_but_built_on_first_use() -> None:
    plain = _report("jsonschema")
    ours = _report("toolgrade.json_schema")
    assert plain["grammar_at_start"] is True  # what start-up used to pay
    assert ours["grammar_at_start"] is False
    assert ours["formats"] == plain["formats"]
    assert ours["verdicts"] == plain["verdicts"]
    assert ours["verdicts"] == [True, False, False, True, True, False]
