"""Reading suites and runs from disk, with every problem located as file:line: field."""

from toolgrade.loaders.runs import iter_runs, load_runs, run_files
from toolgrade.loaders.suite import Suite, load_suite

__all__ = ["Suite", "iter_runs", "load_runs", "load_suite", "run_files"]
