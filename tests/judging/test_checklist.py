"""Checklist files and the checklist judge: loaded, hashed, asked on one shared prefix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders_judging import request_for
from toolgrade.judging.checklist import (
    MAX_QUESTIONS,
    MIN_QUESTIONS,
    load_checklist,
    load_checklists,
    parse_checklist,
)
from toolgrade.judging.prompts import PromptError
from toolgrade.judging.signals import signals_for
from toolgrade.models import JUDGE_DIMENSIONS

SETS = Path(__file__).resolve().parents[2] / "src" / "toolgrade" / "calibration_sets"


def _items(dimension: str) -> list[dict]:
    lines = (SETS / f"{dimension}.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return [row for row in rows if "inputs" in row]


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_every_shipped_checklist_loads_with_4_to_8_questions(dimension) -> None:
    checklist = load_checklist(dimension)
    assert MIN_QUESTIONS <= len(checklist.questions) <= MAX_QUESTIONS
    assert checklist.model_questions, "a checklist with nothing for the model is a signal set"
    assert len(checklist.checklist_hash) == 64


@pytest.mark.parametrize("dimension", JUDGE_DIMENSIONS)
def test_every_signal_a_checklist_names_exists_for_its_dimension(dimension) -> None:
    named = {q.signal for q in load_checklist(dimension).questions if q.signal}
    computed = set().union(*(signals_for(dimension, item["inputs"]).values
                             for item in _items(dimension)))
    assert named <= computed


def test_the_hash_follows_the_file_bytes(tmp_path) -> None:
    source = Path(load_checklist("recovery_quality").origin).read_bytes()
    first = parse_checklist("recovery_quality", source, "a.yaml")
    second = parse_checklist("recovery_quality", source + b"\n# edited\n", "b.yaml")
    assert first.checklist_hash != second.checklist_hash
    assert first.questions == second.questions


@pytest.mark.parametrize(("text", "message"), [
    (b"- just a list", "is a mapping"),
    (b"instructions: x\nquestion: y\nquestions: []\n", "4 to 8 questions"),
    (b"instructions: x\nquestion: y\ncolour: red\nquestions: []\n", "unknown field"),
    (b"instructions: x\nquestion: y\nquestions:\n" + b"  - {id: a, ask: b, yes_means: maybe}\n" * 4,
     "questions[1]: field 'yes_means'"),
    (b"instructions: x\nquestion: y\nquestions:\n" + b"  - {id: a, ask: b, yes_means: pass}\n" * 4,
     "questions[2]: id 'a' is used twice"),
    (b"instructions: x\nquestion: y\nboth_orders: [task, nope]\nquestions:\n"
     + b"".join(b"  - {id: a%d, ask: b, yes_means: pass}\n" % i for i in range(4)),
     "both_orders"),
])
def test_a_malformed_checklist_names_the_file_and_field(text, message) -> None:
    with pytest.raises(PromptError, match=r"my\.yaml") as caught:
        parse_checklist("argument_equivalence", text, "my.yaml")
    assert message in str(caught.value)


def test_all_four_checklists_render_their_system_with_this_requests_markers() -> None:
    for dim, checklist in load_checklists().items():
        text = checklist.system(request_for(dim).inputs, "ab12")
        assert "<<DATA-ab12>>" in text and "<<END-DATA-ab12>>" in text
