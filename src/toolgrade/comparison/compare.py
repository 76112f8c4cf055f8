"""`toolgrade compare`: a new grading against a base, paired by case.

Every pass rate is compared over the cases both folders graded (and where the check applies
on both sides): the change with a paired-bootstrap interval, the flips with an exact McNemar
test, pass^k where both sides ran k trials. docs/compare.md states each rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolgrade.comparison.folders import FIGURES, Grading, RunOutcome, runs_by_case
from toolgrade.comparison.model import (
    CaseFlip,
    Comparison,
    DropGate,
    FailureCount,
    FigureChange,
    PassHatK,
)
from toolgrade.comparison.statistics import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    case_passes,
    mcnemar_exact,
    paired_bootstrap,
    pass_hat_k,
)
from toolgrade.reporting.run_view import run_anchor

#: The figures each judge dimension's verdicts feed (the aggregate is fed by all).
_JUDGED_FIGURES: dict[str, tuple[str, ...]] = {
    "alternate_route": ("selection.pass_rate",),
    "argument_equivalence": ("arguments.pass_rate",),
    "recovery_quality": ("recovery.pass_rate",),
    "result_interpretation": ("recovery.pass_rate",),
}


@dataclass(frozen=True)
class Settings:
    """How to compare: the bootstrap's resamples and seed, and the `--max-drop` gates."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    max_drops: Mapping[str, float] | None = None


@dataclass(frozen=True)
class _Side:
    """One case's runs where a figure applies: passes and trials."""

    passed: int
    trials: int

    @property
    def share(self) -> float:
        return self.passed / self.trials


def _side(runs: Sequence[RunOutcome], figure: str) -> _Side | None:
    verdicts = [run.passed[figure] for run in runs if figure in run.passed]
    return _Side(sum(verdicts), len(verdicts)) if verdicts else None


def _pass_hat_k(pairs: list[tuple[_Side, _Side]]) -> PassHatK | None:
    """pass^k at the largest k every paired case reaches on both sides (k >= 2)."""
    if not pairs:
        return None
    k = min(min(b.trials, n.trials) for b, n in pairs)
    if k < 2:
        return None
    base = sum(pass_hat_k(b.passed, b.trials, k) for b, _ in pairs) / len(pairs)
    new = sum(pass_hat_k(n.passed, n.trials, k) for _, n in pairs) / len(pairs)
    return PassHatK(k=k, cases=len(pairs), base=base, new=new)


def figure_change(figure: str, base: Mapping[str, Sequence[RunOutcome]],
                  new: Mapping[str, Sequence[RunOutcome]], cases: Sequence[str],
                  settings: Settings, judged_apart: Sequence[str] = ()) -> FigureChange:
    """One figure compared over `cases` (those where it applies on both sides)."""
    pairs: list[tuple[_Side, _Side]] = []
    for case in cases:
        b, n = _side(base[case], figure), _side(new[case], figure)
        if b is not None and n is not None:
            pairs.append((b, n))
    differences = [n.share - b.share for b, n in pairs]
    interval = paired_bootstrap(differences, resamples=settings.resamples, seed=settings.seed)
    to_fail = sum(case_passes(b.share) and not case_passes(n.share) for b, n in pairs)
    to_pass = sum(case_passes(n.share) and not case_passes(b.share) for b, n in pairs)
    count = len(pairs)
    return FigureChange(
        figure=figure, cases=count,
        base=sum(b.share for b, _ in pairs) / count if count else None,
        new=sum(n.share for _, n in pairs) / count if count else None,
        difference=sum(differences) / count if count else None,
        ci_low=interval.low if interval else None, ci_high=interval.high if interval else None,
        to_fail=to_fail, to_pass=to_pass,
        mcnemar_p=mcnemar_exact(to_fail, to_pass) if count else None,
        pass_hat_k=_pass_hat_k(pairs),
        like_for_like=not judged_apart, not_like_for_like=list(judged_apart))


def _failure_names(runs: Sequence[RunOutcome]) -> set[str]:
    return {name for run in runs for name in run.failures}


def _run_link(grading: Grading, runs: Sequence[RunOutcome]) -> str:
    first = min(runs, key=lambda r: r.trial)
    return f"{grading.folder / 'report.html'}#{run_anchor(first.case_id, first.agent, first.trial)}"


def _flips(base: Grading, new: Grading, base_runs: Mapping[str, Sequence[RunOutcome]],
           new_runs: Mapping[str, Sequence[RunOutcome]], cases: Sequence[str]) -> list[CaseFlip]:
    flips: list[CaseFlip] = []
    for case in cases:
        b = _side(base_runs[case], "aggregate.pass_rate")
        n = _side(new_runs[case], "aggregate.pass_rate")
        if b is None or n is None or case_passes(b.share) == case_passes(n.share):
            continue
        before, after = _failure_names(base_runs[case]), _failure_names(new_runs[case])
        flips.append(CaseFlip(
            case=case, direction="to_pass" if case_passes(n.share) else "to_fail",
            appeared=sorted(after - before), disappeared=sorted(before - after),
            base_run=_run_link(base, base_runs[case]), new_run=_run_link(new, new_runs[case])))
    return flips


def _failure_counts(base_runs: Mapping[str, Sequence[RunOutcome]],
                    new_runs: Mapping[str, Sequence[RunOutcome]],
                    cases: Sequence[str]) -> dict[str, FailureCount]:
    before = Counter(name for c in cases for run in base_runs[c] for name in run.failures)
    after = Counter(name for c in cases for run in new_runs[c] for name in run.failures)
    return {name: FailureCount(base=before[name], new=after[name])
            for name in sorted(before.keys() | after.keys())}


def _judge_model(grading: Grading, dimension: str) -> str | None:
    block = {str(k): v for k, v in grading.summary.judges.items()}.get(dimension)
    return block.model if block is not None else None


def judges_differ(base: Grading, new: Grading) -> dict[str, str]:
    """Judge dimensions whose model, mode or calibration record differs between the two."""
    before, after = base.judge_identity(), new.judge_identity()
    differ: dict[str, str] = {}
    for dimension in sorted(before.keys() | after.keys()):
        if before.get(dimension) != after.get(dimension):
            names = [_judge_model(g, dimension) for g in (base, new)]
            differ[dimension] = (f"model {names[0] or 'none'} -> {names[1] or 'none'}"
                                 if names[0] != names[1]
                                 else "template, checklist, mode or calibration record differ")
    return differ


def _judged_apart(figure: str, differ: Mapping[str, str]) -> list[str]:
    if figure == "aggregate.pass_rate":
        return sorted(differ)
    return sorted(d for d in differ if figure in _JUDGED_FIGURES.get(d, ()))


def evaluate_drops(figures: Sequence[FigureChange],
                   max_drops: Mapping[str, float]) -> list[DropGate]:
    """Each `--max-drop`: failed only when the drop exceeds its maximum and the interval of
    the change lies wholly below 0."""
    by_name = {f.figure: f for f in figures}
    gates: list[DropGate] = []
    for name, limit in max_drops.items():
        change = by_name[name]
        drop = -change.difference if change.difference is not None else None
        failed = (drop is not None and change.ci_high is not None
                  and drop > limit and change.ci_high < 0)
        gates.append(DropGate(figure=name, max_drop=limit, drop=drop, ci_low=change.ci_low,
                              ci_high=change.ci_high, passed=not failed))
    return gates


def parse_max_drops(specs: Sequence[str]) -> dict[str, float]:
    """`FIGURE=X` options as {figure: X}; `ValueError` naming the option that is not one."""
    drops: dict[str, float] = {}
    for spec in specs:
        name, sep, value = spec.partition("=")
        if not sep or name.strip() not in FIGURES:
            raise ValueError(f"--max-drop {spec!r}: expected FIGURE=X with FIGURE one of "
                             + ", ".join(FIGURES))
        try:
            limit = float(value)
        except ValueError:
            limit = -1.0
        if not 0.0 <= limit <= 1.0:
            raise ValueError(f"--max-drop {spec!r}: X must be a number from 0 to 1")
        drops[name.strip()] = limit
    return drops


def _suite_note(base: Grading, new: Grading, base_only: list[str], new_only: list[str]
                ) -> tuple[bool, str]:
    """Whether both graded the same suite (by sha256, and the same cases), and how it is known."""
    (before, how), (after, how_new) = base.suite_digest(), new.suite_digest()
    how = how if how == how_new else f"{how} / {how_new}"
    if before is not None and before == after and not base_only and not new_only:
        return True, f"same suite (sha256 {how})"
    why = ("same suite, different cases graded" if before is not None and before == after
           else f"different suites (sha256 {how})" if None not in (before, after)
           else "the suites cannot be compared (no sha256)")
    return False, (f"{why}: only the shared cases are compared; {len(base_only)} case(s) only "
                   f"in base, {len(new_only)} only in new")


def compare_gradings(base: Grading, new: Grading, settings: Settings | None = None
                     ) -> Comparison:
    """The comparison of `new` against `base`, paired by case (and by agent when either
    folder holds several agents)."""
    settings = settings or Settings()
    by_agent = len(base.agents) > 1 or len(new.agents) > 1
    base_runs, new_runs = runs_by_case(base, by_agent), runs_by_case(new, by_agent)
    cases = sorted(base_runs.keys() & new_runs.keys())
    base_only = sorted(base_runs.keys() - new_runs.keys())
    new_only = sorted(new_runs.keys() - base_runs.keys())
    same, note = _suite_note(base, new, base_only, new_only)
    differ = judges_differ(base, new)
    figures = [figure_change(f, base_runs, new_runs, cases, settings, _judged_apart(f, differ))
               for f in FIGURES]
    return Comparison(
        base=str(base.folder), new=str(new.folder), same_suite=same, suite_note=note,
        paired_by="case and agent" if by_agent else "case", cases=len(cases),
        base_only=base_only, new_only=new_only, resamples=settings.resamples,
        seed=settings.seed, figures=figures,
        flips=_flips(base, new, base_runs, new_runs, cases),
        failures=_failure_counts(base_runs, new_runs, cases), judges_differ=differ,
        gates=evaluate_drops(figures, settings.max_drops or {}))
