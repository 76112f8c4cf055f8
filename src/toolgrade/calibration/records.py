"""Calibration records: one JSON file per (model, dimension, set hash), and the floor check.

`toolgrade calibrate` writes records here; `toolgrade run` looks them up with `find_record` to
show each judge's agreement beside its verdicts, and `check_floor` to refuse a judge whose
kappa interval's lower bound is under the configured floor.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolgrade.errors import ConfigError
from toolgrade.jsonio import out as json_out
from toolgrade.models import Combination, JudgeDimension
from toolgrade.models.calibration_data import CalibrationSummary

#: Environment variable naming the records directory (below the settings, above the default).
CALIBRATION_DIR_ENV = "TOOLGRADE_CALIBRATION_DIR"
DEFAULT_CALIBRATION_DIR = Path("~/.cache/toolgrade/calibration")
#: 2: the abstention band (`band`, `cv_coverage`, `cv_decided_kappa`, ...). A version-1 record
#: still loads: it has no band, so its judge decides every item, as before.
RECORD_SCHEMA_VERSION = 2


class TagFigures(BaseModel):
    """Agreement figures restricted to the items carrying one tag."""

    model_config = ConfigDict(frozen=True)

    n: int
    observations: int
    unscored: int
    human_pass_rate: float | None
    judge_pass_rate: float | None
    agreement: float | None
    kappa: float | None
    catch_rate: float | None
    false_pass_rate: float | None


class Disagreement(BaseModel):
    """An item the judge got wrong at least once (for reading the record, not for statistics)."""

    model_config = ConfigDict(frozen=True)

    id: str
    label: str
    verdicts: list[str]
    tags: list[str] = Field(default_factory=list)
    reason: str = ""


class BandLevel(BaseModel):
    """One coverage level of a fitted band: what cross-validation measured at it."""

    model_config = ConfigDict(frozen=True)

    level: float = Field(description="Abstain on at most (1 - level) of the items.")
    band: tuple[float, float] | None = Field(
        description="The band fitted at this level on every item (None: no band).")
    cv_coverage: float
    cv_decided_kappa: float | None
    cv_decided_kappa_ci: tuple[float, float] | None


class CalibrationRecord(BaseModel):
    """How far one judge model agrees with one labelled set (docs/calibration.md).

    Rates are None when undefined (no denominator); `kappa` is None when every observation
    falls in one shared category. Unscored verdicts are counted in `unscored` and left out of
    every agreement figure.
    """

    model_config = ConfigDict(frozen=True)

    schema_version: int = RECORD_SCHEMA_VERSION
    model: str
    dimension: JudgeDimension
    set_sha256: str
    set_source: str | None = None
    n: int = Field(description="Items in the set.")
    repeats: int = 1
    observations: int = Field(description="Scored (item, repeat) verdicts used for agreement.")
    unscored: int = Field(description="Verdicts that were unscored, crashed calls included.")
    errors: int = Field(default=0, description="Judge calls that raised (also counted unscored).")
    human_pass_rate: float | None
    judge_pass_rate: float | None
    confusion: dict[str, dict[str, int]]
    agreement: float | None
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    ac1: float | None
    catch_rate: float | None = Field(description="Human-fail observations the judge failed.")
    false_pass_rate: float | None = Field(description="Human-fail observations the judge passed.")
    false_fail_rate: float | None = Field(
        default=None, description="Human-pass observations the judge failed."
    )
    flip_rate: float | None = Field(description="Items whose verdict differs between repeats.")
    flipped: int = 0
    per_tag: dict[str, TagFigures] = Field(default_factory=dict)
    human_kappa: float | None = None
    human_kappa_method: str = "fleiss"
    human_kappa_items: int = 0
    bootstrap: dict[str, int] = Field(default_factory=dict)
    threshold: float | None = Field(default=None, description="P(pass) cut the judge used.")
    mode: Literal["reasoned", "logprob"] | None = Field(
        default=None,
        description="How the judge answered (logprob: verdicts carried P(pass)); None: unknown.",
    )
    fitted_threshold: float | None = None
    fit_split_kappa: float | None = None
    holdout_kappa: float | None = None
    holdout_agreement: float | None = None
    cv_threshold: float | None = Field(
        default=None, description="The P(pass) cut fitted on every item: the one to judge with."
    )
    cv_folds: int | None = Field(
        default=None, description="k of the k-fold cross-validation of the fitted cut."
    )
    cv_kappa: float | None = Field(
        default=None,
        description="Kappa of the out-of-fold verdicts (each item judged at a cut fitted "
        "without it): the figure a fitted cut can be trusted to reach on new items.",
    )
    cv_kappa_ci: tuple[float, float] | None = None
    cv_agreement: float | None = None
    combination: Combination | None = Field(
        default=None,
        description="`calibrate --fit`: the logistic combination of P(pass) and the "
        "dimension's signals; the cuts and the cv_* figures are then on the combined P(pass).",
    )
    cv_auc: float | None = Field(
        default=None, description="`calibrate --fit`: the ranking AUC of the out-of-fold "
        "combined P(pass) against the human labels.")
    signals_cv_auc: float | None = Field(
        default=None, description="`calibrate --fit` of a model: the same AUC for the "
        "dimension's signals alone, fitted on the same items (what the model adds is "
        "cv_auc - signals_cv_auc; docs/calibration.md, \"The signals judge\").")
    band: tuple[float, float] | None = Field(
        default=None,
        description="`calibrate --fit`: the abstention band on the final P(pass); a verdict "
        "inside it is unscored, reason uncertain. None: the judge decides every item.",
    )
    band_target_kappa: float | None = Field(
        default=None, description="The decided-items kappa the band was fitted to.")
    band_bound: str | None = Field(
        default=None, description="The figure the target was read against "
        "(cv_decided_kappa_ci_low: the lower 95% bound of the cross-validated decided kappa).")
    cv_coverage: float | None = Field(
        default=None, description="Cross-validated share of items the band decides.")
    cv_decided_kappa: float | None = Field(
        default=None, description="Cross-validated kappa on the items the band decides.")
    cv_decided_kappa_ci: tuple[float, float] | None = None
    band_levels: list[BandLevel] = Field(
        default_factory=list,
        description="Every coverage level tried (a settings `target_kappa` picks among them).",
    )
    template_hash: str | None = None
    checklist_hash: str | None = Field(
        default=None, description="Checklist mode: the hash of the checklist file the judge "
        "answered (template_hash then covers the template and the checklist together).")
    examples: int | None = Field(
        default=None, description="The nearest labelled examples shown before each item (K); "
        "unset: none (template_hash then covers K and the examples' pool too).")
    examples_pool_sha256: str | None = Field(
        default=None, description="The hash of the labelled sets the examples were drawn from.")
    toolgrade_version: str | None = None
    created_at: str
    disagreements: list[Disagreement] = Field(default_factory=list)

    def created(self) -> datetime:
        """`created_at` as a datetime (records are ordered by it)."""
        return datetime.fromisoformat(self.created_at)

    @property
    def on_checklist(self) -> bool:
        """True when the judge measured answered the checklist, not the single question."""
        return self.checklist_hash is not None


def calibration_dir(configured: Path | None = None) -> Path:
    """Where records live: the configured directory, else $TOOLGRADE_CALIBRATION_DIR, else
    ~/.cache/toolgrade/calibration."""
    if configured is not None:
        return configured.expanduser()
    env = os.environ.get(CALIBRATION_DIR_ENV)
    return Path(env).expanduser() if env else DEFAULT_CALIBRATION_DIR.expanduser()


def shipped_records_dir() -> Path:
    """Records measured by the toolgrade developers and shipped with the package.

    They cover the embedded local judge, so a fresh install shows its calibration; a user's own
    records (in `calibration_dir`) take precedence.
    """
    return Path(str(resources.files("toolgrade").joinpath("calibration_records")))


def shipped_set_bytes(dimension: str) -> bytes:
    """The bytes of the calibration set shipped with the package for `dimension`."""
    return (
        resources.files("toolgrade").joinpath("calibration_sets", f"{dimension}.jsonl").read_bytes()
    )


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of a set's bytes (identifies exactly which labels a record was measured on)."""
    return hashlib.sha256(data).hexdigest()


def shipped_set_sha256(dimension: str) -> str:
    """The hash of the shipped set for `dimension` (records for other sets do not match)."""
    return sha256_hex(shipped_set_bytes(dimension))


def _slug(model: str) -> str:
    # Provider strings hold '/' and ':'; keep file names portable and still readable.
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_") or "model"


def record_filename(model: str, dimension: str, set_sha256: str, mode: str | None = None,
                    examples: int | None = None, checklist: bool = False) -> str:
    """The file name of the record for (model, dimension, set hash, mode, checklist,
    examples); a newer run replaces it. A reasoned-mode record is named apart, so calibrating
    one mode keeps the other's; so is a checklist record (`__checklist`) and one measured with
    K nearest examples (`__examplesK`)."""
    digest = hashlib.sha256(model.encode()).hexdigest()[:8]
    suffix = "__reasoned" if mode == "reasoned" else ""
    suffix += "__checklist" if checklist else ""
    suffix += f"__examples{examples}" if examples else ""
    return f"{dimension}__{_slug(model)}-{digest}__{set_sha256[:12]}{suffix}.json"


def write_record(record: CalibrationRecord, directory: Path) -> Path:
    """Write `record` into `directory` (created if needed) and return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / record_filename(
        record.model, record.dimension, record.set_sha256, record.mode, record.examples,
        checklist=record.on_checklist,
    )
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(record_json(record), encoding="utf-8")
    tmp.replace(path)  # atomic: a concurrent reader never sees half a record
    return path


def record_json(record: CalibrationRecord) -> str:
    """The record as indented JSON text."""
    data = record.model_dump(mode="json")
    for name in ("checklist_hash", "examples", "examples_pool_sha256"):
        if data.get(name) is None:
            del data[name]  # records without a checklist or examples keep the form they had
    return json_out.dumps(data, indent=2, ensure_ascii=False) + "\n"


def read_record(path: Path) -> CalibrationRecord:
    """Read one record; a malformed file raises ConfigError naming it."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        return CalibrationRecord.model_validate(data)
    except (OSError, json.JSONDecodeError, ValidationError) as exc:
        raise ConfigError(f"{path}: not a calibration record: {exc}") from exc


def find_record(
    directory: Path,
    model: str,
    dimension: str,
    set_sha256: str | None = None,
    mode: str | None = None,
    examples: int | None = None,
    checklist: bool | None = None,
) -> CalibrationRecord | None:
    """The newest record for (model, dimension) on the given set, by default the shipped set;
    with `mode`, the newest of that mode (records of unknown mode count as any); with
    `examples`, the newest measured with that many nearest examples per item; with
    `checklist`, the newest measured with (True) or without (False) the checklist.

    Unreadable files in the directory are skipped: a stray file must not stop a run.
    """
    wanted = set_sha256 if set_sha256 is not None else shipped_set_sha256(dimension)
    if not directory.is_dir():
        return None
    best: CalibrationRecord | None = None
    for path in directory.glob(f"{dimension}__*.json"):
        try:
            record = read_record(path)
        except ConfigError:
            continue
        if (record.model, record.dimension, record.set_sha256) != (model, dimension, wanted):
            continue
        if mode is not None and record.mode not in (None, mode):
            continue
        if examples is not None and (record.examples or 0) != examples:
            continue
        if checklist is not None and record.on_checklist != checklist:
            continue
        if best is None or record.created() > best.created():
            best = record
    return best


def record_mismatch(
    record: CalibrationRecord, mode: str, template_hash: str | None, examples: int = 0,
    checklist: bool | None = None,
) -> str | None:
    """Why a record does not describe the judge a run builds, or None when it does.

    A record measured in another answer mode, with or without the checklist unlike the run,
    with another number of nearest examples, or with another version of the prompt template
    (or examples' pool), says nothing about this judge's agreement: it is neither shown nor
    used for a floor.
    """
    if record.mode is not None and record.mode != mode:
        return f"its record was measured in {record.mode} mode, this run judges in {mode} mode"
    if checklist is not None and record.on_checklist != checklist:
        form = {True: "checklist", False: "one question"}
        return (f"its record was measured with the {form[record.on_checklist]}, this run asks "
                f"the {form[checklist]}")
    if (record.examples or 0) != examples:
        return (f"its record was measured with {record.examples or 0} nearest examples per "
                f"item, this run shows {examples}")
    if record.template_hash and template_hash and record.template_hash != template_hash:
        return "its record was measured with another version of the prompt template"
    return None


class BandChoice(BaseModel):
    """The band a run judges with, picked from a record for a target kappa, and what
    cross-validation measured at it."""

    model_config = ConfigDict(frozen=True)

    band: tuple[float, float] | None
    target_kappa: float
    cv_coverage: float
    cv_decided_kappa: float | None
    cv_decided_kappa_ci: tuple[float, float] | None


def band_for_target(record: CalibrationRecord, target: float | None) -> BandChoice | None:
    """The record's band for `target` (None: the one it was fitted to): the level of widest
    cross-validated coverage whose decided kappa's lower bound reaches it, else the band that
    decides nothing. None for a record with no band fitted (format 1, or no `--fit`)."""
    if record.band_target_kappa is None or record.cv_coverage is None:
        return None
    if target is None or abs(target - record.band_target_kappa) < 1e-12:
        return BandChoice(band=record.band, target_kappa=record.band_target_kappa,
                          cv_coverage=record.cv_coverage,
                          cv_decided_kappa=record.cv_decided_kappa,
                          cv_decided_kappa_ci=record.cv_decided_kappa_ci)
    reaching = [lv for lv in record.band_levels
                if lv.cv_decided_kappa_ci is not None and lv.cv_decided_kappa_ci[0] >= target]
    if not reaching:
        return BandChoice(band=(0.0, 1.0), target_kappa=target, cv_coverage=0.0,
                          cv_decided_kappa=None, cv_decided_kappa_ci=None)
    best = max(reaching, key=lambda lv: (lv.cv_coverage, lv.cv_decided_kappa or -1.0, lv.level))
    return BandChoice(band=best.band, target_kappa=target, cv_coverage=best.cv_coverage,
                      cv_decided_kappa=best.cv_decided_kappa,
                      cv_decided_kappa_ci=best.cv_decided_kappa_ci)


def band_figures(record: CalibrationRecord, band: tuple[float, float] | None
                 ) -> BandChoice | None:
    """What the record measured at `band`, when `band` is the record's or one of its levels';
    None when the record never measured it."""
    chosen = band_for_target(record, None)
    if chosen is None:
        return None
    if _same_band(chosen.band, band):
        return chosen
    for level in record.band_levels:
        if _same_band(level.band, band):
            return BandChoice(band=level.band, target_kappa=chosen.target_kappa,
                              cv_coverage=level.cv_coverage,
                              cv_decided_kappa=level.cv_decided_kappa,
                              cv_decided_kappa_ci=level.cv_decided_kappa_ci)
    return None


def _same_band(a: tuple[float, float] | None, b: tuple[float, float] | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a[0] - b[0]) < 1e-9 and abs(a[1] - b[1]) < 1e-9


#: The ranking AUC a model must add over its dimension's signals alone to be asked by default.
MODEL_GAIN_MIN = 0.05


def signals_suffice(record: Any) -> bool:
    """True when a model's record says it adds less than `MODEL_GAIN_MIN` of cross-validated
    ranking AUC over its dimension's signals alone (docs/calibration.md, "The signals
    judge")."""
    model_auc = getattr(record, "cv_auc", None)
    signals_auc = getattr(record, "signals_cv_auc", None)  # absent from older records' fakes
    return (model_auc is not None and signals_auc is not None
            and model_auc - signals_auc < MODEL_GAIN_MIN)


def judges_as_fitted(record: CalibrationRecord, threshold: float, combination: Any) -> bool:
    """True when a run judges at the record's fitted cut with its combination (or none), so
    the record's cross-validated figures describe that judge."""
    if record.cv_threshold is None or record.cv_kappa_ci is None:
        return False
    return abs(threshold - record.cv_threshold) < 1e-9 and combination == record.combination


#: The kappa floor a deciding judge must reach when none is configured: the lower bound of its
#: kappa's 95% interval at "substantial" agreement (Landis and Koch), since its verdicts change
#: check outcomes instead of sitting beside them.
DECIDING_KAPPA_FLOOR = 0.6


@dataclass(frozen=True)
class InUse:
    """The figures that describe the judge a run builds: coverage, the kappa on the items it
    decides with its interval, the plain kappa at its cut, and which of them a floor reads."""

    coverage: float | None
    decided_kappa: float | None
    decided_kappa_ci: tuple[float, float] | None
    plain_kappa: float | None
    plain_kappa_ci: tuple[float, float] | None
    plain_cut: float | None
    floor_reads: str
    band: tuple[float, float] | None = None
    target_kappa: float | None = None


def in_use(
    record: CalibrationRecord, *, fitted: bool = False, band: tuple[float, float] | None = None
) -> InUse:
    """The record's figures for a judge run at its fitted cut (`fitted`) with `band`: the
    cross-validated decided kappa where the band is one the record measured; the
    cross-validated plain kappa at a fitted cut without one; else the record's own kappa."""
    if fitted and record.cv_kappa_ci is not None:
        plain = (record.cv_kappa, record.cv_kappa_ci, record.cv_threshold)
        banded = band_figures(record, band) if band is not None else None
        if banded is not None:
            return InUse(banded.cv_coverage, banded.cv_decided_kappa,
                         banded.cv_decided_kappa_ci, *plain, "cv_decided_kappa",
                         band=banded.band, target_kappa=banded.target_kappa)
        if band is None:
            return InUse(1.0, record.cv_kappa, record.cv_kappa_ci, *plain, "cv_kappa")
    cut = record.threshold
    return InUse(1.0 if band is None else None, record.kappa, record.kappa_ci, record.kappa,
                 record.kappa_ci, cut, "kappa", band=band)


#: How a judges table names the figure a floor reads.
FLOOR_FIGURES = {
    "cv_decided_kappa": "cross-validated decided kappa",
    "cv_kappa": "cross-validated kappa",
    "kappa": "kappa",
}


def check_floor(
    record: CalibrationRecord | None,
    floor: float | None,
    *,
    fitted: bool = False,
    band: tuple[float, float] | None = None,
) -> str | None:
    """Why a judge must be refused under `floor`, or None when it may be used.

    Refused when a floor is configured and there is no record, no interval, more than half
    of the record's verdicts unscored (its kappa then measures only the items the judge chose to
    answer), or the interval's lower bound under the floor. The interval read is `in_use`'s:
    with a band the record measured, the cross-validated decided kappa's (a band that decides
    no item decides nothing a floor could refuse); at a fitted cut, the cross-validated one.
    """
    if floor is None:
        return None
    if record is None:
        return (
            f"no calibration record found and a kappa floor of {floor:.2f} is configured; "
            "run `toolgrade calibrate` for this judge model first"
        )
    where = f"{record.dimension} judge {record.model}"
    asked = record.observations + record.unscored
    if record.unscored * 2 > asked:
        return (
            f"{where}: {record.unscored} of {asked} verdicts on its calibration set were "
            f"unscored, so its kappa covers too few items to trust; floor {floor:.2f} unmet"
        )
    figures = in_use(record, fitted=fitted, band=band)
    if figures.floor_reads == "cv_decided_kappa" and figures.coverage == 0.0:
        return None
    ci, kappa = figures.decided_kappa_ci, figures.decided_kappa
    which = FLOOR_FIGURES[figures.floor_reads]
    if ci is None:
        return f"{where}: {which} interval undefined on its calibration set; " \
            f"floor {floor:.2f} unmet"
    low = ci[0]
    if low < floor:
        return (
            f"{where}: {which} 95% CI lower bound {low:.3f} is under the floor {floor:.2f} "
            f"({which} {kappa if kappa is not None else float('nan'):.3f}, "
            f"n={record.n}, set {record.set_sha256[:12]})"
        )
    return None


def summary_for_run(
    record: CalibrationRecord | None,
    *,
    fitted: bool = False,
    band: tuple[float, float] | None = None,
) -> CalibrationSummary | None:
    """The short form `toolgrade run` puts under summary.json judges.<dimension>.calibration:
    the record's figures, and under `in_use` those of the configuration the run judges with
    (`in_use`)."""
    if record is None:
        return None
    figures = in_use(record, fitted=fitted, band=band)
    return {
        "kappa": record.kappa,
        "kappa_ci": list(record.kappa_ci) if record.kappa_ci else None,
        "ac1": record.ac1,
        "agreement": record.agreement,
        "catch_rate": record.catch_rate,
        "n": record.n,
        "set_sha256": record.set_sha256,
        "created_at": record.created_at,
        # The figures above were measured in this mode at this P(pass) cut; a run judging at
        # another cut (the fitted one, say) is told where its kappa interval comes from.
        "mode": record.mode,
        "threshold": record.threshold,
        "fitted_threshold": record.fitted_threshold,
        "holdout_kappa": record.holdout_kappa,
        "cv_threshold": record.cv_threshold,
        "cv_kappa": record.cv_kappa,
        "cv_kappa_ci": list(record.cv_kappa_ci) if record.cv_kappa_ci else None,
        "in_use": {
            "coverage": figures.coverage,
            "decided_kappa": figures.decided_kappa,
            "decided_kappa_ci": _listed(figures.decided_kappa_ci),
            "plain_kappa": figures.plain_kappa,
            "plain_kappa_ci": _listed(figures.plain_kappa_ci),
            "cut": figures.plain_cut,
            "band": _listed(figures.band),
            "target_kappa": figures.target_kappa,
            "floor_reads": figures.floor_reads,
        },
    }


def _listed(pair: tuple[float, float] | None) -> list[float] | None:
    return list(pair) if pair is not None else None


def refusal_to_write(record: CalibrationRecord, *, decides_nothing: bool, cached: bool
                     ) -> str | None:
    """Why `record` must not be written (None: it may): a record of nothing, or of mostly
    errors, would replace a good one, and floors would then refuse the judge, so an outage or
    a bad key must not wipe a calibration. `decides_nothing`: the judge as configured abstains
    on every P(pass) (its band covers them all); `cached`: scored verdicts went to the cache
    (said in the advice)."""
    if record.observations == 0 and decides_nothing:
        return (f"the {record.dimension} judge as run configures it decides no item (its band "
                "covers every P(pass)), so there is nothing to measure; the record was not "
                "written. Measure the model itself with --fit")
    if record.observations == 0:
        return (f"no verdict was scored ({record.unscored} unscored, {record.errors} errors); "
                "the record was not written")
    asked = record.n * record.repeats
    if record.errors * 2 > asked:
        # A partial outage (a rate-limit storm): the few verdicts that got through measure
        # almost nothing, yet their kappa interval can be as narrow as [1.0, 1.0].
        return (f"{record.errors} of {asked} verdicts are model-call errors (an outage, rate "
                "limits or a bad key), so this is no measurement of the judge; the record was "
                "not written. Run again once the provider answers"
                + (" (scored verdicts are cached)." if cached else "."))
    return None
