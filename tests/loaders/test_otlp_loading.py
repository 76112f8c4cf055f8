"""OTLP files among run files: recognised by content, runs identified, problems located."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders_foundation import steps_run, write_jsonl
from builders_otlp import export, genai_agent, genai_tool, span, write_lines
from toolgrade.errors import InputError, InputProblem
from toolgrade.loaders import load_runs, run_files
from toolgrade.loaders.otlp import OtlpOptions, OtlpStats, otlp_layout
from toolgrade.loaders.runs import iter_runs


def _trace(trace: str, case_id: str | None = "c1", start: int = 0, **extra: object) -> list:
    return [
        {**genai_agent("a" + trace[-6:], "x", start=start, case_id=case_id, **extra),
         "traceId": trace},
        {**genai_tool("t" + trace[-6:], "lookup_order", {"order_id": "A"}, "{}",
                      parent="a" + trace[-6:], start=start + 10), "traceId": trace},
    ]


def _problems(paths: list[Path], otlp: OtlpOptions | None = None) -> list[InputProblem]:
    return [p for _, _, _, found in iter_runs(paths, otlp) for p in found]


def test_layout_is_recognised_by_content_not_name(tmp_path: Path) -> None:
    lines = write_lines(tmp_path / "a.txt", [export(_trace("1" * 32))])
    document = tmp_path / "b.json"
    document.write_text(json.dumps(export(_trace("2" * 32)), indent=2))
    runs = write_jsonl(tmp_path / "c.jsonl", [steps_run("c1", ("x", {}))])
    mention = write_jsonl(tmp_path / "d.jsonl", [
        {**steps_run("c1"), "steps": [{"role": "user", "content": '"resourceSpans"'}]}])
    assert otlp_layout(lines) == "lines"
    assert otlp_layout(document) == "document"
    assert otlp_layout(runs) is None and otlp_layout(mention) is None


def test_a_folder_takes_otlp_json_files_and_leaves_other_json(tmp_path: Path) -> None:
    (tmp_path / "trace.json").write_text(json.dumps(export(_trace("1" * 32)), indent=1))
    (tmp_path / "config.json").write_text('{"resourceSpansLimit": 3}\n')
    write_jsonl(tmp_path / "runs.jsonl", [steps_run("c2", ("x", {}))])
    assert sorted(p.name for p in run_files([tmp_path])) == ["runs.jsonl", "trace.json"]
    assert sorted(r.case_id for r in load_runs(run_files([tmp_path]))) == ["c1", "c2"]


def test_a_trace_split_over_two_export_lines_is_one_run(tmp_path: Path) -> None:
    first, second = _trace("1" * 32)
    path = write_lines(tmp_path / "t.jsonl", [export([second]), export([first])])
    (run,) = load_runs([path])
    assert run.tool_names == ["lookup_order"] and run.agent == "x"


def test_trials_follow_start_times_unless_toolgrade_trial_says(tmp_path: Path) -> None:
    late, early, fixed = "1" * 32, "2" * 32, "3" * 32
    spans = (
        _trace(late, start=5000)
        + _trace(early, start=100)
        + _trace(fixed, start=50, **{"toolgrade.trial": 1})
    )
    runs = load_runs([write_lines(tmp_path / "t.jsonl", [export(spans)])])
    # runs come in start order (fixed, early, late); trial 1 is taken by the fixed trace
    assert [run.trial for run in runs] == [1, 0, 2]


def test_trial_numbers_continue_across_files(tmp_path: Path) -> None:
    one = write_lines(tmp_path / "1.jsonl", [export(_trace("1" * 32))])
    two = write_lines(tmp_path / "2.jsonl", [export(_trace("2" * 32))])
    assert [r.trial for r in load_runs([one, two])] == [0, 1]


def test_case_id_from_the_resource_and_from_another_attribute(tmp_path: Path) -> None:
    spans = _trace("1" * 32, case_id=None)
    path = write_lines(tmp_path / "t.jsonl", [export(spans, {"toolgrade.case_id": "c9"})])
    assert load_runs([path])[0].case_id == "c9"
    other = write_lines(tmp_path / "o.jsonl", [export(spans, {"session.id": "c7"})])
    ((_, _, run, _),) = list(iter_runs([other], OtlpOptions(case_attribute="session.id")))
    assert run is not None and run.case_id == "c7"


def test_a_trace_without_a_case_id_is_a_problem_naming_file_line_and_trace(
    tmp_path: Path,
) -> None:
    good = export(_trace("1" * 32))
    path = write_lines(tmp_path / "t.jsonl", [good, export(_trace("2" * 32, case_id=None))])
    rows = list(iter_runs([path]))
    assert sum(run is not None for _, _, run, _ in rows) == 1  # the good trace is still read
    (problem,) = [p for *_, found in rows for p in found]
    assert (problem.file, problem.line) == (str(path), 2)
    assert problem.field == f"trace {'2' * 32}: toolgrade.case_id"
    assert "--case-attribute" in problem.reason


def test_two_case_ids_in_one_trace_are_a_problem(tmp_path: Path) -> None:
    spans = _trace("1" * 32)
    spans[1]["attributes"].append({"key": "toolgrade.case_id", "value": {"stringValue": "c2"}})
    (problem,) = _problems([write_lines(tmp_path / "t.jsonl", [export(spans)])])
    assert "two values in one trace" in problem.reason and "'c2'" in problem.reason


@pytest.mark.parametrize(
    ("mutate", "field", "reason"),
    [
        (lambda s: s.pop("spanId"), "resourceSpans[0].scopeSpans[0].spans[1].spanId",
         "non-empty string"),
        (lambda s: s.pop("traceId"), "spans[1].traceId (span t111111)", "non-empty string"),
        (lambda s: s["attributes"].append({"key": "k", "value": {"intValue": "x1"}}),
         "spans[1].attributes[k].intValue (span t111111)", "must be an integer"),
        (lambda s: s["attributes"].append({"key": "k", "value": {"colour": "red"}}),
         "spans[1].attributes[k].colour (span t111111)", "unknown AnyValue kind"),
        (lambda s: s.update(status={"code": 7}), "spans[1].status.code (span t111111)",
         "unknown status code"),
        (lambda s: s.update(startTimeUnixNano="soon"),
         "spans[1].startTimeUnixNano (span t111111)", "must be an integer"),
    ],
)
def test_malformed_spans_name_the_line_the_path_and_the_span_id(
    tmp_path: Path, mutate: object, field: str, reason: str
) -> None:
    spans = _trace("1" * 32)
    mutate(spans[1])  # type: ignore[operator]
    path = write_lines(tmp_path / "t.jsonl", ["", export(spans)])
    (problem,) = _problems([path])
    assert problem.line == 2
    assert problem.field.endswith(field) and reason in problem.reason


def test_a_tool_span_with_no_tool_name_and_a_call_id_of_another_type(tmp_path: Path) -> None:
    nameless = span("t1", "execute_tool", {"gen_ai.operation.name": "execute_tool"},
                    parent="a1")
    path = write_lines(tmp_path / "t.jsonl", [export([genai_agent("a1", "x"), nameless])])
    (problem,) = _problems([path])
    assert "(span t1)" in problem.field and "gen_ai.tool.name" in problem.reason
    numbered = genai_tool("t1", "x", {}, "{}", **{"gen_ai.tool.call.id": 7})
    path = write_lines(tmp_path / "u.jsonl", [export([genai_agent("a1", "x"), numbered])])
    (problem,) = _problems([path])
    assert problem.field.endswith("spans[1].attributes[gen_ai.tool.call.id] (span t1)")
    assert problem.reason == "an id must be a string, got int"


def test_malformed_lines_and_documents_are_located(tmp_path: Path) -> None:
    good = json.dumps(export(_trace("1" * 32)))
    lines = write_lines(tmp_path / "t.jsonl", [good, good[:-5]])
    (problem,) = _problems([lines])
    assert problem.line == 2 and "malformed JSON" in problem.reason
    document = tmp_path / "t.json"
    spans = _trace("2" * 32)
    spans[1]["attributes"].append({"key": "k", "value": {"intValue": True}})
    document.write_text(json.dumps(export(spans), indent=2))
    (problem,) = _problems([document])
    text = document.read_text().splitlines()
    assert problem.line is not None and '"spanId": "t222222"' in text[problem.line - 1]


def test_the_old_instrumentation_library_spans_key_and_numeric_ints_are_read(
    tmp_path: Path,
) -> None:
    value = export(_trace("1" * 32))
    block = value["resourceSpans"][0]
    block["instrumentationLibrarySpans"] = block.pop("scopeSpans")
    block["instrumentationLibrarySpans"][0]["spans"][0]["startTimeUnixNano"] = 5
    (run,) = load_runs([write_lines(tmp_path / "t.jsonl", [value])])
    assert run.tool_names == ["lookup_order"]


def test_final_state_comes_from_toolgrade_final_state(tmp_path: Path) -> None:
    state = {"orders": {"A1": {"status": "refunded"}}}
    spans = _trace("1" * 32, **{"toolgrade.final_state": json.dumps(state)})
    (run,) = load_runs([write_lines(tmp_path / "t.jsonl", [export(spans)])])
    assert run.final_state == state
    bad = _trace("2" * 32, **{"toolgrade.final_state": "[1, 2]"})
    with pytest.raises(InputError, match=r"toolgrade\.final_state: must be a JSON object"):
        load_runs([write_lines(tmp_path / "u.jsonl", [export(bad)])])


def test_traces_of_no_agent_are_not_runs_and_repeated_spans_are_read_once(
    tmp_path: Path,
) -> None:
    agent = _trace("1" * 32)
    http = [span("h1", "GET /health", {"http.request.method": "GET"}, trace="2" * 32)]
    # the first batch written twice, as an exporter's retry may
    path = write_lines(tmp_path / "t.jsonl", [export(agent), export(agent + http)])
    stats = OtlpStats()
    rows = list(iter_runs([path], stats=stats))
    assert [run.tool_names for _, _, run, _ in rows if run is not None] == [["lookup_order"]]
    assert all(not found for *_, found in rows)
    assert (stats.traces, stats.other_traces, stats.tool_calls) == (1, 1, 1)
    assert stats.left_out == {"duplicate span": 2, "no GenAI or OpenInference kind": 1}


def test_a_document_nested_too_deeply_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    deep: object = "x"
    for _ in range(150):  # each level is three JSON levels: 450 in all
        deep = {"k": deep}
    spans = _trace("1" * 32, **{"payload": deep})
    document = tmp_path / "t.json"
    document.write_text(json.dumps(export(spans), indent=1))
    (problem,) = _problems([document])
    assert "nested deeper than 256 levels" in problem.reason
