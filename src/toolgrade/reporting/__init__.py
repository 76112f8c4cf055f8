"""Outputs people and pipelines read: terminal scorecard, Markdown, HTML and JUnit reports.

The names below are imported on first use (PEP 562): `toolgrade show` and `adjudicate` read
results through `reporting.digest` and need no HTML template engine (jinja2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolgrade.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolgrade.reporting.console import print_scorecard
    from toolgrade.reporting.files import ReportStream, write_reports

_WHERE = {
    "print_scorecard": "toolgrade.reporting.console",
    "ReportStream": "toolgrade.reporting.files",
    "write_reports": "toolgrade.reporting.files",
}

__getattr__ = lazy_attributes(__name__, _WHERE)

__all__ = ["ReportStream", "print_scorecard", "write_reports"]
