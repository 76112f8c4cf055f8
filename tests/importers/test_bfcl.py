"""BFCL import: questions and possible answers become cases, a result file becomes runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from builders_importers import (
    BFCL_ANSWERS,
    BFCL_QUESTIONS,
    BFCL_RESULTS,
    by_id,
    read_lines,
    write_lines,
)
from toolgrade.errors import InputError
from toolgrade.importers import import_bfcl
from toolgrade.importers.bfcl import bfcl_category, map_schema
from toolgrade.importers.bfcl_answers import acceptable
from toolgrade.loaders import load_runs, load_suite
from toolgrade.models import Case
from toolgrade.scoring.runner import grade, validate_inputs


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bfcl")
    import_bfcl(BFCL_QUESTIONS, BFCL_ANSWERS, BFCL_RESULTS, out, agent="model-x", lenient=True)
    return out


@pytest.fixture(scope="module")
def cases(imported: Path) -> dict[str, dict[str, Any]]:
    return by_id(read_lines(imported / "suite.jsonl"))


@pytest.fixture(scope="module")
def runs(imported: Path) -> list[dict[str, Any]]:
    return read_lines(imported / "runs.jsonl")


def test_summary_counts_cases_runs_and_unparseable(tmp_path: Path) -> None:
    summary = import_bfcl(BFCL_QUESTIONS, BFCL_ANSWERS, BFCL_RESULTS, tmp_path, lenient=True)
    assert (summary.cases, summary.runs) == (7, 9)
    # parallel_multiple_0 (positional arguments) and simple_python_1 trial 1 (text)
    assert summary.unparseable == 2
    assert summary.missing_runs == 0
    assert any("could not be fully decoded" in line for line in summary.lines())


def test_every_suite_line_is_a_valid_case(imported: Path) -> None:
    rows = read_lines(imported / "suite.jsonl")
    assert [Case.model_validate(r).id for r in rows][:2] == ["simple_python_0", "simple_python_1"]
    suite = load_suite(imported / "suite.jsonl")
    assert len(suite) == 7


def test_runs_load_through_the_runs_loader(imported: Path) -> None:
    trajectories = load_runs([imported / "runs.jsonl"])
    assert len(trajectories) == 9
    raw = [t for t in trajectories if any(c.unparseable for _, c in t.calls)]
    assert {t.case_id for t in raw} == {"parallel_multiple_0", "simple_python_1"}


def test_types_map_to_json_schema(cases: dict[str, dict[str, Any]]) -> None:
    props = cases["simple_python_2"]["tools"]["db.filter"]["parameters"]["properties"]
    assert props["conditions"]["items"]["type"] == "object"
    assert props["location"] == {"type": "array", "items": {"type": "number"},
                                 "description": "Lat/long."}
    assert "type" not in props["extra"]  # BFCL `any`
    # BFCL's checker never checks a string enum: it moves to the description (issue 19).
    assert props["table"] == {"type": "string", "description":
                              "Table. (not graded, as BFCL's checker does not: "
                              'enum ["users", "orders"])'}
    unit = cases["simple_python_0"]["tools"]["calculate_triangle_area"]["parameters"]
    assert unit["properties"]["unit"] == {"type": "string", "description": "The unit of measure.",
                                          "default": "units"}  # `optional` dropped
    assert unit["required"] == ["base", "height"] and unit["type"] == "object"


def test_map_schema_recurses_into_dict_properties() -> None:
    schema = map_schema({"type": "dict", "properties": {"b": {"type": "dict", "properties": {
        "min": {"type": "float"}}}}})
    assert schema == {"type": "object", "properties": {"b": {"type": "object", "properties": {
        "min": {"type": "number"}}}}}


def test_string_constraints_bfcl_does_not_check_leave_the_schema() -> None:
    schema = map_schema({"type": "dict", "properties": {
        "day": {"type": "string", "format": "date", "pattern": "^[0-9-]+$"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        "n": {"type": "integer", "enum": [1, 2], "minimum": 1}}})
    props = schema["properties"]
    assert props["day"] == {"type": "string", "description": (
        "(not graded, as BFCL's checker does not: format \"date\"; pattern \"^[0-9-]+$\")")}
    assert "enum" not in props["tags"]["items"]
    assert '["a", "b"]' in props["tags"]["items"]["description"]
    # BFCL compares numbers exactly, so a number enum never fails a value it passes: kept.
    assert props["n"] == {"type": "integer", "enum": [1, 2], "minimum": 1}


def test_optional_string_parameter_becomes_one_of_with_absent(
        cases: dict[str, dict[str, Any]]) -> None:
    args = cases["simple_python_0"]["expected"]["arguments"][0]["args"]
    # Integer parameters: strict, as BFCL's Python type check (5.0 fails there). An optional
    # string also takes "": BFCL finds it among the values, where "" marks "optional".
    assert args == {"base": {"exact": 10, "strict": True}, "height": {"exact": 5, "strict": True},
                    "unit": {"one_of": ["units", {"absent": True}, ""], "normalize": True}}


def test_nested_dicts_are_compared_field_by_field(cases: dict[str, dict[str, Any]]) -> None:
    args = cases["multiple_0"]["expected"]["arguments"][0]["args"]
    assert args["budget"] == {"min": {"exact": 300000.0}, "max": {"exact": 400000.0}}
    assert args["location"] == {"one_of": ["San Diego, CA", "SD"], "normalize": True}
    conditions = cases["simple_python_2"]["expected"]["arguments"][0]["args"]["conditions"]
    assert conditions[1] == {"field": {"exact": "job", "normalize": True},
                             "operation": {"exact": "=", "normalize": True},
                             "value": {"exact": "engineer", "normalize": True}}


def test_parameters_the_answer_omits_must_be_left_out() -> None:
    from toolgrade.importers.bfcl_answers import expected_call
    call = expected_call("f", {"a": [1]}, {"properties": {"a": {}, "b": {}}})
    assert call["args"]["b"] == {"absent": True}


def test_variable_values_are_compared_as_written_like_bfcl() -> None:
    # BFCL's "variable" rule: a string answer for a parameter of another type is compared
    # literally there, so "DONTCARE" fails for "dontcare"; a string parameter stays lenient.
    from toolgrade.importers.bfcl_answers import expected_call
    schema = {"properties": {"year": {"type": "integer"}, "x": {"type": "array"},
                             "genre": {"type": "string"}, "any": {},
                             "smoke": {"type": "string"}}}
    call = expected_call("f", {"year": ["", "dontcare"], "x": ["data['sales']"],
                               "genre": ["", "dontcare"], "any": ["v"],
                               "smoke": [False, "no"]}, schema)
    assert call["args"] == {
        "year": {"one_of": ["dontcare", {"absent": True}]},
        "x": {"exact": "data['sales']"},
        "genre": {"one_of": ["dontcare", {"absent": True}, ""], "normalize": True},
        "any": {"exact": "v", "normalize": True},
        "smoke": {"one_of": [False, "no"]}}  # the first value's type decides, as in BFCL


def test_integer_parameters_compare_strictly_like_bfcl() -> None:
    # BFCL fails 5.0 for an integer (its type check is Python's); an int for a float passes.
    from toolgrade.importers.bfcl_answers import expected_call
    schema = {"properties": {"n": {"type": "integer"}, "x": {"type": "number"},
                             "ns": {"type": "array", "items": {"type": "integer"}},
                             "v": {"type": "integer"}}}
    call = expected_call("f", {"n": [5, ""], "x": [2.0], "ns": [[1, 2]], "v": ["dontcare"]},
                         schema)
    assert call["args"]["n"] == {"one_of": [5, {"absent": True}], "strict": True}
    assert call["args"]["x"] == {"exact": 2.0}
    assert call["args"]["ns"] == {"exact": [1, 2], "strict": True}
    assert call["args"]["v"] == {"exact": "dontcare"}  # a "variable": nothing numeric to type


def test_lists_stay_ordered_and_optional_lists_keep_absent(
        cases: dict[str, dict[str, Any]]) -> None:
    args = cases["simple_python_2"]["expected"]["arguments"][0]["args"]
    # [] too: BFCL's list check reads the "" that marks it optional as an empty list
    assert args["location"] == {"one_of": [[40.71, -74.0], {"absent": True}, []]}
    multiples = cases["parallel_multiple_0"]["expected"]["arguments"][0]["args"]["multiples"]
    assert multiples == {"exact": [3, 5], "strict": True}  # an array of integers


def test_parallel_answers_are_a_multiset(cases: dict[str, dict[str, Any]]) -> None:
    expected = cases["parallel_0"]["expected"]
    assert expected["selection"]["tools"] == ["spotify.play", "spotify.play"]
    assert [a["args"]["artist"]["exact"] for a in expected["arguments"]] == ["Taylor Swift",
                                                                              "Maroon 5"]


def test_irrelevance_expects_no_tool(cases: dict[str, dict[str, Any]]) -> None:
    case = cases["irrelevance_0"]
    assert case["expected"] == {"selection": {"no_tool": True}}
    assert case["task_type"] == "irrelevance"


def test_input_is_the_last_user_message_and_task_type_the_category(
        cases: dict[str, dict[str, Any]]) -> None:
    case = cases["simple_python_1"]
    assert case["input"] == "Calculate the factorial of 5 using math functions."
    assert case["task_type"] == "simple_python"
    assert bfcl_category("live_simple_12-3-4") == "live_simple"
    assert bfcl_category("parallel_multiple_9") == "parallel_multiple"


def test_dotted_names_stay_and_underscored_results_map_back(runs: list[dict[str, Any]]) -> None:
    first = next(r for r in runs if r["case_id"] == "simple_python_1")
    assert first["steps"] == [{"tool": "math.factorial", "args": {"number": 5}, "group": 0}]
    parallel = [r for r in runs if r["case_id"] == "parallel_0"]
    assert [s["tool"] for s in parallel[0]["steps"]] == ["spotify.play", "spotify.play"]
    assert {s["group"] for s in parallel[0]["steps"]} == {0}


def test_repeated_ids_become_trials_and_empty_results_have_no_calls(
        runs: list[dict[str, Any]]) -> None:
    parallel = [r for r in runs if r["case_id"] == "parallel_0"]
    assert [r["trial"] for r in parallel] == [0, 1]
    assert parallel[1]["steps"] == []
    assert all(r["agent"] == "model-x" for r in runs)


def test_undecodable_result_is_an_unparsed_step(runs: list[dict[str, Any]]) -> None:
    second = [r for r in runs if r["case_id"] == "simple_python_1"][1]
    assert second["steps"] == [{"tool": "(unparsed)",
                                "args": "Sure! The factorial of 5 is 120.", "group": 0}]


def test_irrelevance_text_reply_is_a_message(runs: list[dict[str, Any]]) -> None:
    run = next(r for r in runs if r["case_id"] == "irrelevance_0")
    assert run["steps"][0]["role"] == "assistant"


def test_questions_without_answers_are_refused_unless_irrelevance(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        import_bfcl(BFCL_QUESTIONS, None, None, tmp_path / "x")
    assert "no possible answer for 'simple_python_0'" in str(err.value)
    only_irrelevance = write_lines(tmp_path / "q.json", [json.loads(
        BFCL_QUESTIONS.read_text().splitlines()[-1])])
    summary = import_bfcl(only_irrelevance, None, None, tmp_path / "y")
    assert summary.cases == 1


def test_malformed_lines_are_located(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(BFCL_QUESTIONS.read_text().splitlines()[0] + "\n{not json\n")
    with pytest.raises(InputError) as err:
        import_bfcl(bad, BFCL_ANSWERS, None, tmp_path / "out")
    assert f"{bad}:2: malformed JSON" in str(err.value)
    assert not (tmp_path / "out").exists()  # nothing written on bad input


def test_result_for_an_unknown_question_is_an_error(tmp_path: Path) -> None:
    results = write_lines(tmp_path / "r.json", [{"id": "simple_python_0", "result": "[]"},
                                                {"id": "nope_1", "result": "[]"}])
    with pytest.raises(InputError) as err:
        import_bfcl(BFCL_QUESTIONS, BFCL_ANSWERS, results, tmp_path / "out")
    assert f"{results}:2: id: no question with id 'nope_1'" in str(err.value)


def test_multi_turn_ground_truth_is_refused(tmp_path: Path) -> None:
    answers = write_lines(tmp_path / "a.json", [
        {"id": "simple_python_0", "ground_truth": [["cd(folder='x')"]]}])
    questions = write_lines(tmp_path / "q.json", [json.loads(
        BFCL_QUESTIONS.read_text().splitlines()[0])])
    with pytest.raises(InputError) as err:
        import_bfcl(questions, answers, None, tmp_path / "out")
    assert "multi-turn answers are not supported" in str(err.value)


def test_field_named_like_a_comparator_is_expanded_to_literals() -> None:
    spec = acceptable([{"date": ["2024-01-01"], "time": ["", "9am"]}])
    assert spec == {"one_of": [{"exact": {"date": "2024-01-01"}, "normalize": True},
                               {"exact": {"date": "2024-01-01", "time": "9am"},
                                "normalize": True}]}


def _question_with_tool_f(tmp_path: Path) -> Path:
    """One simple question declaring a single tool `f(a: integer, b: dict)`."""
    return write_lines(tmp_path / "q.json", [{
        "id": "simple_python_0", "question": [[{"role": "user", "content": "Use f."}]],
        "function": [{"name": "f", "parameters": {"type": "dict", "properties": {
            "a": {"type": "integer"}, "b": {"type": "dict"}}}}]}])


def test_answer_naming_an_undeclared_function_is_located(tmp_path: Path) -> None:
    answers = write_lines(tmp_path / "a.json", [{"id": "simple_python_0", "ground_truth": [
        {"f": {"a": [1]}}, {"g": {"a": [1]}}]}])
    with pytest.raises(InputError) as err:
        import_bfcl(_question_with_tool_f(tmp_path), answers, None, tmp_path / "out")
    assert str(err.value) == (f"{answers}:1: ground_truth[1].g: function 'g' is not among "
                              "the question's functions (f)")
    assert not (tmp_path / "out").exists()


def test_acceptable_values_must_be_a_list(tmp_path: Path) -> None:
    answers = write_lines(tmp_path / "a.json", [{"id": "simple_python_0", "ground_truth": [
        {"f": {"a": 1, "b": [{"min": 2, "max": [3]}]}}]}])
    with pytest.raises(InputError) as err:
        import_bfcl(_question_with_tool_f(tmp_path), answers, None, tmp_path / "out")
    assert [str(p) for p in err.value.problems] == [
        f"{answers}:1: ground_truth[0].f.a: acceptable values must be a list, e.g. [1]"]
    with pytest.raises(ValueError, match="must be a list"):
        acceptable(1)


def test_a_bare_value_inside_a_nested_answer_is_its_one_acceptable_value() -> None:
    # BFCL_v4_live_multiple line 122: `position` holds a dict written with bare values.
    spec = acceptable([{"position": [{"lateral": 10.5, "longitudinal": 50}],
                        "orientation": [30], "lane": {"id": "L1"}}])
    assert spec == {
        "position": {"lateral": {"exact": 10.5}, "longitudinal": {"exact": 50}},
        "orientation": {"exact": 30},
        "lane": {"id": {"exact": "L1", "normalize": True}},
    }
    assert acceptable([{"date": "2024-01-01", "at": ["", "9am"]}]) == {"one_of": [
        {"exact": {"date": "2024-01-01"}, "normalize": True},
        {"exact": {"date": "2024-01-01", "at": "9am"}, "normalize": True}]}


def test_a_line_separator_inside_a_question_does_not_split_its_line(tmp_path: Path) -> None:
    questions = read_lines(BFCL_QUESTIONS)
    first = questions[0]
    first["question"][0][0]["content"] += " \u2028and\u0085more\u2029"
    path = tmp_path / "q.json"
    # Raw, as json.dumps(ensure_ascii=False) writes them; every other line as it was.
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions))
    import_bfcl(path, BFCL_ANSWERS, None, tmp_path / "out")
    case = by_id(read_lines(tmp_path / "out" / "suite.jsonl"))[first["id"]]
    assert "\u2028and\u0085more\u2029" in json.dumps(case["input"], ensure_ascii=False)


def test_a_key_written_twice_is_refused_not_read_as_the_last(tmp_path: Path) -> None:
    bad = tmp_path / "dup.json"
    first = BFCL_QUESTIONS.read_text().splitlines()[0]
    bad.write_text(first + "\n" + '{"id": "x", "id": "y", "question": [], "function": []}\n')
    with pytest.raises(InputError) as err:
        import_bfcl(bad, BFCL_ANSWERS, None, tmp_path / "out")
    assert f"{bad}:2: not valid JSON: duplicate key 'id'" in str(err.value)


def test_a_float_array_holding_ints_fails_like_bfcl(tmp_path: Path) -> None:
    # BFCL's nested type check is `type(item) == float`, with no int allowance below the top
    # level: `interval=[1, 3]` fails where the answer lists [1.0, 3.0].
    from toolgrade.importers.bfcl_answers import expected_call
    schema = {"properties": {"xs": {"type": "array", "items": {"type": "number"}}}}
    assert expected_call("f", {"xs": [[1.0, 3.0]]}, schema)["args"]["xs"] == {
        "exact": [1.0, 3.0], "strict": True}
    # Optional ("" among the values) or int answers: BFCL lets ints through, so no strict.
    assert "strict" not in expected_call("f", {"xs": [[1.0, 3.0], ""]}, schema)["args"]["xs"]
    assert "strict" not in expected_call("f", {"xs": [[1, 3]]}, schema)["args"]["xs"]
    function = {"name": "integrate", "description": "", "parameters": {
        "type": "dict", "required": ["interval"], "properties": {
            "interval": {"type": "array", "items": {"type": "float"}}}}}
    questions, answers, results = (tmp_path / name for name in ("q.json", "a.json", "r.json"))
    questions.write_text(json.dumps({"id": "simple_python_0", "question": [[{
        "role": "user", "content": "integrate"}]], "function": [function]}) + "\n")
    answers.write_text(json.dumps({"id": "simple_python_0", "ground_truth": [
        {"integrate": {"interval": [[1.0, 3.0]]}}]}) + "\n")
    results.write_text("".join(json.dumps({"id": "simple_python_0", "result": text}) + "\n"
                               for text in ("[integrate(interval=[1, 3])]",
                                            "[integrate(interval=[1.0, 3.0])]")))
    import_bfcl(questions, answers, results, tmp_path / "out")
    inputs = validate_inputs(tmp_path / "out" / "suite.jsonl", [tmp_path / "out" / "runs.jsonl"])
    graded = [json.loads(line) for line in grade(inputs, tmp_path / "graded")
              .results_path.read_text().splitlines()]
    assert [r["aggregate"]["passed"] for r in sorted(graded, key=lambda r: r["trial"])] == [
        False, True]
