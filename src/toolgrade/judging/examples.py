"""Nearest labelled examples: the pool of a dimension's labelled items and BM25 retrieval in it.

With `[judge] examples = K` (or per dimension), every judged item is shown the K items of the
dimension's labelled pool most like it, with their human labels, before it is asked about
(docs/local_judge.md, "Nearest labelled examples"). The pool is the set shipped for the
dimension followed by the `examples_from` sets (a team's exported adjudications, say: a folder
`toolgrade adjudicate --export-set` wrote gives its `<dimension>.jsonl`), so a team's labels
reach the judge at its next run or `calibrate`.

Similarity is BM25 (the `bm25s` package) over a flat text of each item's inputs: every value
serialised as the prompt shows it, lower-cased and cut into word tokens. An item never sees
itself: pool items whose inputs equal the request's (canonical JSON) are left out, and so is
the item named by the request's `item_id` (`calibrate` names each labelled item it judges),
with every pool item of the same task (its near-miss twins). Ties are broken by position in the
pool, so the choice is deterministic.

In the prompt (`WithExamples`, laid out by `judge_prompts/examples.jinja`), each example is
shown as the item is: the dimension template's user block rendered with the example's inputs
and this request's delimiter token, so every example value is fenced like the item's data and
cleaned of delimiter-like text (`prompts.wrap`). Examples come from team files: they are
untrusted data exactly as judged content is. Only the example's number and its human label
(pass or fail, checked when the set was loaded) stand outside the fences. A trusted input (the
case author's `rubric`) belongs to the request's instructions: an example's own rubric is not
shown.

The examples go at the start of the user message, before the item: in checklist mode they are
part of the evidence prefix every question shares, so the local model evaluates them once per
item (docs/local_judge.md, "Checklist mode"). At most `EXAMPLES_BUDGET_CHARS` of example
evidence is shown: K is a ceiling, and long examples leave fewer.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from jinja2 import TemplateError

from toolgrade.calibration.calibrate import CalibrationItem, CalibrationSet, load_set
from toolgrade.errors import ConfigError, InputError, PromptError
from toolgrade.judging.cache import canonical_json
from toolgrade.judging.prompts import (
    PROMPT_ENV,
    AnswerMode,
    PromptTemplate,
    RenderedPrompt,
    read_prompt_file,
    serialise,
)
from toolgrade.models import JudgeDimension

_WORD = re.compile(r"\w+")


def flat_text(inputs: Mapping[str, Any]) -> str:
    """One item's inputs as one text, in key order (what retrieval compares)."""
    return "\n".join(serialise(inputs[name]) for name in sorted(inputs))


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens of `text`."""
    return _WORD.findall(text.lower())


class ExamplePool:
    """A dimension's labelled items, indexed for BM25; `sha256` covers every set's bytes."""

    def __init__(self, dimension: JudgeDimension, sets: Sequence[CalibrationSet]) -> None:
        import bm25s  # lazily: only a judge showing examples pays for the import

        self.dimension: JudgeDimension = dimension
        self.items: tuple[CalibrationItem, ...] = tuple(i for s in sets for i in s.items)
        self.sources: tuple[str, ...] = tuple(s.source for s in sets)
        self.sha256 = hashlib.sha256(
            "\n".join(s.sha256 for s in sets).encode("ascii")).hexdigest()
        self._canonical = [canonical_json(item.inputs) for item in self.items]
        self._index = bm25s.BM25()
        self._index.index([tokens(flat_text(i.inputs)) or [""] for i in self.items],
                          show_progress=False)

    def scores(self, inputs: Mapping[str, Any]) -> np.ndarray[Any, np.dtype[np.float64]]:
        """Every pool item's BM25 score against `inputs` (0 where no word is shared)."""
        query = tokens(flat_text(inputs))
        if not query or not self.items:
            return np.zeros(len(self.items), dtype=np.float64)
        return np.asarray(self._index.get_scores(query), dtype=np.float64)

    def nearest(
        self, inputs: Mapping[str, Any], k: int, *, leave_out: str | None = None
    ) -> list[CalibrationItem]:
        """The `k` items most like `inputs`, best first; never one with the same inputs. With
        `leave_out` (the labelled item `calibrate` is judging), neither that item nor any item
        of the same task: labelled sets pair near-miss items on one task with opposite labels,
        so a twin shown with its label would give the answer away, and the calibration would
        promise what the judge cannot do on new tasks. Equal scores keep the pool's order."""
        if k <= 0:
            return []
        own = canonical_json(dict(inputs))
        task = inputs.get("task") if leave_out is not None else None
        scores = self.scores(inputs)
        candidates = [n for n, item in enumerate(self.items)
                      if self._canonical[n] != own and item.id != leave_out
                      and (task is None or item.inputs.get("task") != task)]
        candidates.sort(key=lambda n: (-float(scores[n]), n))
        return [self.items[n] for n in candidates[:k]]


def example_sets(dimension: JudgeDimension, extra: Sequence[Path]) -> list[Path]:
    """The files `extra` names for `dimension`: a file as it is; a folder (one `toolgrade
    adjudicate --export-set` wrote) by its `<dimension>.jsonl`, when it has one yet."""
    found: list[Path] = []
    for path in extra:
        if path.is_dir():
            own = path / f"{dimension}.jsonl"
            if own.is_file():
                found.append(own)
            continue
        found.append(path)
    return found


def load_pool(dimension: JudgeDimension, extra: Sequence[Path]) -> ExamplePool:
    """The shipped set of `dimension` and the `extra` sets (`example_sets`); ConfigError
    naming the file, line and field of every problem in them."""
    try:
        sets = [load_set(None, dimension),
                *(load_set(path, dimension) for path in example_sets(dimension, extra))]
    except InputError as exc:
        raise ConfigError(f"examples_from of {dimension}: {exc}") from exc
    return ExamplePool(dimension, sets)


# -- in the prompt ----------------------------------------------------------------------------

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
