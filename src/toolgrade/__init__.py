"""toolgrade: score an AI agent's tool calls against a structured reference.

The public Python API is `__all__` (docs/contract.md, "The Python API"); anything else may
change between versions. Each name is imported on first use (PEP 562), so `import toolgrade`
(and every command line start, which imports it) pays for none of them: this module imports
only `importlib`, which the interpreter has loaded already (not even `typing`).
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads it the same)
if TYPE_CHECKING:
    from typing import Any

    from toolgrade.errors import (
        ConfigError,
        EmptyInputError,
        InputError,
        InputProblem,
        ProviderAuthError,
        ToolgradeError,
    )
    from toolgrade.harness import FaultInjector, ToolFault
    from toolgrade.judging import build_judge
    from toolgrade.loaders import Suite, load_runs, load_suite
    from toolgrade.models import Case, JudgeRequest, Trajectory, Verdict
    from toolgrade.models.summary import RunSummary
    from toolgrade.scoring.engines import LocalProcesses, Serial
    from toolgrade.scoring.ray_engine import RayEngine
    from toolgrade.scoring.runner import grade, validate_inputs
    from toolgrade.settings import JudgeSettings, Settings, load_settings

_WHERE = {
    # grading
    "validate_inputs": "toolgrade.scoring.runner",
    "grade": "toolgrade.scoring.runner",
    "Serial": "toolgrade.scoring.engines",
    "LocalProcesses": "toolgrade.scoring.engines",
    "RayEngine": "toolgrade.scoring.ray_engine",
    # inputs and outputs
    "load_suite": "toolgrade.loaders",
    "load_runs": "toolgrade.loaders",
    "Suite": "toolgrade.loaders",
    "Case": "toolgrade.models",
    "Trajectory": "toolgrade.models",
    "RunSummary": "toolgrade.models.summary",
    # settings and judges
    "Settings": "toolgrade.settings",
    "JudgeSettings": "toolgrade.settings",
    "load_settings": "toolgrade.settings",
    "build_judge": "toolgrade.judging",
    "JudgeRequest": "toolgrade.models",
    "Verdict": "toolgrade.models",
    # fault injection in an agent's tools
    "FaultInjector": "toolgrade.harness",
    "ToolFault": "toolgrade.harness",
    # errors (the tree: toolgrade.errors)
    "ToolgradeError": "toolgrade.errors",
    "InputError": "toolgrade.errors",
    "InputProblem": "toolgrade.errors",
    "EmptyInputError": "toolgrade.errors",
    "ConfigError": "toolgrade.errors",
    "ProviderAuthError": "toolgrade.errors",
}



def __getattr__(name: str) -> Any:
    """A public name, imported on first use; `__version__` is read from the installed
    package's metadata (the lookup stays out of every import of toolgrade)."""
    if name == "__version__":
        from importlib.metadata import version

        return version("toolgrade")
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'toolgrade' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Case",
    "ConfigError",
    "EmptyInputError",
    "FaultInjector",
    "InputError",
    "InputProblem",
    "JudgeRequest",
    "JudgeSettings",
    "LocalProcesses",
    "ProviderAuthError",
    "RayEngine",
    "RunSummary",
    "Serial",
    "Settings",
    "Suite",
    "ToolFault",
    "ToolgradeError",
    "Trajectory",
    "Verdict",
    "__version__",
    "build_judge",
    "grade",
    "load_runs",
    "load_settings",
    "load_suite",
    "validate_inputs",
]
