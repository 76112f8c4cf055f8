"""A one-call read path for the common run line: plain `steps`, validated by pydantic-core.

Reading a run the careful way (`json.loads`, then `RunRecord`, then one model per step in Python)
costs more than most of grading does. Most lines are plain: a `steps` list of calls with object
arguments and chat messages with string roles. For those, pydantic-core parses and validates the
raw line in a single strict call straight into the `ToolCall` and `Message` models the checks
read.

Soundness is one-sided, as in `schema_fastpath`: the fast path accepts a line only when the
careful path would accept it and build the same trajectory. Strict mode turns every coercion
(a float `group`, a string `trial`, a numeric `role`, string `args`) into a rejection, and a
rejected line is simply read the careful way, which also words any problem. So the fast path
decides nothing on its own: it only skips work whose outcome is already known.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from toolgrade.jsonio.lines import utf8_error
from toolgrade.models import Message, ToolCall, Trajectory

#: The roles a message step of the normalised form may have.
STEP_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})

# A step is a call or a message, tried in that order straight from the JSON text. Both models
# forbid unknown keys and each requires a key the other does not have (`tool`, `role`), so at
# most one accepts a step and the order decides nothing; a step neither accepts sends the line
# the careful way. A Python discriminator would make pydantic-core build every step as Python
# objects first and call back into Python per step: a quarter of the reading.
_PlainStep = Annotated[ToolCall | Message, Field(union_mode="left_to_right")]


class _PlainRun(BaseModel):
    """The shape of a plain run line; anything else is left to `RunRecord`."""

    model_config = ConfigDict(extra="forbid", strict=True)

    case_id: str = Field(min_length=1)
    trial: int = Field(default=0, ge=0)
    agent: str | None = Field(default=None, min_length=1)
    format: Literal["steps"] | None = None
    steps: list[_PlainStep]
    final_state: dict[str, JsonValue] | None = None
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


def might_be_plain(line: str) -> bool:
    """False for a line the fast path must not take: bytes that are not UTF-8, or text that
    may hold `NaN` or `Infinity`, which pydantic-core reads as floats and the careful path as
    the strings they spell (plain substring tests, as a regular expression would cost a fifth
    of the reading)."""
    return utf8_error(line) is None and "NaN" not in line and "Infinity" not in line


def plain_trajectory(line: str) -> Trajectory | None:
    """The trajectory of a plain run line, or None when the line needs the careful path."""
    # A chat-format line (a `messages` key) is never plain: skip the attempt, which would cost a
    # fifth of its careful reading. Quotes inside JSON strings are escaped, so only a key or a
    # whole string value reads `"messages"`; a rare plain line holding that value only loses
    # the shortcut.
    if '"messages"' in line:
        return None
    try:
        run = _PlainRun.model_validate_json(line, strict=True)
    except ValidationError:
        return None
    if not all(_plain_step(step) for step in run.steps):
        return None
    # Every field was just validated, as strictly as `Trajectory` would (its steps are the
    # models themselves): building it again would only copy them. All five fields are given,
    # so the fields set is the same as the validating constructor's.
    return Trajectory.model_construct(
        case_id=run.case_id,
        trial=run.trial,
        agent=run.agent,
        steps=run.steps,
        final_state=run.final_state,
    )


def _plain_step(step: ToolCall | Message) -> bool:
    """What the models do not check and the careful path refuses or reads otherwise: an empty
    tool name, `raw_arguments` given as input (it is the model's own field), a role outside
    the normalised form's."""
    if isinstance(step, ToolCall):
        return bool(step.tool) and "raw_arguments" not in step.model_fields_set
    return step.role in STEP_ROLES
