"""The checklist benchmark's report step on synthetic rows (no model): it must print figures."""

from __future__ import annotations

import json
import random
from pathlib import Path

from script_modules import load_script

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _rows(n: int) -> list[dict]:
    rng = random.Random(7)
    rows = []
    for k in range(n):
        human_pass = k % 2 == 0
        right = rng.random() < 0.85
        p_yes = 0.8 if human_pass == right else 0.2
        mode = {"tokens": 500, "seconds": 4.0, "prefix_evaluations": 1, "cached": False,
                "settled": False}
        rows.append({
            "set": "dev", "dimension": "recovery_quality", "id": f"i{k}",
            "label": "pass" if human_pass else "fail", "bytes": 3000, "settled": False,
            "signals": {"stage_bad": float(not human_pass and rng.random() < 0.5)},
            "single": {**mode, "p_pass": rng.random(), "answers": None},
            "checklist": {**mode, "p_pass": p_yes, "answers": {"q_task_done": p_yes}},
        })
    return rows


def test_the_report_prints_both_modes_with_figures(tmp_path, capsys) -> None:
    bench = load_script(BENCH / "checklist_vs_single.py", "bench_checklist_vs_single")
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _rows(40)))
    bench.report(path)
    lines = capsys.readouterr().out.splitlines()
    single = next(line for line in lines if "single" in line)
    listed = next(line for line in lines if "checklist " in line and "recovery" in line)
    assert "(" not in single and "(" not in listed  # no fit error
    figures = bench.mode_figures(_rows(40), "recovery_quality", "checklist")
    assert figures["auc_model"] > 0.75  # the answers carry the label 85% of the time
    assert figures["kappa"] > 0.4
    assert "checklist median seconds per 2-6 kB item: 4.0 (40 items)" in lines
    # The answers carry the label, so the model adds ranking over the signals: it is asked.
    assert "recovery_quality       judged by the model by default" in lines[-1]


def test_the_report_adds_the_example_modes_where_rows_hold_them(tmp_path, capsys) -> None:
    bench = load_script(BENCH / "checklist_vs_single.py", "bench_checklist_vs_single")
    rows = _rows(40)
    for row in rows:
        row["single_examples"] = row["checklist"]
        row["checklist_examples"] = row["checklist"]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    bench.report(path)
    lines = capsys.readouterr().out.splitlines()
    modes = [line for line in lines if "recovery_quality" in line and "judged by" not in line]
    shown = [line.split()[3] for line in modes]
    assert shown == ["single", "checklist", "single+examples", "checklist+examples"]
    assert all("(" not in line for line in modes)


def test_collect_judges_the_example_modes_on_a_scripted_judge(tmp_path, monkeypatch) -> None:
    bench = load_script(BENCH / "checklist_vs_single.py", "bench_checklist_vs_single")
    monkeypatch.chdir(tmp_path)
    # P(pass) 0.7 where the prompt shows an example, else 0.4: the modes tell apart. (K = 2 is
    # a ceiling: long examples are cut to the budget, so only the first is certain.)
    (tmp_path / "script.json").write_text(json.dumps(
        {"rules": [{"when": "Example 1:", "reply": {"p_pass": 0.7}}],
         "default": {"p_pass": 0.4}}))
    out = tmp_path / "rows.jsonl"
    bench.collect(out, 1, ["dev"], tmp_path / "cache",
                  bench.Examples(2, (BENCH / "judge_dev",)), "scripted/script.json")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4 and all(r["examples"] == 2 for r in rows)
    asked = [r for r in rows if not r["settled"]]
    assert asked
    for row in asked:
        assert row["single"]["p_pass"] == 0.4
        assert row["single_examples"]["p_pass"] == 0.7
        assert set(row["checklist_examples"]["answers"].values()) == {0.7}


def test_neighbours_prints_each_dimension_with_both_pools(capsys) -> None:
    bench = load_script(BENCH / "checklist_vs_single.py", "bench_checklist_vs_single")
    bench.neighbours(["dev"], 1)
    lines = capsys.readouterr().out.splitlines()[1:]
    assert len(lines) == 8  # four dimensions, two pools
    for line in lines:
        same, knn = float(line.split()[4]), float(line.split()[5])
        assert 0.0 <= same <= 1.0 and 0.0 <= knn <= 1.0


def test_collect_judges_only_the_modes_named(tmp_path, monkeypatch) -> None:
    bench = load_script(BENCH / "checklist_vs_single.py", "bench_checklist_vs_single")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "script.json").write_text(json.dumps({"default": {"p_pass": 0.4}}))
    out = tmp_path / "rows.jsonl"
    bench.collect(out, 1, ["dev"], tmp_path / "cache", bench.Examples(1, ()),
                  "scripted/script.json", only=["single", "single_examples"])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4
    assert all("single_examples" in r and "checklist" not in r for r in rows)
    bench.report(out)  # rows without the checklist still read


def test_a_mode_held_by_some_rows_is_read_on_those(tmp_path, capsys) -> None:
    bench = load_script(BENCH / "checklist_vs_single.py", "bench_checklist_vs_single")
    rows = _rows(40)
    for row in rows[:20]:
        row["checklist_examples"] = row["checklist"]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    bench.report(path)
    lines = capsys.readouterr().out.splitlines()
    partial = next(line for line in lines if "checklist+examples" in line)
    assert partial.split()[2] == "20" and "(" not in partial
    full = next(line for line in lines if " checklist " in line and "recovery" in line)
    assert full.split()[2] == "40"
