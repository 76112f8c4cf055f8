"""The check registry: every check a grading runs is one entry here, in report order.

Summary, reports (report.md/html, the terminal), junit.xml, the pytest plugin, gates and
`toolgrade schema --results` iterate `entries()` instead of naming the checks, so a check is
its module plus one `CheckEntry` (docs/architecture.md, "How to add a check"). `register` adds
an entry (a plugin's check, a test's toy one) and `unregister` takes it away again.

An entry builds its check lazily (`build`): reading the names costs no check's import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, get_args

from toolgrade.models.check_names import admit_check, retire_check
from toolgrade.models.figures import Stage
from toolgrade.models.result_line import (
    ArgumentsLine,
    CheckLine,
    OrderingLine,
    RecoveryLine,
    SelectionLine,
)
from toolgrade.vocabulary import CHECK_NAMES, CheckName

if TYPE_CHECKING:
    from toolgrade.checks.base import Check
    from toolgrade.models import TrajectoryResult


class AgentFigures(Protocol):
    """Extra figures of a check's block under `summary.agents.<agent>.checks`, folded per agent
    (`arguments.given_selection`)."""

    def add(self, record: TrajectoryResult) -> None:
        """Take one graded run of the agent."""
        ...

    def merge(self, other: Any) -> None:
        """Take another's figures (of the same kind), fed the runs after this one's."""
        ...

    def to_json(self) -> object:
        """The figures as written."""
        ...


@dataclass(frozen=True)
class CheckEntry:
    """One check as the rest of toolgrade knows it.

    `gate_figures`: the summary figures of its block a gate may name (`*` stands for any key:
    a tool, a field, a k); `gate_counts`: those of them that are mappings of counts, not rates
    (a key missing from a present mapping counts 0), with the keys they may take. `per_kind`:
    its block carries pass rates per hard-case kind; `pass_k`: the suite's pass@k and pass^k.
    `agent_figures`: extra figures per agent, under `agent_key`. `line_model`: its block of a
    results line, for `schema --results`.
    """

    name: CheckName
    build: Callable[[], Check]
    gate_figures: frozenset[str] = frozenset({"pass_rate"})
    gate_counts: Mapping[str, frozenset[str]] = field(default_factory=dict)
    line_model: type[CheckLine] = CheckLine
    per_kind: bool = False
    pass_k: bool = False
    agent_figures: Callable[[], AgentFigures] | None = field(default=None, compare=False)
    agent_key: str = ""


def _selection() -> Check:
    from toolgrade.checks.selection import SelectionCheck

    return SelectionCheck()


def _arguments() -> Check:
    from toolgrade.checks.arguments import ArgumentsCheck

    return ArgumentsCheck()


def _ordering() -> Check:
    from toolgrade.checks.ordering import OrderingCheck

    return OrderingCheck()


def _recovery() -> Check:
    from toolgrade.checks.recovery import RecoveryCheck

    return RecoveryCheck()


def _given_selection() -> AgentFigures:
    from toolgrade.checks.arguments.figures import GivenSelection

    return GivenSelection()


_SHIPPED = (
    CheckEntry("selection", _selection, line_model=SelectionLine, per_kind=True, gate_figures=
               frozenset({"precision", "recall", "f1", "pass_rate", "per_tool.*.precision",
                          "per_tool.*.recall", "per_tool.*.f1", "per_kind.*.pass_rate"})),
    CheckEntry("arguments", _arguments, line_model=ArgumentsLine, per_kind=True,
               agent_figures=_given_selection, agent_key="given_selection", gate_figures=
               frozenset({"pass_rate", "exact_rate", "field_accuracy", "per_field.*.accuracy",
                          "field_precision", "field_recall", "field_f1",
                          "per_field.*.precision", "per_field.*.recall", "per_field.*.f1",
                          "given_selection.pass_rate", "given_selection.exact_rate",
                          "given_selection.field_accuracy", "per_kind.*.pass_rate"})),
    CheckEntry("ordering", _ordering, line_model=OrderingLine,
               gate_figures=frozenset({"pass_rate", "efficiency.*"})),
    CheckEntry("recovery", _recovery, line_model=RecoveryLine, pass_k=True, gate_figures=
               frozenset({"pass_rate", "state_pass_rate", "pass_at_k.*", "pass_hat_k.*",
                          "stages.*"}), gate_counts={"stages": frozenset(get_args(Stage))}),
)
_REGISTRY: dict[str, CheckEntry] = {entry.name: entry for entry in _SHIPPED}


def entries() -> tuple[CheckEntry, ...]:
    """Every registered check, in report order (the four shipped first)."""
    return tuple(_REGISTRY.values())


def names() -> tuple[CheckName, ...]:
    """The registered checks' names, in report order (as `models.check_names.registered_names`
    gives them without importing any check)."""
    return tuple(entry.name for entry in _REGISTRY.values())


def entry(name: str) -> CheckEntry | None:
    """The entry of the check `name`, or None when no such check is registered."""
    return _REGISTRY.get(name)


def register(new: CheckEntry) -> None:
    """Add a check after the registered ones (its results and summary blocks are accepted
    from now on); a name already registered is refused (ValueError)."""
    if new.name in _REGISTRY:
        raise ValueError(f"a check named {new.name!r} is registered already")
    admit_check(new.name)
    _REGISTRY[new.name] = new


def unregister(name: str) -> None:
    """Take a registered check away again; the four shipped checks stay (ValueError)."""
    if name in CHECK_NAMES:
        raise ValueError(f"{name!r} is one of the shipped checks")
    if _REGISTRY.pop(name, None) is not None:
        retire_check(name)


@contextmanager
def registered(new: CheckEntry) -> Iterator[CheckEntry]:
    """`new` registered for the `with` block only."""
    register(new)
    try:
        yield new
    finally:
        unregister(new.name)
