"""A dimension's checklist: yes/no questions answered after one shared evidence prefix.

`judge_prompts/<dimension>.checklist.yaml` holds the system instructions (a jinja text rendered
with `data_open`, `data_close` and, for argument_equivalence, the case author's `rubric`), the
question suffix (rendered with `question`) and 4-8 questions, each with `id`, `ask`, `yes_means`
(pass or fail) and optionally `signal`: the name of a deterministic signal of the dimension
that answers the question (yes when it fired), so the model is not asked it. `both_orders`
names two inputs whose values are swapped for a second asking (pairwise dimensions).

The evidence is the dimension template's user block, unchanged; each question goes after it as
the last part of the user message, so every question's prompt shares the instructions and the
evidence as one prefix, which the local provider evaluates once and keeps (docs/local_judge.md,
"Checklist mode"). The checklist's hash is part of the verdict cache key and of the
calibration record, like the template's.

Answering one request's checklist (`answer_checklist`): P(yes) per question on one shared
evidence prefix. For each order of the inputs (two for a pairwise checklist, `both_orders`),
every question the model is asked shares the same system part, the same delimiter token and the
same evidence, and differs only in its last lines: the local provider evaluates that prefix once
and keeps it for the next question (docs/local_judge.md, "Checklist mode"); a served model gets
one request per question with the same prefix (provider prompt caching), unless it is asked
every question in one request (`checklist_batch`, `[judge] checklist_requests`). Questions a
deterministic signal answers are not asked. The verdict's P(pass) is the checklist's uncombined
P(pass) (`pass_probability`); the fitted combination weighs the answers at run time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from jinja2 import TemplateError

from toolgrade.errors import PromptError
from toolgrade.judging.prompts import (
    PROMPT_ENV,
    TRUSTED_INPUTS,
    EvidenceTemplate,
    RenderedPrompt,
    markers,
    read_prompt_file,
    serialise,
    strip_delimiters,
)
from toolgrade.models import JUDGE_DIMENSIONS, JUDGE_INPUTS, JudgeDimension, Verdict
from toolgrade.signals import signals_for

#: How many questions a checklist may hold.
MIN_QUESTIONS, MAX_QUESTIONS = 4, 8
#: Feature names of question answers in a fitted combination: `q_<id>`, P(yes).
QUESTION_PREFIX = "q_"


@dataclass(frozen=True)
class Question:
    """One yes/no question; `signal` answers it instead of the model when set."""

    id: str
    ask: str
    yes_means: Literal["pass", "fail"]
    signal: str | None = None

    @property
    def feature(self) -> str:
        """The question's feature name in a fitted combination."""
        return QUESTION_PREFIX + self.id


@dataclass(frozen=True)
class Checklist:
    """A dimension's checklist, loaded and checked; `checklist_hash` is over the file's bytes."""

    dimension: JudgeDimension
    instructions: str
    question_format: str
    questions: tuple[Question, ...]
    both_orders: tuple[str, str] | None
    checklist_hash: str
    origin: str

    @property
    def model_questions(self) -> tuple[Question, ...]:
        """The questions put to the model (those no signal answers)."""
        return tuple(q for q in self.questions if q.signal is None)

    def orders(self, inputs: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The inputs as asked: as given, and with the `both_orders` pair swapped if set."""
        first = dict(inputs)
        if self.both_orders is None:
            return [first]
        a, b = self.both_orders
        return [first, {**first, a: inputs[b], b: inputs[a]}]

    def system(self, inputs: Mapping[str, Any], token: str) -> str:
        """The system part: the instructions with this request's markers (and rubric)."""
        opening, closing = markers(token)
        variables: dict[str, Any] = {"data_open": opening, "data_close": closing}
        for name in TRUSTED_INPUTS & set(JUDGE_INPUTS[self.dimension]):
            value = inputs.get(name)
            variables[name] = None if value is None else strip_delimiters(serialise(value))
        return self._render(self.instructions, variables, "instructions")

    def suffix(self, question: Question) -> str:
        """The text after the evidence that asks `question`."""
        return self._render(self.question_format, {"question": question.ask}, "question")

    def prompt(self, template: EvidenceTemplate, inputs: Mapping[str, Any], token: str,
               question: Question) -> RenderedPrompt:
        """One question's prompt: instructions, the template's evidence, then the question."""
        evidence = template.render(inputs, answer_mode="logprob", token=token)
        return RenderedPrompt(
            system=self.system(inputs, token),
            user=evidence.user + "\n" + self.suffix(question),
            token=token,
            template_hash=template.template_hash,
        )

    def _render(self, source: str, variables: dict[str, Any], field: str) -> str:
        try:
            return PROMPT_ENV.from_string(source).render(variables).strip() + "\n"
        except TemplateError as exc:
            raise PromptError(f"{self.origin}: {field}: {exc}") from exc


def combined_hash(template_hash: str, checklist_hash: str) -> str:
    """The hash a checklist judge stamps on its verdicts and records: template and checklist."""
    return hashlib.sha256(f"{template_hash}+checklist:{checklist_hash}".encode()).hexdigest()


def parse_checklist(dimension: JudgeDimension, raw: bytes, origin: str) -> Checklist:
    """A checklist from a file's bytes; PromptError naming the file and field when malformed."""
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise PromptError(f"{origin}: not a YAML checklist: {exc}") from exc
    if not isinstance(data, dict):
        raise PromptError(f"{origin}: a checklist is a mapping with instructions and questions")
    unknown = set(data) - {"instructions", "question", "questions", "both_orders"}
    if unknown:
        raise PromptError(f"{origin}: unknown field(s) {sorted(unknown)}")
    for name in ("instructions", "question"):
        if not isinstance(data.get(name), str) or not data[name].strip():
            raise PromptError(f"{origin}: field '{name}' must be a non-empty text")
    questions = _questions(data.get("questions"), origin)
    both = data.get("both_orders")
    inputs = set(JUDGE_INPUTS[dimension])
    if both is not None and (not isinstance(both, list) or len(both) != 2
                             or not set(both) <= inputs or both[0] == both[1]):
        raise PromptError(f"{origin}: field 'both_orders' must name two inputs of {dimension} "
                          f"({', '.join(sorted(inputs))})")
    return Checklist(
        dimension=dimension,
        instructions=data["instructions"],
        question_format=data["question"],
        questions=questions,
        both_orders=(both[0], both[1]) if both else None,
        checklist_hash=hashlib.sha256(raw).hexdigest(),
        origin=origin,
    )


def _questions(raw: Any, origin: str) -> tuple[Question, ...]:
    if not isinstance(raw, list) or not MIN_QUESTIONS <= len(raw) <= MAX_QUESTIONS:
        raise PromptError(f"{origin}: field 'questions' must list {MIN_QUESTIONS} to "
                          f"{MAX_QUESTIONS} questions")
    out: list[Question] = []
    for n, entry in enumerate(raw, 1):
        where = f"{origin}: questions[{n}]"
        if not isinstance(entry, dict) or set(entry) - {"id", "ask", "yes_means", "signal"}:
            raise PromptError(f"{where}: fields are id, ask, yes_means and signal (optional)")
        qid, ask, means = entry.get("id"), entry.get("ask"), entry.get("yes_means")
        if not isinstance(qid, str) or not qid.isidentifier():
            raise PromptError(f"{where}: field 'id' must be a name (letters, digits, _)")
        if not isinstance(ask, str) or not ask.strip():
            raise PromptError(f"{where}: field 'ask' must be a non-empty question")
        if means not in ("pass", "fail"):
            raise PromptError(f"{where}: field 'yes_means' must be pass or fail")
        signal = entry.get("signal")
        if signal is not None and not isinstance(signal, str):
            raise PromptError(f"{where}: field 'signal' must be a signal's name")
        if any(q.id == qid for q in out):
            raise PromptError(f"{where}: id '{qid}' is used twice")
        out.append(Question(qid, ask.strip(), means, signal))
    return tuple(out)


def load_checklist(dimension: JudgeDimension, directory: Path | None = None) -> Checklist:
    """The dimension's checklist from `directory`, else the one shipped in the package."""
    raw, origin = read_prompt_file(f"{dimension}.checklist.yaml", directory, "checklist")
    return parse_checklist(dimension, raw, origin)


def load_checklists(directory: Path | None = None) -> dict[JudgeDimension, Checklist]:
    """All four dimensions' checklists."""
    return {dim: load_checklist(dim, directory) for dim in JUDGE_DIMENSIONS}


def pass_probability(checklist: Checklist, answers: Mapping[str, float]) -> float:
    """The checklist's uncombined P(pass): the mean, over its questions, of the probability that
    the answer points to pass (P(yes) for a yes-means-pass question, 1 - P(yes) otherwise).

    What a checklist judge reports before `calibrate --fit` weighs the questions.
    """
    values = [answers[q.feature] if q.yes_means == "pass" else 1.0 - answers[q.feature]
              for q in checklist.questions if q.feature in answers]
    return sum(values) / len(values) if values else 0.5


#: Asks one prompt: P(yes), or an unscored verdict when the model gave no usable answer.
AskOne = Callable[[RenderedPrompt], "float | Verdict"]
#: The delimiter token of one order of the inputs (the same for every question of it).
TokenFor = Callable[[Mapping[str, Any]], str]


def answer_checklist(
    checklist: Checklist,
    template: EvidenceTemplate,
    inputs: Mapping[str, Any],
    token_for: TokenFor,
    ask_one: AskOne,
    threshold: float,
) -> Verdict:
    """The checklist verdict of one request (unscored at the first question left unanswered)."""
    asked: dict[str, list[float]] = {q.feature: [] for q in checklist.model_questions}
    for order in checklist.orders(inputs):
        token = token_for(order)
        for question in checklist.model_questions:
            answer = ask_one(checklist.prompt(template, order, token, question))
            if isinstance(answer, Verdict):
                return answer
            asked[question.feature].append(answer)
    return checklist_verdict(checklist, inputs, asked, threshold)


def checklist_verdict(checklist: Checklist, inputs: Mapping[str, Any],
                      asked: Mapping[str, list[float]], threshold: float) -> Verdict:
    """The verdict of the model's answers (`asked`: each question feature's P(yes) per order,
    averaged) with the signals' answers."""
    answers = {f: round(sum(ps) / len(ps), 6) for f, ps in asked.items()}
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
