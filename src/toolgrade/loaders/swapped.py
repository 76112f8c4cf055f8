"""A hint for the commonest slip of the command line: SUITE and RUNS given the other way round.

Read as given, a runs file makes one "unknown key" problem per line of the suite loader, and a
suite makes one malformed line per line of the runs reader (454 lines for the helpdesk example),
none of them the reason. A cheap look at the two arguments says it instead, in one line.
"""

from __future__ import annotations

from pathlib import Path

from toolgrade.errors import InputProblem

_YAML = (".yaml", ".yml")
#: Keys only a run line has at its top level, and one only a case has.
_RUN_KEYS = ('"messages"', '"steps"', '"resourceSpans"')
_CASE_KEY = '"expected"'
_PEEK = 65536


def swapped_problem(suite: Path, runs: list[Path]) -> InputProblem | None:
    """One problem saying SUITE and RUNS look swapped, or None when they look right."""
    yaml_runs = [p for p in runs if p.suffix in _YAML and p.is_file()]
    if yaml_runs or _looks_like_runs(suite):
        what = (f"RUNS holds a YAML file ({yaml_runs[0]}), which only a suite is"
                if yaml_runs else "this is a runs file, not a suite")
        return InputProblem(str(suite), None, "", f"{what}: SUITE and RUNS look swapped "
                                                  "(toolgrade run SUITE RUNS...)")
    return None


def _looks_like_runs(path: Path) -> bool:
    """Whether a suite argument is a JSON Lines or JSON file whose first line is a run."""
    if path.suffix not in (".jsonl", ".json") or not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            first = fh.readline(_PEEK)
            while first and not first.strip():
                first = fh.readline(_PEEK)
    except OSError:
        return False
    return any(key in first for key in _RUN_KEYS) and _CASE_KEY not in first
