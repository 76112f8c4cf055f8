"""Solved examples in the prompt: `judge_prompts/examples.jinja` laid before the item.

Each example is shown as the item is: the dimension template's user block rendered with the
example's inputs and this request's delimiter token, so every example value is fenced like the
item's data and cleaned of delimiter-like text (`prompts.wrap`). Examples come from team files:
they are untrusted data exactly as judged content is. Only the example's number and its human
label (pass or fail, checked when the set was loaded) stand outside the fences. A trusted input
(the case author's `rubric`) belongs to the request's instructions: an example's own rubric is
not shown.

The examples go at the start of the user message, before the item: in checklist mode they are
part of the evidence prefix every question shares, so the local model evaluates them once per
item (docs/local_judge.md, "Checklist mode"). At most `EXAMPLES_BUDGET_CHARS` of example
evidence is shown: K is a ceiling, and long examples leave fewer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from jinja2 import TemplateError

from toolgrade.calibration.calibrate import CalibrationItem
from toolgrade.errors import PromptError
from toolgrade.judging.prompts import (
    PROMPT_ENV,
    AnswerMode,
    PromptTemplate,
    RenderedPrompt,
    read_prompt_file,
)

LAYOUT_FILE = "examples.jinja"
#: The most characters of example evidence one prompt shows (about 1,500 tokens): the embedded
#: model reads 4,096 tokens in all, and a real-length item can take 1,000-2,000 of them. The
#: nearest examples go first; one that would pass what is left of the budget is passed over.
EXAMPLES_BUDGET_CHARS = 6000
#: How the budget is applied, in the examples' hash: a changed rule shows other examples.
BUDGET_RULE = "pass-over"


@dataclass(frozen=True)
class ExamplesLayout:
    """The examples' layout (`judge_prompts/examples.jinja`) and the hash of its bytes."""

    source: str
    layout_hash: str
    origin: str

    def render(self, shown: Sequence[Mapping[str, Any]]) -> str:
        """The examples block: `shown` holds number, evidence (fenced) and label per example."""
        try:
            return PROMPT_ENV.from_string(self.source).render(examples=list(shown)).strip() + "\n"
        except TemplateError as exc:
            raise PromptError(f"{self.origin}: {exc}") from exc


def load_layout(directory: Path | None = None) -> ExamplesLayout:
    """The examples' layout from `directory`, else the one shipped in the package."""
    raw, origin = read_prompt_file(LAYOUT_FILE, directory, "the examples' layout")
    return ExamplesLayout(raw.decode("utf-8"), hashlib.sha256(raw).hexdigest(), origin)


def examples_hash(base_hash: str, k: int, pool_sha256: str, layout: ExamplesLayout) -> str:
    """The hash a judge showing `k` examples from a pool stamps on its verdicts and records:
    the template's (or template and checklist's), K, the pool and the layout together."""
    material = (f"{base_hash}+examples:{k}:{pool_sha256}:{layout.layout_hash}:"
                f"{EXAMPLES_BUDGET_CHARS}:{BUDGET_RULE}")
    return hashlib.sha256(material.encode("ascii")).hexdigest()


class WithExamples:
    """A dimension's template with solved examples laid before the item (`EvidenceTemplate`)."""

    def __init__(self, template: PromptTemplate, layout: ExamplesLayout,
                 examples: Sequence[CalibrationItem], template_hash: str) -> None:
        self.template = template
        self.layout = layout
        self.examples = tuple(examples)
        self.template_hash = template_hash

    def render(
        self, inputs: Mapping[str, Any], *, answer_mode: AnswerMode = "reasoned",
        token: str | None = None,
    ) -> RenderedPrompt:
        """The item's prompt, its user part opened by the examples (fenced with its token)."""
        prompt = self.template.render(inputs, answer_mode=answer_mode, token=token)
        if not self.examples:
            return replace(prompt, template_hash=self.template_hash)
        shown: list[dict[str, Any]] = []
        room = EXAMPLES_BUDGET_CHARS
        for example in self.examples:  # nearest first; one that does not fit is passed over
            evidence = self.template.render(example.inputs, answer_mode=answer_mode,
                                            token=prompt.token).user.strip()
            if len(evidence) > room:
                continue
            room -= len(evidence)
            shown.append({"number": len(shown) + 1, "evidence": evidence,
                          "label": example.label})
        if not shown:
            return replace(prompt, template_hash=self.template_hash)
        block = self.layout.render(shown)
        return replace(prompt, user=block + "\n" + prompt.user, template_hash=self.template_hash)
