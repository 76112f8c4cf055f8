"""Run loading: normalised steps, chat formats, unparseable arguments and located problems."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders_foundation import SIMPLE_CASE, steps_run, write_jsonl, write_yaml_suite
from toolgrade.errors import InputError
from toolgrade.loaders import iter_runs, load_runs
from toolgrade.models import Message, ToolCall
from toolgrade.scoring.runner import validate_inputs


def _problems(fn: object) -> list[str]:
    with pytest.raises(InputError) as info:
        fn()  # type: ignore[operator]
    return [str(p) for p in info.value.problems]


def test_steps_run_loads_calls_and_messages(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "r.jsonl", [steps_run("c1", ("lookup_order", {"order_id": "A1"}))]
    )
    (run,) = load_runs([path])
    assert isinstance(run.steps[0], ToolCall) and run.steps[0].args == {"order_id": "A1"}
    assert isinstance(run.steps[1], Message) and run.steps[1].role == "assistant"
    assert run.final_answer() == (1, "done")


def test_unparseable_arguments_are_kept_raw(tmp_path: Path) -> None:
    record = {"case_id": "c1", "steps": [{"tool": "refund", "args": '{"order_id": "A1",'}]}
    (run,) = load_runs([write_jsonl(tmp_path / "r.jsonl", [record])])
    call = run.steps[0]
    assert isinstance(call, ToolCall)
    assert call.unparseable and call.raw_arguments == '{"order_id": "A1",' and call.args == {}


def test_json_string_arguments_are_decoded(tmp_path: Path) -> None:
    record = {"case_id": "c1", "steps": [{"tool": "refund", "args": '{"amount": 5}'}]}
    (run,) = load_runs([write_jsonl(tmp_path / "r.jsonl", [record])])
    assert run.steps[0] == ToolCall(tool="refund", args={"amount": 5})


def test_malformed_line_and_unknown_keys_are_located(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "r.jsonl",
        [
            steps_run("c1"),
            "{oops",
            {"case_id": "c1", "steps": [], "colour": "red"},
            {"case_id": "c1", "steps": [{"tool": "x", "argz": {}}]},
            {"case_id": "c1", "steps": [{"nothing": 1}]},
            {"case_id": "c1"},
            {"case_id": "c1", "trial": "first", "steps": []},
        ],
    )
    problems = _problems(lambda: load_runs([path]))
    assert problems[0].startswith(f"{path}:2: malformed JSON")
    assert f"{path}:3: colour: unknown key" in problems
    assert f"{path}:4: steps[0].argz: unknown key" in problems
    assert any(p.startswith(f"{path}:5: steps[0]: a step needs") for p in problems)
    assert any(
        p.startswith(f"{path}:6:") and "exactly one of 'messages' or 'steps'" in p for p in problems
    )
    assert any(p.startswith(f"{path}:7: trial:") for p in problems)
    assert len(problems) == 6


def test_run_naming_unknown_case_and_duplicates(tmp_path: Path) -> None:
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    runs = write_jsonl(tmp_path / "r.jsonl", [steps_run("c1"), steps_run("nope"), steps_run("c1")])
    problems = _problems(lambda: validate_inputs(suite, [runs]))
    assert f"{runs}:2: case_id: no case 'nope' in the suite" in problems
    assert any(p.startswith(f"{runs}:3: trial: duplicate run of case 'c1'") for p in problems)


def test_suite_and_run_problems_are_listed_together(tmp_path: Path) -> None:
    suite = write_yaml_suite(tmp_path, "- id: c1\n  oops: 1\n")
    runs = write_jsonl(tmp_path / "r.jsonl", ["not json"])
    problems = _problems(lambda: validate_inputs(suite, [runs]))
    assert any("oops: unknown key" in p for p in problems)
    assert any("malformed JSON" in p for p in problems)


def test_folder_of_runs(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    write_jsonl(folder / "a.jsonl", [steps_run("c1", agent="a")])
    write_jsonl(folder / "b.jsonl", [steps_run("c1", agent="b")])
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    inputs = validate_inputs(suite, [folder])
    assert inputs.n_runs == 2 and inputs.agents == {"a", "b"}


def test_a_line_cut_short_is_reported_where_it_ends(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    cut_short = '{"case_id": "c", "steps": [\n'
    runs.write_text(cut_short + '{"case_id": "c", "steps": []}\n', encoding="utf-8")
    [(_, line, trajectory, problems), _] = list(iter_runs([runs]))
    assert line == 1 and trajectory is None
    assert [p.reason for p in problems] == ["malformed JSON: Expecting value (column 28)"]


@pytest.mark.parametrize("role", ["asistant", 5, ["assistant"]])
def test_an_unknown_message_role_is_located(tmp_path: Path, role: object) -> None:
    record = {"case_id": "c1", "steps": [{"role": role, "content": "done"}]}
    (problem,) = _problems(lambda: load_runs([write_jsonl(tmp_path / "r.jsonl", [record])]))
    assert f"r.jsonl:1: steps[0].role: unknown role {role!r}" in problem


def test_a_file_named_twice_is_read_once(tmp_path: Path) -> None:
    suite = write_yaml_suite(tmp_path, SIMPLE_CASE)
    runs = write_jsonl(tmp_path / "r.jsonl", [steps_run("c1", ("lookup_order", {}))])
    inputs = validate_inputs(suite, [runs, tmp_path / "r.jsonl", tmp_path])
    assert inputs.n_runs == 1 and inputs.files == [runs]


def test_an_empty_agent_name_is_located(tmp_path: Path) -> None:
    record = {**steps_run("c1", ("lookup_order", {})), "agent": ""}
    (problem,) = _problems(lambda: load_runs([write_jsonl(tmp_path / "r.jsonl", [record])]))
    assert "r.jsonl:1: agent: String should have at least 1 character" in problem


@pytest.mark.parametrize(("trial", "problem"), [(1.0, None), (True, "must be a whole number"),
                                                ("2", "must be a whole number"),
                                                (1.5, "fractional part")])
def test_trial_is_a_whole_number(tmp_path: Path, trial: object, problem: str | None) -> None:
    record = {**steps_run("c1", ("lookup_order", {})), "trial": trial}
    path = write_jsonl(tmp_path / "r.jsonl", [record])
    if problem is None:
        (run,) = load_runs([path])
        assert run.trial == 1 and type(run.trial) is int
        return
    (found,) = _problems(lambda: load_runs([path]))
    assert "r.jsonl:1: trial:" in found and problem in found


@pytest.mark.parametrize("group", [1.5, [1], {"g": 1}, True, False])
def test_a_group_of_another_type_says_what_a_group_may_be(tmp_path: Path, group: object) -> None:
    record = {"case_id": "c1", "steps": [{"tool": "t"}, {"tool": "t", "group": group}]}
    (found,) = _problems(lambda: load_runs([write_jsonl(tmp_path / "r.jsonl", [record])]))
    assert found == f"{tmp_path / 'r.jsonl'}:1: steps[1].group: should be an integer or a string"


def test_a_result_marked_as_an_injected_fault_keeps_its_mark(tmp_path: Path) -> None:
    record = {"case_id": "c1", "steps": [
        {"tool": "search_kb", "args": {"q": "x"},
         "result": {"status": "ok", "content": "", "fault": "empty"}}]}
    (run,) = load_runs([write_jsonl(tmp_path / "r.jsonl", [record])])
    call = run.steps[0]
    assert isinstance(call, ToolCall) and call.injected_fault
    assert call.result is not None and call.result.fault == "empty"
    bad = {"case_id": "c1", "steps": [{"tool": "t", "result": {"fault": "flaky"}}]}
    with pytest.raises(InputError, match="fault"):
        load_runs([write_jsonl(tmp_path / "bad.jsonl", [bad])])
