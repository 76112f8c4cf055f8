"""The shape every signal extractor returns; its own module so the extractors and the package
that dispatches to them import it without importing each other."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Signals:
    """Named signal values (0/1 flags and small counts) and notes for the ones that fired."""

    values: dict[str, float]
    notes: list[str] = field(default_factory=list)


Extractor = Callable[[Mapping[str, Any]], Signals]
