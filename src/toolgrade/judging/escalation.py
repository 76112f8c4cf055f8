"""Undecided items: what a judge may not decide, and what it leaves undecided for a second one.

One room for the two ways a judged item is passed on instead of decided by the first judge.

Withheld dimensions (`WithholdingJudge`). A judge asked to decide outcomes (`judge_alternates`,
`judge_quality`) must carry a calibration record over its kappa floor (docs/judges.md). One
that does not is not let decide, and does not stop the run either: every request of its
dimension is answered `unscored` with the reason "awaiting adjudication" and no model call, so
the items it would have decided stay undecided, are shown as such and are listed by `toolgrade
adjudicate`. Only `[judge] require_calibration = true` refuses such a run instead
(composition/judges.py).

Escalation (`EscalatingJudge`, `add_escalation`). `[judge] escalate_to = MODEL` (or
`[judge.dimensions.D] escalate_to`) names any litellm model. A request goes to the first judge
as always; only when its verdict is `unscored` (uncertain, awaiting adjudication, no model, a
failed call, an unparsed reply) is the same request asked of the escalation judge, and its
answer is marked `escalated: true`, with `escalated_from` saying which judge did not decide and
why. What the escalation judge cannot decide either stays `unscored`, for people (`toolgrade
adjudicate`). A dimension switched off is never escalated.

The escalation judge is an engine of its own: reasoned mode (the first judge's cut, combination
and band were fitted for the first judge's model, not this one), the first judge's sampling,
retries, concurrency and cache (folder and backend), and the cache role "escalation", so its
verdicts are cached under keys of their own even on the same model. It is built beside the first
judge with its own calibration records, looked up as the first judge's are (the user's records,
then the shipped ones) by its own model in reasoned mode, and shown under
`summary.judges.D.escalation.calibration`. Where the suite asks a dimension to decide outcomes,
the escalation judge decides them too, so it needs a record over the same floor: without one it
is not asked for that dimension (its items are left for people) unless `[judge]
require_calibration = false`, and the run says so.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from toolgrade.judging.client import ChatClient
from toolgrade.judging.judge import JudgeEngine
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension, JudgeRequest, Verdict
from toolgrade.models.adjudication import unscored_kind
from toolgrade.models.judge_usage import RunJudge, UsageByDimension
from toolgrade.models.status import AWAITING
from toolgrade.settings import DimensionSettings, JudgeSettings

if TYPE_CHECKING:
    from toolgrade.calibration.records import CalibrationRecord

#: The cache role of escalation verdicts.
ESCALATION_ROLE = "escalation"

#: Settings of the first judge the escalation judge keeps (the rest are the first model's own).
_SHARED = ("temperature", "max_tokens", "timeout_s", "max_attempts", "concurrency", "use_cache",
           "cache_dir", "cache", "calibration_dir", "require_calibration")


def escalation_models(settings: JudgeSettings) -> dict[JudgeDimension, str]:
    """Each judged dimension's escalation model: its table's `escalate_to`, else `[judge]
    escalate_to`; dimensions switched off, or with neither, have none."""
    found: dict[JudgeDimension, str] = {}
    for dim in JUDGE_DIMENSIONS:
        dim_settings = settings.for_dimension(dim)
        if dim_settings.enabled and dim_settings.escalate_to:
            found[dim] = dim_settings.escalate_to
    return found


def escalation_settings(settings: JudgeSettings) -> JudgeSettings | None:
    """The escalation judge's settings (see the module's docstring), or None when no
    dimension escalates."""
    models = escalation_models(settings)
    if not models:
        return None
    shared = {name: getattr(settings, name) for name in _SHARED}
    dimensions = {
        dim: DimensionSettings(model=models[dim],
                               kappa_floor=settings.for_dimension(dim).kappa_floor)
        if dim in models else DimensionSettings(enabled=False)
        for dim in JUDGE_DIMENSIONS
    }
    return JudgeSettings(**shared, dimensions=dimensions)


def build_escalation(
    settings: JudgeSettings,
    client: ChatClient | None = None,
    notify: Callable[[str], None] | None = None,
) -> JudgeEngine | None:
    """The escalation engine for `settings`, or None when no dimension escalates."""
    from toolgrade.judging.factory import build_judge

    second = escalation_settings(settings)
    if second is None:
        return None
    return build_judge(second, client=client, notify=notify, role=ESCALATION_ROLE)


def should_escalate(verdict: Verdict) -> bool:
    """True for a verdict left undecided by a judge that was asked: unscored, and not because
    its dimension is switched off."""
    return not verdict.scored and unscored_kind(verdict.reason) != "off"


class EscalatingJudge:
    """A judge engine whose undecided verdicts are asked again of an escalation engine.

    It stands where the engine stood (`JudgePort`, `usage`, `model_for`, `template_hash_for`,
    `close`): the run needs no other change. `dimensions`: those that escalate (default: every
    dimension the escalation engine has a model for).
    """

    memoises = True

    def __init__(self, first: RunJudge, second: JudgeEngine,
                 dimensions: Collection[JudgeDimension] | None = None) -> None:
        self.first = first
        self.second = second
        self.dimensions = frozenset(
            dimensions if dimensions is not None
            else (d for d in JUDGE_DIMENSIONS if second.model_for(d) != "unconfigured"))

    def judge(self, request: JudgeRequest) -> Verdict:
        """The first judge's verdict, or, when it did not decide, the escalation judge's."""
        verdict = self.first.judge(request)
        if request.dimension not in self.dimensions or not should_escalate(verdict):
            return verdict
        answer = self.second.judge(request)
        origin = f"{verdict.model or self.first.model_for(request.dimension)}: {verdict.reason}"
        return answer.model_copy(update={"escalated": True, "escalated_from": origin})

    def usage(self) -> UsageByDimension:
        """The first judge's usage per dimension, with the escalation judge's under
        `escalation` for each dimension that escalates."""
        usage = dict(self.first.usage())
        second = self.second.usage()
        for dim in self.dimensions:
            usage[dim] = {**usage.get(dim, {}), "escalation": second[dim]}
        return usage

    def model_for(self, dimension: JudgeDimension) -> str:
        """The first judge's model for `dimension`."""
        return self.first.model_for(dimension)

    def escalation_model_for(self, dimension: JudgeDimension) -> str | None:
        """The escalation judge's model for `dimension`, None when it does not escalate."""
        return self.second.model_for(dimension) if dimension in self.dimensions else None

    def template_hash_for(self, dimension: JudgeDimension) -> str:
        """The first judge's template hash (both judges use the same templates)."""
        return self.first.template_hash_for(dimension)

    def close(self) -> None:
        """Close both engines' caches."""
        self.first.close()
        self.second.close()

    def __enter__(self) -> EscalatingJudge:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def awaiting_reason(dimension: JudgeDimension, model: str) -> str:
    """`awaiting adjudication (the alternate_route judge ... is not calibrated over its floor)`."""
    return (f"{AWAITING} (the {dimension} judge {model} is not calibrated over its kappa floor, "
            "so it does not decide)")


class WithholdingJudge:
    """Wraps a judge engine; `withheld` maps each dimension not let decide to its reason.

    Everything but `judge` and `usage` is the engine's (model_for, close, ...).
    """

    def __init__(self, engine: RunJudge, withheld: Mapping[JudgeDimension, str]) -> None:
        self._engine = engine
        self.withheld = dict(withheld)
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()

    def judge(self, request: JudgeRequest) -> Verdict:
        """The engine's verdict, or `unscored` with no model call for a withheld dimension."""
        reason = self.withheld.get(request.dimension)
        if reason is None:
            verdict: Verdict = self._engine.judge(request)
            return verdict
        with self._lock:
            self._counts[request.dimension] += 1
        return Verdict.unscored(reason, model=self._engine.model_for(request.dimension))

    def usage(self) -> UsageByDimension:
        """The engine's usage, with each withheld request counted as a request left
        unscored and under `withheld`."""
        usage = {dim: block.copy() for dim, block in self._engine.usage().items()}
        with self._lock:
            counts = dict(self._counts)
        for dim in self.withheld:
            block = usage.setdefault(dim, {})
            n = counts.get(dim, 0)
            block["requests"] = block.get("requests", 0) + n
            block["unscored"] = block.get("unscored", 0) + n
            block["withheld"] = n
        return usage

    def model_for(self, dimension: JudgeDimension) -> str:
        """The engine's model for `dimension`."""
        return self._engine.model_for(dimension)

    def template_hash_for(self, dimension: JudgeDimension) -> str:
        """The engine's template hash for `dimension`."""
        return self._engine.template_hash_for(dimension)

    def close(self) -> None:
        """Close the engine's cache."""
        self._engine.close()

    def __getattr__(self, name: str) -> Any:
        # Anything else the wrapped engine offers (e.g. `memoises`) is the engine's own.
        return getattr(self._engine, name)


def _record(settings: JudgeSettings, model: str, dimension: JudgeDimension,
            template_hash: str) -> CalibrationRecord | None:
    """The escalation model's record for `dimension` (reasoned mode, this template), or None."""
    from toolgrade.calibration.records import (
        calibration_dir,
        find_record,
        record_mismatch,
        shipped_records_dir,
    )

    for folder in (calibration_dir(settings.calibration_dir), shipped_records_dir()):
        record = find_record(folder, model, dimension, mode="reasoned")
        if record is not None and record_mismatch(record, "reasoned", template_hash) is None:
            return record
    return None


def _allowed(dimension: JudgeDimension, model: str, record: CalibrationRecord | None,
             settings: JudgeSettings,
             deciding: Mapping[JudgeDimension, list[str]], notify: Callable[[str], None]) -> bool:
    """May the escalation judge answer `dimension`? Always, unless the suite makes it decide
    outcomes and it has no record over the floor (then only with require_calibration off)."""
    from toolgrade.calibration.records import DECIDING_KAPPA_FLOOR, check_floor

    if not deciding.get(dimension):
        return True
    floor = settings.for_dimension(dimension).kappa_floor
    why = check_floor(record, DECIDING_KAPPA_FLOOR if floor is None else floor)
    if why is None:
        return True
    if settings.require_calibration is not False:  # only an explicit false lets it decide
        notify(f"warning: escalation judge {model} is not asked about {dimension}: it decides "
               f"outcomes there and is not calibrated over the floor ({why}); its undecided "
               "items are left for people (`toolgrade adjudicate`)")
        return False
    notify(f"warning: [judge] require_calibration = false: escalation judge {model} decides "
           f"{dimension} outcomes with no calibration record over the floor")
    return True


def add_escalation(
    engine: RunJudge,
    settings: JudgeSettings,
    deciding: Mapping[JudgeDimension, list[str]] | None,
    notify: Callable[[str], None],
) -> tuple[RunJudge, UsageByDimension]:
    """`engine` wrapped with its escalation judge (unchanged when none is configured), and per
    escalating dimension `{model, calibration}` for the summary."""
    from toolgrade.calibration.records import summary_for_run

    second = build_escalation(settings, notify=notify)
    if second is None:
        return engine, {}
    shown: UsageByDimension = {}
    allowed: list[JudgeDimension] = []
    for dim, model in _models(second).items():
        record = _record(settings, model, dim, second.template_hash_for(dim))
        shown[dim] = {"model": model, "calibration": summary_for_run(record)}
        if _allowed(dim, model, record, settings, deciding or {}, notify):
            allowed.append(dim)
        else:
            shown[dim]["status"] = "not asked: uncalibrated for a deciding dimension"
    return EscalatingJudge(engine, second, allowed), shown


def _models(second: JudgeEngine) -> dict[JudgeDimension, str]:
    """The escalation model of each dimension the escalation engine has one for."""
    return {d: m for d in JUDGE_DIMENSIONS if (m := second.model_for(d)) != "unconfigured"}
