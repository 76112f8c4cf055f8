"""Run a judge over a labelled calibration set and measure its agreement with the labels.

Unscored verdicts (unparseable replies, crashed calls) are counted and excluded from every
agreement figure. With `repeats` > 1 each scored (item, repeat) verdict is one observation, so
the figures estimate single-call agreement; the bootstrap resamples items, keeping an item's
repeats together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypedDict

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from toolgrade.calibration import agreement as ag
from toolgrade.calibration import band as bd
from toolgrade.calibration.combination_fit import (
    FitRow,
    feature_names,
    fit_combination,
    fit_with_cut,
    score_row,
)
from toolgrade.calibration.records import (
    BandLevel,
    CalibrationRecord,
    Disagreement,
    TagFigures,
    sha256_hex,
    shipped_set_bytes,
)
from toolgrade.errors import InputError, InputProblem, NotUtf8Error, ToolgradeError, decode_utf8
from toolgrade.jsonio.lines import decode_line, numbered_lines
from toolgrade.jsonio.values import JsonObject
from toolgrade.models import (
    JUDGE_DIMENSIONS,
    JUDGE_INPUTS,
    Combination,
    JudgeDimension,
    JudgePort,
    JudgeRequest,
    Verdict,
)

Label = Literal["pass", "fail"]
#: Folds of the cross-validation that reports what a fitted P(pass) cut reaches on new items.
CV_FOLDS = 5
#: progress(done, total): called after every judge call.
Progress = Callable[[int, int], None]


class CalibrationItem(BaseModel):
    """One labelled item: the judge template's inputs and the intended verdict."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    #: The template's variables, as JSON (pydantic's name for it: toolgrade's own alias is
    #: the same type to mypy, but a string alias pydantic cannot resolve).
    inputs: dict[str, JsonValue]
    label: Label
    labels: dict[str, Label] = Field(default_factory=dict, description="Per-annotator labels.")
    tags: list[str] = Field(default_factory=list)
    note: str | None = None


@dataclass(frozen=True)
class CalibrationSet:
    """A loaded set: its items, the provenance header, where it came from and its hash."""

    items: list[CalibrationItem]
    source: str
    sha256: str
    provenance: JsonObject = field(default_factory=dict)


class CalibrationError(ToolgradeError):
    """A calibration run cannot proceed (e.g. threshold fitting without P(pass))."""


def _problems_for_item(
    data: JsonObject, dimension: JudgeDimension, source: str, line: int
) -> tuple[CalibrationItem | None, list[InputProblem]]:
    try:
        item = CalibrationItem.model_validate(data)
    except ValidationError as exc:
        return None, [
            InputProblem(source, line, ".".join(str(p) for p in err["loc"]), err["msg"])
            for err in exc.errors()
        ]
    wanted = set(JUDGE_INPUTS[dimension])
    problems = [
        InputProblem(source, line, f"inputs.{key}", f"missing (the {dimension} template needs it)")
        for key in sorted(wanted - item.inputs.keys())
    ]
    problems += [
        InputProblem(source, line, f"inputs.{key}", f"unknown key for {dimension}")
        for key in sorted(item.inputs.keys() - wanted)
    ]
    return (item if not problems else None), problems


def parse_set(data: bytes, *, dimension: str, source: str) -> CalibrationSet:
    """Parse JSONL set text; every problem is reported as file:line: field: reason at once."""
    if dimension not in JUDGE_DIMENSIONS:
        raise InputError(
            [InputProblem(source, None, "dimension", f"unknown dimension {dimension!r}")]
        )
    dim: JudgeDimension = dimension
    items: list[CalibrationItem] = []
    problems: list[InputProblem] = []
    provenance: JsonObject = {}
    seen: dict[str, int] = {}
    try:
        text = decode_utf8(data)  # a byte-order mark is dropped, as the suite reader does
    except NotUtf8Error as exc:
        raise InputError([InputProblem(source, exc.line, "", str(exc))]) from exc
    for line_no, raw in numbered_lines(text):
        # The run and suite readers' rules and wording: a key written twice is refused.
        obj, problem = decode_line(Path(source), line_no, raw, unique_keys=True)
        if problem is not None:
            problems.append(problem)
            continue
        if not isinstance(obj, dict):
            problems.append(InputProblem(source, line_no, "", "expected a JSON object"))
            continue
        if "_provenance" in obj:
            if items or provenance:
                problems.append(
                    InputProblem(source, line_no, "_provenance", "must be the first record")
                )
            header = obj["_provenance"]
            provenance = dict(header) if isinstance(header, dict) else {}
            continue
        item, found = _problems_for_item(obj, dim, source, line_no)
        problems += found
        if item is None:
            continue
        if item.id in seen:
            problems.append(
                InputProblem(source, line_no, "id", f"duplicate of line {seen[item.id]}")
            )
            continue
        seen[item.id] = line_no
        items.append(item)
    if not items and not problems:
        problems.append(InputProblem(source, None, "", "no items"))
    if problems:
        raise InputError(problems)
    return CalibrationSet(
        items=items, source=source, sha256=sha256_hex(data), provenance=provenance
    )


def load_set(path: Path | None, dimension: str) -> CalibrationSet:
    """Load the set at `path`, or the set shipped with the package for `dimension`."""
    if path is None:
        if dimension not in JUDGE_DIMENSIONS:
            raise InputError(
                [InputProblem("--dimension", None, "", f"unknown dimension {dimension!r}")]
            )
        return parse_set(
            shipped_set_bytes(dimension),
            dimension=dimension,
            source=f"calibration_sets/{dimension}.jsonl",
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(
            [InputProblem(str(path), None, "", f"cannot read: {exc.strerror}")]
        ) from exc
    return parse_set(data, dimension=dimension, source=str(path))


def load_sets(paths: Sequence[Path], dimension: str) -> CalibrationSet:
    """Several sets measured together (e.g. a team's set and the items it adjudicated since):
    their items in order, one hash over their bytes; an id in two files is refused."""
    if len(paths) < 2:
        return load_set(paths[0] if paths else None, dimension)
    loaded = [load_set(path, dimension) for path in paths]
    seen: dict[str, str] = {}
    problems: list[InputProblem] = []
    for one in loaded:
        for item in one.items:
            if item.id in seen:
                problems.append(InputProblem(one.source, None, "id",
                                             f"{item.id!r} is also in {seen[item.id]}"))
            seen.setdefault(item.id, one.source)
    if problems:
        raise InputError(problems)
    digest = sha256_hex("".join(one.sha256 for one in loaded).encode())
    return CalibrationSet(items=[i for one in loaded for i in one.items],
                          source=" + ".join(one.source for one in loaded), sha256=digest,
                          provenance=loaded[0].provenance)


@dataclass
class ItemOutcome:
    """The verdicts one item received, one per repeat."""

    item: CalibrationItem
    verdicts: list[Verdict]

    def scored(self) -> list[bool]:
        """Scored verdicts as booleans (True = pass), in repeat order."""
        return [v.verdict == "pass" for v in self.verdicts if v.scored]

    def mean_p_pass(self) -> float | None:
        """Mean P(pass) over the repeats that carry one."""
        ps = [v.p_pass for v in self.verdicts if v.scored and v.p_pass is not None]
        return float(np.mean(ps)) if ps else None

    def mean_answers(self) -> dict[str, float]:
        """Checklist mode: each question's mean P(yes) over the repeats that answered it."""
        seen: dict[str, list[float]] = {}
        for v in self.verdicts:
            for feature, p_yes in (v.answers or {}).items() if v.scored else ():
                seen.setdefault(feature, []).append(p_yes)
        return {feature: float(np.mean(ps)) for feature, ps in seen.items()}


def _ask(judge: JudgePort, request: JudgeRequest) -> tuple[Verdict, bool]:
    """One judge call; a crash becomes an unscored verdict so the run goes on."""
    try:
        return judge.judge(request), False
    except Exception as exc:  # any judge failure is data for the record, not a reason to stop
        return Verdict.unscored(f"judge raised {type(exc).__name__}", error=str(exc)), True


def run_judge(
    items: Sequence[CalibrationItem],
    judge: JudgePort,
    *,
    dimension: JudgeDimension,
    repeats: int = 1,
    progress: Progress | None = None,
    judge_factory: Callable[[], JudgePort] | None = None,
) -> tuple[list[ItemOutcome], int]:
    """Ask the judge about every item `repeats` times; returns outcomes and the error count:
    calls that raised, and verdicts the judge engine returned as errors (a provider that kept
    failing past its retries), as its own usage counts them.

    Repeat k > 1 asks `judge_factory()` when given: an engine that memoises identical requests
    (toolgrade's does) would otherwise replay its first answer and hide every flip.
    """
    outcomes = [ItemOutcome(item, []) for item in items]
    total, done, errors = len(items) * repeats, 0, 0
    for k in range(repeats):  # repeat-major: each pass sees the items in the same order
        current = judge if k == 0 or judge_factory is None else judge_factory()
        for outcome in outcomes:
            # The item's id: a judge showing nearest examples leaves the item itself out.
            request = JudgeRequest(dimension=dimension, inputs=outcome.item.inputs,
                                   item_id=outcome.item.id)
            verdict, crashed = _ask(current, request)
            outcome.verdicts.append(verdict)
            errors += crashed or verdict.error is not None
            done += 1
            if progress is not None:
                progress(done, total)
    return outcomes, errors


def _item_counts(outcome: ItemOutcome) -> list[int]:
    """This item's (a, b, c, d) contribution to the 2x2 table, one per scored repeat."""
    human = outcome.item.label == "pass"
    passes = sum(outcome.scored())
    fails = len(outcome.scored()) - passes
    return [passes, fails, 0, 0] if human else [0, 0, passes, fails]


def _table(outcomes: Sequence[ItemOutcome]) -> np.ndarray[Any, np.dtype[np.int64]]:
    counts = np.array([_item_counts(o) for o in outcomes], dtype=np.int64).reshape(-1, 4)
    table: np.ndarray[Any, np.dtype[np.int64]] = counts.sum(axis=0).reshape(2, 2)
    return table


def _tag_figures(outcomes: Sequence[ItemOutcome]) -> TagFigures:
    table = _table(outcomes)
    fails = int(table[1].sum())
    n_obs = int(table.sum())
    return TagFigures(
        n=len(outcomes),
        observations=n_obs,
        unscored=sum(len(o.verdicts) - len(o.scored()) for o in outcomes),
        human_pass_rate=ag.rate(sum(o.item.label == "pass" for o in outcomes), len(outcomes)),
        judge_pass_rate=ag.rate(int(table[:, 0].sum()), n_obs),
        agreement=ag.raw_agreement(table),
        kappa=ag.cohen_kappa(table),
        catch_rate=ag.rate(int(table[1, 1]), fails),
        false_pass_rate=ag.rate(int(table[1, 0]), fails),
    )


def human_kappa(items: Sequence[CalibrationItem]) -> tuple[float | None, int]:
    """Fleiss' kappa over the annotator labels of items carrying two or more of them.

    The constructed `label` is not one of the raters: this is the annotators' own agreement.
    """
    rows = [
        [sum(v == "pass" for v in it.labels.values()), sum(v == "fail" for v in it.labels.values())]
        for it in items
        if len(it.labels) >= 2
    ]
    if not rows:
        return None, 0
    return ag.fleiss_kappa(np.array(rows, dtype=np.int64)), len(rows)


@dataclass(frozen=True)
class ThresholdFit:
    """The P(pass) cut fitted on one stratified half and checked on the other."""

    threshold: float
    fit_kappa: float | None
    holdout_kappa: float | None
    holdout_agreement: float | None
    cv_threshold: float | None = None
    cv_folds: int | None = None
    cv_kappa: float | None = None
    cv_kappa_ci: tuple[float, float] | None = None
    cv_agreement: float | None = None
    combination: Combination | None = None
    band: BandFit | None = None
    cv_auc: float | None = None
    signals_cv_auc: float | None = None
    #: The signals judge's out-of-fold verdicts per item (None: silent, never decided): its
    #: record lists these disagreements, its calibration verdicts being unweighted.
    signals_verdicts: list[bool | None] | None = None


@dataclass(frozen=True)
class BandFit:
    """The abstention band chosen for a target kappa, and every level's figures
    (`calibration.band`)."""

    target_kappa: float
    band: tuple[float, float] | None
    cv_coverage: float
    cv_decided_kappa: float | None
    cv_decided_kappa_ci: tuple[float, float] | None
    levels: list[BandLevel]


def fit_band(
    labels: Sequence[bool],
    fixed: Sequence[bool],
    folds: list[list[int]],
    scorer: bd.FoldScorer,
    target_kappa: float,
    seed: int = ag.BOOTSTRAP_SEED,
    silent: Sequence[bool] | None = None,
) -> BandFit:
    """The band of widest cross-validated coverage whose decided kappa's lower 95% bound
    reaches `target_kappa`; none reaching it: the band that decides nothing (coverage 0).
    `silent` items are never decided (`band.band_curve`)."""
    points = bd.band_curve(labels, fixed, folds, scorer, seed, silent)
    levels = [BandLevel(level=p.level, band=p.band, cv_coverage=p.cv_coverage,
                        cv_decided_kappa=p.cv_decided_kappa,
                        cv_decided_kappa_ci=p.cv_decided_kappa_ci) for p in points]
    chosen = bd.choose(points, target_kappa)
    if chosen is None:
        return BandFit(target_kappa, bd.EVERYTHING, 0.0, None, None, levels)
    return BandFit(target_kappa, chosen.band, chosen.cv_coverage, chosen.cv_decided_kappa,
                   chosen.cv_decided_kappa_ci, levels)


class _CvFigures(TypedDict):
    """What out-of-fold verdicts measure (`ThresholdFit`'s cv_kappa, cv_kappa_ci,
    cv_agreement)."""

    cv_kappa: float | None
    cv_kappa_ci: tuple[float, float] | None
    cv_agreement: float | None


class _CvFit(_CvFigures):
    """A fitted cut's cross-validation: the cut, its folds and their figures."""

    cv_threshold: float
    cv_folds: int


def _cv_figures(
    labels: Sequence[bool], verdicts: Sequence[bool], seed: int
) -> _CvFigures:
    """Cross-validated kappa, its bootstrap interval and agreement from out-of-fold verdicts."""
    rows = ag.paired_rows(labels, verdicts)
    table = rows.sum(axis=0).reshape(2, 2)
    ci, _ = ag.bootstrap_kappa_ci(rows, seed=seed)
    return {"cv_kappa": ag.cohen_kappa(table), "cv_kappa_ci": ci,
            "cv_agreement": ag.raw_agreement(table)}


def fit_split_threshold(
    outcomes: Sequence[ItemOutcome],
    seed: int = ag.BOOTSTRAP_SEED,
    target_kappa: float = bd.DEFAULT_TARGET_KAPPA,
) -> ThresholdFit:
    """The cut maximising kappa over all items, with what it can be trusted to reach: kappa on
    a seeded stratified half at a cut fitted on the other (`holdout_kappa`) and the k-fold
    cross-validated kappa with its bootstrap interval (`cv_kappa`, `cv_kappa_ci`)."""
    usable = [(o.item.label == "pass", p) for o in outcomes if (p := o.mean_p_pass()) is not None]
    if len(usable) < 4:
        raise CalibrationError(
            "--fit-threshold needs P(pass) from a log-probability judge; "
            f"only {len(usable)} items carried one (set the judge mode to logprob)"
        )
    labels = [h for h, _ in usable]
    fit_idx, hold_idx = ag.stratified_halves(labels, seed=seed)
    cut, fit_kappa = ag.best_threshold(
        [usable[i][0] for i in fit_idx], [usable[i][1] for i in fit_idx]
    )
    hold_h = [usable[i][0] for i in hold_idx]
    hold_j = [usable[i][1] >= cut for i in hold_idx]
    table = ag.confusion_table(hold_h, hold_j)
    # The shipped cut is fitted on every item; the figure it can be trusted to reach on new
    # items is the k-fold one, where each item is judged at a cut fitted without it.
    full_cut, _ = ag.best_threshold(labels, [p for _, p in usable])
    folds = min(CV_FOLDS, min(sum(labels), len(labels) - sum(labels)))
    split = (cut, fit_kappa, ag.cohen_kappa(table), ag.raw_agreement(table))
    if folds < 2:
        return ThresholdFit(*split)
    scores = [p for _, p in usable]
    oof, _ = ag.out_of_fold_verdicts(labels, scores, folds, seed=seed)
    cv: _CvFit = {"cv_threshold": full_cut, "cv_folds": folds, **_cv_figures(labels, oof, seed)}
    band = fit_band(labels, [False] * len(labels), ag.stratified_folds(labels, folds, seed),
                    _cut_scorer(labels, scores), target_kappa, seed)
    # The ranking of P(pass) itself: no weights are fitted, so it needs no folds.
    return ThresholdFit(*split, **cv, band=band, cv_auc=ag.ranking_auc(labels, scores))


def _cut_scorer(labels: Sequence[bool], scores: Sequence[float]) -> bd.FoldScorer:
    """Scores as they are, the cut fitted on the training items (`--fit-threshold`)."""
    p = np.asarray(scores, dtype=np.float64)

    def scorer(train: Sequence[int]) -> tuple[bd.FloatArray, float]:
        cut, _ = ag.best_threshold([labels[i] for i in train], [scores[i] for i in train])
        return p, cut

    return scorer


def _combination_scorer(rows: Sequence[FitRow], features: list[str]) -> bd.FoldScorer:
    """Every row scored by the combination and cut fitted on the training rows (`--fit`)."""

    def scorer(train: Sequence[int]) -> tuple[bd.FloatArray, float]:
        combination, cut, _ = fit_with_cut([rows[i] for i in train], features)
        scores = np.array([score_row(combination, r) for r in rows], dtype=np.float64)
        return scores, cut

    return scorer


@dataclass(frozen=True)
class SignalSource:
    """What `--fit` needs beside the verdicts, injected by the caller (judging owns both):
    each item's deterministic signals, and whether the engine settles it without the model."""

    signals: Callable[[JsonObject], dict[str, float]]
    settled: Callable[[JsonObject], bool]


def _fit_rows(
    outcomes: Sequence[ItemOutcome], source: SignalSource, signals_only: bool
) -> list[FitRow]:
    """The fit's rows: every item carrying a P(pass) with its signals (and checklist answers);
    for the signals judge, every item, silent where no signal fired."""
    rows: list[FitRow] = []
    for o in outcomes:
        inputs = o.item.inputs
        human_pass, settled = o.item.label == "pass", source.settled(inputs)
        if signals_only:
            values = source.signals(inputs)
            rows.append(FitRow(None, values, human_pass, settled,
                               silent=not settled and not any(values.values())))
            continue
        p = o.mean_p_pass()
        if p is None:
            continue
        # Checklist answers (`q_<id>`) are features beside the signals.
        values = {**source.signals(inputs), **o.mean_answers()}
        rows.append(FitRow(p, values, human_pass, settled))
    return rows


def fit_combined_threshold(
    outcomes: Sequence[ItemOutcome],
    source: SignalSource,
    seed: int = ag.BOOTSTRAP_SEED,
    target_kappa: float = bd.DEFAULT_TARGET_KAPPA,
    signals_only: bool = False,
) -> ThresholdFit:
    """Fit the combination of P(pass) and signals with its cut (`calibrate --fit`): on a
    stratified half checked on the other, and k-fold cross-validated; the shipped pair is
    fitted on every item. `signals_only` fits the signals judge (no model feature; items where
    no signal fired are never decided). A model's fit also measures the signals alone on the
    same items (`signals_cv_auc`), the figure that says whether the model adds anything."""
    rows = _fit_rows(outcomes, source, signals_only)
    labels = [r.human_pass for r in rows]
    folds = min(CV_FOLDS, sum(labels), len(labels) - sum(labels))
    if len(rows) < 4 or folds < 2 or sum(not (r.settled or r.silent) for r in rows) < 4:
        what = ("items on which a signal fired" if signals_only
                else "P(pass) from a log-probability judge")
        raise CalibrationError(
            f"--fit needs {what} on at least two items of each label; {len(rows)} items "
            "carried one"
        )
    features = feature_names([r.signals for r in rows], model=not signals_only)
    if not features:
        raise CalibrationError("--fit: this dimension has no deterministic signals, so the "
                               "signals judge has nothing to weigh")
    fit_idx, hold_idx = ag.stratified_halves(labels, seed=seed)
    half, half_cut, _ = fit_with_cut([rows[i] for i in fit_idx], features)
    hold = [rows[i] for i in hold_idx]
    hold_j = [score_row(half, r) >= half_cut for r in hold]
    table = ag.confusion_table([r.human_pass for r in hold], hold_j)
    full = fit_combination(rows, features, folds, seed)
    band = fit_band(labels, [r.settled for r in rows], ag.stratified_folds(labels, folds, seed),
                    _combination_scorer(rows, features), target_kappa, seed,
                    silent=[r.silent for r in rows])
    return ThresholdFit(
        full.threshold, full.fit_kappa, ag.cohen_kappa(table), ag.raw_agreement(table),
        cv_threshold=full.threshold, cv_folds=folds, combination=full.combination,
        **_cv_figures(labels, full.cv_verdicts, seed), band=band,
        cv_auc=ag.ranking_auc(labels, full.cv_scores),
        signals_cv_auc=None if signals_only else _signals_auc(rows, folds, seed),
        signals_verdicts=[None if r.silent else v for r, v in zip(rows, full.cv_verdicts,
                                                                  strict=True)]
        if signals_only else None,
    )


def _signals_auc(rows: Sequence[FitRow], folds: int, seed: int) -> float | None:
    """The cross-validated ranking AUC of the signals alone on the model's rows."""
    features = feature_names([r.signals for r in rows], model=False)
    features = [f for f in features if not f.startswith("q_")]  # a checklist's answers
    if not features:
        return None
    fitted = fit_combination(rows, features, folds, seed)
    return ag.ranking_auc([r.human_pass for r in rows], fitted.cv_scores)


def _disagreements(outcomes: Sequence[ItemOutcome]) -> list[Disagreement]:
    out = []
    for o in outcomes:
        if any(v.scored and v.verdict != o.item.label for v in o.verdicts):
            wrong = next(v for v in o.verdicts if v.scored and v.verdict != o.item.label)
            out.append(
                Disagreement(
                    id=o.item.id,
                    label=o.item.label,
                    verdicts=[v.verdict for v in o.verdicts],
                    tags=list(o.item.tags),
                    reason=wrong.reason[:300],
                )
            )
    return out


def _signals_disagreements(
    outcomes: Sequence[ItemOutcome], verdicts: Sequence[bool | None]
) -> list[Disagreement]:
    """The items the signals judge's out-of-fold verdicts get wrong (silent ones never)."""
    out = []
    for o, verdict in zip(outcomes, verdicts, strict=True):
        said = None if verdict is None else "pass" if verdict else "fail"
        if said is not None and said != o.item.label:
            out.append(Disagreement(id=o.item.id, label=o.item.label, verdicts=[said],
                                    tags=list(o.item.tags),
                                    reason="the signals judge, weights fitted without it"))
    return out


def summarise(
    outcomes: Sequence[ItemOutcome],
    *,
    dimension: JudgeDimension,
    model: str,
    set_sha256: str,
    repeats: int,
    errors: int = 0,
    set_source: str | None = None,
    threshold: float | None = None,
    fit: ThresholdFit | None = None,
    resamples: int = ag.BOOTSTRAP_RESAMPLES,
    seed: int = ag.BOOTSTRAP_SEED,
    examples: tuple[int, str | None] = (0, None),
) -> CalibrationRecord:
    """Turn judged items into the calibration record (all statistics live here); `examples`
    is the judge's nearest examples per item and their pool's hash (`JudgeEngine.
    examples_for`), recorded when it showed any."""
    item_tables = np.array([_item_counts(o) for o in outcomes], dtype=np.int64).reshape(-1, 4)
    table = item_tables.sum(axis=0).reshape(2, 2)
    whole = _tag_figures(outcomes)
    ci, degenerate = ag.bootstrap_kappa_ci(item_tables, resamples=resamples, seed=seed)
    flips, flipped, _ = ag.flip_rate([o.scored() for o in outcomes])
    tags = sorted({t for o in outcomes for t in o.item.tags})
    h_kappa, h_items = human_kappa([o.item for o in outcomes])
    template = next(
        (v.template_hash for o in outcomes for v in o.verdicts if v.template_hash), None
    )
    scored = [v for o in outcomes for v in o.verdicts if v.scored]
    # Verdicts carry P(pass) exactly when the judge answered in log-probability mode.
    mode: Literal["reasoned", "logprob"] | None = None
    if scored:
        mode = "logprob" if any(v.p_pass is not None for v in scored) else "reasoned"
    return CalibrationRecord(
        model=model,
        dimension=dimension,
        set_sha256=set_sha256,
        set_source=set_source,
        n=len(outcomes),
        repeats=repeats,
        observations=whole.observations,
        unscored=whole.unscored,
        errors=errors,
        human_pass_rate=whole.human_pass_rate,
        judge_pass_rate=whole.judge_pass_rate,
        confusion=ag.confusion_dict(table),
        agreement=whole.agreement,
        kappa=whole.kappa,
        kappa_ci=ci,
        ac1=ag.gwet_ac1(table) if table.sum() else None,
        catch_rate=whole.catch_rate,
        false_pass_rate=whole.false_pass_rate,
        false_fail_rate=ag.rate(int(table[0, 1]), int(table[0].sum())),
        flip_rate=flips if repeats > 1 else None,
        flipped=flipped,
        per_tag={t: _tag_figures([o for o in outcomes if t in o.item.tags]) for t in tags},
        human_kappa=h_kappa,
        human_kappa_items=h_items,
        bootstrap={"resamples": resamples, "seed": seed, "degenerate": degenerate},
        threshold=threshold,
        fitted_threshold=fit.threshold if fit else None,
        fit_split_kappa=fit.fit_kappa if fit else None,
        holdout_kappa=fit.holdout_kappa if fit else None,
        holdout_agreement=fit.holdout_agreement if fit else None,
        cv_threshold=fit.cv_threshold if fit else None,
        cv_folds=fit.cv_folds if fit else None,
        cv_kappa=fit.cv_kappa if fit else None,
        cv_kappa_ci=fit.cv_kappa_ci if fit else None,
        cv_agreement=fit.cv_agreement if fit else None,
        combination=fit.combination if fit else None,
        cv_auc=fit.cv_auc if fit else None,
        signals_cv_auc=fit.signals_cv_auc if fit else None,
        **_band_fields(fit.band if fit else None),
        template_hash=template,
        checklist_hash=next(
            (v.checklist_hash for o in outcomes for v in o.verdicts if v.checklist_hash), None),
        mode=mode,
        examples=examples[0] or None,
        examples_pool_sha256=examples[1] if examples[0] else None,
        toolgrade_version=_version(),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        disagreements=_disagreements(outcomes) if fit is None or fit.signals_verdicts is None
        else _signals_disagreements(outcomes, fit.signals_verdicts),
    )


def _band_fields(band: BandFit | None) -> dict[str, Any]:
    """The record's band fields (all unset without a fit)."""
    if band is None:
        return {}
    return {
        "band": band.band, "band_target_kappa": band.target_kappa,
        "band_bound": bd.TARGET_BOUND, "cv_coverage": band.cv_coverage,
        "cv_decided_kappa": band.cv_decided_kappa,
        "cv_decided_kappa_ci": band.cv_decided_kappa_ci, "band_levels": band.levels,
    }


def _version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("toolgrade")
    except PackageNotFoundError:
        return None


def calibrate(
    items: Sequence[CalibrationItem],
    judge: JudgePort,
    *,
    dimension: JudgeDimension,
    model: str,
    set_sha256: str,
    repeats: int = 1,
    progress: Progress | None = None,
    judge_factory: Callable[[], JudgePort] | None = None,
    fit_threshold: bool = False,
    threshold: float | None = None,
    set_source: str | None = None,
    seed: int = ag.BOOTSTRAP_SEED,
    signal_source: SignalSource | None = None,
    target_kappa: float = bd.DEFAULT_TARGET_KAPPA,
    signals_only: bool = False,
    examples: tuple[int, str | None] = (0, None),
) -> CalibrationRecord:
    """Judge every item `repeats` times and return the calibration record.

    `fit_threshold` fits a P(pass) cut on a stratified half and reports the other half
    (needs verdicts carrying `p_pass`). A judge call that raises is recorded as unscored.
    `judge_factory` gives each repeat after the first a fresh judge (see `run_judge`).
    `signal_source` fits the combination of P(pass) and signals instead of a bare cut
    (`calibrate --fit`; implies fitting). Either fit also fits the abstention band to
    `target_kappa` on the decided items (`calibration.band`). `signals_only`: the judge is the
    signals judge (`judging.signals_judge`), fitted on the signals alone. `examples`: see
    `summarise` (each item is judged with its id, so a judge showing examples leaves it out
    of its own).
    """
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    if repeats > 1 and judge_factory is None and getattr(judge, "memoises", False):
        # Every repeat would replay the first answer: flip_rate 0 and K times the observations.
        raise ValueError(
            "repeats > 1 with a judge that memoises identical requests (a JudgeEngine) needs "
            "judge_factory, building a fresh engine (cache off) for each repeat"
        )
    outcomes, errors = run_judge(
        items,
        judge,
        dimension=dimension,
        repeats=repeats,
        progress=progress,
        judge_factory=judge_factory,
    )
    fit = None
    if signal_source is not None:
        fit = fit_combined_threshold(outcomes, signal_source, seed=seed,
                                     target_kappa=target_kappa, signals_only=signals_only)
    elif fit_threshold:
        fit = fit_split_threshold(outcomes, seed=seed, target_kappa=target_kappa)
    return summarise(
        outcomes,
        dimension=dimension,
        model=model,
        set_sha256=set_sha256,
        repeats=repeats,
        errors=errors,
        set_source=set_source,
        threshold=threshold,
        fit=fit,
        seed=seed,
        examples=examples,
    )
