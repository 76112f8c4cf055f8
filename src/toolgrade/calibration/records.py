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
    """How far one judge model agrees with one labelled set (DESIGN section 6).

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
    toolgrade_version: str | None = None
    created_at: str
    disagreements: list[Disagreement] = Field(default_factory=list)

    def created(self) -> datetime:
        """`created_at` as a datetime (records are ordered by it)."""
        return datetime.fromisoformat(self.created_at)


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


def record_filename(model: str, dimension: str, set_sha256: str, mode: str | None = None) -> str:
    """The file name of the record for (model, dimension, set hash, mode); a newer run replaces
    it. A reasoned-mode record is named apart, so calibrating one mode keeps the other's."""
    digest = hashlib.sha256(model.encode()).hexdigest()[:8]
    suffix = "__reasoned" if mode == "reasoned" else ""
    return f"{dimension}__{_slug(model)}-{digest}__{set_sha256[:12]}{suffix}.json"


def write_record(record: CalibrationRecord, directory: Path) -> Path:
    """Write `record` into `directory` (created if needed) and return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / record_filename(
        record.model, record.dimension, record.set_sha256, record.mode
    )
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(record_json(record), encoding="utf-8")
    tmp.replace(path)  # atomic: a concurrent reader never sees half a record
    return path


def record_json(record: CalibrationRecord) -> str:
    """The record as indented JSON text."""
    return json_out.dumps(record.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


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
) -> CalibrationRecord | None:
    """The newest record for (model, dimension) on the given set, by default the shipped set;
    with `mode`, the newest of that mode (records of unknown mode count as any).

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
        if best is None or record.created() > best.created():
            best = record
    return best


def record_mismatch(
    record: CalibrationRecord, mode: str, template_hash: str | None
) -> str | None:
    """Why a record does not describe the judge a run builds, or None when it does.

    A record measured in another answer mode, or with another version of the prompt template,
    says nothing about this judge's agreement: it is neither shown nor used for a floor.
    """
    if record.mode is not None and record.mode != mode:
        return f"its record was measured in {record.mode} mode, this run judges in {mode} mode"
    if record.template_hash and template_hash and record.template_hash != template_hash:
        return "its record was measured with another version of the prompt template"
    return None


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


def check_floor(
    record: CalibrationRecord | None, floor: float | None, *, fitted: bool = False
) -> str | None:
    """Why a judge must be refused under `floor`, or None when it may be used.

    Refused when a floor is configured and there is no record, no interval, more than half
    of the record's verdicts unscored (its kappa then measures only the items the judge chose to
    answer), or the interval's lower bound under the floor. `fitted` (the run judges as the
    record was fitted, `judges_as_fitted`): the cross-validated interval is the one checked.
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
    ci, kappa, which = record.kappa_ci, record.kappa, "kappa"
    if fitted and record.cv_kappa_ci is not None:
        ci, kappa, which = record.cv_kappa_ci, record.cv_kappa, "cross-validated kappa"
    if ci is None:
        return f"{where}: kappa interval undefined on its calibration set; floor {floor:.2f} unmet"
    low = ci[0]
    if low < floor:
        return (
            f"{where}: {which} 95% CI lower bound {low:.3f} is under the floor {floor:.2f} "
            f"({which} {kappa if kappa is not None else float('nan'):.3f}, "
            f"n={record.n}, set {record.set_sha256[:12]})"
        )
    return None


def summary_for_run(record: CalibrationRecord | None) -> CalibrationSummary | None:
    """The short form `toolgrade run` puts under summary.json judges.<dimension>.calibration."""
    if record is None:
        return None
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
    }
