"""BFCL's first file layout (the 2024 leaderboard) read as the current one.

The leaderboard of 2024 (files `gorilla_openfunctions_v1_test_<category>.json`) wrote a
question's `question` as a plain text and its `function` as one object when there was one, and
a possible answer's `ground_truth` as one object `{function: {param: [values]}}` whose names
carry an index suffix (`_1` or ` 1`) when a function is expected more than once (`spotify.play_1`,
`spotify.play_2`). Its `relevance` category is what later versions call irrelevance. These
entries are rewritten into the current layout before reading; current entries pass unchanged.
"""

from __future__ import annotations

import re

from toolgrade.importers.common import Located
from toolgrade.jsonio.values import JsonObject, JsonValue

_INDEX_SUFFIX = re.compile(r"[_ ][0-9]+\Z")

#: Categories whose right response calls no function: `irrelevance` (and `live_irrelevance`),
#: and the 2024 layout's `relevance`.
NO_CALL_CATEGORIES = ("relevance",)


def is_no_call_category(category: str) -> bool:
    """Whether the right response in this category calls nothing."""
    return "irrelevance" in category or category in NO_CALL_CATEGORIES


def current_question(question: Located) -> Located:
    """A question in the current layout: a text `question` becomes one user turn, a single
    `function` object a list of one."""
    data = question.value
    if not isinstance(data, dict):
        return question
    upgraded: JsonObject = dict(data)
    if isinstance(text := data.get("question"), str):
        upgraded["question"] = [[{"role": "user", "content": text}]]
    if isinstance(function := data.get("function"), dict):
        upgraded["function"] = [function]
    return Located(upgraded, question.file, question.line)


def current_answer(answer: Located, names: set[str]) -> Located:
    """A possible answer in the current layout: a `ground_truth` object becomes a list of one
    entry per call, each name's index suffix dropped when the question declares the name
    without it (and not with it)."""
    data = answer.value
    if not isinstance(data, dict) or not isinstance(truth := data.get("ground_truth"), dict):
        return answer
    entries: list[JsonValue] = [{_declared_name(name, names): params}
                                for name, params in truth.items()]
    return Located({**data, "ground_truth": entries}, answer.file, answer.line)


def _declared_name(name: str, names: set[str]) -> str:
    if name in names:
        return name
    stripped = _INDEX_SUFFIX.sub("", name)
    return stripped if stripped in names else name
