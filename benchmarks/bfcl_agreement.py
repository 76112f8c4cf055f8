"""How often toolgrade's pass/fail on imported BFCL data agrees with BFCL's own checker rules.

    python benchmarks/bfcl_agreement.py [DATA_DIR] [--seed N] [--json FILE] [--show N]
    python benchmarks/bfcl_agreement.py LEADERBOARD_DIR [--model NAME] [--lenient] [--json FILE]

A DATA_DIR in the 2024 leaderboard layout (data/, result/<model>/, score/<model>/; see
bfcl_leaderboard.py) is measured on the models' real outputs against the leaderboard's own
verdicts, printed per model and per category; results are decoded as each model's BFCL handler
decodes them (`toolgrade import bfcl`'s default), or by the lenient raw-text reader (`--lenient`).


DATA_DIR holds BFCL question files `BFCL_v4_<category>.json` and `possible_answer/` (default:
/work/shared/fixtures/bfcl). For every AST category found (simple, multiple, parallel,
parallel_multiple, irrelevance and their live_ versions), model outputs are written from the
possible answers (bfcl_results.py), imported with `toolgrade import bfcl`'s code, graded by the
runner with no judge, and each run's aggregate `passed` is compared with the verdict of
bfcl_checker.py, a re-implementation of the rules of BFCL's AST checker. Prints agreement per
category and per kind of output, then the first disagreements. Outputs whose only difference
is a documented deliberate one (docs/importers.md) are counted apart.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bfcl_leaderboard  # noqa: E402
from bfcl_checker import check_entry  # noqa: E402
from bfcl_results import KNOWN_DIFFERENCES, Output, outputs_for  # noqa: E402

from toolgrade.errors import InputError  # noqa: E402
from toolgrade.importers import import_bfcl  # noqa: E402
from toolgrade.importers.bfcl import bfcl_category  # noqa: E402
from toolgrade.scoring.runner import grade, validate_inputs  # noqa: E402

DEFAULT_DATA = Path("/work/shared/fixtures/bfcl")
_AST_CATEGORIES = ("simple", "simple_python", "multiple", "parallel", "parallel_multiple",
                   "irrelevance")


@dataclass
class Row:
    """One output: where it went and both verdicts."""

    category: str
    case_id: str
    trial: int
    variant: str
    reference: bool
    reason: str
    toolgrade: bool | None = None
    failures: tuple[str, ...] = ()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _categories(data: Path) -> list[tuple[str, Path, Path | None]]:
    """(category, questions, answers or None) for every AST category file in `data`."""
    found = []
    for questions in sorted(data.glob("BFCL_v*_*.json")):
        category = questions.stem.split("_", 2)[2]
        if category.removeprefix("live_") not in _AST_CATEGORIES:
            continue
        answers = data / "possible_answer" / questions.name
        found.append((category, questions, answers if answers.exists() else None))
    return found


def _write_results(questions: Path, answers: Path | None, path: Path, rng: random.Random
                   ) -> list[Row]:
    """Write one result file for a category; the rows that say what each line is."""
    truths = {a["id"]: a["ground_truth"] for a in _jsonl(answers)} if answers else {}
    rows: list[Row] = []
    trials: dict[str, int] = defaultdict(int)
    with path.open("w", encoding="utf-8") as handle:
        for question in _jsonl(questions):
            qid = question["id"]
            truth = truths.get(qid)
            for output in outputs_for(question, truth, rng):
                handle.write(json.dumps({"id": qid, "result": output.result}) + "\n")
                rows.append(_row(question, truth, output, trials[qid]))
                trials[qid] += 1
    return rows


def _row(question: dict[str, Any], truth: Any, output: Output, trial: int) -> Row:
    category = bfcl_category(question["id"])
    passed, reason = check_entry(category, question["function"], output.decoded, truth,
                                 output.underscored)
    return Row(category, question["id"], trial, output.variant, passed, reason)


def _grade(questions: Path, answers: Path | None, results: Path, work: Path,
           rows: list[Row]) -> list[str]:
    """Import and grade; fill each row's toolgrade verdict. Returns the import's notes."""
    # Synthetic outputs stand for many handlers at once (their decoded calls are given), so
    # they are read by the lenient reader, not as one model's handler would read them.
    summary = import_bfcl(questions, answers, results, work / "import", lenient=True)
    inputs = validate_inputs(work / "import" / "suite.jsonl", [work / "import" / "runs.jsonl"])
    output = grade(inputs, work / "graded")
    by_key = {(r.case_id, r.trial): r for r in rows}
    for line in output.results_path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        row = by_key[(record["case_id"], record["trial"])]
        row.toolgrade = bool(record["aggregate"]["passed"])
        row.failures = tuple(f["name"] for check in record["checks"].values()
                             for f in check.get("failures", []))
    return list(summary.notes)


def _agreement(rows: list[Row]) -> dict[str, Any]:
    scored = [r for r in rows if r.toolgrade is not None
              and not r.reason.startswith("checker error")]
    same = sum(r.toolgrade == r.reference for r in scored)
    return {
        "n": len(scored),
        "agree": same,
        "agreement": round(same / len(scored), 4) if scored else None,
        "bfcl_pass_rate": round(sum(r.reference for r in scored) / len(scored), 4)
        if scored else None,
        "toolgrade_pass_rate": round(sum(bool(r.toolgrade) for r in scored) / len(scored), 4)
        if scored else None,
        "not_graded": sum(r.toolgrade is None for r in rows),
        "checker_errors": sum(r.reason.startswith("checker error") for r in rows),
    }


def _grouped(rows: list[Row], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[getattr(row, key)].append(row)
    return {name: _agreement(group) for name, group in sorted(groups.items())}


def _table(title: str, figures: dict[str, dict[str, Any]]) -> list[str]:
    lines = [f"\n{title}", f"{'':24} {'n':>6} {'agree':>8} {'BFCL pass':>10} {'tg pass':>8}"
             f" {'skipped':>8}"]
    for name, f in figures.items():
        agreement = "-" if f["agreement"] is None else f"{100 * f['agreement']:.2f}%"
        lines.append(f"{name:24} {f['n']:>6} {agreement:>8} {f['bfcl_pass_rate'] or 0:>10.3f}"
                     f" {f['toolgrade_pass_rate'] or 0:>8.3f}"
                     f" {f['not_graded'] + f['checker_errors']:>8}")
    return lines


def measure(data: Path, seed: int) -> tuple[list[Row], list[str]]:
    """Every row over every AST category in `data`, graded; plus the import notes."""
    rng = random.Random(seed)
    rows: list[Row] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for category, questions, answers in _categories(data):
            work = Path(tmp) / category
            work.mkdir()
            category_rows = _write_results(questions, answers, work / "results.json", rng)
            try:
                notes += _grade(questions, answers, work / "results.json", work, category_rows)
            except InputError as exc:
                notes += [f"{category}: import refused: {p}" for p in exc.problems]
            rows += category_rows
    return rows, notes


def main(argv: list[str] | None = None) -> int:
    """Print agreement per category and per output kind; exit 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--json", type=Path, help="write every figure and disagreement here")
    parser.add_argument("--show", type=int, default=15, help="disagreements to print")
    parser.add_argument("--model", action="append", help="leaderboard layout: only this model")
    parser.add_argument("--lenient", action="store_true",
                        help="leaderboard layout: read texts with the lenient raw-text reader")
    args = parser.parse_args(argv)
    if bfcl_leaderboard.is_leaderboard(args.data):
        return _leaderboard(args)
    rows, notes = measure(args.data, args.seed)
    main_rows = [r for r in rows if r.variant not in KNOWN_DIFFERENCES]
    figures = {
        "overall": _agreement(main_rows),
        "per_category": _grouped(main_rows, "category"),
        "per_output": _grouped(main_rows, "variant"),
        "known_differences": _grouped([r for r in rows if r.variant in KNOWN_DIFFERENCES],
                                      "variant"),
    }
    lines = _table("per category (known deliberate differences excluded)",
                   {**figures["per_category"], "ALL": figures["overall"]})
    lines += _table("per kind of output", figures["per_output"])
    lines += _table("documented deliberate differences", figures["known_differences"])
    disagreements = [r for r in main_rows if r.toolgrade is not None
                     and r.toolgrade != r.reference and not r.reason.startswith("checker")]
    lines.append(f"\n{len(disagreements)} disagreements; first {args.show}:")
    lines += [f"  {r.case_id}#{r.trial} {r.variant}: BFCL {r.reference} ({r.reason}), "
              f"toolgrade {r.toolgrade} {list(r.failures)}" for r in disagreements[:args.show]]
    lines += [f"import: {note}" for note in notes]
    print("\n".join(lines))
    if args.json:
        figures["disagreements"] = [r.__dict__ for r in disagreements]
        args.json.write_text(json.dumps(figures, indent=2, default=list), encoding="utf-8")
    return 0


def _leaderboard(args: argparse.Namespace) -> int:
    """Agreement with the leaderboard's own verdicts on real outputs, per model and category."""
    verdicts, notes = bfcl_leaderboard.measure(args.data, args.model, args.lenient)
    lines, figures = bfcl_leaderboard.report(verdicts, args.show)
    print("\n".join(lines + [f"import: {note}" for note in notes]))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=list), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
