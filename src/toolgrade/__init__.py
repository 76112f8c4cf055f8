"""toolgrade."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """`toolgrade.__version__`, read from the installed package's metadata on first use (the
    metadata lookup stays out of every import of toolgrade)."""
    if name == "__version__":
        from importlib.metadata import version

        return version("toolgrade")
    raise AttributeError(f"module 'toolgrade' has no attribute {name!r}")
