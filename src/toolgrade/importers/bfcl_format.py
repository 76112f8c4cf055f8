"""The records of the Berkeley Function Calling Leaderboard files, as the BFCL importer reads them.

Upstream: ShishirPatil/gorilla, `berkeley-function-call-leaderboard/`: a question file
`data/BFCL_v3_<category>.json`, its possible answers `data/possible_answer/BFCL_v3_<category>.json`
and a model's results `result/<model>/BFCL_v3_<category>_result.json`, each JSON Lines despite
the suffix. The importer checks each question and answer (`bfcl._question_problems`,
`bfcl._entry_problems`) before it casts it to these types; a result's `result` is read as the
model wrote it, whatever it holds.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

from toolgrade.jsonio.values import JsonObject, JsonValue

#: A parameter schema in BFCL's dialect of JSON Schema: Python type names (`dict`, `float`,
#: `tuple`, `any`), an `optional` flag beside `required`; read key by key by `bfcl.map_schema`.
BfclSchema = JsonObject

#: One acceptable call of `ground_truth`: function name -> parameter -> its acceptable values
#: (a list; `""` among them means the parameter may be left out).
BfclAnswerCall = dict[str, JsonObject]


class BfclFunctionDoc(TypedDict):
    """One function a question offers the model (an item of its `function`)."""

    name: str
    description: NotRequired[JsonValue]
    parameters: NotRequired[JsonValue]


class BfclQuestion(TypedDict):
    """One entry of a question file."""

    #: `<category>_<n>` (`simple_python_3`, `live_multiple_0-0-0`).
    id: str
    #: The turns, each a list of `{role, content}` messages (older files: the messages alone).
    question: NotRequired[JsonValue]
    function: list[BfclFunctionDoc]


class BfclPossibleAnswer(TypedDict):
    """One entry of a possible-answer file: each expected call, in order."""

    id: str
    ground_truth: list[BfclAnswerCall]
