"""Agreement with the verdicts of the BFCL leaderboard of 2024-08-11 on models' real outputs.

Read by bfcl_agreement.py when its DATA_DIR has the leaderboard layout: `data/` (question files
`gorilla_openfunctions_v1_test_<category>.json` and `possible_answer/`), `result/<model>/`
(`..._<category>_result.json`, lines `{id, result}` with the model's raw output) and
`score/<model>/<category>_score.json` (a summary line, then one line per entry BFCL's checker
failed, `id` being the entry's 1-based position in the result file). Each model's outputs are
imported with `toolgrade import bfcl`'s code, graded with no judge, and each run's aggregate
`passed` is compared with BFCL's verdict.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgrade.errors import InputError
from toolgrade.importers import import_bfcl
from toolgrade.scoring.runner import grade, validate_inputs

PREFIX = "gorilla_openfunctions_v1_test_"
CATEGORIES = ("simple", "multiple_function", "parallel_function", "parallel_multiple_function",
              "relevance")

SHORT = {"simple": "simple", "multiple_function": "multiple", "parallel_function": "parallel",
         "parallel_multiple_function": "par_mult", "relevance": "relevance"}


@dataclass
class Verdict:
    """One output: both verdicts and why BFCL decided as it did."""

    model: str
    category: str
    case_id: str
    reference: bool
    error_type: str
    toolgrade: bool | None = None
    failures: tuple[str, ...] = ()
    output: str = ""


def is_leaderboard(data: Path) -> bool:
    """Whether `data` has the 2024 leaderboard layout."""
    return (data / "data").is_dir() and (data / "result").is_dir() and (data / "score").is_dir()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _verdicts(model_dir: Path, score: Path, model: str, category: str) -> list[Verdict]:
    results = _jsonl(model_dir / f"{PREFIX}{category}_result.json")
    failed = {entry["id"]: entry for entry in _jsonl(score)[1:]}
    return [Verdict(model, category, r["id"], (i + 1) not in failed,
                    failed.get(i + 1, {}).get("error_type", "valid"),
                    output=r["result"] if isinstance(r["result"], str) else json.dumps(
                        r["result"]))
            for i, r in enumerate(results)]


def _grade(data: Path, model_dir: Path, category: str, verdicts: list[Verdict], work: Path
           ) -> None:
    questions = data / "data" / f"{PREFIX}{category}.json"
    answers = data / "data" / "possible_answer" / f"{PREFIX}{category}.json"
    results = model_dir / f"{PREFIX}{category}_result.json"
    import_bfcl(questions, answers if answers.exists() else None, results, work / "import")
    inputs = validate_inputs(work / "import" / "suite.jsonl", [work / "import" / "runs.jsonl"])
    output = grade(inputs, work / "graded")
    by_id = {v.case_id: v for v in verdicts}
    for line in output.results_path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        verdict = by_id[record["case_id"]]
        verdict.toolgrade = bool(record["aggregate"]["passed"])
        verdict.failures = tuple(f["name"] for check in record["checks"].values()
                                 for f in check.get("failures", []))


def measure(data: Path, models: list[str] | None = None) -> tuple[list[Verdict], list[str]]:
    """Every output of every model (or of `models`) with both verdicts; plus refusals."""
    verdicts: list[Verdict] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for model_dir in sorted((data / "result").iterdir()):
            if models and model_dir.name not in models:
                continue
            for category in CATEGORIES:
                score = data / "score" / model_dir.name / f"{category}_score.json"
                if not score.exists():
                    continue
                rows = _verdicts(model_dir, score, model_dir.name, category)
                work = Path(tmp) / model_dir.name / category
                work.mkdir(parents=True)
                try:
                    _grade(data, model_dir, category, rows, work)
                except InputError as exc:
                    notes += [f"{model_dir.name}/{category}: import refused: {p}"
                              for p in exc.problems[:3]]
                verdicts += rows
    return verdicts, notes


def _rate(rows: list[Verdict]) -> tuple[int, float]:
    scored = [r for r in rows if r.toolgrade is not None]
    same = sum(r.toolgrade == r.reference for r in scored)
    return len(scored), same / len(scored) if scored else 0.0


def report(verdicts: list[Verdict], show: int) -> tuple[list[str], dict[str, Any]]:
    """Printed lines and figures: agreement per model, per category, overall; disagreements
    by kind (BFCL's error type and toolgrade's failures)."""
    by_model: dict[str, list[Verdict]] = defaultdict(list)
    by_category: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_model[v.model].append(v)
        by_category[v.category].append(v)
    n, overall = _rate(verdicts)
    figures: dict[str, Any] = {"overall": {"n": n, "agreement": round(overall, 4)}}
    lines = [f"\n{'model':44} {'n':>6} {'agree':>8}  per category"]
    for model, rows in sorted(by_model.items()):
        count, rate = _rate(rows)
        cats = {c: _rate([r for r in rows if r.category == c])[1] for c in CATEGORIES}
        figures.setdefault("per_model", {})[model] = {"n": count, "agreement": round(rate, 4),
                                                      **{c: round(x, 4) for c, x in cats.items()}}
        lines.append(f"{model:44} {count:>6} {100 * rate:>7.2f}%  "
                     + " ".join(f"{SHORT[c]}={100 * x:.1f}" for c, x in cats.items()))
    lines.append(f"\n{'category':44} {'n':>6} {'agree':>8}")
    for category, rows in sorted(by_category.items()):
        count, rate = _rate(rows)
        figures.setdefault("per_category", {})[category] = {"n": count,
                                                            "agreement": round(rate, 4)}
        lines.append(f"{category:44} {count:>6} {100 * rate:>7.2f}%")
    lines.append(f"{'ALL':44} {n:>6} {100 * overall:>7.2f}%")
    wrong = [v for v in verdicts if v.toolgrade is not None and v.toolgrade != v.reference]
    kinds = Counter((v.reference, v.error_type, ",".join(sorted(set(v.failures))))
                    for v in wrong)
    lines.append(f"\n{len(wrong)} disagreements by kind (BFCL verdict, BFCL error, toolgrade "
                 "failures):")
    lines += [f"  {count:>5}  BFCL {'pass' if ref else 'fail'} {err:45} tg [{fails}]"
              for (ref, err, fails), count in kinds.most_common(25)]
    lines.append(f"\nfirst {show} disagreements:")
    lines += [f"  {v.model} {v.case_id}: BFCL {v.reference} ({v.error_type}), toolgrade "
              f"{v.toolgrade} {sorted(set(v.failures))}: {v.output[:160]!r}"
              for v in wrong[:show]]
    figures["disagreements"] = [v.__dict__ for v in wrong]
    return lines, figures
