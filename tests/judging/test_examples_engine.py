"""The judge engine showing nearest labelled examples: prompts, hashes, cache and calibration."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from builders_judging import engine, inputs_for, request_for, settings, user_text
from toolgrade.calibration.calibrate import calibrate, parse_set
from toolgrade.calibration.records import find_record, record_json, record_mismatch, write_record
from toolgrade.errors import ConfigError
from toolgrade.judging import JudgeEngine
from toolgrade.judging.cache import cache_key
from toolgrade.judging.checklist import load_checklist
from toolgrade.judging.client import ChatRequest
from toolgrade.judging.examples import ExamplePool
from toolgrade.judging.prompts import load_template
from toolgrade.judging.scripted import FakeClient, logprob_reply
from toolgrade.models import JudgeDimension, JudgeRequest
from toolgrade.settings import DimensionSettings, JudgeSettings

DIM: JudgeDimension = "result_interpretation"


def _p_yes(_: ChatRequest):
    return logprob_reply(yes=math.log(0.7), no=math.log(0.3))


def _team_set(tmp_path: Path, *answers: str) -> Path:
    """A team's exported set: one passing item per answer, ids team-0, team-1..."""
    path = tmp_path / "team.jsonl"
    rows = [json.dumps({"id": f"team-{n}", "label": "pass",
                        "inputs": inputs_for(DIM, final_answer=a)}) for n, a in enumerate(answers)]
    path.write_text("\n".join(rows) + "\n")
    return path


def _engine(client: FakeClient, tmp_path: Path | None = None, **dim_table):
    dims = {DIM: DimensionSettings(**dim_table)} if dim_table else {}
    return engine(client, tmp_path, mode="logprob", presettle=None, dimensions=dims)


def test_k_zero_renders_hashes_and_keys_as_before(tmp_path: Path) -> None:
    before, after = FakeClient(_p_yes), FakeClient(_p_yes)
    plain = _engine(before)
    zero = _engine(after, examples=0, examples_from=[tmp_path / "never-read.jsonl"])
    request = request_for(DIM)
    assert plain.judge(request) == zero.judge(request)
    assert before.requests[0].messages == after.requests[0].messages
    assert zero.template_hash_for(DIM) == load_template(DIM).template_hash
    assert zero.examples_for(DIM) == (0, None)
    base = {"model": "m", "sampling": {"temperature": 0.0}, "mode": "logprob",
            "dimension": DIM, "template_hash": "t", "inputs": request.inputs}
    assert cache_key(**base) == cache_key(**base, examples=None)
    assert cache_key(**base) != cache_key(**base, examples=[])


def test_the_examples_are_in_the_prompt_and_in_the_hash(tmp_path: Path) -> None:
    team = _team_set(tmp_path, "I could not cancel it: the service refused (403) again.")
    client = FakeClient(_p_yes)
    judge = _engine(client, examples=2, examples_from=[team])
    verdict = judge.judge(request_for(DIM))
    text = user_text(client.requests[0])
    assert text.index("Example 1:") < text.index("Example 2:") < text.index("The item to judge:")
    assert "refused (403) again." in text.split("Example 2:")[0]  # the nearest: the team's
    k, pool_hash = judge.examples_for(DIM)
    assert k == 2 and pool_hash is not None
    assert verdict.template_hash == judge.template_hash_for(DIM)
    assert verdict.template_hash != load_template(DIM).template_hash
    hashes = {_engine(FakeClient(_p_yes), examples=k, examples_from=[team])
              .template_hash_for(DIM) for k in (1, 2, 3)}
    assert len(hashes) == 3
    assert _engine(FakeClient(_p_yes), examples=2).template_hash_for(DIM) not in hashes


def test_verdicts_with_and_without_examples_never_share_the_cache(tmp_path: Path) -> None:
    client = FakeClient(_p_yes)
    request = request_for(DIM)
    _engine(client, tmp_path).judge(request)
    _engine(client, tmp_path).judge(request)
    assert len(client.requests) == 1  # the second engine read the cache
    assert not _engine(client, tmp_path, examples=1).judge(request).cached
    assert not _engine(client, tmp_path, examples=2).judge(request).cached
    assert len(client.requests) == 3
    assert _engine(client, tmp_path, examples=2).judge(request).cached


def test_checklist_questions_share_one_prefix_holding_the_examples() -> None:
    # One question per request, as the local model is asked (a served model batches them).
    client = FakeClient(_p_yes)
    judge = _engine(client, checklist=True, examples=2, checklist_requests="per_question")
    judge.judge(request_for(DIM))
    asked = client.requests
    assert len(asked) == len(load_checklist(DIM).model_questions)
    prefixes = {user_text(r).rsplit("Question:", 1)[0] for r in asked}
    assert len(prefixes) == 1
    prefix = prefixes.pop()
    assert prefix.index("Example 2:") < prefix.index("The item to judge:")


def test_a_served_models_batch_request_shows_the_examples_before_the_item() -> None:
    client = FakeClient(_p_yes)  # not JSON: every question then falls back, one by one
    judge = _engine(client, checklist=True, examples=2)
    judge.judge(request_for(DIM))
    batch = user_text(client.requests[0])
    assert batch.index("Example 2:") < batch.index("The item to judge:")
    assert all("Example 2:" in user_text(r) for r in client.requests[1:])


def test_a_request_naming_its_item_leaves_it_out(tmp_path: Path) -> None:
    team = _team_set(tmp_path, "I could not cancel it: the service refused (403) again.")
    client = FakeClient(_p_yes)
    judge = _engine(client, examples=1, examples_from=[team])
    inputs = inputs_for(DIM)
    judge.judge(JudgeRequest(dimension=DIM, inputs=inputs))
    judge.judge(JudgeRequest(dimension=DIM, inputs=inputs, item_id="team-0"))
    first, second = (user_text(r) for r in client.requests)
    assert "refused (403) again." in first
    assert "refused (403) again." not in second


def test_calibrate_never_shows_an_item_itself(tmp_path: Path) -> None:
    answers = [f"Order {n} was cancelled, reference C{n}{n}{n}." for n in range(6)]
    team = _team_set(tmp_path, *answers)
    labelled = parse_set(team.read_bytes(), dimension=DIM, source=str(team))
    client = FakeClient(_p_yes)
    judge = _engine(client, examples=3, examples_from=[team])
    record = calibrate(labelled.items, judge, dimension=DIM, model="fake/judge-1",
                       set_sha256=labelled.sha256, examples=judge.examples_for(DIM))
    assert len(client.requests) == len(answers)
    for request, answer in zip(client.requests, answers, strict=True):
        text = user_text(request)
        assert text.count(answer) == 1  # as the item only
        # The team's other items are of the same task: its twins, never shown in calibrate.
        assert not any(other in text for other in answers if other != answer)
        assert text.rindex(answer) > text.index("The item to judge:")
        assert "Example 3:" in text
    assert record.examples == 3
    assert record.examples_pool_sha256 == judge.examples_for(DIM)[1]
    assert record.template_hash == judge.template_hash_for(DIM)
    data = json.loads(record_json(record))
    assert data["examples"] == 3 and "examples_pool_sha256" in data


def test_a_record_of_another_k_is_passed_over(tmp_path: Path) -> None:
    labelled = parse_set(_team_set(tmp_path, "a", "b", "c", "d").read_bytes(), dimension=DIM,
                         source="t")
    judge = _engine(FakeClient(_p_yes))
    record = calibrate(labelled.items, judge, dimension=DIM, model="fake/judge-1",
                       set_sha256=labelled.sha256)
    data = json.loads(record_json(record))
    assert "examples" not in data and "examples_pool_sha256" not in data
    assert record_mismatch(record, "logprob", record.template_hash) is None
    assert "0 nearest examples per item, this run shows 2" in (
        record_mismatch(record, "logprob", record.template_hash, examples=2) or "")


def test_an_engine_with_a_bad_examples_file_is_not_built(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "label": "maybe", "inputs": {}}\n')
    with pytest.raises(ConfigError, match=r"bad\.jsonl:1: label"):
        _engine(FakeClient(_p_yes), examples=1, examples_from=[bad])


def test_examples_settings_resolve_per_dimension() -> None:
    settings = JudgeSettings(examples=2, examples_from=[Path("~/team.jsonl")], dimensions={
        "recovery_quality": DimensionSettings(examples=0),
        "alternate_route": DimensionSettings(examples_from=[Path("routes.jsonl")])})
    assert settings.for_dimension(DIM).examples == 2
    assert settings.for_dimension("recovery_quality").examples == 0
    assert settings.for_dimension("alternate_route").examples_from == [Path("routes.jsonl")]
    assert settings.examples_from == [Path.home() / "team.jsonl"]
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        JudgeSettings(examples=-1)


def test_pools_can_be_given(tmp_path: Path) -> None:
    labelled = parse_set(_team_set(tmp_path, "only this one").read_bytes(), dimension=DIM,
                         source="given")
    client = FakeClient(_p_yes)
    table = settings(mode="logprob", dimensions={DIM: DimensionSettings(examples=1)})
    judge = JudgeEngine(table, client, presettle=None, pools={DIM: ExamplePool(DIM, [labelled])})
    judge.judge(request_for(DIM))
    assert "only this one" in user_text(client.requests[-1])


def test_records_with_and_without_examples_are_kept_apart(tmp_path: Path) -> None:
    labelled = parse_set(_team_set(tmp_path, "a", "b", "c", "d").read_bytes(), dimension=DIM,
                         source="t")
    plain_judge = _engine(FakeClient(_p_yes))
    shown_judge = _engine(FakeClient(_p_yes), examples=2)
    common = {"dimension": DIM, "model": "fake/judge-1", "set_sha256": labelled.sha256}
    plain = calibrate(labelled.items, plain_judge, **common)
    shown = calibrate(labelled.items, shown_judge, **common,
                      examples=shown_judge.examples_for(DIM))
    folder = tmp_path / "records"
    first, second = write_record(plain, folder), write_record(shown, folder)
    assert first != second and second.name.endswith("__examples2.json")
    found = find_record(folder, "fake/judge-1", DIM, labelled.sha256, examples=0)
    assert found is not None and found.examples is None
    found = find_record(folder, "fake/judge-1", DIM, labelled.sha256, examples=2)
    assert found is not None and found.template_hash == shown_judge.template_hash_for(DIM)


def test_long_examples_are_cut_to_the_budget_nearest_first(tmp_path: Path) -> None:
    from toolgrade.judging.examples import EXAMPLES_BUDGET_CHARS

    filler = "The cancellation of order 7 went through. " * (EXAMPLES_BUDGET_CHARS // 80)
    team = _team_set(tmp_path, filler + "first", filler + "second", filler + "third")
    client = FakeClient(_p_yes)
    judge = _engine(client, examples=3, examples_from=[team])
    judge.judge(request_for(DIM, final_answer=filler))
    text = user_text(client.requests[0])
    # Each example takes over half the budget: only the nearest one is shown.
    assert "Example 1:" in text and "Example 2:" not in text
    assert text.index("Example 1:") < text.index("The item to judge:")
