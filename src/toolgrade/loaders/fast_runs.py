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

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, JsonValue, Tag, ValidationError

from toolgrade.jsonio.lines import utf8_error
from toolgrade.models import Message, ToolCall, Trajectory

#: Keys a plain call step may have: `raw_arguments` is the model's own field, not input.
_CALL_KEYS = frozenset({"tool", "args", "id", "result", "group"})
#: The roles a message step of the normalised form may have.
STEP_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})


def _step_kind(value: Any) -> str | None:
    """'call' or 'message' for a step the fast path can take as it is; None sends it back."""
    if not isinstance(value, dict):
        return None
    if "tool" in value:
        return "call" if value.keys() <= _CALL_KEYS else None
    role = value.get("role")
    return "message" if isinstance(role, str) and role in STEP_ROLES else None


_PlainStep = Annotated[
    Annotated[ToolCall, Tag("call")] | Annotated[Message, Tag("message")],
    Discriminator(_step_kind),
]


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
    # `RunRecord` refuses an empty tool name; `ToolCall` itself does not check it.
    if any(isinstance(step, ToolCall) and not step.tool for step in run.steps):
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
