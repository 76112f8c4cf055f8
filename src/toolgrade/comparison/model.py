"""The typed shape of `compare.json`, written by `toolgrade compare` (`toolgrade schema
--compare` prints its JSON Schema). docs/compare.md explains every figure."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from toolgrade.jsonio import out as json_out
from toolgrade.jsonio.values import JsonObject

#: The version of compare.json's shape; raised when a field changes meaning or goes away.
COMPARE_SCHEMA_VERSION = 1


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PassHatK(_Part):
    """pass^k on both sides over the cases where both have at least k trials."""

    k: int
    cases: int
    base: float
    new: float


class FigureChange(_Part):
    """One pass rate compared over the paired cases where it applies on both sides."""

    figure: str = Field(description="`aggregate.pass_rate` or `<check>.pass_rate`.")
    cases: int = Field(description="Paired cases the figure applies to in both gradings.")
    base: float | None
    new: float | None
    difference: float | None = Field(description="new minus base (trials averaged per case).")
    ci_low: float | None = Field(description="95% paired-bootstrap interval of the difference.")
    ci_high: float | None
    to_fail: int = Field(description="Cases passing in base and failing in new.")
    to_pass: int = Field(description="Cases failing in base and passing in new.")
    mcnemar_p: float | None = Field(description="Exact two-sided McNemar test on the flips.")
    pass_hat_k: PassHatK | None = None
    like_for_like: bool = True
    not_like_for_like: list[str] = Field(
        default_factory=list, description="Judge dimensions that decided differently.")


class CaseFlip(_Part):
    """A case whose aggregate verdict changed, with what failed only before or only now."""

    case: str
    direction: Literal["to_fail", "to_pass"]
    appeared: list[str] = Field(description="`check/failure` names only the new grading shows.")
    disappeared: list[str] = Field(description="`check/failure` names only the base shows.")
    base_run: str = Field(description="The base run's view: report.html#anchor.")
    new_run: str


class FailureCount(_Part):
    """A failure name's runs on both sides, over the paired cases."""

    base: int
    new: int


class DropGate(_Part):
    """One `--max-drop FIGURE=X`: failed when the drop exceeds X and its interval excludes 0."""

    figure: str
    max_drop: float
    drop: float | None
    ci_low: float | None
    ci_high: float | None
    passed: bool

    def message(self) -> str:
        """One line naming the figure, its drop and interval, and the maximum."""
        verdict = "ok" if self.passed else "FAILED"
        if self.drop is None or self.ci_low is None or self.ci_high is None:
            return (f"gate {verdict}: {self.figure} n/a (no paired case applies), "
                    f"maximum drop {self.max_drop:g}")
        return (f"gate {verdict}: {self.figure} drop = {self.drop:.4g} (95% CI of the change "
                f"{self.ci_low:+.4g} to {self.ci_high:+.4g}), maximum drop {self.max_drop:g}")


class Comparison(_Part):
    """compare.json: a new grading against a base, paired by case."""

    schema_version: int = COMPARE_SCHEMA_VERSION
    base: str
    new: str
    same_suite: bool
    suite_note: str
    paired_by: Literal["case", "case and agent"]
    cases: int = Field(description="Paired cases: graded in both folders.")
    base_only: list[str] = Field(default_factory=list)
    new_only: list[str] = Field(default_factory=list)
    resamples: int
    seed: int
    figures: list[FigureChange]
    flips: list[CaseFlip] = Field(default_factory=list)
    failures: dict[str, FailureCount] = Field(default_factory=dict)
    judges_differ: dict[str, str] = Field(
        default_factory=dict, description="Judge dimension: what differs between the gradings.")
    gates: list[DropGate] = Field(default_factory=list)

    def figure(self, name: str) -> FigureChange | None:
        """The comparison of `name` (`aggregate.pass_rate`, ...), or None."""
        return next((f for f in self.figures if f.figure == name), None)

    def to_json_text(self) -> str:
        """The text of compare.json."""
        return json_out.dumps(self.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"


def compare_schema() -> JsonObject:
    """The JSON Schema of compare.json."""
    document: JsonObject = Comparison.model_json_schema()
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = f"toolgrade compare.json (shape version {COMPARE_SCHEMA_VERSION})"
    return document
