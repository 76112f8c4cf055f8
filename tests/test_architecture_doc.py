"""docs/architecture.md names modules and folders: each must exist, so the house plan cannot
drift from the house (a renamed or folded module fails here until the page follows)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "toolgrade"
PAGE = ROOT / "docs" / "architecture.md"

#: A backticked path (`judging/prompts.py`, `checks/`, `judging/cache*.py`), or a module path
#: with a name in it (`judging/defaults.configured`).
_PATH = re.compile(r"`([\w.*-]+(?:/[\w.*-]+)*(?:/|\.py)|[\w]+(?:/[\w]+)+\.[a-z_]+)`")


def _named() -> list[str]:
    return sorted(set(_PATH.findall(PAGE.read_text(encoding="utf-8"))))


def _exists(name: str) -> bool:
    if "/" not in name and name.endswith(".py"):  # a bare module name, in a list of one room
        return any(SRC.rglob(name))
    return any(any(base.glob(name.rstrip("/"))) for base in (SRC, ROOT))


def _is_attribute(name: str) -> bool:
    """`judging/defaults.configured`: a module of src/toolgrade and a name it defines."""
    file, _, attribute = name.rpartition(".")
    if not (SRC / f"{file}.py").exists():
        return False
    return hasattr(importlib.import_module("toolgrade." + file.replace("/", ".")), attribute)


def test_the_page_names_paths() -> None:
    assert len(_named()) >= 40  # the pattern still finds them (a broken one must not pass)


def test_every_module_and_folder_named_exists() -> None:
    missing = [name for name in _named() if not _exists(name) and not _is_attribute(name)]
    assert missing == []
