"""Reading a graded output folder (`toolgrade run --out DIR`) for `toolgrade compare`.

Only what a comparison needs is kept: per run, whether each check and the aggregate passed
and which failures it showed; per judge dimension, what decides its verdicts (model, mode,
calibration record). A folder that is missing a file or holds a foreign one is refused with
the file (and line) named, as `toolgrade report` refuses it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from toolgrade.errors import ToolgradeError
from toolgrade.loaders.suite_digest import suite_sha256
from toolgrade.models.figures import ResultRecord, check_blocks
from toolgrade.models.summary import RunSummary
from toolgrade.reporting.digest import iter_records
from toolgrade.reporting.files import read_output_folder
from toolgrade.vocabulary import CHECK_NAMES

#: The figures a comparison covers, in the order they are shown.
FIGURES: tuple[str, ...] = ("aggregate.pass_rate", *(f"{c}.pass_rate" for c in CHECK_NAMES))
#: Judge figures that count usage, not what decides a verdict: they may differ freely.
_USAGE_KEYS = frozenset({"calls", "requests", "cache_hits", "memo_hits", "settled", "unscored",
                         "errors", "tokens", "cost_usd", "items"})


@dataclass(frozen=True)
class RunOutcome:
    """One graded run: per figure, whether it passed (figures not applicable are absent),
    and its failure names as `check/name`."""

    case_id: str
    agent: str | None
    trial: int
    passed: dict[str, bool]
    failures: tuple[str, ...]


@dataclass
class Grading:
    """One output folder as a comparison reads it."""

    folder: Path
    summary: RunSummary
    runs: list[RunOutcome] = field(default_factory=list)

    @property
    def agents(self) -> set[str | None]:
        """The agents the folder's runs name."""
        return {run.agent for run in self.runs}

    def judge_identity(self) -> dict[str, str]:
        """Per judge dimension, what decides its verdicts as canonical JSON (usage left out)."""
        identity: dict[str, str] = {}
        for dimension, block in self.summary.judges.items():
            data = block.model_dump(mode="json", by_alias=True)
            kept = {k: v for k, v in data.items() if k not in _USAGE_KEYS}
            identity[str(dimension)] = json.dumps(kept, sort_keys=True)
        return identity

    def suite_digest(self) -> tuple[str | None, str]:
        """The suite's sha256 and where it came from: recorded at grading time, else of the
        suite the summary names as it is now (an older summary), else None."""
        if self.summary.suite_sha256 is not None:
            return self.summary.suite_sha256, "recorded at grading"
        path = Path(self.summary.suite) if self.summary.suite else None
        if path is None or not path.exists():
            return None, "no suite recorded"
        return suite_sha256(path), "of the suite file as it is now"


def _outcome(record: ResultRecord) -> RunOutcome:
    passed: dict[str, bool] = {}
    failures: list[str] = []
    for check, block in check_blocks(record.get("checks") or {}).items():
        if not block.get("applicable"):
            continue
        # Unscored is never a pass (docs/reports.md): only `passed: true` counts.
        passed[f"{check}.pass_rate"] = block.get("passed") is True
        failures += [f"{check}/{f['name']}" for f in block.get("failures") or []]
    aggregate = record.get("aggregate") or {}
    passed["aggregate.pass_rate"] = aggregate.get("passed") is True and not record.get("error")
    return RunOutcome(case_id=record["case_id"], agent=record.get("agent"),
                      trial=int(record.get("trial") or 0), passed=passed,
                      failures=tuple(sorted(set(failures))))


def read_grading(folder: Path) -> Grading:
    """The folder's summary and runs; `ToolgradeError` naming what is missing or unreadable."""
    results_path, summary = read_output_folder(folder)
    grading = Grading(folder=folder, summary=summary)
    try:
        grading.runs = [_outcome(record) for record in iter_records(results_path)]
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise ToolgradeError(f"{results_path}: not a toolgrade results file: {exc}") from exc
    return grading


def runs_by_case(grading: Grading, by_agent: bool) -> dict[str, list[RunOutcome]]:
    """The folder's runs grouped by case (`case@agent` when agents are kept apart)."""
    grouped: dict[str, list[RunOutcome]] = defaultdict(list)
    for run in grading.runs:
        key = f"{run.case_id}@{run.agent}" if by_agent and run.agent else run.case_id
        grouped[key].append(run)
    return dict(grouped)
