"""Outputs people and pipelines read: terminal scorecard, Markdown, HTML and JUnit reports."""

from toolgrade.reporting.console import print_scorecard
from toolgrade.reporting.files import ReportStream, write_reports

__all__ = ["ReportStream", "print_scorecard", "write_reports"]
