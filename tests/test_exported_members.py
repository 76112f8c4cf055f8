"""`toolgrade.__all__` is exactly the API docs/contract.md lists, and every name in it resolves
(as httpx's tests/test_exported_members.py holds its own)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import toolgrade

CONTRACT = Path(__file__).resolve().parents[1] / "docs" / "contract.md"


def _documented() -> list[str]:
    text = CONTRACT.read_text(encoding="utf-8")
    match = re.search(r"<!-- contract:api -->\n(.*?)<!-- /contract:api -->", text, re.S)
    assert match, "docs/contract.md has no contract:api block"
    return re.findall(r"`([A-Za-z_]+)`", match.group(1))


def test_the_exported_names_are_exactly_the_documented_ones() -> None:
    documented = _documented()
    assert len(documented) == len(set(documented)), "a name is listed twice"
    assert sorted(toolgrade.__all__) == sorted(documented)


def test_every_exported_name_resolves_and_is_listed_by_dir() -> None:
    for name in toolgrade.__all__:
        assert getattr(toolgrade, name) is not None, name
    assert set(toolgrade.__all__) <= set(dir(toolgrade))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = toolgrade.no_such_name


def test_importing_toolgrade_imports_none_of_the_exported_modules() -> None:
    # Start-up time: the command line imports toolgrade first (benchmarks/bench_startup.py).
    code = ("import sys, toolgrade; "
            "print(sorted(m for m in sys.modules if m.startswith('toolgrade')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['toolgrade']"
