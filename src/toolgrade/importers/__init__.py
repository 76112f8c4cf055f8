"""Importers: public benchmarks' references and model outputs as toolgrade suites and runs."""

from toolgrade.importers.bfcl import import_bfcl
from toolgrade.importers.common import RUNS_FILE, SUITE_FILE, ImportSummary
from toolgrade.importers.tau2 import import_tau2
from toolgrade.importers.tau_bench import import_tau_bench

__all__ = [
    "RUNS_FILE",
    "SUITE_FILE",
    "ImportSummary",
    "import_bfcl",
    "import_tau2",
    "import_tau_bench",
]
