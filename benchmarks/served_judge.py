"""The judge on a served model, against the stand-in OpenAI-compatible server with faults.

    python benchmarks/served_judge.py [--items 200] [--fault-rate 0.2] [--cap 4] [--threads 8]
                                      [--processes 1] [--json]

Starts `toolgrade.judging.standin.StandInServer` on 127.0.0.1 (answers take `--delay` s; a
share `--fault-rate` of requests get transient faults: 429 and 503 with `Retry-After`, 503
without, a reply that never comes, a dropped connection) and judges `--items` distinct
argument-equivalence questions through litellm with `[judge] api_base` pointed at it,
`max_in_flight = --cap`, from `--threads` threads in each of `--processes` processes (each its
own engine and cap, as several `toolgrade run` commands sharing one server). Prints items,
faults injected, verdicts made and unscored, the most requests the server held at once, and the
wall time. Backoff without a Retry-After is scaled down to 50 ms (the engine's default is
seconds), so the run takes seconds.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tenacity import wait_fixed

from toolgrade.judging import JudgeEngine
from toolgrade.judging.client import RetryAfterWait
from toolgrade.judging.factory import litellm_client
from toolgrade.judging.standin import FaultPlan, StandInServer
from toolgrade.models import JudgeRequest
from toolgrade.settings import JudgeSettings

KEY_ENV = "TOOLGRADE_BENCH_SERVED_KEY"


def questions(n: int, offset: int = 0) -> list[JudgeRequest]:
    """`n` distinct argument-equivalence questions."""
    return [
        JudgeRequest(dimension="argument_equivalence", inputs={
            "task": "Find me cheap flights from NYC to London next Friday",
            "tool": "search_flights", "field": "query",
            "expected": "cheap flights NYC to London",
            "actual": f"low-cost flights New York to London, offer {offset + i}",
            "rubric": None,
        })
        for i in range(n)
    ]


def judge_items(url: str, n: int, offset: int, cap: int, threads: int) -> dict[str, int]:
    """One process's share: its own engine and cap; verdicts made and unscored, with reasons."""
    os.environ.setdefault(KEY_ENV, "stand-in")
    settings = JudgeSettings(
        model="openai/stand-in", api_base=url, api_key_env=KEY_ENV, use_cache=False,
        timeout_s=0.5, max_attempts=4, max_in_flight=cap, concurrency=threads,
    )
    wait = RetryAfterWait(wait_fixed(0.05), cap_s=settings.max_retry_after_s)
    engine = JudgeEngine(settings, litellm_client(settings), wait=wait, presettle=None)
    with engine, ThreadPoolExecutor(threads) as pool:
        verdicts = list(pool.map(engine.judge, questions(n, offset)))
    made = sum(v.scored for v in verdicts)
    return {"made": made, "unscored": len(verdicts) - made}


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Serve, judge, and gather the figures."""
    plan = FaultPlan(rate=args.fault_rate, retry_after=str(args.retry_after), hang_s=2.0,
                     delay_s=args.delay)
    share = [args.items // args.processes + (i < args.items % args.processes)
             for i in range(args.processes)]
    offsets = [sum(share[:i]) for i in range(args.processes)]
    with StandInServer(plan) as server:
        began = time.perf_counter()
        if args.processes == 1:
            parts = [judge_items(server.url, args.items, 0, args.cap, args.threads)]
        else:
            # spawn: the parent runs the server's threads, which a fork would copy mid-flight.
            context = multiprocessing.get_context("spawn")
            with context.Pool(args.processes) as pool:
                parts = pool.starmap(judge_items, [
                    (server.url, n, off, args.cap, args.threads)
                    for n, off in zip(share, offsets, strict=True)])
        wall = time.perf_counter() - began
        return {
            "items": args.items, "processes": args.processes, "cap_per_process": args.cap,
            "threads_per_process": args.threads, "requests": server.requests,
            "faults_injected": sum(server.faults.values()), "faults": server.faults,
            "verdicts_made": sum(p["made"] for p in parts),
            "verdicts_unscored": sum(p["unscored"] for p in parts),
            "lost": args.items - sum(p["made"] + p["unscored"] for p in parts),
            "max_in_flight_at_server": server.max_in_flight, "wall_s": round(wall, 2),
        }


def main(argv: list[str] | None = None) -> int:
    """Parse options, run, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--cap", type=int, default=4, help="max_in_flight, per process")
    parser.add_argument("--threads", type=int, default=8, help="grading threads per process")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--delay", type=float, default=0.02, help="seconds per answer")
    parser.add_argument("--retry-after", type=float, default=0.05)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    figures = run(args)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for name, value in figures.items():
            print(f"{name:>24}: {value}")
    return 0 if figures["lost"] == 0 and figures["verdicts_unscored"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
