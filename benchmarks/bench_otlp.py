"""How fast OTLP trace exports are read into runs, beside the same runs as OpenAI messages.

The example GenAI export (examples/otel/exports, 42 traces of the helpdesk strong agent) is
copied N times under fresh trace ids; the same runs are written as OpenAI chat messages. Both
are read with `iter_runs`, as `toolgrade run` reads them (validation and grading each read the
files once). Prints traces/s, spans/s and the ratio.

    python benchmarks/bench_otlp.py [--copies 50]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from toolgrade.loaders.otlp import OtlpStats  # noqa: E402
from toolgrade.loaders.runs import iter_runs  # noqa: E402

EXPORT = ROOT / "examples" / "otel" / "exports" / "strong-agent.genai.otlp.jsonl"
MESSAGES = ROOT / "examples" / "helpdesk" / "runs" / "strong-agent.openai.jsonl"


def _copies(folder: Path, n: int) -> tuple[Path, Path]:
    """The export and the messages file, each holding `n` copies of the example runs."""
    lines = EXPORT.read_text().splitlines()
    traces, messages = folder / "traces.jsonl", folder / "runs.jsonl"
    with traces.open("w") as fh:
        for k in range(n):
            for line in lines:
                # a fresh trace id per copy: the ids are 32 hex digits ending in the trace number
                fh.write(line.replace('"traceId": "0000', f'"traceId": "{k:04x}') + "\n")
    with messages.open("w") as fh:
        for k in range(n):
            for line in MESSAGES.read_text().splitlines():
                run = json.loads(line)
                run["trial"] += 3 * k
                fh.write(json.dumps(run) + "\n")
    return traces, messages


def _read(path: Path) -> tuple[float, int, OtlpStats]:
    stats = OtlpStats()
    start = time.perf_counter()
    n = sum(run is not None for _, _, run, _ in iter_runs([path], stats=stats))
    return time.perf_counter() - start, n, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        traces, messages = _copies(Path(tmp), args.copies)
        otlp_s, n_traces, stats = _read(traces)
        chat_s, n_runs, _ = _read(messages)
    assert n_traces == n_runs, (n_traces, n_runs)
    print(f"OTLP export: {n_traces} traces, {stats.spans} spans in {otlp_s:.2f} s "
          f"({n_traces / otlp_s:,.0f} traces/s, {stats.spans / otlp_s:,.0f} spans/s)")
    print(f"OpenAI messages: {n_runs} runs in {chat_s:.2f} s ({n_runs / chat_s:,.0f} runs/s)")
    print(f"OTLP reading costs {otlp_s / chat_s:.1f}x the messages reading per run")


if __name__ == "__main__":
    main()
