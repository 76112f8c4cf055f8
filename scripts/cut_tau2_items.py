"""Cut candidate calibration items from recorded tau2-bench runs, for a person to label.

`--dimension result_interpretation` (the default) is below; `argument_equivalence` and
`alternate_route` are in scripts/cut_tau2_calls.py.

Each candidate is one agent reply that follows tool results: the user's request before them
(`task`), the tool results since that request with their real ids and full length
(`tool_results`), the reply (`final_answer`) and no deterministic findings. Candidates carry no
label: the labeller reads each one, writes `label` and a `note` saying why, and keeps or drops
it. Output: JSON Lines, one candidate per line, `id` = `<run file>-<simulation>-<turn>`.

    python scripts/cut_tau2_items.py ../shared/fixtures/tau2-runs/*.json --out candidates.jsonl
    python scripts/cut_tau2_items.py RUNS --dimension alternate_route --out routes.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cut_tau2_calls import argument_candidates, route_candidates

#: A tool result longer than this is cut (with a marker): real-length, but within the model's
#: context window beside the instructions.
MAX_RESULT_CHARS = 3000


def _status(message: dict[str, Any]) -> str:
    content = str(message.get("content") or "")
    return "error" if message.get("error") or content.lower().startswith("error") else "ok"


def _content(message: dict[str, Any]) -> str:
    text = str(message.get("content") or "")
    if len(text) > MAX_RESULT_CHARS:
        return text[:MAX_RESULT_CHARS] + f" ... [{len(text) - MAX_RESULT_CHARS} characters cut]"
    return text


def candidates(path: Path) -> Iterator[dict[str, Any]]:
    """Every reply after tool results in every simulation of one tau2 results file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for number, simulation in enumerate(data["simulations"]):
        names: dict[str, str] = {}
        task, results = "", list[dict[str, Any]]()
        for turn, message in enumerate(simulation["messages"]):
            role = message.get("role")
            if role == "user":
                task, results = str(message.get("content") or ""), []
            for call in message.get("tool_calls") or []:
                names[call["id"]] = call["name"]
            if role == "tool":
                results.append({"step": len(results) + 1,
                                 "tool": names.get(message.get("id", ""), "unknown"),
                                 "status": _status(message), "content": _content(message)})
            elif role == "assistant" and message.get("content") and results and task:
                yield {"id": f"{path.stem}-{number:02d}-{turn:03d}",
                       "inputs": {"task": task, "tool_results": results,
                                  "final_answer": message["content"], "findings": []}}
                results = []


#: The cutter of each dimension: one results file in, its candidates out.
CUTTERS: dict[str, Callable[[Path], Iterator[dict[str, Any]]]] = {
    "result_interpretation": candidates,
    "argument_equivalence": argument_candidates,
    "alternate_route": route_candidates,
}


def main() -> None:
    """Write the candidates of the given files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--dimension", choices=sorted(CUTTERS), default="result_interpretation")
    args = parser.parse_args()
    cut = CUTTERS[args.dimension]
    lines = [json.dumps(c, ensure_ascii=False) for p in args.runs for c in cut(p)]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} candidates in {args.out}")


if __name__ == "__main__":
    main()
