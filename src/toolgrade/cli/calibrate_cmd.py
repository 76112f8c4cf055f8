"""`toolgrade calibrate`: run a judge model over a labelled set and report its agreement.

Thin: it loads settings, builds the judge through `toolgrade.judging.build_judge`, hands both to
`toolgrade.calibration.calibrate`, prints a table and writes the record.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, TypedDict

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from toolgrade.cli.cache_options import CacheBackendOption, CacheUrlOption, with_cache_options
from toolgrade.cli.common import EXIT_GATE as EXIT_FAILED
from toolgrade.cli.common import EXIT_INPUT, err, fail, input_errors_exit, out
from toolgrade.vocabulary import JUDGE_DIMENSIONS, JudgeDimension

if TYPE_CHECKING:
    from toolgrade.calibration.calibrate import CalibrationSet
    from toolgrade.calibration.records import CalibrationRecord
    from toolgrade.judging import JudgeEngine
    from toolgrade.models import JudgePort
    from toolgrade.settings import DimensionSettings, JudgeSettings


class _DimensionChanges(TypedDict, total=False):
    """What the command changes in the calibrated dimension's table."""

    enabled: bool
    model: str
    mode: Literal["logprob"]
    combination: None
    band: None


class _JudgeChanges(TypedDict, total=False):
    """What the command changes in the `[judge]` table."""

    enabled: bool
    dimensions: dict[JudgeDimension, DimensionSettings]
    model: str
    cache_dir: Path
    use_cache: bool


def _judge_settings(
    base: JudgeSettings,
    dimension: JudgeDimension,
    *,
    model: str | None,
    cache_dir: Path | None,
    no_cache: bool,
    logprob: bool,
    raw: bool = False,
    find: Callable[[str, JudgeDimension], object] | None = None,
) -> JudgeSettings:
    """The settings' judge table with the command's options applied to this dimension.

    Without fitting, the judge is configured as `run` configures it (`judging.defaults.
    configured`: the record's mode, cut, combination and band where the settings leave them
    unset), so the record measures the judge `run` uses; `find` looks records up (tests).
    `raw` (`--fit`) drops a configured combination and band: the fit is on the model's own
    P(pass).
    """
    from toolgrade.judging.defaults import configured
    from toolgrade.settings import DimensionSettings

    if not logprob and not raw:
        with_model = base if model is None else base.model_copy(update={"model": model})
        base = configured(with_model, find=find)

    override = base.dimensions.get(dimension) or DimensionSettings()
    changes: _DimensionChanges = {"enabled": True}  # calibrating a dimension judges it
    if model is not None:
        changes["model"] = model
    if logprob:
        changes["mode"] = "logprob"
        changes["band"] = None  # a fit sees every item's P(pass), in a band or not
    if raw:
        changes["combination"] = None
    dims = dict(base.dimensions)
    dims[dimension] = override.model_copy(update=changes)
    update: _JudgeChanges = {"enabled": True, "dimensions": dims}
    if model is not None:
        update["model"] = model
    if cache_dir is not None:
        update["cache_dir"] = cache_dir
    if no_cache:
        update["use_cache"] = False
    return base.model_copy(update=update)


class _Judges:
    """Builds judge engines for one run and closes them all at the end."""

    def __init__(self, settings: JudgeSettings, dimension: JudgeDimension) -> None:
        self.settings = settings
        self.dimension = dimension
        self.engines: list[JudgeEngine] = []

    def new(self) -> JudgePort:
        """A fresh engine (lazily imported: only `toolgrade.judging` touches litellm)."""
        from toolgrade.judging import build_judge

        engine = build_judge(self.settings, notify=lambda msg: err.print(msg, markup=False))
        if engine is None:
            fail(
                "toolgrade: no judge could be built (judging is disabled or no model is available)"
            )
        self.engines.append(engine)
        return engine

    def model(self) -> str:
        """The model the first engine uses for this dimension; exit 2 when there is none."""
        model = str(self.engines[0].model_for(self.dimension))
        if model == "unconfigured":
            fail(f"toolgrade: no judge model is configured for {self.dimension}; pass --model")
        return model

    def examples(self) -> tuple[int, str | None]:
        """The first engine's nearest examples per item for this dimension, and their pool's
        hash (the record keeps both); (0, None) for a judge that shows none (a stand-in)."""
        examples_for = getattr(self.engines[0], "examples_for", None)
        return examples_for(self.dimension) if examples_for is not None else (0, None)

    def usage(self) -> str:
        """Calls, cache hits, unscored and tokens summed over the engines, for one line."""
        totals = {"calls": 0, "cache_hits": 0, "unscored": 0, "errors": 0, "tokens": 0}
        for engine in self.engines:
            figures = engine.usage().get(self.dimension, {})
            totals["calls"] += figures.get("calls", 0)
            totals["cache_hits"] += figures.get("cache_hits", 0)
            totals["unscored"] += figures.get("unscored", 0)
            totals["errors"] += figures.get("errors", 0)
            totals["tokens"] += figures.get("tokens", 0)
        return ", ".join(f"{key} {value}" for key, value in totals.items())

    def close(self) -> None:
        """Close every engine built (their disk caches)."""
        for engine in self.engines:
            engine.close()


PF = ("pass", "fail")


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def summary_table(record: CalibrationRecord) -> Table:
    """A readable table of the record's headline figures."""
    table = Table(title=f"calibration: {record.dimension} / {record.model}", show_header=False)
    table.add_column("figure", style="bold")
    table.add_column("value")
    c = {f"{h}/{j}": record.confusion[f"human_{h}"][f"judge_{j}"] for h in PF for j in PF}
    ci = f"[{_fmt(record.kappa_ci[0])}, {_fmt(record.kappa_ci[1])}]" if record.kappa_ci else "n/a"
    rows = [
        ("items (n)", f"{record.n}  (repeats {record.repeats}, unscored {record.unscored})"),
        (
            "human / judge pass rate",
            f"{_fmt(record.human_pass_rate)} / {_fmt(record.judge_pass_rate)}",
        ),
        (
            "confusion (human x judge)",
            "  ".join(f"{key} {count}" for key, count in c.items()),
        ),
        ("decided (coverage)",
         f"{record.observations} of {record.n * record.repeats} verdicts "
         f"({_fmt(record.observations / max(1, record.n * record.repeats), 2)}); the figures "
         "below are on the decided ones"),
        ("raw agreement", _fmt(record.agreement)),
        ("Cohen's kappa [95% CI]", f"{_fmt(record.kappa)} {ci}"),
        ("Gwet's AC1", _fmt(record.ac1)),
        (
            "catch rate / false-pass rate",
            f"{_fmt(record.catch_rate)} / {_fmt(record.false_pass_rate)}",
        ),
        ("flip rate across repeats", _fmt(record.flip_rate)),
        (
            "annotators' kappa (Fleiss)",
            f"{_fmt(record.human_kappa)} on {record.human_kappa_items} items",
        ),
    ]
    if record.examples:
        rows.append(("nearest examples", f"{record.examples} per item, the item itself left "
                     f"out (pool {(record.examples_pool_sha256 or '')[:12]})"))
    if record.fitted_threshold is not None:
        rows.append(
            (
                "fitted P(pass) threshold",
                f"{record.fitted_threshold:.3f} (fit kappa {_fmt(record.fit_split_kappa)}, "
                f"holdout kappa {_fmt(record.holdout_kappa)})",
            )
        )
    if record.cv_kappa_ci is not None and record.cv_threshold is not None:
        low, high = record.cv_kappa_ci
        rows.append(
            (
                f"{record.cv_folds}-fold cross-validated",
                f"kappa {_fmt(record.cv_kappa)} [{low:.3f}, {high:.3f}] with the cut fitted "
                f"on all items, {record.cv_threshold:.3f}",
            )
        )
    if record.cv_auc is not None:
        rows.append(("ranking AUC (cross-validated)", _auc_line(record)))
    if record.band_target_kappa is not None:
        rows.append(("abstention band", _band_line(record)))
    if record.combination is not None:
        weights = ", ".join(f"{name} {weight:+.2f}" for name, weight in
                            zip(record.combination.features, record.combination.weights,
                                strict=True))
        rows.append(("combination (logistic)", f"bias {record.combination.bias:+.2f}; {weights}"))
    for tag, fig in record.per_tag.items():
        rows.append(
            (
                f"  tag {tag} (n={fig.n})",
                f"agreement {_fmt(fig.agreement)}  kappa {_fmt(fig.kappa)}  "
                f"catch {_fmt(fig.catch_rate)}",
            )
        )
    for label, value in rows:
        table.add_row(label, value)
    return table


def _auc_line(record: CalibrationRecord) -> str:
    """`0.898; the signals alone 0.899: the model adds -0.001 (under 0.050: ...)`."""
    from toolgrade.calibration.records import MODEL_GAIN_MIN, signals_suffice

    line = f"{_fmt(record.cv_auc)}"
    if record.signals_cv_auc is None or record.cv_auc is None:
        return line
    gain = record.cv_auc - record.signals_cv_auc
    verdict = (f"under {MODEL_GAIN_MIN:.3f}: with no settings `run` judges this dimension by "
               "the signals alone where a signals-judge record exists" if signals_suffice(record)
               else f"at least {MODEL_GAIN_MIN:.3f}: the model is asked")
    return f"{line}; the signals alone {_fmt(record.signals_cv_auc)}: the model adds " \
        f"{gain:+.3f} ({verdict})"


def _band_line(record: CalibrationRecord) -> str:
    """`[0.31, 0.62]: decides 58% at kappa 0.86 [0.80, 0.93] (cross-validated, target 0.8)`."""
    band = "none" if record.band is None else f"[{record.band[0]:.3f}, {record.band[1]:.3f}]"
    ci = record.cv_decided_kappa_ci
    shown = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    return (f"{band}: decides {_fmt(record.cv_coverage, 2)} of items at kappa "
            f"{_fmt(record.cv_decided_kappa)}{shown} (cross-validated; target "
            f"{record.band_target_kappa:.2f} on the interval's lower bound)")


def calibrate(
    dimension: Annotated[
        str, typer.Option("--dimension", "-d", help=f"One of: {', '.join(JUDGE_DIMENSIONS)}.")
    ],
    model: Annotated[
        str | None, typer.Option("--model", "-m", help="Judge model (any litellm string; "
                                 "`signals`: the signals judge, which asks no model).")
    ] = None,
    set_path: Annotated[
        list[Path] | None,
        typer.Option("--set", help="A labelled JSONL set (default: the shipped one); repeat "
                     "to measure several together."),
    ] = None,
    repeats: Annotated[
        int, typer.Option("--repeats", min=1, help="Ask each item K times (flip rate).")
    ] = 1,
    out_path: Annotated[
        Path | None, typer.Option("--out", help="Also write the record here.")
    ] = None,
    fit_threshold: Annotated[
        bool, typer.Option("--fit-threshold", help="Fit the P(pass) cut (logprob mode).")
    ] = False,
    fit: Annotated[
        bool,
        typer.Option(
            "--fit",
            help="Fit a logistic combination of P(pass) and the dimension's deterministic "
            "signals, with its cut, cross-validated (logprob mode); stored in the record.",
        ),
    ] = False,
    target_kappa: Annotated[
        float | None,
        typer.Option(
            "--target-kappa", min=-1.0, max=1.0,
            help="With --fit/--fit-threshold: the decided-items kappa the abstention band is "
            "fitted to (its cross-validated lower 95% bound); default: the dimension's "
            "`target_kappa` setting, else 0.8.",
        ),
    ] = None,
    cache_dir: Annotated[
        Path | None, typer.Option("--cache-dir", help="Judge cache folder.")
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Do not read or write the cache.")
    ] = False,
    cache_backend: CacheBackendOption = None,
    cache_url: CacheUrlOption = None,
    config: Annotated[Path | None, typer.Option("--config", help="Settings file (TOML).")] = None,
) -> None:
    """Measure a judge's agreement with a labelled calibration set and write the record."""
    from toolgrade.calibration.calibrate import load_sets
    from toolgrade.calibration.records import (
        calibration_dir,
        record_json,
        refusal_to_write,
        write_record,
    )
    from toolgrade.judging.combine import decides_nothing
    from toolgrade.settings import load_settings

    with input_errors_exit():
        if dimension not in JUDGE_DIMENSIONS:
            fail(
                f"toolgrade: unknown dimension {dimension!r}; one of: {', '.join(JUDGE_DIMENSIONS)}"
            )
        dim: JudgeDimension = dimension
        if out_path is not None and out_path.is_dir():
            fail(f"toolgrade: --out {out_path} is a folder; name the record's file")
        loaded = load_sets(set_path or [], dim)
        settings = load_settings(config)
        judge = with_cache_options(settings.judge, cache_backend, cache_url)
        settings = settings.model_copy(update={"judge": judge})
        # Repeats through a cache would replay the first verdict and hide every flip.
        judge_settings = _judge_settings(
            settings.judge,
            dim,
            model=model,
            cache_dir=cache_dir,
            no_cache=no_cache or repeats > 1,
            logprob=fit_threshold or fit,
            raw=fit,
        )
        if repeats > 1 and not no_cache:
            err.print("note: cache off for --repeats > 1 so every repeat is a fresh call")
        judges = _Judges(judge_settings, dim)
        try:
            first = judges.new()
            record = _run(loaded, first, judges, repeats, fit_threshold, fit, target_kappa)
        finally:
            judges.close()
        out.print(summary_table(record))
        out.print(f"judge usage: {judges.usage()}", markup=False)
        refusal = refusal_to_write(
            record, decides_nothing=decides_nothing(judge_settings.for_dimension(dim)),
            cached=judge_settings.use_cache)
        if refusal is not None:
            fail(f"toolgrade: {refusal}", EXIT_FAILED)
        target = calibration_dir(settings.judge.calibration_dir)
        written = write_record(record, target)
        out.print(f"record: {written}", markup=False)
        if out_path is not None:
            out_path.parent.mkdir(parents=True, exist_ok=True)
            out_path.write_text(record_json(record), encoding="utf-8")
            out.print(f"record: {out_path}", markup=False)


def _run(
    loaded: CalibrationSet,
    judge: JudgePort,
    judges: _Judges,
    repeats: int,
    fit_threshold: bool,
    fit: bool = False,
    target_kappa: float | None = None,
) -> CalibrationRecord:
    """Run the calibration under a progress bar; threshold-fitting problems exit 2."""
    from toolgrade.calibration.band import DEFAULT_TARGET_KAPPA
    from toolgrade.calibration.calibrate import CalibrationError
    from toolgrade.calibration.calibrate import calibrate as run_calibration
    from toolgrade.judging.settle import signal_source
    from toolgrade.judging.signals_judge import is_signals_model

    dimension, model = judges.dimension, judges.model()
    settings = judges.settings.for_dimension(dimension)
    if target_kappa is None:
        target_kappa = settings.target_kappa if settings.target_kappa is not None \
            else DEFAULT_TARGET_KAPPA
    columns = (*Progress.get_default_columns()[:1], BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeRemainingColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"judging {dimension}", total=len(loaded.items) * repeats)
        try:
            return run_calibration(
                loaded.items,
                judge,
                dimension=dimension,
                model=model,
                set_sha256=loaded.sha256,
                repeats=repeats,
                progress=lambda done, _total: bar.update(task, completed=done),
                judge_factory=judges.new,
                fit_threshold=fit_threshold,
                threshold=settings.threshold if settings.mode == "logprob" else None,
                set_source=loaded.source,
                signal_source=signal_source(dimension) if fit else None,
                target_kappa=target_kappa,
                signals_only=is_signals_model(model),
                examples=judges.examples(),
            )
        except CalibrationError as exc:
            fail(f"toolgrade: {exc}", EXIT_INPUT)
