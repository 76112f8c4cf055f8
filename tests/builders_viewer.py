"""Output folders for the viewer tests: results.jsonl and transcripts.jsonl, line for line.

Runs cycle through three agents (one recorded without an agent), pass / fail / unscored
states and a few failure names, so every filter has something to keep and something to drop.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from builders_reporting import HOSTILE, check, failure, record, steps_record

AGENTS = ("strong", "weak", None)
#: A failure name per failing run, in turn.
FAILURES = ("loop", "wrong_value", "missing_tool")


def unscored_arguments() -> dict[str, Any]:
    """An arguments block whose only shortfall is a free-text field no judge scored."""
    return check(passed=False, score=1.0, unscored_fields=[
        {"tool": "refund", "field": "reason", "step": 0, "reason": "no judge configured"}])


def viewer_run(i: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The i-th run: its results record and its transcript line.

    Every third run passes, the next is unscored, the next fails with one of FAILURES
    (ordering for `loop`, arguments for the others). Case ids are `case-NN` over 10 cases.
    """
    agent, case_id, trial = AGENTS[i % 3], f"case-{i % 10:02d}", i // 10
    kind = (i // 3) % 3  # 0 pass, 1 unscored, 2 fail: crosses the agents' cycle
    if kind == 0:
        rec = record(case_id, trial, agent, selection=check(), arguments=check())
    elif kind == 1:
        rec = record(case_id, trial, agent, passed=False, selection=check(),
                     arguments=unscored_arguments())
    else:
        name = FAILURES[(i // 9) % 3]
        bad = check(passed=False, score=0.5, failures=[failure(name, 1, f"{name} at step 1")])
        rec = record(case_id, trial, agent, passed=False, selection=check(),
                     **({"ordering": bad} if name == "loop" else {"arguments": bad}))
    rec["aggregate"]["score"] = round(1.0 - (i % 7) / 10, 2)
    steps = [{"role": "user", "content": f"help with order {i}"},
             {"tool": "lookup_order", "args": {"order_id": f"A{i}"},
              "result": {"status": "ok", "content": {"state": "shipped"}}}]
    return rec, steps_record(case_id, steps, trial=trial, agent=agent)


def write_viewer_dir(folder: Path, n: int = 30, *, bad_lines: dict[int, str] | None = None,
                     transcripts: bool = True) -> Path:
    """An output folder of `n` runs. `bad_lines`: results.jsonl line text put in place of
    the run at that 0-based position (its transcript line is kept, as `toolgrade run` would
    have written it)."""
    folder.mkdir(parents=True, exist_ok=True)
    results, lines = [], []
    for i in range(n):
        rec, line = viewer_run(i)
        results.append((bad_lines or {}).get(i, json.dumps(rec)))
        lines.append(json.dumps(line))
    (folder / "results.jsonl").write_text("\n".join(results) + "\n", encoding="utf-8")
    if transcripts:
        (folder / "transcripts.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def hostile_dir(folder: Path) -> Path:
    """A folder of one failing run whose ids, failure message and steps are hostile text."""
    folder.mkdir(parents=True, exist_ok=True)
    rec = record(HOSTILE, 0, HOSTILE, passed=False,
                 selection=check(passed=False, score=0.0,
                                 failures=[failure("extra_tool", 1, HOSTILE)]))
    steps = [{"role": "user", "content": HOSTILE},
             {"tool": "lookup", "args": {"q": HOSTILE}, "result": {"status": "ok",
                                                                  "content": HOSTILE}}]
    (folder / "results.jsonl").write_text(json.dumps(rec) + "\n", encoding="utf-8")
    (folder / "transcripts.jsonl").write_text(
        json.dumps(steps_record(HOSTILE, steps, agent=HOSTILE)) + "\n", encoding="utf-8")
    return folder


@contextmanager
def serving(folder: Path) -> Iterator[str]:
    """A viewer over `folder` on a free loopback port, in a thread; yields its address."""
    from toolgrade.reporting.viewer.index import build_index
    from toolgrade.reporting.viewer.server import make_server

    server = make_server(build_index(folder), 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
