"""Agreement with the verdicts of the BFCL leaderboard of 2024-08-11 on models' real outputs.

Read by bfcl_agreement.py when its DATA_DIR has the leaderboard layout: `data/` (question files
`gorilla_openfunctions_v1_test_<category>.json` and `possible_answer/`), `result/<model>/`
(`..._<category>_result.json`, lines `{id, result}` with the model's raw output) and
`score/<model>/<category>_score.json` (a summary line, then one line per entry BFCL's checker
failed, `id` being the entry's 1-based position in the result file). Each model's outputs are
imported with `toolgrade import bfcl`'s code (decoded as BFCL's handler for the model decodes
them, the model being the result folder's name; with `lenient`, by the raw-text reader), graded
with no judge, and each run's aggregate `passed` is compared with BFCL's verdict.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolgrade.adapters.raw_calls import parse_raw_calls
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

    @property
    def read_by_design(self) -> bool:
        """BFCL's decoder for this model could not read the output, and toolgrade's reader
        reads it as calls with readable arguments: a form read on purpose (a code fence, a
        quoted call list, JSON call objects, calls followed by prose; docs/importers.md),
        counted apart. On relevance BFCL passes exactly the outputs its decoder found no call
        in, so a pass there whose text the reader reads as calls is the same case."""
        decoder_failed = self.error_type.startswith("ast_decoder") or (
            self.category == "relevance" and self.reference)
        if not decoder_failed:
            return False
        calls = parse_raw_calls(self.output)
        return bool(calls) and all(c.arguments is not None for c in calls or [])


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


def _grade(data: Path, model_dir: Path, category: str, verdicts: list[Verdict], work: Path,
           lenient: bool) -> None:
    questions = data / "data" / f"{PREFIX}{category}.json"
    answers = data / "data" / "possible_answer" / f"{PREFIX}{category}.json"
    results = model_dir / f"{PREFIX}{category}_result.json"
    import_bfcl(questions, answers if answers.exists() else None, results, work / "import",
                lenient=lenient)
    inputs = validate_inputs(work / "import" / "suite.jsonl", [work / "import" / "runs.jsonl"])
    output = grade(inputs, work / "graded")
    by_id = {v.case_id: v for v in verdicts}
    for line in output.results_path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        verdict = by_id[record["case_id"]]
        verdict.toolgrade = bool(record["aggregate"]["passed"])
        verdict.failures = tuple(f["name"] for check in record["checks"].values()
                                 for f in check.get("failures", []))


def measure(data: Path, models: list[str] | None = None, lenient: bool = False
            ) -> tuple[list[Verdict], list[str]]:
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
                    _grade(data, model_dir, category, rows, work, lenient)
                except InputError as exc:
                    notes += [f"{model_dir.name}/{category}: import refused: {p}"
                              for p in exc.problems[:3]]
                verdicts += rows
    return verdicts, notes


def _rate(rows: list[Verdict]) -> tuple[int, float]:
    scored = [r for r in rows if r.toolgrade is not None]
    same = sum(r.toolgrade == r.reference for r in scored)
    return len(scored), same / len(scored) if scored else 0.0


def _figures(rows: list[Verdict]) -> dict[str, Any]:
    count, rate = _rate(rows)
    apart = [r for r in rows if r.read_by_design]
    main_count, main_rate = _rate([r for r in rows if not r.read_by_design])
    return {"n": count, "agreement": round(rate, 4), "read_by_design": len(apart),
            "n_without": main_count, "agreement_without": round(main_rate, 4)}


def report(verdicts: list[Verdict], show: int) -> tuple[list[str], dict[str, Any]]:
    """Printed lines and figures: agreement per model, per category, overall (on every
    output, and without the outputs read by design that BFCL's decoder could not read);
    disagreements by kind (BFCL's error type and toolgrade's failures)."""
    by_model: dict[str, list[Verdict]] = defaultdict(list)
    by_category: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_model[v.model].append(v)
        by_category[v.category].append(v)
    figures: dict[str, Any] = {"overall": _figures(verdicts), "per_model": {},
                               "per_category": {}}
    head = (f"{'n':>6} {'agree':>8} {'apart':>6} {'agree w/o':>10}")
    lines = [f"\n{'model':42} {head}  per category (all outputs)"]
    for model, rows in sorted(by_model.items()):
        f = figures["per_model"][model] = _figures(rows)
        cats = {c: _rate([r for r in rows if r.category == c])[1] for c in CATEGORIES}
        f.update({c: round(x, 4) for c, x in cats.items()})
        lines.append(_line(model, f) + "  "
                     + " ".join(f"{SHORT[c]}={100 * x:.1f}" for c, x in cats.items()))
    lines.append(f"\n{'category':42} {head}")
    for category, rows in sorted(by_category.items()):
        f = figures["per_category"][category] = _figures(rows)
        lines.append(_line(category, f))
    lines.append(_line("ALL", figures["overall"]))
    lines.append("(apart: outputs BFCL's decoder for that model could not read and toolgrade "
                 "reads by design; 'agree w/o' leaves them out)")
    wrong = [v for v in verdicts if v.toolgrade is not None and v.toolgrade != v.reference]
    kinds = Counter((v.reference, v.error_type, ",".join(sorted(set(v.failures))),
                     v.read_by_design) for v in wrong)
    lines.append(f"\n{len(wrong)} disagreements by kind (BFCL verdict, BFCL error, toolgrade "
                 "failures, read by design):")
    lines += [f"  {count:>5}  BFCL {'pass' if ref else 'fail'} {err:45} tg [{fails}]"
              f"{' apart' if apart else ''}"
              for (ref, err, fails, apart), count in kinds.most_common(25)]
    lines.append(f"\nfirst {show} disagreements:")
    lines += [f"  {v.model} {v.case_id}: BFCL {v.reference} ({v.error_type}), toolgrade "
              f"{v.toolgrade} {sorted(set(v.failures))}: {v.output[:160]!r}"
              for v in wrong[:show]]
    figures["disagreements"] = [{**v.__dict__, "read_by_design": v.read_by_design}
                                for v in wrong]
    return lines, figures


def _line(name: str, f: dict[str, Any]) -> str:
    return (f"{name:42} {f['n']:>6} {100 * f['agreement']:>7.2f}% {f['read_by_design']:>6} "
            f"{100 * f['agreement_without']:>9.2f}%")
