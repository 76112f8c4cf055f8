"""Building the judges for a run, with their calibration records and kappa floors."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from toolgrade.calibration.records import DECIDING_KAPPA_FLOOR
from toolgrade.errors import ConfigError
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension
from toolgrade.models.calibration_data import CalibrationSummary
from toolgrade.models.judge_usage import JudgeUsage, RunJudge, UsageByDimension
from toolgrade.settings import JudgeSettings, Settings

if TYPE_CHECKING:
    from toolgrade.calibration.records import CalibrationRecord

#: The case key that makes each dimension decide.
DECIDING_KEYS: dict[JudgeDimension, str] = {
    "alternate_route": "selection.judge_alternates",
    "recovery_quality": "recovery.judge_quality",
}

#: Which suite cases ask which dimension to decide (`checks.adjudication.deciding_dimensions`).
Deciding = Mapping[JudgeDimension, list[str]]


@dataclass
class JudgeSetup:
    """The judge engine of a run (None when off) and what the report says about each judge."""

    engine: RunJudge | None = None
    settings: JudgeSettings = field(default_factory=JudgeSettings)
    calibration: dict[JudgeDimension, CalibrationSummary | None] = field(default_factory=dict)
    disabled_reason: str | None = None
    #: Per escalating dimension: the escalation judge's model and calibration
    #: (judging.escalation).
    escalation: UsageByDimension = field(default_factory=dict)

    @property
    def judge_concurrency(self) -> int:
        """Trajectories graded at once: bounded by the judge concurrency."""
        return self.settings.concurrency if self.engine is not None else 1

    def usage(self) -> UsageByDimension:
        """Per-dimension usage from the engine, or an empty mapping."""
        return dict(self.engine.usage()) if self.engine is not None else {}

    def status_line(self) -> str:
        """`judge: 12 calls, 30 cache hits` for the progress bar."""
        if self.engine is None:
            return "judges off"
        usage = self.usage().values()
        calls = sum(u.get("calls", 0) for u in usage)
        hits = sum(u.get("cache_hits", 0) for u in usage)
        return f"judge calls {calls}, cache hits {hits}"

    def summary(
        self, items: Mapping[str, dict[str, int]] | None = None
    ) -> UsageByDimension:
        """`summary.judges`: per dimension model, usage and calibration status; `items`: where
        each dimension's items went (`scoring.adjudication.JudgeItemTally`)."""
        usage = self.usage()
        out: UsageByDimension = {}
        for dimension in JUDGE_DIMENSIONS:
            block: JudgeUsage = usage.get(dimension, {}).copy()
            if self.engine is None:
                block.setdefault("model", None)
                block["status"] = self.disabled_reason or "off"
            else:
                block.setdefault("model", self.engine.model_for(dimension))
                if not self.settings.for_dimension(dimension).enabled:
                    block["status"] = "off (settings)"
            block["calibration"] = self.calibration.get(dimension)
            if dimension in self.escalation:
                block["escalation"] = {**block.get("escalation", {}),
                                       **self.escalation[dimension]}
            if items and dimension in items:
                block["items"] = items[dimension]
            out[dimension] = block
        return out


def _deciding_problem(
    dimension: JudgeDimension, model: str, cases: list[str], reason: str, directory: Path
) -> str:
    """Why a deciding judge may not decide, with where records were looked for and what to do."""
    shown = ", ".join(cases[:5]) + (", ..." if len(cases) > 5 else "")
    return (
        f"{dimension} decides outcomes in {len(cases)} case(s) ({DECIDING_KEYS[dimension]}: "
        f"true: {shown}) but its judge {model} is not calibrated over the floor: {reason}. "
        f"Records are looked up in {directory} ([judge] calibration_dir, else "
        "$TOOLGRADE_CALIBRATION_DIR, else ~/.cache/toolgrade/calibration), then among the "
        "records shipped with toolgrade. Measure this judge with `toolgrade calibrate "
        f"--dimension {dimension} --model {model}` (it writes its record there), or leave "
        "[judge] require_calibration unset to grade with its items awaiting adjudication, or "
        "set it to false to let it decide uncalibrated"
    )


def _deciding_reason(
    record: CalibrationRecord | None, floor: float, mismatch: str | None, fitted: bool,
    band: tuple[float, float] | None = None,
) -> str | None:
    from toolgrade.calibration.records import check_floor

    if record is None:
        reason = "no calibration record for this model"
        return f"{mismatch}; {reason}" if mismatch else reason
    found = check_floor(record, floor, fitted=fitted, band=band)
    return f"{mismatch}; {found}" if found and mismatch else found


def _calibration(
    settings: JudgeSettings,
    model_for: Callable[[JudgeDimension], str],
    template_hash_for: Callable[[JudgeDimension], str | None],
    deciding: Deciding | None = None,
    notify: Callable[[str], None] | None = None,
    withheld: dict[JudgeDimension, str] | None = None,
) -> dict[JudgeDimension, CalibrationSummary | None]:
    """Each judged dimension's calibration record (as the report shows it); applies the
    floors. A deciding dimension under its floor is refused (`require_calibration = true`),
    let decide with a warning (`false`), or, unset, put into `withheld` with why (its items
    are then left unscored, awaiting adjudication), with one line said about it."""
    from toolgrade.calibration.records import (
        calibration_dir,
        check_floor,
        judges_as_fitted,
        summary_for_run,
    )

    directory = calibration_dir(settings.calibration_dir)
    found: dict[JudgeDimension, CalibrationSummary | None] = {}
    refusals = []
    undecidable = []
    below: dict[JudgeDimension, tuple[str, int]] = {}  # under the floor: (model, cases)
    for dimension in JUDGE_DIMENSIONS:
        dim_settings = settings.for_dimension(dimension)
        if not dim_settings.enabled:
            continue  # not judged: no record to show, no floor to apply
        model = model_for(dimension)
        record, mismatch = _matching_record(directory, model, dimension, dim_settings,
                                            template_hash_for(dimension))
        fitted = record is not None and judges_as_fitted(
            record, dim_settings.threshold, dim_settings.combination)
        band = dim_settings.band if dim_settings.mode == "logprob" else None
        found[dimension] = summary_for_run(record, fitted=fitted, band=band)
        if dim_settings.kappa_floor is not None:
            reason = check_floor(record, dim_settings.kappa_floor, fitted=fitted, band=band)
            if reason is not None and mismatch is not None:
                reason = f"{mismatch}; {reason}"
            if reason is not None:
                refusals.append(f"{dimension}: {reason}")
        cases = (deciding or {}).get(dimension)
        if cases and model != "unconfigured":  # no model: unscored verdicts, which never pass
            floor = dim_settings.kappa_floor
            why = _deciding_reason(record, DECIDING_KAPPA_FLOOR if floor is None else floor,
                                   mismatch, fitted, band)
            if why is not None:
                undecidable.append(_deciding_problem(dimension, model, cases, why, directory))
                below[dimension] = (model, len(cases))
    if refusals:
        raise ConfigError("judge refused by its kappa floor: " + "; ".join(refusals))
    if undecidable and settings.require_calibration is True:
        raise ConfigError("; ".join(undecidable))
    if undecidable:
        _withhold_undecidable(settings, below, notify, withheld)
    return found


def _matching_record(directory: Path, model: str, dimension: JudgeDimension,
                     table: JudgeSettings, template_hash: str | None,
                     ) -> tuple[CalibrationRecord | None, str | None]:
    """The calibration record that applies to `model` on `dimension`, and why the closest one
    does not when none does.

    The user's own records first; then the records shipped for the default local judge. A
    record of another mode or template is passed over (the next one may match); when none
    matches, the first mismatch is the reason given.
    """
    from toolgrade.calibration.records import find_record, record_mismatch, shipped_records_dir

    mismatch = None
    mode, examples, checklist = table.mode, table.examples, table.asks_checklist
    for folder in (directory, shipped_records_dir()):
        candidate = find_record(folder, model, dimension, mode=mode, examples=examples,
                                checklist=checklist)
        candidate = candidate or find_record(folder, model, dimension)  # to say why not
        if candidate is None:
            continue
        why = record_mismatch(candidate, mode, template_hash, examples, checklist)
        if why is None:
            return candidate, None
        mismatch = mismatch or why
    return None, mismatch


def _withhold_undecidable(settings: JudgeSettings, below: dict[JudgeDimension, tuple[str, int]],
                          notify: Callable[[str], None] | None,
                          withheld: dict[JudgeDimension, str] | None) -> None:
    """Deciding dimensions under their floor: let decide with a warning (`require_calibration
    = false`), else withhold their decisions (unscored, awaiting adjudication), saying so."""
    names = ", ".join(below)
    if settings.require_calibration is False:
        if notify is not None:
            notify(f"warning: [judge] require_calibration = false: {names} decide(s) outcomes "
                   "with no calibration record over the floor; their verdicts are not measured")
        return
    from toolgrade.judging.escalation import awaiting_reason

    for dimension, (model, _) in below.items():
        if withheld is not None:
            withheld[dimension] = awaiting_reason(dimension, model)
    if notify is not None:
        n_cases = sum(n for _, n in below.values())
        notify(f"note: {names} not calibrated over the kappa floor: what it would decide in "
               f"{n_cases} case(s) is left unscored, awaiting adjudication (`toolgrade adjudicate "
               "DIR`); calibrate it (`toolgrade calibrate`) or set [judge] require_calibration "
               "= true to refuse such runs")


def _require_signals_weights(settings: JudgeSettings) -> None:
    """A dimension judged by the signals judge needs fitted weights: unweighted, it would
    read every item as P(pass) 0.5."""
    from toolgrade.judging.factory import resolve_models
    from toolgrade.judging.signals_judge import has_signals, is_signals_model

    for dimension, model in resolve_models(settings).items():
        if not is_signals_model(model):
            continue
        where = f"[judge.dimensions.{dimension}]"
        if not has_signals(dimension):
            raise ConfigError(f"{where} model = \"signals\": {dimension} has no deterministic "
                              "signals; name a model for it")
        if settings.for_dimension(dimension).combination is None:
            raise ConfigError(
                f"{where} model = \"signals\" needs fitted weights: a record from "
                f"`toolgrade calibrate --dimension {dimension} --model signals --fit`, or a "
                f"`combination` in {where}")


def setup_judges(
    settings: Settings, notify: Callable[[str], None], deciding: Deciding | None = None
) -> JudgeSetup:
    """Build the judge engine (or none), look up calibration records and apply floors.

    `deciding`: the dimensions the suite asks to decide, with the cases asking; each needs a
    calibration record over its floor (`DECIDING_KAPPA_FLOOR` unless one is configured). One
    under it is withheld (`judging.escalation`: its requests answered unscored, awaiting
    adjudication; said once); `require_calibration = true` makes it a ConfigError before any
    model call instead, and `false` lets it decide (warned once).
    """
    judge_settings = settings.judge
    if not judge_settings.enabled:
        return JudgeSetup(settings=judge_settings, disabled_reason="off (--no-judge)")
    from toolgrade.judging import build_judge
    from toolgrade.judging.defaults import configured

    # No settings for a local-model dimension: run it as its shipped record measured it.
    judge_settings = configured(judge_settings, notify)
    _require_signals_weights(judge_settings)
    engine = build_judge(judge_settings, notify=notify)
    if engine is None:
        return JudgeSetup(settings=judge_settings, disabled_reason="off (no judge model available)")
    withheld: dict[JudgeDimension, str] = {}
    calibration = _calibration(
        judge_settings, engine.model_for, engine.template_hash_for, deciding, notify, withheld
    )
    judge: RunJudge = engine
    if withheld:
        # Withheld requests come back unscored; the escalation judge (if any) then gets them.
        from toolgrade.judging.escalation import WithholdingJudge

        judge = WithholdingJudge(engine, withheld)
    from toolgrade.judging.escalation import add_escalation

    judge, escalation = add_escalation(judge, judge_settings, deciding, notify)
    return JudgeSetup(engine=judge, settings=judge_settings, calibration=calibration,
                      escalation=escalation)
