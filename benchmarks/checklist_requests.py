"""Checklist mode on a served model: requests and prompt tokens per item, batch vs per question.

    python benchmarks/checklist_requests.py [--items 20] [--set shipped|dev] [--json]

Judges the first `--items` items of each dimension's shipped calibration set (`--set dev`:
benchmarks/judge_dev, real-length items) in checklist mode
through litellm against `toolgrade.judging.standin.StandInServer` on 127.0.0.1 (which answers
every log-probability request well formed, with log-probabilities), once with
`checklist_requests = "batch"` and once with `"per_question"`, every item reaching the model
(no injection screen, no cache). Prints per dimension and form: the model-answered questions
(k), the orders asked, requests per item and prompt tokens per item as the server counted them
(estimated at four characters a token), and the per-question/batch ratios. No timing: the
figures are counts, the same on any machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from toolgrade.judging import JudgeEngine
from toolgrade.judging.checklist import load_checklist
from toolgrade.judging.factory import litellm_client
from toolgrade.judging.standin import StandInServer
from toolgrade.models import JUDGE_DIMENSIONS, JudgeDimension, JudgeRequest
from toolgrade.settings import ChecklistRequests, DimensionSettings, JudgeSettings

KEY_ENV = "TOOLGRADE_BENCH_SERVED_KEY"
FORMS: tuple[ChecklistRequests, ...] = ("batch", "per_question")
DEV = Path(__file__).resolve().parent / "judge_dev"


def set_items(dimension: JudgeDimension, n: int, which: str) -> list[JudgeRequest]:
    """The first `n` items of the dimension's shipped calibration set, or its judge_dev set."""
    name = f"{dimension}.jsonl"
    path: Any = (DEV / name if which == "dev"
                 else resources.files("toolgrade") / "calibration_sets" / name)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return [JudgeRequest(dimension=dimension, inputs=row["inputs"])
            for row in rows if "inputs" in row][:n]


def measure(dimension: JudgeDimension, form: ChecklistRequests,
            items: list[JudgeRequest]) -> dict[str, Any]:
    """One form on one dimension, on a fresh server: what the server and the engine counted."""
    os.environ.setdefault(KEY_ENV, "stand-in")
    with StandInServer() as server:
        settings = JudgeSettings(
            model="openai/stand-in", api_base=server.url, api_key_env=KEY_ENV, use_cache=False,
            mode="logprob", checklist_requests=form, timeout_s=30.0,
            dimensions={dimension: DimensionSettings(checklist=True)},
        )
        with JudgeEngine(settings, litellm_client(settings), presettle=None) as engine:
            verdicts = [engine.judge(item) for item in items]
            usage = engine.usage()[dimension]
        return {"requests": server.requests, "prompt_tokens": server.prompt_tokens,
                "calls": usage["calls"], "unscored": sum(not v.scored for v in verdicts)}


def run(n: int, which: str = "shipped") -> list[dict[str, Any]]:
    """Every dimension, both forms."""
    rows: list[dict[str, Any]] = []
    for dimension in JUDGE_DIMENSIONS:
        checklist = load_checklist(dimension)
        items = set_items(dimension, n, which)
        orders = 1 if checklist.both_orders is None else 2
        row: dict[str, Any] = {"dimension": dimension, "items": len(items),
                               "questions": len(checklist.model_questions), "orders": orders}
        for form in FORMS:
            counted = measure(dimension, form, items)
            row[form] = {
                "requests_per_item": round(counted["requests"] / len(items), 2),
                "prompt_tokens_per_item": round(counted["prompt_tokens"] / len(items)),
                "engine_calls": counted["calls"], "unscored": counted["unscored"],
            }
        batch, alone = row["batch"], row["per_question"]
        row["request_ratio"] = round(alone["requests_per_item"] / batch["requests_per_item"], 2)
        row["prompt_token_ratio"] = round(
            alone["prompt_tokens_per_item"] / batch["prompt_tokens_per_item"], 2)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    """Parse options, measure, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20, help="items per dimension")
    parser.add_argument("--set", choices=("shipped", "dev"), default="shipped", dest="which")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    rows = run(args.items, args.which)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("dimension               items  k  orders  requests/item batch  per-question  "
              "prompt tokens/item batch  per-question  ratio")
        for r in rows:
            b, q = r["batch"], r["per_question"]
            print(f"{r['dimension']:<22} {r['items']:>6} {r['questions']:>2} {r['orders']:>7}"
                  f"  {b['requests_per_item']:>19}  {q['requests_per_item']:>12}"
                  f"  {b['prompt_tokens_per_item']:>24}  {q['prompt_tokens_per_item']:>12}"
                  f"  {r['prompt_token_ratio']:>5}")
    unscored = sum(r[form]["unscored"] for r in rows for form in FORMS)
    return 0 if unscored == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
