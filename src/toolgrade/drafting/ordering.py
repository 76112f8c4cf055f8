"""Drafted `before` pairs: what the runs show must come first (docs/draft.md).

Three kinds, each a review line of its own:

- **flows**: a value of one call's result (not said by the user) is, or is in, an argument
  of a later call, in every run that made the later call: `[a, b]`, or `["@b_inputs", b]`
  when different runs took it from different tools;
- **guards**: a read-only check (a name with verify, authenticate, authorize, confirm,
  validate or check) made before the first call of a write, in every run that wrote (an
  identity check before a refund: no value flows, the policy does);
- **answers**: a value of a read's result, not said by the user, is in the final answer of
  every run: `[a, answer]` (the answer reports what the read looked up). A write's result in the
  answer is its confirmation (a booking code, a new status): it says the write was made, which
  the route already requires, and the answer comes after every call, so such a pair could only
  fail a run that selection fails already. Writes get no answer pair.

Nothing else is ordered: reads among themselves and writes among themselves stay free. A tool
some run called more than once (a retry, a second search) gets a budget: one more call than
the most any run made (room for one more retry).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from toolgrade.drafting.catalogue import DraftTool, words
from toolgrade.drafting.infer import Line, done_calls
from toolgrade.jsonio.leaves import leaves
from toolgrade.models import Trajectory
from toolgrade.models.trajectory import Message, ToolCall

#: The shortest value (as text) that counts as flowing from a result onwards: shorter ones
#: (`ok`, `40`) meet again by chance.
MIN_FLOW_CHARS = 4
#: Words that make a read-only tool a check that guards the writes after it.
_CHECK_WORDS = frozenset({"verify", "authenticate", "authorize", "confirm", "validate", "check",
                          "auth"})


def _leaves(value: Any) -> Iterator[Any]:
    """The scalars inside `value` long enough to count as a flow, in document order."""
    return (leaf.value for leaf in leaves(value) if _long_enough(leaf.value))


def _long_enough(value: Any) -> bool:
    """A string or number long enough that meeting it again is not chance."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return False
    return len(str(value)) >= MIN_FLOW_CHARS


def _result_values(call: ToolCall) -> list[Any]:
    """The values of the call's result (a result written as JSON text read as JSON; other
    text is one value)."""
    content = call.result.content if call.result is not None else None
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError:
            return [content] if _long_enough(content) else []
    return list(_leaves(content))


def _said_again(call: ToolCall, texts: Sequence[str], told: str) -> bool:
    """Whether a value of the call's result, not said by the user, is in one of `texts`
    (lower case): an argument, or the final answer."""
    for value in _result_values(call):
        shown = str(value).casefold()
        if shown not in told and any(shown in text for text in texts):
            return True
    return False


def _told(run: Trajectory, case_input: Any) -> str:
    said = [str(s.content) for s in run.steps if isinstance(s, Message) and s.role == "user"]
    return "\n".join([*said, json.dumps(case_input) if case_input else ""]).casefold()


def _flows(run: Trajectory, told: str) -> set[tuple[str, str]]:
    """(earlier tool, later tool) pairs where a value of the earlier call's result, not said
    by the user, is (in) an argument of the later call."""
    calls = done_calls(run)
    pairs: set[tuple[str, str]] = set()
    for j, later in enumerate(calls):
        texts = [str(v).casefold() for v in _leaves(later.args)]
        for earlier in calls[:j]:
            if earlier.tool != later.tool and texts and _said_again(earlier, texts, told):
                pairs.add((earlier.tool, later.tool))
    return pairs


def _flow_pairs(runs: Sequence[Trajectory], case_input: Any
                ) -> tuple[list[list[str]], dict[str, list[str]]]:
    feeders: dict[str, list[set[str]]] = {}
    for run in runs:
        fed: dict[str, set[str]] = {call.tool: set() for call in done_calls(run)}
        for a, b in _flows(run, _told(run, case_input)):
            fed[b].add(a)
        for b, sources in fed.items():
            feeders.setdefault(b, []).append(sources)
    pairs: list[list[str]] = []
    groups: dict[str, list[str]] = {}
    for b, per_run in sorted(feeders.items()):
        if not all(per_run):
            continue
        always = set.intersection(*per_run)
        if always:  # these fed it in every run
            pairs += [[a, b] for a in sorted(always)]
        else:  # each run was fed by one of them
            groups[f"{b}_inputs"] = sorted(set().union(*per_run))
            pairs.append([f"@{b}_inputs", b])
    return pairs, groups


def is_check(name: str) -> bool:
    """Whether a tool's name reads as a check (`verify_identity`, `authenticateUser`)."""
    return bool(set(words(name)) & _CHECK_WORDS)


def _guards(runs: Sequence[Trajectory], tools: Mapping[str, DraftTool]) -> list[list[str]]:
    """[check, write] where every run that wrote called the check before its first write."""
    writes = sorted({c.tool for run in runs for c in done_calls(run) if tools[c.tool].side_effect})
    pairs: list[list[str]] = []
    for write in writes:
        candidates: set[str] | None = None
        for run in runs:
            calls = done_calls(run)
            first = next((i for i, c in enumerate(calls) if c.tool == write), None)
            if first is None:
                continue
            before = {c.tool for c in calls[:first]
                      if not tools[c.tool].side_effect and is_check(c.tool)}
            candidates = before if candidates is None else candidates & before
        pairs += [[read, write] for read in sorted(candidates or ())]
    return pairs


def _answer_sources(runs: Sequence[Trajectory], case_input: Any,
                    tools: Mapping[str, DraftTool]) -> list[list[str]]:
    """[read, answer] where every run's final answer repeats a value of that read's result
    (a write's value there is its confirmation: no pair, see the module's docstring)."""
    common: set[str] | None = None
    for run in runs:
        answer = run.final_answer()
        if answer is None:
            return []
        texts, told = [answer[1].casefold()], _told(run, case_input)
        sources = {c.tool for c in done_calls(run)
                   if not tools[c.tool].side_effect and _said_again(c, texts, told)}
        common = sources if common is None else common & sources
    return [[tool, "answer"] for tool in sorted(common or ())]


def _all_writes(pair: Sequence[str], groups: Mapping[str, list[str]],
                tools: Mapping[str, DraftTool]) -> bool:
    """Whether every tool a pair names (through its group, too) is a write."""
    named = [t for side in pair for t in groups.get(side[1:], []) if side.startswith("@")]
    named += [side for side in pair if not side.startswith("@") and side != "answer"]
    return all(tools[t].side_effect for t in named)


def draft_ordering(runs: Sequence[Trajectory], case_input: Any, tools: Mapping[str, DraftTool],
                   guards: bool = True, free_reads: bool = False) -> tuple[list[Line], Line | None]:
    """The `before` pairs, each with its review note, and the groups they name. With free
    reads, a pair naming a read is left out: it would require a call the route leaves free."""
    n = len(runs)
    flows, groups = _flow_pairs(runs, case_input)
    lines = [Line(p, f"flow: a value of the first's result reached the second's arguments in "
                     f"every run that made the second ({n} runs)") for p in flows]
    seen = {tuple(p) for p in flows}
    for pair in _guards(runs, tools) if guards else []:
        if tuple(pair) not in seen:
            seen.add(tuple(pair))
            lines.append(Line(pair, f"guard: every run that made the write ({n} runs) made "
                                    "this read first; no value flowed: a policy?"))
    lines += [Line(p, f"answer: the final answer of all {n} runs repeats a value of this "
                      "read's result") for p in _answer_sources(runs, case_input, tools)]
    if free_reads:
        lines = [line for line in lines if _all_writes(line.value, groups, tools)]
        named = {side[1:] for line in lines for side in line.value if side.startswith("@")}
        groups = {name: members for name, members in groups.items() if name in named}
    grouped = Line(groups, "tools that fed the same call in different runs") if groups else None
    return lines, grouped


def draft_budgets(runs: Sequence[Trajectory], tools: Mapping[str, DraftTool],
                  free_reads: bool = False) -> Line | None:
    """`max_calls` for the tools some run called more than once: one more than the most any
    run made (with free reads, writes only: a free call has no budget)."""
    most: Counter[str] = Counter()
    for run in runs:
        for tool, count in Counter(run.tool_names).items():
            most[tool] = max(most[tool], count)
    budgets = {tool: n + 1 for tool, n in sorted(most.items())
               if n > 1 and (tools[tool].side_effect or not free_reads)}
    if not budgets:
        return None
    return Line(budgets, f"one more than the most calls of each that one of the {len(runs)} "
                         "runs made")
