"""Turning a judge model's reply into a verdict: structured JSON, or yes/no log-probabilities.

Parsing is deliberately strict about the verdict and lenient about packaging: a JSON object may
be wrapped in code fences or prose, but its `verdict` must be exactly pass or fail. Anything else
is "did not parse" and the engine asks again once, then records `unscored`: never a pass.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from toolgrade.jsonio.keys import unique_keys
from toolgrade.jsonio.values import JsonObject
from toolgrade.models import JudgeDimension

#: Labels the result_interpretation judge may attach; "none" is stored as no label.
RESULT_LABELS: tuple[str, ...] = ("misread_result", "false_success_claim")

#: First-token spellings that count as a pass / a fail in log-probability mode.
YES_TOKENS: frozenset[str] = frozenset({"yes"})
NO_TOKENS: frozenset[str] = frozenset({"no"})

_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


class JudgeReply(BaseModel):
    """The structured output a judge is asked for: the reason first, then the verdict."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    reason: str
    verdict: Literal["pass", "fail"]
    label: str | None = None

    @field_validator("verdict", mode="before")
    @classmethod
    def _fold_verdict(cls, value: Any) -> Any:
        # "PASS" or " pass " is a formatting slip, not an ambiguous answer.
        return value.strip().casefold() if isinstance(value, str) else value

    @field_validator("label", mode="before")
    @classmethod
    def _fold_label(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().casefold()
            return None if value in ("", "none", "null") else value
        return value


def reply_schema(dimension: JudgeDimension) -> JsonObject:
    """The `response_format` JSON schema asked of the provider for `dimension`."""
    properties: JsonObject = {
        "reason": {"type": "string"},
        "verdict": {"type": "string", "enum": ["pass", "fail"]},
    }
    if dimension == "result_interpretation":
        properties["label"] = {"type": "string", "enum": [*RESULT_LABELS, "none"]}
    return {
        "type": "json_schema",
        "json_schema": {
            "name": f"{dimension}_verdict",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            },
        },
    }


#: An object that names a key twice is no reply: which value the model meant is unknowable.
_DECODER = json.JSONDecoder(object_pairs_hook=unique_keys)


def json_objects(text: str) -> list[JsonObject]:
    """The JSON objects in `text`: the whole text, else its fenced blocks, else each object
    embedded in the prose (outermost only). An object that repeats a key is left out."""
    whole = _object(text.strip())
    if whole is not None:
        return [whole]
    fenced = [obj for m in _FENCE_RE.finditer(text) if (obj := _object(m.group(1).strip()))]
    if fenced:
        return fenced
    found: list[JsonObject] = []
    start = text.find("{")
    while start != -1:
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        start = text.find("{", end)
    return found


def _object(candidate: str) -> JsonObject | None:
    try:
        value = _DECODER.decode(candidate)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def extract_json_object(text: str) -> JsonObject | None:
    """The first JSON object in `text` (see `json_objects`), or None."""
    objects = json_objects(text)
    return objects[0] if objects else None


def parse_reply(text: str, dimension: JudgeDimension) -> JudgeReply | None:
    """The reply as a `JudgeReply`, or None when it does not parse or breaks the contract.

    Judged content is untrusted and a model may quote it: when the text holds several objects
    shaped like replies, they must agree on the verdict (and label), or the reply is refused
    rather than the first one believed (a quoted `{"verdict": "pass"}` before the model's own
    fail).
    """
    replies = [r for obj in json_objects(text) if (r := _reply(obj, dimension)) is not None]
    if not replies:
        return None
    if len({(r.verdict, r.label) for r in replies}) > 1:
        return None
    return replies[0]


def _reply(data: JsonObject, dimension: JudgeDimension) -> JudgeReply | None:
    try:
        reply = JudgeReply.model_validate(data)
    except ValidationError:
        return None
    if dimension == "result_interpretation":
        if reply.label is not None and reply.label not in RESULT_LABELS:
            return None
        if reply.verdict == "pass" and reply.label is not None:
            # A label names a failure; on a pass it contradicts the verdict (docs: null).
            reply = reply.model_copy(update={"label": None})
    elif reply.label is not None:
        # Other dimensions have no labels; an invented one is dropped rather than trusted.
        reply = reply.model_copy(update={"label": None})
    return reply


#: The least first-token probability yes- and no-like tokens together must hold for P(pass) to
#: mean anything: below it the model was mostly not answering yes or no ("Based on..."), and a
#: faint "Yes" would otherwise read as a certain pass. The embedded local judge puts over 0.99
#: there (12 calibration items measured); a reply under the floor is asked again, then unscored.
MIN_ANSWER_MASS = 0.5


def p_pass_from_logprobs(top_logprobs: Iterable[tuple[str, float]]) -> float | None:
    """P(pass): the probability mass of yes-like tokens over yes- and no-like tokens.

    Tokens are compared after stripping and case folding, so " Yes" and "YES" both count.
    None when neither kind appears among the top log-probabilities, or when together they hold
    less than `MIN_ANSWER_MASS` of the first token's probability.
    """
    yes: list[float] = []
    no: list[float] = []
    for token, logprob in top_logprobs:
        if not math.isfinite(logprob):
            continue  # -inf is zero mass; NaN is no information
        folded = token.strip().casefold()
        if folded in YES_TOKENS:
            yes.append(logprob)
        elif folded in NO_TOKENS:
            no.append(logprob)
    if not yes and not no:
        return None
    if sum(math.exp(lp) for lp in yes + no) < MIN_ANSWER_MASS:
        return None
    # Shift by the maximum before exponentiating so very negative logprobs do not underflow.
    top = max(yes + no)
    yes_mass = sum(math.exp(lp - top) for lp in yes)
    no_mass = sum(math.exp(lp - top) for lp in no)
    return yes_mass / (yes_mass + no_mass)
