"""A served model's checklist in one request: every question answered as a JSON boolean.

For a served model (`[judge] checklist_requests = "batch"`, the default; never the local or a
scripted model, which are asked one question per request), each order of the inputs is one
request: the checklist's instructions followed by the batch form's (`judge_prompts/
checklist_batch.yaml`), the same evidence, then every model-answered question with its id. The
reply asked for is one JSON object `{"<id>": true|false, ...}` (also given as a strict
`response_format` schema), and each question's P(yes) is read from the log-probabilities of
the token where its boolean starts: the mass of true-like over true- plus false-like
alternatives, as `verdict.p_pass_from_logprobs` reads yes and no.

A reply is never guessed at (docs/local_judge.md, "Checklist mode"): a question whose answer
cannot be read (no log-probabilities, a reply that is not one JSON object of exactly the ids
asked, a missing id, a value that is not a boolean) is asked again alone, as in the
per-question form, and the verdict is unscored, naming the question, if that fails too. The
boolean alone is not taken as P(yes) = 1 or 0: the fitted combination and the abstention band
are fitted on probabilities, and a hard 0 or 1 would read as a certain answer.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from jinja2 import TemplateError

from toolgrade.errors import PromptError
from toolgrade.jsonio.keys import unique_keys
from toolgrade.jsonio.values import JsonObject
from toolgrade.judging.checklist import (
    AskOne,
    Checklist,
    Question,
    TokenFor,
    checklist_verdict,
)
from toolgrade.judging.client import LOCAL_PREFIX, ChatReply, ChatRequest, TokenLogprobs
from toolgrade.judging.prompts import (
    PROMPT_ENV,
    EvidenceTemplate,
    RenderedPrompt,
    read_prompt_file,
)
from toolgrade.judging.scripted import SCRIPTED_PREFIX
from toolgrade.judging.verdict import p_pass_from_logprobs
from toolgrade.models import Verdict

#: The shared batch form's file in judge_prompts/.
BATCH_FILE = "checklist_batch.yaml"
#: Reply tokens allowed per question (`"some_id": false, ` is 6-10 tokens), plus the braces.
TOKENS_PER_QUESTION, TOKENS_OVERHEAD = 16, 16

_DECODER = json.JSONDecoder(object_pairs_hook=unique_keys)
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_FENCE_OPEN = re.compile(r"\s*(?:```(?:json|JSON)?)?\s*")
_FENCE_CLOSE = re.compile(r"\s*(?:```)?\s*")


def asks_in_one_request(model: str, checklist_requests: str) -> bool:
    """True when `model`'s checklist is asked in one request per order: a served model with
    `checklist_requests = "batch"`. The local model keeps one request per question (it reuses
    the evaluated prefix), and so do scripted stand-ins (their scripts answer one question)."""
    return checklist_requests == "batch" and not model.startswith((LOCAL_PREFIX, SCRIPTED_PREFIX))


@dataclass(frozen=True)
class BatchForm:
    """The batch form: system `instructions` after the checklist's, and the `questions` text
    after the evidence; `form_hash` is over the file's bytes."""

    instructions: str
    questions: str
    form_hash: str
    origin: str

    def prompt(self, checklist: Checklist, template: EvidenceTemplate, inputs: Mapping[str, Any],
               token: str, questions: Sequence[Question]) -> RenderedPrompt:
        """One order's request: every question in `questions` after the shared evidence."""
        evidence = template.render(inputs, answer_mode="logprob", token=token)
        listed = [{"id": q.id, "ask": q.ask} for q in questions]
        return RenderedPrompt(
            system=checklist.system(inputs, token) + "\n" + self._render(self.instructions, {}),
            user=evidence.user + "\n" + self._render(self.questions, {"questions": listed}),
            token=token,
            template_hash=template.template_hash,
        )

    def _render(self, source: str, variables: dict[str, Any]) -> str:
        try:
            return PROMPT_ENV.from_string(source).render(variables).strip() + "\n"
        except TemplateError as exc:
            raise PromptError(f"{self.origin}: {exc}") from exc


def parse_batch_form(raw: bytes, origin: str) -> BatchForm:
    """The batch form from a file's bytes; PromptError naming the file and field if malformed."""
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise PromptError(f"{origin}: not a YAML batch form: {exc}") from exc
    if not isinstance(data, dict) or set(data) != {"instructions", "questions"}:
        raise PromptError(f"{origin}: a batch form is a mapping of instructions and questions")
    for name in ("instructions", "questions"):
        if not isinstance(data[name], str) or not data[name].strip():
            raise PromptError(f"{origin}: field '{name}' must be a non-empty text")
    return BatchForm(data["instructions"], data["questions"],
                     hashlib.sha256(raw).hexdigest(), origin)


def load_batch_form(directory: Path | None = None) -> BatchForm:
    """The batch form from `directory`, else the one shipped in the package."""
    raw, origin = read_prompt_file(BATCH_FILE, directory, "the checklist batch form")
    return parse_batch_form(raw, origin)


def batch_hash(checklist_template_hash: str, form_hash: str) -> str:
    """The hash a batch-asked checklist judge stamps: template, checklist and batch form, so
    batch and per-question verdicts never share a cache entry or a record."""
    return hashlib.sha256(f"{checklist_template_hash}+batch:{form_hash}".encode()).hexdigest()


def response_schema(dimension: str, questions: Sequence[Question]) -> JsonObject:
    """The `response_format` asked for: an object of exactly these ids, each a boolean."""
    properties: JsonObject = {q.id: {"type": "boolean"} for q in questions}
    return {
        "type": "json_schema",
        "json_schema": {
            "name": f"{dimension}_checklist",
            "strict": True,
            "schema": {"type": "object", "properties": properties,
                       "required": [q.id for q in questions], "additionalProperties": False},
        },
    }


def reply_tokens(questions: Sequence[Question]) -> int:
    """The `max_tokens` of a batch request for `questions`."""
    return TOKENS_PER_QUESTION * len(questions) + TOKENS_OVERHEAD


def batch_request(one: ChatRequest, dimension: str, questions: Sequence[Question]) -> ChatRequest:
    """`one` (a log-probability request for one token) made a batch request: room for every
    answer, and the schema of the object asked for."""
    return replace(one, max_tokens=reply_tokens(questions),
                   response_format=response_schema(dimension, questions))


@dataclass(frozen=True)
class BatchAnswers:
    """What one batch reply answered: P(yes) per question id, and why each other id was not
    read (those are asked again alone)."""

    answers: dict[str, float] = field(default_factory=dict)
    left: dict[str, str] = field(default_factory=dict)


def read_batch(reply: ChatReply, ids: Sequence[str]) -> BatchAnswers:
    """Each id's P(yes) from the reply's log-probabilities; every id left is given a reason."""
    found = _one_object(reply.text)
    if isinstance(found, str):
        return BatchAnswers(left=dict.fromkeys(ids, found))
    start, values = found
    extra = sorted(set(values) - set(ids))
    if extra:
        why = f"the reply names questions that were not asked ({', '.join(extra)[:80]})"
        return BatchAnswers(left=dict.fromkeys(ids, why))
    left = {i: "missing from the reply" for i in ids if i not in values}
    left |= {i: f"answered {json.dumps(values[i])[:40]}, not true or false"
             for i in ids if i in values and not isinstance(values[i], bool)}
    readable = [i for i in ids if i not in left]
    if reply.tokens is None:
        return BatchAnswers(left={**left, **dict.fromkeys(readable, "no log-probabilities")})
    if "".join(t.token for t in reply.tokens) != reply.text:
        why = "the log-probabilities do not spell the reply"
        return BatchAnswers(left={**left, **dict.fromkeys(readable, why)})
    offsets = _value_offsets(reply.text, start)
    answers: dict[str, float] = {}
    for qid in readable:
        p_yes = _p_true_at(reply.tokens, offsets[qid])
        if p_yes is None:
            left[qid] = "no true or false among the log-probabilities of its answer"
        else:
            answers[qid] = p_yes
    return BatchAnswers(answers=answers, left=left)


def _one_object(text: str) -> tuple[int, JsonObject] | str:
    """The reply's one JSON object and where it starts (a code fence around it is allowed), or
    why there is none."""
    start = _FENCE_OPEN.match(text)
    begin = start.end() if start else 0
    try:
        value, end = _DECODER.raw_decode(text, begin)
    except ValueError as exc:  # not JSON, or a key given twice (which answer is meant?)
        return f"the reply is not one JSON object ({str(exc)[:60]})"
    if not isinstance(value, dict):
        return "the reply is not one JSON object"
    close = _FENCE_CLOSE.match(text, end)
    if close is None or close.end() != len(text):
        return "the reply has text after its JSON object"
    return begin, value


def _value_offsets(text: str, start: int) -> dict[str, int]:
    """Where each top-level value of the (valid) JSON object at `start` begins in `text`."""
    offsets: dict[str, int] = {}
    i = _skip(text, start + 1)
    while text[i] != "}":
        key, i = _DECODER.raw_decode(text, i)  # a key is a JSON string
        i = _skip(text, _skip(text, i) + 1)  # past the colon
        offsets[key] = i
        _, i = _DECODER.raw_decode(text, i)
        i = _skip(text, i)
        if text[i] == ",":
            i = _skip(text, i + 1)
    return offsets


def _skip(text: str, i: int) -> int:
    match = _WHITESPACE.match(text, i)
    return match.end() if match else i


def _p_true_at(tokens: Sequence[TokenLogprobs], offset: int) -> float | None:
    """P(true) at the token holding character `offset` (where a boolean starts)."""
    position = 0
    for token in tokens:
        if position <= offset < position + len(token.token):
            return p_pass_from_logprobs(_as_yes_no(token.top))
        position += len(token.token)
    return None


def _as_yes_no(top: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """The alternatives spelling the start of true as "yes" and of false as "no" (a token may
    carry the colon or a space before the value, or hold only its first letters)."""
    out: list[tuple[str, float]] = []
    for token, logprob in top:
        folded = token.rpartition(":")[2].strip().casefold()
        if not folded:
            continue
        for word, answer in (("true", "yes"), ("false", "no")):
            if word.startswith(folded) or folded.startswith(word):
                out.append((answer, logprob))
    return out


#: Asks one order's batch request: what it answered, or an unscored verdict (the call failed).
AskBatch = Callable[[RenderedPrompt, Sequence[Question]], "BatchAnswers | Verdict"]


def answer_checklist_batch(
    checklist: Checklist,
    form: BatchForm,
    template: EvidenceTemplate,
    inputs: Mapping[str, Any],
    token_for: TokenFor,
    ask_batch: AskBatch,
    ask_one: AskOne,
    threshold: float,
) -> Verdict:
    """The checklist verdict of one request, one batch request per order; the questions the
    batch reply leaves unread are asked alone on the same evidence (unscored, naming the
    question, when one of those is not answered either)."""
    questions = checklist.model_questions
    asked: dict[str, list[float]] = {q.feature: [] for q in questions}
    for order in checklist.orders(inputs):
        token = token_for(order)
        batch = ask_batch(form.prompt(checklist, template, order, token, questions), questions)
        if isinstance(batch, Verdict):
            return batch
        for question in questions:
            p_yes = batch.answers.get(question.id)
            if p_yes is None:
                answer = ask_one(checklist.prompt(template, order, token, question))
                if isinstance(answer, Verdict):
                    why = batch.left.get(question.id, "not read")
                    return answer.model_copy(update={"reason": (
                        f"{answer.reason} (question {question.id}, asked alone: in the batch "
                        f"reply, {why})")})
                p_yes = answer
            asked[question.feature].append(p_yes)
    return checklist_verdict(checklist, inputs, asked, threshold)
