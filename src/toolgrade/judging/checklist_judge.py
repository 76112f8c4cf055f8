"""Answer one request's checklist: P(yes) per question on one shared evidence prefix.

For each order of the inputs (two for a pairwise checklist, `both_orders`), every question the
model is asked shares the same system part, the same delimiter token and the same evidence,
and differs only in its last lines: the local provider evaluates that prefix once and keeps it
for the next question (docs/local_judge.md, "Checklist mode"); a served model gets one request
per question with the same prefix (provider prompt caching). Questions a deterministic signal
answers are not asked. The verdict's P(pass) is the checklist's uncombined P(pass)
(`pass_probability`); the fitted combination weighs the answers at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from toolgrade.judging.checklist import Checklist, pass_probability
from toolgrade.judging.prompts import PromptTemplate, RenderedPrompt
from toolgrade.judging.signals import signals_for
from toolgrade.models import Verdict

#: Asks one prompt: P(yes), or an unscored verdict when the model gave no usable answer.
AskOne = Callable[[RenderedPrompt], "float | Verdict"]
#: The delimiter token of one order of the inputs (the same for every question of it).
TokenFor = Callable[[Mapping[str, Any]], str]


def answer_checklist(
    checklist: Checklist,
    template: PromptTemplate,
    inputs: Mapping[str, Any],
    token_for: TokenFor,
    ask_one: AskOne,
    threshold: float,
) -> Verdict:
    """The checklist verdict of one request (unscored at the first question left unanswered)."""
    answers: dict[str, float] = {}
    asked: dict[str, list[float]] = {q.feature: [] for q in checklist.model_questions}
    for order in checklist.orders(inputs):
        token = token_for(order)
        for question in checklist.model_questions:
            answer = ask_one(checklist.prompt(template, order, token, question))
            if isinstance(answer, Verdict):
                return answer
            asked[question.feature].append(answer)
    answers.update({f: round(sum(ps) / len(ps), 6) for f, ps in asked.items()})
    # The signals' answers count in the uncombined P(pass); the verdict keeps the model's only
    # (a fitted combination has the signals themselves as features already).
    p_pass = pass_probability(checklist, {**signal_answers(checklist, inputs), **answers})
    verdict: Literal["pass", "fail"] = "pass" if p_pass >= threshold else "fail"
    return Verdict(
        verdict=verdict,
        reason=f"checklist P(pass) = {p_pass:.3f} against threshold {threshold}",
        p_pass=p_pass, answers=answers, checklist_hash=checklist.checklist_hash,
    )


def signal_answers(checklist: Checklist, inputs: Mapping[str, Any]) -> dict[str, float]:
    """The answers the dimension's signals give: 1.0 (yes) when the signal fired, else 0.0."""
    if not any(q.signal for q in checklist.questions):
        return {}
    values = signals_for(checklist.dimension, inputs).values
    return {q.feature: float(values.get(q.signal, 0.0) > 0)
            for q in checklist.questions if q.signal is not None}
