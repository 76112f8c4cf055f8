"""Package attributes imported on first use (PEP 562), for packages whose `__init__` would
otherwise import every submodule: a command pays only for the modules it uses."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package` that imports each public name from the module
    `where` gives for it the first time it is asked for."""

    def attribute(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return attribute
