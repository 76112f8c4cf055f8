"""What every importer shares: outputs validated by the loader `run` uses, literal escaping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolgrade.errors import InputError
from toolgrade.importers import import_tau2, import_tau_bench
from toolgrade.importers.common import inferred_writes, literal, write_outputs
from toolgrade.loaders import load_runs, load_suite

CASE = {"id": "c", "expected": {"selection": {"tools": ["a"]}}, "tools": {"a": {}}}


def test_outputs_run_would_refuse_are_not_written(tmp_path: Path) -> None:
    bad = {**CASE, "expected": {"arguments": [{"tool": "a", "args": {
        "flights": [{"flight_number": "X1", "date": "2024-05-01"}]}}]}}
    out = tmp_path / "out"
    with pytest.raises(InputError) as err:
        write_outputs(out, [CASE, bad], [{"case_id": "nope", "steps": []}])
    text = str(err.value)
    assert f"{out / 'suite.jsonl'}:2: expected.arguments[0].args.flights" in text
    assert f"{out / 'runs.jsonl'}:1: case_id: no case 'nope' in the suite" not in text  # suite
    assert "nothing was written" in text
    assert not out.exists()


def test_runs_naming_unknown_cases_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(InputError) as err:
        write_outputs(out, [CASE], [{"case_id": "nope", "steps": []}])
    assert f"{out / 'runs.jsonl'}:1: case_id: no case 'nope' in the suite" in str(err.value)
    assert not out.exists()


def test_problems_name_the_output_folder_never_the_scratch_one(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = {"case_id": "c", "steps": []}
    with pytest.raises(InputError) as err:
        write_outputs(out, [CASE], [run, run])
    (problem,) = err.value.problems
    assert problem.file == str(out / "runs.jsonl") and problem.line == 2
    assert f"first at {out / 'runs.jsonl'}:1" in problem.reason


def test_valid_outputs_are_written(tmp_path: Path) -> None:
    write_outputs(tmp_path, [CASE], [{"case_id": "c", "steps": [{"tool": "a"}]}])
    assert list(load_suite(tmp_path / "suite.jsonl").cases) == ["c"]
    assert load_runs([tmp_path / "runs.jsonl"])[0].tool_names == ["a"]


def test_literal_escapes_any_value_holding_a_mapping() -> None:
    assert literal("x") == "x" and literal([1, "a"]) == [1, "a"]
    assert literal({"date": "d"}) == {"exact": {"date": "d"}}
    assert literal([[{"any": 1}]]) == {"exact": [[{"any": 1}]]}


def test_writes_are_inferred_from_the_first_word_of_the_name() -> None:
    names = ["get_order", "find_user", "list_all", "calculate", "think", "check_status",
             "cancel_order", "book_reservation", "transfer_to_human_agents", "Search.Items"]
    assert inferred_writes(names) == {"cancel_order", "book_reservation",
                                      "transfer_to_human_agents"}


# --- property: whatever a well-formed benchmark file holds, the import loads -----------------

KEYS = st.sampled_from(["date", "exact", "any", "one_of", "absent", "order_id", "x", "tol"])
SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=4) | st.floats(
    allow_nan=False, allow_infinity=False, width=32)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(KEYS, inner, max_size=3), max_leaves=8)
TOOLS = st.sampled_from(["get_order", "cancel_pending_order", "book_reservation", "think"])
ACTIONS = st.lists(st.fixed_dictionaries(
    {"name": TOOLS, "kwargs": st.dictionaries(KEYS, VALUES, max_size=3)}), max_size=4)
TASKS = st.lists(st.fixed_dictionaries(
    {"instruction": st.text(max_size=10), "actions": ACTIONS,
     "outputs": st.lists(st.text(max_size=3), max_size=2)}), min_size=1, max_size=3)


def _traj(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    for i, action in enumerate(actions):
        messages.append({"role": "assistant", "content": None, "tool_calls": [{
            "id": f"c{i}", "type": "function", "function": {
                "name": action["name"], "arguments": json.dumps(action["kwargs"])}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": "ok"})
    return messages


PROPERTY = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@PROPERTY
@given(tasks=TASKS, domain=st.sampled_from([None, "retail", "airline", "other"]))
def test_tau_bench_imports_always_load(
    tmp_path_factory: pytest.TempPathFactory, tasks: list[dict[str, Any]], domain: str | None
) -> None:
    folder = tmp_path_factory.mktemp("prop")
    (folder / "tasks.json").write_text(json.dumps(tasks))
    runs = [{"task_id": i, "trial": 0, "reward": 1.0, "traj": _traj(t["actions"])}
            for i, t in enumerate(tasks)]
    (folder / "runs.json").write_text(json.dumps(runs))
    names = {a["name"] for t in tasks for a in t["actions"]}
    mixed = {"cancel_pending_order", "book_reservation"} <= names
    contradicted = (domain == "retail" and "book_reservation" in names) or (
        domain == "airline" and "cancel_pending_order" in names) or (
        domain == "other" and not mixed and names & {"cancel_pending_order", "book_reservation"}
        and (names <= {"book_reservation", "think"} or names <= {"cancel_pending_order", "think"}))
    try:
        import_tau_bench(folder / "tasks.json", folder / "runs.json", folder / "out",
                         domain=domain)
    except InputError as exc:
        # The only refusal of well-formed data: tools of two domains, or of another domain
        # than the one named.
        assert mixed or contradicted, exc.problems
        return
    assert not contradicted and not (mixed and domain is None)
    assert len(load_suite(folder / "out" / "suite.jsonl")) == len(tasks)
    assert len(load_runs([folder / "out" / "runs.jsonl"])) == len(tasks)


COMPARE = st.none() | st.lists(KEYS, max_size=2)
TAU2_ACTIONS = st.lists(st.fixed_dictionaries({
    "action_id": st.text(max_size=3), "name": TOOLS,
    "arguments": st.dictionaries(KEYS, VALUES, max_size=3),
    "requestor": st.sampled_from(["assistant", "user"]), "compare_args": COMPARE}), max_size=3)


@PROPERTY
@given(actions=st.lists(TAU2_ACTIONS, min_size=1, max_size=3))
def test_tau2_imports_always_load(
    tmp_path_factory: pytest.TempPathFactory, actions: list[list[dict[str, Any]]]
) -> None:
    folder = tmp_path_factory.mktemp("prop2")
    tasks = [{"id": f"t{i}", "evaluation_criteria": {"actions": a}}
             for i, a in enumerate(actions)]
    sims = [{"task_id": f"t{i}", "trial": 0, "messages": [
        {"role": a["requestor"], "content": None, "tool_calls": [
            {"id": f"c{i}{j}", "name": a["name"], "arguments": a["arguments"],
             "requestor": a["requestor"]}]}
        for j, a in enumerate(acts)], "reward_info": {"reward": 1.0}}
        for i, acts in enumerate(actions)]
    (folder / "r.json").write_text(json.dumps({"tasks": tasks, "simulations": sims}))
    import_tau2(folder / "r.json", folder / "out")
    assert len(load_suite(folder / "out" / "suite.jsonl")) == len(tasks)
    assert len(load_runs([folder / "out" / "runs.jsonl"])) == len(tasks)


BFCL_SCALARS = st.booleans() | st.integers(-5, 5) | st.text(max_size=4) | st.floats(
    allow_nan=False, allow_infinity=False, width=32)
#: BFCL acceptable values: a list of scalars (`""` = may be left out) or of nested answers,
#: each field of which is again a list of acceptable values.
BFCL_VALUES = st.recursive(
    st.lists(BFCL_SCALARS, min_size=1, max_size=3),
    lambda inner: st.lists(st.dictionaries(KEYS, inner, min_size=1, max_size=2),
                           min_size=1, max_size=2),
    max_leaves=6)


#: A nested answer whose fields are named like comparators, with too many combinations to
#: write as literals: the importer leaves it out (found by this property in CI).
TOO_MANY_LITERALS = {"date": [{
    "date": [{"date": [False]}, {"date": [False] * 3, "exact": [False] * 3}],
    "exact": [{"date": [False] * 3, "exact": [False] * 3}],
}]}


@PROPERTY
@given(params=st.lists(st.dictionaries(KEYS, BFCL_VALUES, max_size=3), min_size=1, max_size=3))
@example(params=[{}, TOO_MANY_LITERALS])
@example(params=[TOO_MANY_LITERALS])
def test_bfcl_imports_always_load(
    tmp_path_factory: pytest.TempPathFactory, params: list[dict[str, Any]]
) -> None:
    from toolgrade.importers import import_bfcl

    folder = tmp_path_factory.mktemp("prop3")
    questions, answers = [], []
    for i, answer in enumerate(params):
        properties = {key: {"type": "any"} for key in answer}
        questions.append({"id": f"simple_python_{i}", "question": [[
            {"role": "user", "content": "do it"}]], "function": [{
                "name": "fn.do", "description": "", "parameters": {
                    "type": "dict", "properties": properties, "required": []}}]})
        answers.append({"id": f"simple_python_{i}", "ground_truth": [{"fn.do": answer}]})
    for name, rows in (("q.json", questions), ("a.json", answers)):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    # Every question is either imported into a suite that loads, or left out and reported
    # (file:line: reason); a file with nothing importable is refused before anything is written.
    try:
        summary = import_bfcl(folder / "q.json", folder / "a.json", None, folder / "out")
    except InputError as exc:
        assert exc.problems and all(p.file.endswith("a.json") for p in exc.problems)
        assert not (folder / "out" / "suite.jsonl").exists()
        return
    loaded = len(load_suite(folder / "out" / "suite.jsonl"))
    assert loaded == summary.cases
    left_out = len(params) - loaded
    assert left_out == 0 or summary.notes[0].startswith(f"left out {left_out} of {len(params)}")


def test_the_import_summary_counts_in_words(tmp_path: Path) -> None:
    from toolgrade.importers.common import ImportSummary

    one = ImportSummary(out=tmp_path, cases=1, runs=1, calls=1).lines()
    assert one[:2] == [f"wrote 1 case to {tmp_path / 'suite.jsonl'}",
                       f"wrote 1 run (1 tool call) to {tmp_path / 'runs.jsonl'}"]
    many = ImportSummary(out=tmp_path, cases=2, runs=0, calls=3).lines()
    assert many[:2] == [f"wrote 2 cases to {tmp_path / 'suite.jsonl'}",
                        f"wrote 0 runs (3 tool calls) to {tmp_path / 'runs.jsonl'}"]
