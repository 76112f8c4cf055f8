"""Suite figures of the arguments check: `summary.checks.arguments` (docs/case-format.md, Outputs).

Read from each graded record's `figures.calls`, one trajectory at a time; memory is bounded by
the number of distinct `tool.field` names.

- Rates over every run: `pass_rate`, `exact_rate` (paired calls all of whose fields match),
  `field_accuracy` (micro, over the reference fields of paired and unpaired reference calls).
- `given_selection`: the same rates over only the runs whose selection check passed. A run that
  called the wrong tool could never match its arguments, so the plain figures drop for a
  selection reason; these say how well the agent filled the calls it chose rightly.
- `per_field["tool.field"]`: `n` and `accuracy` over the reference's fields, and field-level
  precision, recall and F1 (`field_prf` below), so one enum field that fails constantly stands
  out while the rest of the schema is fine. `field_precision`, `field_recall` and `field_f1`
  pool them.
- `ungrounded`: `{values, runs}`, argument values that came from nowhere (grounding.py),
  counted over every run, with or without a reference.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypedDict

from toolgrade.checks.base import PassRateAccumulator, PassRateBlock, pass_rate
from toolgrade.models import Case, CheckResult, Trajectory, TrajectoryResult
from toolgrade.models.figures import CallEntry, FieldStatus, figures_of


class FieldRates(TypedDict):
    """Field-level precision, recall and F1 (None where nothing was counted)."""

    precision: float | None
    recall: float | None
    f1: float | None


class FieldBlock(FieldRates):
    """One `per_field["tool.field"]` cell: `{n, accuracy, precision, recall, f1}`."""

    n: int
    accuracy: float | None


class RatesBlock(TypedDict):
    """`{n, pass_rate, exact_rate, field_accuracy}` over `n` runs."""

    n: int
    pass_rate: float | None
    exact_rate: float | None
    field_accuracy: float | None


class UngroundedCounts(TypedDict):
    """Ungrounded argument values, and the runs with any."""

    values: int
    runs: int


class ArgumentsBlock(PassRateBlock):
    """`summary.checks.arguments`."""

    exact_rate: float | None
    field_accuracy: float | None
    invalid: int
    wrong: int
    unscored: int
    per_field: dict[str, FieldBlock]
    field_precision: float | None
    field_recall: float | None
    field_f1: float | None
    given_selection: RatesBlock
    ungrounded: UngroundedCounts


@dataclass
class FieldCounts:
    """Field-level counts of one `tool.field` (or pooled).

    `n`/`matches` count the reference's scored fields (accuracy). For precision and recall, a
    matching field is a true positive; a wrong value is a false positive and a false negative
    (it lowers both); an expected field left out is a false negative; a field the agent sent
    that the reference does not name (hallucinated or merely extra) is a false positive.
    """

    n: int = 0
    matches: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add_status(self, status: FieldStatus) -> None:
        """Count one compared reference field (`unscored` is left out)."""
        if status == "unscored":
            return
        self.n += 1
        self.matches += status == "match"
        self.tp += status == "match"
        self.fp += status == "wrong"
        self.fn += status in ("wrong", "missing")

    def merge(self, other: FieldCounts) -> None:
        """Add another field's counts to these (pooling)."""
        self.n += other.n
        self.matches += other.matches
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn

    def to_json(self) -> FieldBlock:
        """`{n, accuracy, precision, recall, f1}`; a figure with no denominator is None."""
        return {"n": self.n, "accuracy": pass_rate(self.matches, self.n), **field_prf(self)}


def field_prf(counts: FieldCounts) -> FieldRates:
    """Precision, recall and F1 from the counts; None where nothing was counted."""
    precision = pass_rate(counts.tp, counts.tp + counts.fp)
    recall = pass_rate(counts.tp, counts.tp + counts.fn)
    if precision is None or recall is None:
        f1 = None
    else:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def reference_calls(result: CheckResult) -> Iterable[CallEntry]:
    """The entries of `figures.calls` that stand for a reference call (paired or unpaired)."""
    calls = figures_of(result, "arguments").get("calls", [])
    return (c for c in calls if c["ref_index"] is not None)


class RateTally:
    """Pass rate, exact rate and micro field accuracy over the runs it is given."""

    def __init__(self) -> None:
        self.runs = self.passed = self.graded = self.exact = 0
        self.fields = FieldCounts()

    def add(self, result: CheckResult) -> None:
        """Count one applicable arguments result."""
        self.runs += 1
        self.passed += bool(result.passed)
        for call in reference_calls(result):
            if call["step"] is not None:
                self.graded += 1
                self.exact += bool(call["exact"])
            for status in call["fields"].values():
                self.fields.add_status(status)

    def merge(self, other: RateTally) -> None:
        """Add another tally's counts."""
        self.runs += other.runs
        self.passed += other.passed
        self.graded += other.graded
        self.exact += other.exact
        self.fields.merge(other.fields)

    def to_json(self) -> RatesBlock:
        """`{n, pass_rate, exact_rate, field_accuracy}`: `n` runs."""
        return {
            "n": self.runs,
            "pass_rate": pass_rate(self.passed, self.runs),
            "exact_rate": pass_rate(self.exact, self.graded),
            "field_accuracy": pass_rate(self.fields.matches, self.fields.n),
        }


def selection_passed(record: TrajectoryResult) -> bool:
    """Whether the record's selection check applied and passed."""
    selection = record.checks.get("selection")
    return selection is not None and selection.applicable and selection.passed is True


class GivenSelection:
    """`arguments.given_selection`: the arguments rates over runs whose selection passed."""

    def __init__(self) -> None:
        self.tally = RateTally()

    def add(self, record: TrajectoryResult) -> None:
        """Count the record when both its arguments applied and its selection passed."""
        result = record.checks.get("arguments")
        if result is not None and result.applicable and selection_passed(record):
            self.tally.add(result)

    def merge(self, other: GivenSelection) -> None:
        """Add another's counts."""
        self.tally.merge(other.tally)

    def to_json(self) -> RatesBlock:
        """`{n, pass_rate, exact_rate, field_accuracy}`."""
        return self.tally.to_json()


class ArgumentsAccumulator(PassRateAccumulator):
    """Suite figures: pass and exact rates, micro field accuracy, counts, per-field accuracy and
    P/R/F1, and the same rates given selection passed."""

    def __init__(self) -> None:
        super().__init__("arguments")
        self.invalid = self.wrong = self.unscored = 0
        self.ungrounded_values = self.ungrounded_runs = 0
        self.every_run = RateTally()
        self.per_field: dict[str, FieldCounts] = {}
        self.given_selection = GivenSelection()

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Fold one trajectory's arguments figures in."""
        super().add(case, run, record)
        result = record.checks.get(self.check)
        if result is None:
            return
        # Grounding needs no reference: counted on every run, applicable or not.
        figures = figures_of(result, "arguments")
        ungrounded = len(figures.get("ungrounded", ()))
        self.ungrounded_values += ungrounded
        self.ungrounded_runs += ungrounded > 0
        if not result.applicable:
            return
        self.every_run.add(result)
        self.given_selection.add(record)
        for call in reference_calls(result):
            for name, status in call["fields"].items():
                self._field(call["tool"], name).add_status(status)
            for name in call.get("extra_fields", ()):
                self._field(call["tool"], name).fp += 1
        self.invalid += figures.get("invalid", 0)
        self.wrong += figures.get("wrong", 0)
        self.unscored += len(figures.get("unscored_fields", []))

    def merge(self, other: ArgumentsAccumulator) -> None:  # type: ignore[override]
        """Add another's counts (the runs after these; see `checks.base.MergingAccumulator`)."""
        super().merge(other)
        self.invalid += other.invalid
        self.wrong += other.wrong
        self.unscored += other.unscored
        self.ungrounded_values += other.ungrounded_values
        self.ungrounded_runs += other.ungrounded_runs
        self.every_run.merge(other.every_run)
        self.given_selection.merge(other.given_selection)
        for key, cell in other.per_field.items():
            self.per_field.setdefault(key, FieldCounts()).merge(cell)

    def _field(self, tool: str, name: str) -> FieldCounts:
        return self.per_field.setdefault(f"{tool}.{name}", FieldCounts())

    def summary(self) -> ArgumentsBlock:
        """The block: pass_rate, applicable, exact_rate, field_accuracy, invalid, wrong,
        unscored, per_field {"tool.field": {n, accuracy, precision, recall, f1}}, the pooled
        field_precision, field_recall and field_f1, given_selection, and ungrounded
        {values, runs} (every run, a reference or not)."""
        pooled = FieldCounts()
        for cell in self.per_field.values():
            pooled.merge(cell)
        prf = field_prf(pooled)
        rates = self.every_run.to_json()
        return {
            **super().summary(),
            "exact_rate": rates["exact_rate"],
            "field_accuracy": rates["field_accuracy"],
            "invalid": self.invalid,
            "wrong": self.wrong,
            "unscored": self.unscored,
            "per_field": {key: cell.to_json() for key, cell in sorted(self.per_field.items())},
            "field_precision": prf["precision"],
            "field_recall": prf["recall"],
            "field_f1": prf["f1"],
            "given_selection": self.given_selection.to_json(),
            "ungrounded": {"values": self.ungrounded_values, "runs": self.ungrounded_runs},
        }
