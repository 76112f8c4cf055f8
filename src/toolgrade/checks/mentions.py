"""What the agent must say (`expected.answer.mentions`), checked on its messages.

A mention is met when some assistant message of the run holds it as a substring, compared in
lower case with every comma removed from both sides: the rule tau-bench (`outputs`) and tau2
(`communicate_info`) apply to their required outputs, so `1,628.50` in a reply meets `1628.50`.
Every assistant message counts, not only the final answer: a figure told halfway through the
conversation was told. The recovery check folds these outcomes into its score beside the state
assertions; docs/case-format.md states the rule for users.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolgrade.models import Failure, Message, Trajectory
from toolgrade.models.figures import MentionRecord


@dataclass(frozen=True)
class MentionOutcome:
    """One mention: whether it was said, and the step of the first message that said it."""

    text: str
    passed: bool
    step: int | None

    def to_json(self) -> MentionRecord:
        """`{mention, passed, step}` for the check's figures."""
        return {"mention": self.text, "passed": self.passed, "step": self.step}


def comparable(text: str) -> str:
    """Text as mentions are compared: lower case, commas removed."""
    return text.lower().replace(",", "")


def message_text(content: object) -> str | None:
    """The text of a message's content: a string as is, content blocks' `text` joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b["text"] for b in content
                 if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "\n".join(parts) if parts else None
    return None


def said(run: Trajectory) -> list[tuple[int, str]]:
    """Every assistant message with text, as (step, comparable text)."""
    out: list[tuple[int, str]] = []
    for i, step in enumerate(run.steps):
        if isinstance(step, Message) and step.role == "assistant":
            text = message_text(step.content)
            if text:
                out.append((i, comparable(text)))
    return out


def check_mentions(mentions: list[str], run: Trajectory) -> list[MentionOutcome]:
    """One outcome per mention, in the case's order."""
    messages = said(run)
    outcomes: list[MentionOutcome] = []
    for mention in mentions:
        wanted = comparable(mention)
        step = next((i for i, text in messages if wanted in text), None)
        outcomes.append(MentionOutcome(mention, step is not None, step))
    return outcomes


def mention_failure(outcome: MentionOutcome) -> Failure:
    """A `missing_mention` naming what the agent never said."""
    return Failure(
        name="missing_mention",
        step=None,
        message=f"the agent never said {outcome.text!r} in any of its messages",
        evidence={"mention": outcome.text},
    )
