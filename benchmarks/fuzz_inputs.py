"""Mutated suites and run files of every accepted format through `validate` and `run`.

Each input is a seed file (the helpdesk example, cut to a few runs) with one seeded mutation:
bytes flipped, cut or repeated, a hostile token inserted (an alias bomb, nesting 100,000 deep,
an integer of 5,000 digits, a lone surrogate escape, bytes that are not UTF-8, a duplicate
key), or one JSON value replaced by a hostile one. Every input is given to `toolgrade validate`
and to `toolgrade run --no-judge`, each in a forked process (the CLI imported once, so an input
costs its reading, not Python's start-up), with a deadline and an address-space cap.

Prints, per format and in all: inputs, exit codes, tracebacks, hangs, output written on bad
input (an exit 2 that left the output folder), the peak memory of any one process, and each
bad input's exit code and first line (`--show N` of them). Exits 1 when any traceback, hang,
output on bad input or exit code outside 0/1/2 was seen.

    python benchmarks/fuzz_inputs.py [--per-format 72] [--seed 0] [--show 40]

`tests/test_fuzz_inputs.py` runs a few of these in-process for CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELPDESK = ROOT / "examples" / "helpdesk"
OTEL = ROOT / "examples" / "otel" / "exports"

#: (format, role, file name): the role says which argument the mutated file is given as.
FORMATS: tuple[tuple[str, str, str], ...] = (
    ("suite-yaml", "suite", "suite.yaml"),
    ("suite-jsonl", "suite", "suite.jsonl"),
    ("steps", "runs", "runs.steps.jsonl"),
    ("openai", "runs", "runs.openai.jsonl"),
    ("anthropic", "runs", "runs.anthropic.jsonl"),
    ("otlp-lines", "runs", "runs.otlp.jsonl"),
    ("otlp-document", "runs", "runs.otlp.json"),
)
#: Runs kept from each example file: enough to reach every adapter, few enough to read fast.
RUNS_PER_FILE = 3

#: Deadline of one command on one input (a hang), and the address space one may take (a
#: MemoryError under the cap is a traceback, and reported as such).
DEADLINE_S = 60.0
ADDRESS_SPACE = 3 * 1024**3


def seeds() -> dict[str, bytes]:
    """The unmutated file of each format."""
    suite_yaml = (HELPDESK / "suite.yaml").read_bytes()
    runs = {
        "steps": HELPDESK / "runs" / "mid-agent.steps.jsonl",
        "openai": HELPDESK / "runs" / "strong-agent.openai.jsonl",
        "anthropic": HELPDESK / "runs" / "weak-agent.anthropic.jsonl",
        "otlp-lines": OTEL / "strong-agent.genai.otlp.jsonl",
    }
    out = {"suite-yaml": suite_yaml, "suite-jsonl": _suite_as_jsonl()}
    for name, path in runs.items():
        lines = path.read_text(encoding="utf-8").splitlines()[:RUNS_PER_FILE]
        out[name] = ("\n".join(lines) + "\n").encode()
    out["otlp-document"] = (OTEL / "weak-agent.openinference.otlp.json").read_bytes()
    return out


def _suite_as_jsonl() -> bytes:
    """The helpdesk suite as JSON Lines: one case a line, the shared tools and groups in each."""
    import yaml

    data = yaml.safe_load((HELPDESK / "suite.yaml").read_text(encoding="utf-8"))
    lines = []
    for case in data["cases"]:
        case = {**case, "tools": {**data.get("tools", {}), **(case.get("tools") or {})}}
        ordering = (case.get("expected") or {}).get("ordering")
        if isinstance(ordering, dict) and data.get("groups"):
            groups = {**data["groups"], **(ordering.get("groups") or {})}
            case["expected"] = {**case["expected"], "ordering": {**ordering, "groups": groups}}
        lines.append(json.dumps(case, default=str))
    return ("\n".join(lines) + "\n").encode()


# -- mutations ------------------------------------------------------------------------------

_DEEP = "[" * 100_000 + "]" * 100_000
_BOMB = "b:\n" + "".join(
    f"  a{n}: &a{n} [{', '.join(['lol'] * 9 if n == 0 else [f'*a{n - 1}'] * 9)}]\n"
    for n in range(10)
)
#: Text a hostile writer would insert anywhere.
TOKENS: tuple[str | bytes, ...] = (
    "\\ud800", '"\\udfff"', "\x00", b"\xff\xfe\xc3", _DEEP, "9" * 5000, "-" + "1" * 4400,
    '{"a": 1, "a": 2}', "NaN", "1e999", '"', "\n", ":", "&x", "*x", "<<: *x", "!!python/object",
    "\t", "\u2028", "{", "]", "null", "x" * 100_000, "%YAML 1.1\n---\n", "---\n", "\\", "'",
)
#: JSON values a hostile writer would put in place of any value.
HOSTILE_VALUES: tuple[object, ...] = (
    None, True, -1, 0, 1.5, "", [], {}, "\ud800", "x" * 1_000_000, float("inf"),
    [[[[[[[[[[]]]]]]]]]], {"": None}, "9" * 5000, 2**63, -(2**63) - 1, "\x00",
)
_BIG_INT = "9" * 5000
_DEEP_VALUE = "__DEEP__"
_LONG_INT = "__LONGINT__"


def mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """One seeded mutation of `data`, with its name."""
    kind = rng.choice(list(_MUTATIONS))
    return kind, _MUTATIONS[kind](data, rng)


def _flip(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def _cut(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(data))
    return data[:i] + data[i + rng.randint(1, 200):]


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data))]


def _repeat(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(data))
    span = data[i: i + rng.randint(1, 400)]
    j = rng.randrange(len(data))
    return data[:j] + span * rng.randint(1, 3) + data[j:]


def _insert(data: bytes, rng: random.Random) -> bytes:
    token = rng.choice(TOKENS)
    raw = token if isinstance(token, bytes) else token.encode("utf-8", "surrogatepass")
    i = rng.randrange(len(data) + 1)
    return data[:i] + raw + data[i:]


def _bomb(data: bytes, rng: random.Random) -> bytes:
    return _BOMB.encode() + data if rng.random() < 0.7 else data + b"\n" + _BOMB.encode()


def _value(data: bytes, rng: random.Random) -> bytes:
    """One JSON value of one line (or of the document) replaced by a hostile one; YAML is
    JSON's superset, so a YAML suite takes the same replacement in a flow value."""
    text = data.decode("utf-8")
    lines = text.split("\n") if not text.lstrip().startswith("{\n") else [text]
    candidates = [n for n, line in enumerate(lines) if line.strip().startswith("{")]
    if not candidates:
        return _insert(data, rng)
    n = rng.choice(candidates)
    try:
        value = json.loads(lines[n])
    except ValueError:
        return _insert(data, rng)
    _replace_one(value, rng)
    line = json.dumps(value)
    lines[n] = line.replace(f'"{_DEEP_VALUE}"', _DEEP).replace(f'"{_LONG_INT}"', _BIG_INT)
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def _replace_one(value: object, rng: random.Random) -> None:
    """Replace one value somewhere inside `value` (a dict or list), in place."""
    node = value
    for _ in range(rng.randint(1, 12)):
        children = _children(node)
        if not children:
            break
        key = rng.choice(children)
        child = node[key]  # type: ignore[index]
        if not _children(child) or rng.random() < 0.25:
            node[key] = _hostile(rng)  # type: ignore[index]
            return
        node = child
    keys = _children(node)
    if keys:
        node[rng.choice(keys)] = _hostile(rng)  # type: ignore[index]


def _children(node: object) -> list[object]:
    if isinstance(node, dict):
        return list(node)
    if isinstance(node, list):
        return list(range(len(node)))
    return []


def _hostile(rng: random.Random) -> object:
    roll = rng.random()
    if roll < 0.1:
        return _DEEP_VALUE
    if roll < 0.2:
        return _LONG_INT
    if roll < 0.3:
        return json.dumps({"deep": "__"}).replace('"__"', "[" * 5000 + "]" * 5000)
    return rng.choice(HOSTILE_VALUES)


def _empty(data: bytes, rng: random.Random) -> bytes:
    return rng.choice([b"", b"\n\n", b"\xef\xbb\xbf", b"{}", b"[]", b"null"])


_MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "flip": _flip, "cut": _cut, "truncate": _truncate, "repeat": _repeat,
    "insert": _insert, "insert2": _insert, "value": _value, "value2": _value,
    "bomb": _bomb, "empty": _empty,
}


@dataclass(frozen=True)
class FuzzInput:
    """One mutated file and what it is given with."""

    fmt: str
    role: str
    name: str
    mutation: str
    data: bytes
    swapped: bool = False  # given as the other argument (SUITE and RUNS swapped)


def corpus(per_format: int, seed: int = 0) -> list[FuzzInput]:
    """`per_format` mutated inputs of every format, the same for the same seed."""
    rng = random.Random(seed)
    base = seeds()
    out = []
    for fmt, role, name in FORMATS:
        for _ in range(per_format):
            mutation, data = mutate(base[fmt], rng)
            out.append(FuzzInput(fmt, role, name, mutation, data, swapped=rng.random() < 0.04))
    return out


def arguments(item: FuzzInput, folder: Path, command: str) -> list[str]:
    """Write the input (and its unmutated partner) into `folder`; the CLI arguments."""
    mutated = folder / item.name
    mutated.write_bytes(item.data)
    if item.role == "suite":
        suite, runs = mutated, folder / "runs.steps.jsonl"
        runs.write_bytes(seeds_cache()["steps"])
    else:
        suite, runs = folder / "suite.yaml", mutated
        suite.write_bytes(seeds_cache()["suite-yaml"])
    first, second = (runs, suite) if item.swapped else (suite, runs)
    args = [command, str(first), str(second)]
    if command == "run":
        args += ["--out", str(folder / "out"), "--no-judge", "-q"]
    return args


_SEEDS: dict[str, bytes] = {}


def seeds_cache() -> dict[str, bytes]:
    """`seeds()`, read once."""
    if not _SEEDS:
        _SEEDS.update(seeds())
    return _SEEDS


# -- running one input ---------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    """What one command did with one input."""

    code: int | None  # None: killed at the deadline
    first_line: str
    traceback: str | None
    seconds: float
    peak_mb: float
    wrote_on_bad_input: bool


def invoke(args: list[str]) -> tuple[int, str, str | None]:
    """Run the CLI in this process: (exit code, stderr then stdout, traceback or None)."""
    from typer.testing import CliRunner

    from toolgrade.cli.main import app

    result = CliRunner().invoke(app, args)
    text = result.output
    trace = None
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        trace = "".join(traceback.format_exception(result.exception))
    return result.exit_code, text, trace


def run_forked(args: list[str], folder: Path) -> Outcome:
    """`invoke` in a forked child with a deadline and an address-space cap."""
    report = folder / "report.json"
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 70
        try:
            resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
            exit_code, text, trace = invoke(args)
            report.write_text(json.dumps({"code": exit_code, "text": text, "trace": trace}))
            code = 0
        except BaseException:
            report.write_text(json.dumps({"code": 1, "text": "",
                                          "trace": traceback.format_exc()}))
        finally:
            os._exit(code)
    deadline = start + DEADLINE_S
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.perf_counter() > deadline:
            os.kill(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            return Outcome(None, "(killed at the deadline)", None, DEADLINE_S,
                           usage.ru_maxrss / 1024, False)
        time.sleep(0.01)
    seconds = time.perf_counter() - start
    data = json.loads(report.read_text()) if report.exists() else {
        "code": 1, "text": "", "trace": f"child ended with status {status}"}
    lines = [line.strip() for line in str(data["text"]).splitlines() if line.strip()]
    first = _first_problem(lines)
    wrote = data["code"] == 2 and (folder / "out").exists()
    return Outcome(data["code"], first, data["trace"], seconds, usage.ru_maxrss / 1024, wrote)


def _first_problem(lines: list[str]) -> str:
    """The line that says what is wrong: the first problem under a 'problem(s)' heading."""
    for i, line in enumerate(lines):
        if "problem(s) in the input" in line and i + 1 < len(lines):
            return lines[i + 1]
    return lines[0] if lines else ""


def _import_once() -> None:
    """What `validate` and `run` import lazily, imported here once, before the forks: each
    forked child then costs its input's reading and grading, not toolgrade's imports."""
    import toolgrade.cli.main
    import toolgrade.loaders.otlp
    import toolgrade.loaders.runs
    import toolgrade.reporting
    import toolgrade.scoring.gates
    import toolgrade.scoring.jobs
    import toolgrade.scoring.runner  # noqa: F401
    from toolgrade.cli.main import app

    invoke(["validate", str(HELPDESK / "suite.yaml"), str(HELPDESK / "runs")])  # warm caches
    del app


# -- the report ----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    """Fuzz every format; print the figures; 1 when any input crashed, hung or wrote."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-format", type=int, default=72)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=40, help="bad inputs' first lines shown")
    opts = parser.parse_args(argv)
    _import_once()

    items = corpus(opts.per_format, opts.seed)
    by_format: dict[str, Counter[str]] = {}
    shown, bad, peak, slowest = [], [], 0.0, 0.0
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for n, item in enumerate(items):
            for command in ("validate", "run"):
                folder = Path(tmp) / f"{n}-{command}"
                folder.mkdir()
                outcome = run_forked(arguments(item, folder, command), folder)
                tally = by_format.setdefault(item.fmt, Counter())
                tally[f"exit {outcome.code}"] += 1
                peak, slowest = max(peak, outcome.peak_mb), max(slowest, outcome.seconds)
                label = f"{item.fmt} {item.mutation}{' swapped' if item.swapped else ''} {command}"
                if outcome.traceback:
                    tally["tracebacks"] += 1
                    bad.append(f"TRACEBACK {label}:\n{outcome.traceback}")
                if outcome.code is None:
                    tally["hangs"] += 1
                    bad.append(f"HANG {label}")
                if outcome.code not in (0, 1, 2, None):
                    tally["other exit"] += 1
                    bad.append(f"EXIT {outcome.code} {label}: {outcome.first_line}")
                if outcome.wrote_on_bad_input:
                    tally["output on bad input"] += 1
                    bad.append(f"WROTE {label}")
                if outcome.code == 2 and command == "validate" and len(shown) < opts.show:
                    shown.append(f"  {label}: exit 2: {_cut_line(outcome.first_line)}")
            if n + 1 == len(items) or items[n + 1].fmt != item.fmt:  # a format done: say so
                done = by_format[item.fmt]
                print(f"[{time.perf_counter() - started:.0f} s] {item.fmt} done: "
                      + ", ".join(f"{k} {v}" for k, v in sorted(done.items())), flush=True)
    _print(items, by_format, shown, bad, peak, slowest, time.perf_counter() - started)
    return 1 if bad else 0


def _cut_line(line: str, limit: int = 160) -> str:
    return line if len(line) <= limit else f"{line[:limit]}... ({len(line)} chars)"


def _print(items: list[FuzzInput], by_format: dict[str, Counter[str]], shown: list[str],
           bad: list[str], peak: float, slowest: float, seconds: float) -> None:
    total: Counter[str] = Counter()
    print(f"{len(items)} mutated inputs, {2 * len(items)} invocations (validate, run), "
          f"{seconds:.0f} s")
    for fmt, tally in by_format.items():
        total.update(tally)
        print(f"  {fmt:14} " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
    print(f"tracebacks {total['tracebacks']}, hangs {total['hangs']}, "
          f"output written on bad input {total['output on bad input']}, "
          f"exit codes outside 0/1/2 {total['other exit']}")
    print(f"peak memory of one process {peak:.0f} MB; slowest invocation {slowest:.1f} s")
    print("bad inputs (exit code, first line):")
    print("\n".join(shown))
    for line in bad:
        print(line)
    sys.stdout.flush()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    sys.exit(main())

