"""Reading suites and runs from disk, with every problem located as file:line: field.

The names below are imported on first use (PEP 562): reading runs or transcripts
(`toolgrade show`) needs neither the suite loader nor the checks and jsonschema it imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolgrade.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolgrade.loaders.runs import iter_runs, load_runs, run_files
    from toolgrade.loaders.suite import Suite, load_suite

_WHERE = {
    "iter_runs": "toolgrade.loaders.runs",
    "load_runs": "toolgrade.loaders.runs",
    "run_files": "toolgrade.loaders.runs",
    "Suite": "toolgrade.loaders.suite",
    "load_suite": "toolgrade.loaders.suite",
}

__getattr__ = lazy_attributes(__name__, _WHERE)

__all__ = ["Suite", "iter_runs", "load_runs", "load_suite", "run_files"]
