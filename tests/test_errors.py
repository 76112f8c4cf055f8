"""One exception tree: every public exception class in src/toolgrade is a `ToolgradeError`, and
the tree errors.py's docstring draws is the classes' own hierarchy, class for class."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import toolgrade.errors
from toolgrade.errors import ToolgradeError

SRC = Path(toolgrade.errors.__file__).resolve().parent
#: Bases from outside toolgrade that make a class an exception.
_OUTSIDE = {"Exception", "ValueError", "LookupError", "AssertionError", "ConstructorError"}


def _exception_classes() -> dict[str, str]:
    """Every class in src/toolgrade derived (by name) from an exception: name -> module."""
    defined: list[tuple[str, list[str], str]] = []
    for path in sorted(SRC.rglob("*.py")):
        module = ".".join(("toolgrade", *path.relative_to(SRC).with_suffix("").parts))
        module = module.removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else ast.unparse(b) for b in node.bases]
                defined.append((node.name, bases, module))
    found: dict[str, str] = {}
    grew = True
    while grew:  # a class derived from one found so far is one too
        grew = False
        for name, bases, module in defined:
            if name not in found and any(b in _OUTSIDE or b in found for b in bases):
                found[name] = module
                grew = True
    return found


def _tree() -> list[tuple[int, str]]:
    """(depth, class name) for each line of the docstring's tree, in order."""
    doc = toolgrade.errors.__doc__ or ""
    rows = []
    for line in doc.splitlines():
        match = re.match(r"^ {4}((?:│   |    )*)(?:├── |└── )?([A-Z]\w+)\b", line)
        if match and (match.group(2) == "ToolgradeError" or "── " in line):
            rows.append((len(match.group(1)) // 4 + ("── " in line), match.group(2)))
    return rows


def test_every_public_exception_is_a_toolgrade_error() -> None:
    classes = _exception_classes()
    assert len(classes) >= 20  # the walk found them (a broken walk must not pass)
    for name, module in classes.items():
        if name.startswith("_"):
            continue  # a signal inside one module, never raised out of it
        cls = getattr(importlib.import_module(module), name)
        assert issubclass(cls, ToolgradeError), f"{module}.{name} is not a ToolgradeError"


def test_the_docstring_tree_is_the_class_hierarchy() -> None:
    classes = {n: m for n, m in _exception_classes().items() if not n.startswith("_")}
    rows = _tree()
    assert sorted(name for _, name in rows) == sorted(classes)
    parents: list[type] = []
    for depth, name in rows:
        cls = getattr(importlib.import_module(classes[name]), name)
        del parents[depth:]
        if parents:
            assert parents[-1] in cls.__bases__, f"{name} is drawn under {parents[-1].__name__}"
        parents.append(cls)


def test_a_second_base_keeps_old_catches_working() -> None:
    from toolgrade.jsonio.bounds import BoundsError

    try:
        raise BoundsError("too deep")
    except ValueError as exc:  # what callers caught before the tree
        assert isinstance(exc, ToolgradeError)
