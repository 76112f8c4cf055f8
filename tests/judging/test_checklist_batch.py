"""A served model's checklist in one request: JSON booleans, P(yes) from their log-probabilities,
questions left unread asked alone (never guessed)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders_judging import engine, request_for, settings, system_text, user_text
from toolgrade.errors import PromptError
from toolgrade.judging import JudgeEngine
from toolgrade.judging.checklist import load_checklist
from toolgrade.judging.checklist_batch import (
    asks_in_one_request,
    load_batch_form,
    parse_batch_form,
    read_batch,
    response_schema,
)
from toolgrade.judging.client import ChatReply, ChatRequest, TokenLogprobs
from toolgrade.judging.prompts import load_template
from toolgrade.judging.scripted import FakeClient, logprob_reply
from toolgrade.settings import DimensionSettings

IDS = ("alpha", "beta", "gamma")


def batch_reply(p_yes: dict[str, float], *, logprobs: bool = True, text: str | None = None,
                ) -> ChatReply:
    """A batch reply answering each id true when P(yes) >= 0.5, tokenised as `{"`, id, `":`,
    ` true`/` false` (its alternatives carrying P(yes)), `, "`..., `}`."""
    tokens: list[TokenLogprobs] = []
    for n, (qid, p) in enumerate(p_yes.items()):
        for piece in ('{"' if n == 0 else ', "', qid, '":'):
            tokens.append(TokenLogprobs(piece, ((piece, 0.0),)))
        top = ((" true", math.log(p)), (" false", math.log(1 - p)))
        tokens.append(TokenLogprobs(" true" if p >= 0.5 else " false", top))
    tokens.append(TokenLogprobs("}", (("}", 0.0),)))
    spelled = "".join(t.token for t in tokens)
    return ChatReply(text=spelled if text is None else text, prompt_tokens=100,
                     completion_tokens=len(tokens), tokens=tuple(tokens) if logprobs else None)


def is_batch(request: ChatRequest) -> bool:
    return request.response_format is not None


def test_served_models_are_asked_in_one_request_local_and_scripted_alone() -> None:
    assert asks_in_one_request("openai/gpt-4o-mini", "batch")
    assert not asks_in_one_request("openai/gpt-4o-mini", "per_question")
    assert not asks_in_one_request("local/qwen2.5-coder-1.5b", "batch")
    assert not asks_in_one_request("scripted/judge.json", "batch")


# -- reading one batch reply ------------------------------------------------------------------


def test_p_yes_of_each_question_comes_from_its_boolean_token() -> None:
    read = read_batch(batch_reply({"alpha": 0.9, "beta": 0.2, "gamma": 0.6}), IDS)
    assert read.left == {}
    assert read.answers == pytest.approx({"alpha": 0.9, "beta": 0.2, "gamma": 0.6})


def test_a_boolean_split_over_tokens_or_glued_to_the_colon_is_read() -> None:
    tokens = (
        TokenLogprobs('{"alpha":', (('{"alpha":', 0.0),)),
        TokenLogprobs("tr", (("tr", math.log(0.7)), ("f", math.log(0.3)))),
        TokenLogprobs("ue", (("ue", 0.0),)),
        TokenLogprobs(',"beta', ((',"beta', 0.0),)),
        TokenLogprobs('":false', (('":false', math.log(0.75)), ('":true', math.log(0.25)))),
        TokenLogprobs("}", (("}", 0.0),)),
    )
    reply = ChatReply(text="".join(t.token for t in tokens), tokens=tokens)
    assert read_batch(reply, ("alpha", "beta")).answers == pytest.approx(
        {"alpha": 0.7, "beta": 0.25})


@given(st.dictionaries(st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
                       st.floats(min_value=0.01, max_value=0.99), min_size=1, max_size=8))
def test_the_p_yes_read_is_the_p_yes_given(p_yes: dict[str, float]) -> None:
    read = read_batch(batch_reply(p_yes), tuple(p_yes))
    assert read.left == {} and read.answers == pytest.approx(p_yes)


_JSONISH = st.text(alphabet=st.sampled_from(list('{}[]":, truefalsnl0123abc_\n`')), max_size=60)


@given(st.one_of(st.text(max_size=60), _JSONISH))
def test_any_reply_text_is_read_without_error_and_nothing_is_guessed(text: str) -> None:
    read = read_batch(ChatReply(text=text), IDS)
    assert read.answers == {}  # no log-probabilities: no answer, whatever the text says
    assert set(read.left) == set(IDS) and all(read.left.values())


def test_a_fenced_object_is_read_but_text_around_it_is_not() -> None:
    fenced = batch_reply({"alpha": 0.9}, text='```json\n{"alpha": true}\n```', logprobs=False)
    assert read_batch(fenced, ("alpha",)).left == {"alpha": "no log-probabilities"}
    chatty = batch_reply({"alpha": 0.9}, text='Sure! {"alpha": true}', logprobs=False)
    assert "not one JSON object" in read_batch(chatty, ("alpha",)).left["alpha"]
    trailing = batch_reply({"alpha": 0.9}, text='{"alpha": true} I hope this helps')
    assert "text after" in read_batch(trailing, ("alpha",)).left["alpha"]


def test_without_log_probabilities_every_question_is_left_not_guessed() -> None:
    read = read_batch(batch_reply({"alpha": 0.9, "beta": 0.1, "gamma": 0.5}, logprobs=False),
                      IDS)
    assert read.answers == {}
    assert read.left == dict.fromkeys(IDS, "no log-probabilities")


@pytest.mark.parametrize(("text", "left"), [
    ("not json at all", dict.fromkeys(IDS, "the reply is not one JSON object")),
    ('["alpha", true]', dict.fromkeys(IDS, "the reply is not one JSON object")),
    ('{"alpha": true, "alpha": false, "beta": true, "gamma": true}',
     dict.fromkeys(IDS, "the reply is not one JSON object")),
    ('{"alpha": true, "beta": true, "gamma": true, "delta": false}',
     dict.fromkeys(IDS, "the reply names questions that were not asked (delta)")),
    ('{"alpha": true, "gamma": false}', {"beta": "missing from the reply"}),
    ('{"alpha": "yes", "beta": 1, "gamma": true}',
     {"alpha": 'answered "yes", not true or false', "beta": "answered 1, not true or false"}),
])
def test_a_reply_that_breaks_the_format_leaves_the_questions_it_cannot_answer(text, left) -> None:
    read = read_batch(ChatReply(text=text), IDS)  # no log-probabilities for the rest either
    expected = {qid: left.get(qid, "no log-probabilities") for qid in IDS}
    assert {qid: why[:len(expected[qid])] for qid, why in read.left.items()} == expected
    assert read.answers == {}


def test_log_probabilities_that_do_not_spell_the_reply_are_not_trusted() -> None:
    reply = batch_reply({"alpha": 0.9})
    shifted = ChatReply(text=" " + reply.text, tokens=reply.tokens)
    assert read_batch(shifted, ("alpha",)).left == {
        "alpha": "the log-probabilities do not spell the reply"}


def test_a_boolean_token_without_true_or_false_alternatives_is_left() -> None:
    tokens = (TokenLogprobs('{"alpha": ', (('{"alpha": ', 0.0),)),
              TokenLogprobs("true", (("true", math.log(0.2)), ("maybe", math.log(0.8)))),
              TokenLogprobs("}", (("}", 0.0),)))
    reply = ChatReply(text='{"alpha": true}', tokens=tokens)
    # Only 0.2 of the mass is true or false: below the answer floor, as for yes/no.
    assert "no true or false" in read_batch(reply, ("alpha",)).left["alpha"]


def test_the_schema_asks_exactly_the_ids_as_booleans() -> None:
    questions = load_checklist("recovery_quality").model_questions
    schema = response_schema("recovery_quality", questions)["json_schema"]["schema"]
    assert schema["required"] == [q.id for q in questions]
    assert schema["additionalProperties"] is False
    assert {p["type"] for p in schema["properties"].values()} == {"boolean"}


# -- the engine ---------------------------------------------------------------------------------


def _batch_engine(client: FakeClient, dimension: str, tmp_path=None, **changes):
    dims = {dimension: DimensionSettings(checklist=True)}
    return engine(client, tmp_path, mode="logprob", presettle=None, dimensions=dims, **changes)


def _answering(p_yes: float = 0.8, *, drop: tuple[str, ...] = (), logprobs: bool = True):
    """A client answering batch requests with P(yes) for every asked id but `drop`, and
    single questions with P(yes) = 0.3."""

    def reply(request: ChatRequest):
        if not is_batch(request):
            return logprob_reply(yes=math.log(0.3), no=math.log(0.7))
        ids = request.response_format["json_schema"]["schema"]["required"]
        return batch_reply({i: p_yes for i in ids if i not in drop}, logprobs=logprobs)

    return FakeClient(reply)


def test_k_questions_cost_one_request_and_keep_the_shared_evidence() -> None:
    checklist = load_checklist("recovery_quality")
    client = _answering(0.8)
    judge = _batch_engine(client, "recovery_quality")
    verdict = judge.judge(request_for("recovery_quality"))
    assert verdict.scored and client.calls == 1
    assert verdict.answers == {q.feature: pytest.approx(0.8) for q in checklist.model_questions}
    (asked,) = client.requests
    assert asked.logprobs and asked.top_logprobs == 20
    assert asked.max_tokens >= 16 * len(checklist.model_questions)
    user = user_text(asked)
    for question in checklist.model_questions:
        assert f"- {question.id}: {question.ask}" in user
    # The batch form follows the checklist's own instructions; the evidence is unchanged.
    form = load_batch_form()
    assert system_text(asked).startswith(checklist.instructions.split("\n", 1)[0])
    assert form.instructions.split("\n", 1)[0] in system_text(asked)
    usage = judge.usage()["recovery_quality"]
    k = len(checklist.model_questions)  # each answer: 4 tokens, then "}"
    assert (usage["calls"], usage["requests"], usage["tokens"]) == (1, 1, 100 + 4 * k + 1)


def test_a_missing_id_is_asked_alone_on_the_same_evidence() -> None:
    checklist = load_checklist("recovery_quality")
    dropped = checklist.model_questions[1]
    client = _answering(0.8, drop=(dropped.id,))
    verdict = _batch_engine(client, "recovery_quality").judge(request_for("recovery_quality"))
    assert verdict.scored and client.calls == 2
    assert verdict.answers[dropped.feature] == pytest.approx(0.3)
    assert verdict.answers[checklist.model_questions[0].feature] == pytest.approx(0.8)
    batch, alone = client.requests
    assert dropped.ask in user_text(alone) and user_text(alone).rstrip().endswith(
        "Answer yes or no.")
    # The per-question prompt: the checklist's instructions alone, the batch's delimiter token.
    assert system_text(alone) == checklist.system(request_for("recovery_quality").inputs,
                                                  system_text(batch).split("<<DATA-")[1][:4])


def test_a_reply_without_log_probabilities_asks_each_question_alone() -> None:
    checklist = load_checklist("recovery_quality")
    client = _answering(0.8, logprobs=False)
    verdict = _batch_engine(client, "recovery_quality").judge(request_for("recovery_quality"))
    k = len(checklist.model_questions)
    assert client.calls == 1 + k
    assert sum(not is_batch(r) for r in client.requests) == k
    assert verdict.answers == {q.feature: pytest.approx(0.3) for q in checklist.model_questions}


def test_questions_asked_alone_are_reported_once_per_dimension(caplog) -> None:
    client = _answering(0.8, drop=("task_done",))
    judge = _batch_engine(client, "recovery_quality")
    with caplog.at_level("WARNING"):
        judge.judge(request_for("recovery_quality"))
        judge.judge(request_for("recovery_quality", stage="gave_up"))
    warned = [r.getMessage() for r in caplog.records if "asked one per request" in r.getMessage()]
    assert len(warned) == 1 and "task_done: missing from the reply" in warned[0]


def test_a_question_unanswered_alone_too_leaves_the_item_unscored_naming_it() -> None:
    checklist = load_checklist("recovery_quality")
    first = checklist.model_questions[0]

    def reply(request: ChatRequest):
        return "I cannot answer" if is_batch(request) else logprob_reply(maybe=-0.1)

    client = FakeClient(reply)
    verdict = _batch_engine(client, "recovery_quality").judge(request_for("recovery_quality"))
    assert verdict.verdict == "unscored" and client.calls == 2
    assert f"question {first.id}" in verdict.reason
    assert "not one JSON object" in verdict.reason
    assert "neither yes nor no" in verdict.reason


def test_a_pairwise_checklist_is_one_batch_request_per_order() -> None:
    checklist = load_checklist("argument_equivalence")
    request = request_for("argument_equivalence", expected="Paris", actual="Lyon")

    def reply(chat: ChatRequest):
        user = user_text(chat)
        p = 0.9 if user.index("Paris") < user.index("Lyon") else 0.3
        ids = chat.response_format["json_schema"]["schema"]["required"]
        return batch_reply(dict.fromkeys(ids, p))

    client = FakeClient(reply)
    verdict = _batch_engine(client, "argument_equivalence").judge(request)
    assert client.calls == 2
    assert verdict.answers == {q.feature: pytest.approx(0.6) for q in checklist.model_questions}


def test_batch_and_per_question_verdicts_never_share_a_cache_entry(tmp_path) -> None:
    request = request_for("recovery_quality")
    batched = _batch_engine(_answering(0.8), "recovery_quality", tmp_path)
    alone = _batch_engine(_answering(0.8), "recovery_quality", tmp_path,
                          checklist_requests="per_question")
    assert batched.template_hash_for("recovery_quality") != alone.template_hash_for(
        "recovery_quality")
    assert batched.judge(request).template_hash == batched.template_hash_for("recovery_quality")
    batched.close()
    verdict = alone.judge(request)
    assert not verdict.cached  # asked again, one question a request
    assert verdict.answers == {q.feature: pytest.approx(0.3)
                               for q in load_checklist("recovery_quality").model_questions}
    again = _batch_engine(_answering(0.1), "recovery_quality", tmp_path)
    assert again.judge(request).cached


def test_a_dimension_may_keep_one_request_per_question() -> None:
    client = _answering(0.8)
    dims = {"recovery_quality": DimensionSettings(checklist=True,
                                                  checklist_requests="per_question")}
    engine(client, mode="logprob", presettle=None, dimensions=dims).judge(
        request_for("recovery_quality"))
    assert client.calls == len(load_checklist("recovery_quality").model_questions)
    assert not any(is_batch(r) for r in client.requests)


def test_the_local_model_is_always_asked_one_question_per_request() -> None:
    checklist = load_checklist("recovery_quality")
    client = _answering(0.8)
    dims = {"recovery_quality": DimensionSettings(checklist=True, model="local/qwen")}
    judge = engine(client, mode="logprob", presettle=None, dimensions=dims)
    verdict = judge.judge(request_for("recovery_quality"))
    assert client.calls == len(checklist.model_questions) and verdict.scored
    assert not any(is_batch(r) for r in client.requests)
    # Its prompts are the per-question checklist's, byte for byte.
    token = system_text(client.requests[0]).split("<<DATA-")[1][:4]
    inputs = request_for("recovery_quality").inputs
    for chat, question in zip(client.requests, checklist.model_questions, strict=True):
        expected = checklist.prompt(load_template("recovery_quality"), inputs, token, question)
        assert list(chat.messages) == expected.messages()


def test_the_batch_form_is_a_prompt_file_with_its_own_hash() -> None:
    form = load_batch_form()
    assert form.origin.endswith("judge_prompts/checklist_batch.yaml")
    raw = Path(form.origin).read_bytes()
    assert parse_batch_form(raw + b"\n# edited\n", "b.yaml").form_hash != form.form_hash


@pytest.mark.parametrize(("text", "message"), [
    (b"instructions: x\n", "a mapping of instructions and questions"),
    (b"instructions: x\nquestions: y\ncolour: red\n", "a mapping of instructions and questions"),
    (b"instructions: ''\nquestions: y\n", "field 'instructions'"),
    (b"instructions: [x]\nquestions: y\n", "field 'instructions'"),
])
def test_a_malformed_batch_form_names_the_file_and_field(text, message) -> None:
    with pytest.raises(PromptError, match=r"my\.yaml") as caught:
        parse_batch_form(text, "my.yaml")
    assert message in str(caught.value)


def test_a_batch_form_that_does_not_render_is_unscored_naming_the_file() -> None:
    broken = parse_batch_form(b"instructions: x\nquestions: '{{ nope.id }}'\n", "my.yaml")
    client = _answering(0.8)
    dims = {"recovery_quality": DimensionSettings(checklist=True)}
    judge = JudgeEngine(settings(mode="logprob", dimensions=dims), client, presettle=None,
                        batch_form=broken)
    verdict = judge.judge(request_for("recovery_quality"))
    assert verdict.verdict == "unscored" and client.calls == 0
    assert "my.yaml" in (verdict.error or "")
