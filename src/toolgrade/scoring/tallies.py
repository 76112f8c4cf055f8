"""The suite-wide tallies the summary folds beside the checks' own figures: hard-case coverage,
an MCP suite's tool coverage and catalogue drift, and reliability across trials.

**Hard-case coverage** (`summary.checks.coverage`): which hard kinds of request a suite holds,
and how the agent fares on them. A suite of easy single-tool requests reports high selection
accuracy and catches nothing, so the kinds a case covers are a figure of the run (with a
gate). A case's kinds are its `tags` plus those inferred here (docs/case-format.md states the
rules):

- `no_tool`: `expected.selection.no_tool` is true.
- `multi_turn`: `input` is a list of chat messages holding two or more user or assistant turns.
- `overlapping_tools`: a tool of the expected route has a near-duplicate in the catalogue: the
  two descriptions' word sets (lower-cased words of 3+ letters, common stop words left out)
  have a Jaccard similarity of `NEAR_DUPLICATE` or more.
- `missing_required_info`: a required parameter of an expected call has an exact string value
  (bare or `casefold`) that appears nowhere in the input (case-insensitive), so the agent has
  to ask for it or look it up rather than copy it.
- `misleading_identifier` is never inferred: only a tag says it.

**The `mcp` block**, for a suite that takes its tools from an MCP catalogue (`tools_from`,
docs/mcp.md): the share of the catalogue's tools the suite's cases expect (in a route, an
alternative or an expected call), the share the runs called, and the tools never expected and
never called; how many runs saw another catalogue than the suite's, and per tool how many runs
saw it added, removed or changed. A suite without `tools_from` has no block, so its summary
keeps the keys it always had.

**Reliability across trials** (docs/recovery.md): from n trials of one case with c passes, the
unbiased estimators are

- pass@k = 1 - C(n-c, k) / C(n, k): the chance that at least one of k trials drawn without
  replacement passes (the agent *can* do it);
- pass^k = C(c, k) / C(n, k): the chance that all k drawn trials pass (it *reliably* does it).

Both are computed with exact integer binomials and one rounding at the end, so they stay exact
for large n where floating-point products would underflow or lose precision. The summary
reports k = 1 .. min(n, MAX_K). Reporting every k up to n would make `summary.json` and the
runner's memory grow with the number of trials (a case tried 500 times would carry 1,000
figures), and pass^k for large k only says whether every trial passed.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from fractions import Fraction
from math import comb
from typing import Any, Literal, TypedDict

from toolgrade.models import HARD_CASE_KINDS, Case, Trajectory, TrajectoryResult
from toolgrade.models.catalogue import SuiteCatalogue

# Hard-case coverage ---------------------------------------------------------------------------

#: The Jaccard similarity of two tool descriptions' word sets from which they are near-duplicates.
NEAR_DUPLICATE = 0.6

_WORD = re.compile(r"[a-z0-9]{3,}")
_STOP = frozenset({
    "the", "and", "for", "with", "from", "that", "this", "its", "any", "are", "was", "has",
    "have", "not", "but", "you", "your", "their", "them", "when", "which", "what", "into", "out",
    "one", "all", "can", "may", "will",
})  # fmt: skip
#: The checks whose pass rate is reported per kind unless told (the registry's `per_kind`).
RATED_CHECKS = ("selection", "arguments")


def description_words(text: str) -> frozenset[str]:
    """The content words of a tool description (lower case, 3+ characters, no stop words)."""
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _STOP)


def description_similarity(a: str, b: str) -> float:
    """Jaccard similarity of two descriptions' word sets; 0 when either has no words."""
    wa, wb = description_words(a), description_words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def has_overlapping_tools(case: Case) -> bool:
    """Whether a tool of the expected route has a near-duplicate description in the catalogue."""
    for name in expected_tools(case) & set(case.tools):
        mine = case.tools[name].description
        for other, spec in case.tools.items():
            if other != name and description_similarity(mine, spec.description) >= NEAR_DUPLICATE:
                return True
    return False


def input_text(case: Case) -> str:
    """Every message of the case's input as one lower-cased text (structured content as JSON)."""
    parts = []
    for message in case.input_messages():
        content = message.get("content")
        parts.append(content if isinstance(content, str) else repr(content))
    return "\n".join(parts).lower()


def _exact_string(comparator: Any) -> str | None:
    """The string an exact (bare) or `casefold` reference value must equal, else None."""
    if isinstance(comparator, str):
        return comparator
    if isinstance(comparator, dict) and set(comparator) == {"casefold"}:
        value = comparator["casefold"]
        return value if isinstance(value, str) else None
    return None


def has_missing_required_info(case: Case) -> bool:
    """Whether a required parameter's exact string value appears nowhere in the input."""
    text = " ".join(input_text(case).split())
    for ref in case.expected.arguments or []:
        spec = case.tools.get(ref.tool)
        required = spec.parameters.get("required", []) if spec is not None else []
        for name in required if isinstance(required, list) else []:
            value = _exact_string(ref.args.get(name))
            if value and " ".join(value.lower().split()) not in text:
                return True
    return False


def is_multi_turn(case: Case) -> bool:
    """Whether the input holds two or more user or assistant turns."""
    turns = [m for m in case.input_messages() if m.get("role") in ("user", "assistant")]
    return isinstance(case.input, list) and len(turns) >= 2


def inferred_kinds(case: Case) -> set[str]:
    """The hard-case kinds the case shows by itself, without tags."""
    selection = case.expected.selection
    found = {
        "no_tool": selection is not None and selection.no_tool,
        "multi_turn": is_multi_turn(case),
        "overlapping_tools": has_overlapping_tools(case),
        "missing_required_info": has_missing_required_info(case),
    }
    return {kind for kind, shown in found.items() if shown}


def case_kinds(case: Case) -> tuple[str, ...]:
    """The case's hard-case kinds, tagged or inferred, in `HARD_CASE_KINDS` order."""
    kinds = set(case.tags) | inferred_kinds(case)
    return tuple(k for k in HARD_CASE_KINDS if k in kinds)


def coverage_counts(cases: Iterable[Case]) -> dict[str, int]:
    """`{kind: cases}` for every known kind (0 when no case covers it)."""
    counts: dict[str, int] = dict.fromkeys(HARD_CASE_KINDS, 0)
    for case in cases:
        for kind in case_kinds(case):
            counts[kind] += 1
    return counts


def coverage_line(cases: Iterable[Case]) -> str:
    """`coverage: no_tool 3, overlapping_tools 0, ...`: cases per hard-case kind, as
    `validate` and `draft` print it."""
    counts = coverage_counts(cases)
    return "coverage: " + ", ".join(f"{kind} {n}" for kind, n in counts.items())



class KindPassRate(TypedDict):
    """One hard-case kind's figures of a check (`per_kind`)."""

    n: int
    pass_rate: float

class KindRates:
    """Selection and arguments pass rates per hard-case kind, folded one record at a time."""

    def __init__(self, rated: Iterable[str] = RATED_CHECKS) -> None:
        self._kinds: dict[str, tuple[str, ...]] = {}
        self._counts: dict[str, dict[str, list[int]]] = {c: {} for c in rated}

    def share_kinds(self, other: KindRates) -> None:
        """Look the cases' kinds up in `other`'s cache from now on: the parts a worker folds
        one chunk after another share one, or each chunk would infer its cases' kinds again
        (comparing every pair of tool descriptions: about a tenth of grading a run)."""
        self._kinds = other._kinds

    def add(self, case: Case, record: TrajectoryResult) -> None:
        """Count the record's selection and arguments results under each kind of its case."""
        kinds = self._kinds.get(case.id)
        if kinds is None:
            kinds = self._kinds[case.id] = case_kinds(case)
        for check in self._counts:
            result = record.checks.get(check)  # type: ignore[call-overload]
            if result is None or not result.applicable:
                continue
            for kind in kinds:
                cell = self._counts[check].setdefault(kind, [0, 0])
                cell[0] += 1
                cell[1] += result.passed is True

    def merge(self, other: KindRates) -> None:
        """Add another's counts (the records after these)."""
        for check, counts in other._counts.items():
            mine = self._counts[check]
            for kind, (n, passed) in counts.items():
                cell = mine.setdefault(kind, [0, 0])
                cell[0] += n
                cell[1] += passed

    def per_kind(self, check: str) -> dict[str, KindPassRate]:
        """`{kind: {n, pass_rate}}` of one check, kinds in `HARD_CASE_KINDS` order."""
        counts = self._counts[check]
        return {
            kind: {"n": counts[kind][0], "pass_rate": counts[kind][1] / counts[kind][0]}
            for kind in HARD_CASE_KINDS
            if kind in counts
        }



# Tool coverage and catalogue drift (the mcp block) -------------------------------------------

def expected_tools(case: Case) -> set[str]:
    """The tools a case's reference expects: its routes' and its expected calls'."""
    tools: set[str] = set()
    selection = case.expected.selection
    if selection is not None:
        tools.update(selection.tools)
        tools.update(t for route in selection.alternatives for t in route)
    tools.update(call.tool for call in case.expected.arguments or [])
    return tools


class CatalogueFigures:
    """Coverage and drift folded one run at a time; parts merge (runs with --jobs)."""

    def __init__(self, cases: Iterable[Case] = ()) -> None:
        self.catalogue: SuiteCatalogue | None = None
        self.expected: set[str] = set()
        for case in cases:
            if case.catalogue is not None:
                self.catalogue = self.catalogue or case.catalogue
                self.expected |= expected_tools(case)
        self.runs = 0
        self.recorded = 0
        self.drifted = 0
        self.called: Counter[str] = Counter()
        self.drift: dict[str, Counter[str]] = {}

    def add(self, case: Case, run: Trajectory, record: TrajectoryResult) -> None:
        """Take one graded run of a case stamped by `tools_from` (others are not counted)."""
        if case.catalogue is None:
            return
        self.runs += 1
        self.recorded += run.catalogue is not None
        self.called.update(t for t in run.tool_names if t in case.catalogue.tools)
        if record.drift:
            self.drifted += 1
            for name, kind in record.drift.by_tool().items():
                self.drift.setdefault(name, Counter())[kind] += 1

    def merge(self, other: CatalogueFigures) -> None:
        """Add a part's counts (the runs right after these)."""
        self.runs += other.runs
        self.recorded += other.recorded
        self.drifted += other.drifted
        self.called.update(other.called)
        for name, kinds in other.drift.items():
            self.drift.setdefault(name, Counter()).update(kinds)

    def to_json(self) -> dict[str, Any] | None:
        """The `mcp` block, or None for a suite without `tools_from`."""
        if self.catalogue is None:
            return None
        tools = sorted(self.catalogue.tools)
        expected = [t for t in tools if t in self.expected]
        called = [t for t in tools if self.called[t]]
        n = len(tools)
        return {
            "catalogue": {"file": self.catalogue.file, "hash": self.catalogue.hash, "tools": n},
            "coverage": {
                "expected": len(expected),
                "expected_share": len(expected) / n if n else None,
                "called": len(called),
                "called_share": len(called) / n if n else None,
                "never_expected": [t for t in tools if t not in self.expected],
                "never_called": [t for t in tools if not self.called[t]],
                "calls": {t: self.called[t] for t in tools},
            },
            "drift": {
                "on_drift": self.catalogue.on_drift,
                "runs": self.runs,
                "recorded": self.recorded,
                "with_drift": self.drifted,
                "tools": {name: dict(sorted(kinds.items()))
                          for name, kinds in sorted(self.drift.items())},
            },
        }


def coverage_lines(cases: Iterable[Case], called: Iterable[str] | None = None) -> list[str]:
    """What `validate` prints of tool coverage for a suite with `tools_from` (none for
    another): the catalogue tools the cases expect, and with runs (`called`: the catalogue
    tools they called) the tools the runs called, each with those never exercised."""
    figures = CatalogueFigures(cases)
    if figures.catalogue is None:
        return []
    figures.called.update(called or ())
    block = figures.to_json()
    assert block is not None  # a catalogue was found
    coverage, catalogue = block["coverage"], block["catalogue"]
    of = f"of {catalogue['tools']} tools of {catalogue['file']}"
    lines = [f"tool coverage: {coverage['expected']} {of} expected by the cases; never "
             f"expected: {', '.join(coverage['never_expected']) or 'none'}"]
    if called is not None:
        lines.append(f"tool coverage: {coverage['called']} {of} called by the runs; never "
                     f"called: {', '.join(coverage['never_called']) or 'none'}")
    return lines


# Reliability across trials ----------------------------------------------------------------

def _validate(n: int, c: int, k: int) -> None:
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if not 0 <= c <= n:
        raise ValueError(f"c must be within 0..n ({n}), got {c}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be within 1..n ({n}), got {k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n trials with c passes: 1 - C(n-c, k) / C(n, k)."""
    _validate(n, c, k)
    return float(1 - Fraction(comb(n - c, k), comb(n, k)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k from n trials with c passes: C(c, k) / C(n, k)."""
    _validate(n, c, k)
    return float(Fraction(comb(c, k), comb(n, k)))


#: The largest k reported per case and in the suite means.
MAX_K = 32


class CaseTrials(TypedDict):
    """One case's block of `summary.reliability`."""

    n: int
    c: int
    pass_at_k: dict[str, float]
    pass_hat_k: dict[str, float]


#: The two figures per k, as the summary names them.
_METRICS: tuple[Literal["pass_at_k", "pass_hat_k"], ...] = ("pass_at_k", "pass_hat_k")


def case_reliability(n: int, c: int) -> CaseTrials:
    """`{n, c, pass_at_k: {k: v}, pass_hat_k: {k: v}}` for k = 1..min(n, MAX_K); keys are
    strings for JSON."""
    ks = range(1, min(n, MAX_K) + 1)
    return {
        "n": n,
        "c": c,
        "pass_at_k": {str(k): pass_at_k(n, c, k) for k in ks},
        "pass_hat_k": {str(k): pass_hat_k(n, c, k) for k in ks},
    }


class ReliabilityAccumulator:
    """Counts trials and passes per case, then reports pass@k / pass^k and suite means."""

    def __init__(self) -> None:
        self.trials: dict[str, int] = defaultdict(int)
        self.passes: dict[str, int] = defaultdict(int)

    def add(self, case_id: str, passed: bool) -> None:
        """Count one trial of a case."""
        self.trials[case_id] += 1
        self.passes[case_id] += bool(passed)

    def add_record(self, record: TrajectoryResult) -> None:
        """Count one graded trajectory: a trial passes when its aggregate passes."""
        self.add(record.case_id, record.aggregate.passed)

    def merge(self, other: ReliabilityAccumulator) -> None:
        """Add another's counts (the trials after these: first-seen order is kept)."""
        for case_id, n in other.trials.items():
            self.trials[case_id] += n
            self.passes[case_id] += other.passes[case_id]

    def rename(self, new_key: Callable[[str], str]) -> None:
        """Key every case's counts by `new_key(key)` instead, in the same order (the one pass
        counts by case and agent until it knows whether there is more than one agent)."""
        self.trials = defaultdict(int, {new_key(k): n for k, n in self.trials.items()})
        self.passes = defaultdict(int, {new_key(k): n for k, n in self.passes.items()})

    def summary(self) -> dict[str, CaseTrials]:
        """`{case_id: {n, c, pass_at_k: {k: v}, pass_hat_k: {k: v}}}`, cases in insertion order."""
        return {cid: case_reliability(n, self.passes[cid]) for cid, n in self.trials.items()}

    def means(self) -> dict[str, dict[str, float]]:
        """Suite means per k (up to MAX_K), each over the cases with at least k trials."""
        per_case = self.summary()
        max_n = min(max(self.trials.values(), default=0), MAX_K)
        out: dict[str, dict[str, float]] = {"pass_at_k": {}, "pass_hat_k": {}}
        for metric in _METRICS:
            values = out[metric]
            for k in range(1, max_n + 1):
                key = str(k)
                pool = [r[metric][key] for r in per_case.values() if r["n"] >= k]
                values[key] = sum(pool) / len(pool)
        return out
