"""Escalation: what the first judge leaves undecided is asked of a second judge.

`[judge] escalate_to = MODEL` (or `[judge.dimensions.D] escalate_to`) names any litellm model.
A request goes to the first judge as always; only when its verdict is `unscored` (uncertain,
awaiting adjudication, no model, a failed call, an unparsed reply) is the same request asked of
the escalation judge, and its answer is marked `escalated: true`, with `escalated_from` saying
which judge did not decide and why. What the escalation judge cannot decide either stays
`unscored`, for people (`toolgrade adjudicate`). A dimension switched off is never escalated.

The escalation judge is an engine of its own: reasoned mode (the first judge's cut, combination
and band were fitted for the first judge's model, not this one), the first judge's sampling,
retries, concurrency and cache (folder and backend), and the cache role "escalation", so its
verdicts are cached under keys of their own even on the same model.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from types import TracebackType

from toolgrade.judging.client import ChatClient
from toolgrade.judging.judge import JudgeEngine
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension, JudgeRequest, Verdict
from toolgrade.models.adjudication import unscored_kind
from toolgrade.models.judge_usage import RunJudge, UsageByDimension
from toolgrade.settings import DimensionSettings, JudgeSettings

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
