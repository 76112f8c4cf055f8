"""The one-call read path never decides anything the careful path would decide differently.

Every line either falls back (None) or yields exactly the trajectory `parse_line` builds; and
`iter_runs` words every problem as before, because problem lines always fall back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgrade.loaders import iter_runs
from toolgrade.loaders.fast_runs import plain_trajectory
from toolgrade.loaders.runs import parse_line, read_line

PLAIN = [
    '{"case_id":"a","steps":[{"tool":"t","args":{"x":1}}]}',
    '{"case_id":"a","case_id":"b","steps":[{"tool":"t","args":{"x":1,"x":2}}]}',
    '{"case_id":"a","steps":[{"tool":"t","args":{"x":123456789012345678901234567890}}]}',
    '{"case_id":"a","steps":[{"tool":"t","args":{"x":0.1,"y":-0.0,"z":1E5,"w":1e400}}]}',
    '{"case_id":"a","agent":null,"final_state":null,"metadata":{"k":[1]},"format":"steps",'
    '"steps":[]}',
    '{"case_id":"a","trial":2,"agent":"b","final_state":{"db":{"n":1}},"steps":['
    '{"role":"user","content":[{"type":"text","text":"hi"}]},'
    '{"tool":"t","args":{},"id":"c1","group":"g","result":{"status":"error","content":"503"}},'
    '{"tool":"u","group":3,"result":{"content":{"ok":true}}},'
    '{"role":"assistant","content":"done"}]}',
]

#: Lines the careful path coerces, rejects or reshapes: the fast path must hand them back.
FALLBACK = [
    '{"case_id":"a","steps":[{"tool":"t","group":1.0}]}',
    '{"case_id":"a","trial":"3","steps":[]}',
    '{"case_id":"a","trial":3.0,"steps":[]}',
    '{"case_id":"a","trial":true,"steps":[]}',
    '{"case_id":"a","trial":-1,"steps":[]}',
    '{"case_id":"","steps":[]}',
    '{"case_id":"a","steps":[{"role":1,"content":"x"}]}',
    '{"case_id":"a","steps":[{"role":"asistant","content":"x"}]}',
    '{"case_id":"a","steps":[{"role":["user"],"content":"x"}]}',
    '{"case_id":"a","steps":[{"tool":"t","raw_arguments":"x"}]}',
    '{"case_id":"a","steps":[{"tool":"t","raw_arguments":null}]}',
    '{"case_id":"a","steps":[{"tool":""}]}',
    '{"case_id":"a","steps":[{"tool":"t","args":"{\\"x\\":1}"}]}',
    '{"case_id":"a","steps":[{"tool":"t","args":null}]}',
    '{"case_id":"a","steps":[{"tool":"t","args":[1]}]}',
    '{"case_id":"a","steps":[{"tool":"t","result":{"status":"weird"}}]}',
    '{"case_id":"a","steps":[{"tool":"t","result":{"status":"ok","x":1}}]}',
    '{"case_id":"a","steps":[{"tool":"t","id":5}]}',
    '{"case_id":"a","steps":[{"tool":"t","group":true}]}',
    '{"case_id":"a","steps":[{"tool":"t","role":"x"}]}',
    '{"case_id":"a","steps":[{"role":"user","extra":1}]}',
    '{"case_id":"a","steps":[1]}',
    '{"case_id":"a","steps":[{}]}',
    '{"case_id":"a","format":"openai","steps":[]}',
    '{"case_id":"a","messages":[]}',
    '{"case_id":"a","steps":[],"unknown":1}',
    '{"case_id":"a","steps":[{"tool":"t","args":{"x":"\\ud800"}}]}',
    '{"case_id":"a","steps":[',
    "[1]",
    '"x"',
]


def careful(line: str) -> Any:
    """What the careful path builds for a line (None when it reports a problem)."""
    trajectory, problems = parse_line(json.loads(line), "runs.jsonl", 1)
    return trajectory if not problems else None


@pytest.mark.parametrize("line", PLAIN)
def test_plain_lines_read_in_one_call_equal_the_careful_reading(line: str) -> None:
    fast = plain_trajectory(line)
    assert fast is not None
    assert repr(fast) == repr(careful(line))


@pytest.mark.parametrize("line", FALLBACK)
def test_lines_needing_coercion_or_a_problem_report_fall_back(line: str) -> None:
    assert plain_trajectory(line) is None


def test_iter_runs_still_words_problems_and_reads_plain_lines(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        PLAIN[0] + "\n\n" + FALLBACK[0] + "\n" + '{"case_id":"a","steps":[{"tool":""}]}\n'
        '{"case_id":"a","steps":[\n',
        encoding="utf-8",
    )
    rows = list(iter_runs([runs]))
    assert [(line, t is not None) for _, line, t, _ in rows] == [
        (1, True), (3, True), (4, False), (5, False)
    ]
    assert rows[1][2] is not None and rows[1][2].calls[0][1].group == 1
    assert [(p.line, p.field) for p in rows[2][3]] == [(4, "steps[0].tool")]
    assert rows[3][3][0].reason.startswith("malformed JSON")


_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.floats(-2, 2), st.sampled_from(["", "x", "ok"])
)
_args = st.one_of(_scalars, st.dictionaries(st.sampled_from(["a", "b"]), _scalars, max_size=2))
_result = st.one_of(
    _scalars,
    st.fixed_dictionaries(
        {}, optional={"status": st.sampled_from(["ok", "error", "bad", 1]), "content": _scalars}
    ),
)
_call = st.fixed_dictionaries(
    {"tool": st.sampled_from(["t", "u", "t", "", 1])},
    optional={
        "args": st.one_of(st.dictionaries(st.sampled_from(["a", "b"]), _scalars), _args),
        "id": _scalars, "group": _scalars, "result": _result, "raw_arguments": _scalars,
    },
)  # fmt: skip
_message = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "user", "asistant", 1])},
    optional={"content": _scalars},
)
_record = st.fixed_dictionaries(
    {
        "case_id": st.sampled_from(["c", "c", ""]),
        "steps": st.lists(st.one_of(_call, _message), max_size=4),
    },
    optional={
        "trial": st.one_of(st.integers(0, 3), _scalars),
        "agent": _scalars,
        "format": st.sampled_from(["steps", "openai", None]),
        "final_state": st.one_of(st.none(), st.dictionaries(st.just("k"), _scalars)),
    },
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(_record)
def test_fast_path_never_disagrees_with_the_careful_path(record: dict[str, Any]) -> None:
    line = json.dumps(record)
    fast = plain_trajectory(line)
    if fast is not None:
        assert repr(fast) == repr(careful(line))


def test_a_plain_line_holding_the_word_messages_is_still_read_right() -> None:
    # The chat-format shortcut skips the fast path; the careful path still reads the line.
    line = '{"case_id":"a","steps":[{"role":"user","content":"messages"},{"tool":"t"}]}'
    assert plain_trajectory(line) is None
    trajectory, problems = read_line(line, Path("runs.jsonl"), 1)
    assert problems == [] and repr(trajectory) == repr(careful(line))
    assert trajectory is not None and trajectory.tool_names == ["t"]


@pytest.mark.parametrize("line", PLAIN)
def test_the_fast_trajectory_is_the_validated_one_field_for_field(line: str) -> None:
    # Built without a second validation: its fields set, dump and equality must not show it.
    fast, slow = plain_trajectory(line), careful(line)
    assert fast is not None and slow is not None
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump_json() == slow.model_dump_json()
    assert fast == slow
