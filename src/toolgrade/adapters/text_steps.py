"""Tool calls an agent wrote as text, read into call steps when the suite asks for it.

Some agents (open models served without a tool-call parser, prompted models) put their calls
in the assistant message's text. A case with `text_calls: true` (or a suite whose `defaults`
say so) has each such message read by the raw-text reader (`raw_calls`,
docs/importers.md#tool-calls-in-raw-model-text) before grading:

- a message whose text holds calls becomes those call steps, issued together (one `group`);
  names are mapped to the catalogue's when exactly one matches with dots and underscores taken
  as the same character; a call whose arguments cannot be read keeps its raw text
  (`unparseable_arguments`);
- a message that carries a call marker (`<tool_call>`, `<function_call>`, `[TOOL_CALLS]`,
  `<|python_tag|>`) but holds no readable call becomes one `(unparsed)` step keeping the text
  (`unparseable_call`);
- any other message stays the message it is (prose, the final answer), and so does a message
  followed by structured calls of its own.
"""

from __future__ import annotations

from collections.abc import Collection

from toolgrade.adapters.raw_calls import RawCall, parse_raw_calls
from toolgrade.models import Message, Step, ToolCall, Trajectory
from toolgrade.vocabulary import UNPARSED_TOOL

#: Markers that say a text was meant as tool calls.
CALL_MARKERS = ("<tool_call>", "<function_call>", "[TOOL_CALLS]", "<|python_tag|>")


def resolve_name(called: str, names: Collection[str]) -> str:
    """The catalogue name for a called name: itself, else the one catalogue name equal to it
    with dots and underscores taken as the same character, else unchanged."""
    if called in names:
        return called
    loose = called.replace(".", "_")
    matches = [name for name in names if name.replace(".", "_") == loose]
    return matches[0] if len(matches) == 1 else called


def with_text_calls(run: Trajectory, names: Collection[str]) -> Trajectory:
    """The run with the calls written in its assistant messages' text read as call steps."""
    steps: list[Step] = []
    changed = False
    for index, step in enumerate(run.steps):
        following = run.steps[index + 1] if index + 1 < len(run.steps) else None
        read = _read(step, index, names) if not isinstance(following, ToolCall) else None
        if read is None:
            steps.append(step)
        else:
            steps.extend(read)
            changed = True
    return run.model_copy(update={"steps": steps}) if changed else run


def _read(step: Step, index: int, names: Collection[str]) -> list[Step] | None:
    """The call steps of one assistant message, or None to keep it as it is."""
    if not isinstance(step, Message) or step.role != "assistant":
        return None
    if not isinstance(step.content, str):
        return None
    calls = parse_raw_calls(step.content)
    group = f"text-{index}"
    if calls is None:
        if not any(marker in step.content for marker in CALL_MARKERS):
            return None
        return [ToolCall(tool=UNPARSED_TOOL, raw_arguments=step.content, group=group)]
    if not calls:
        return None
    return [_call(call, names, group) for call in calls]


def _call(call: RawCall, names: Collection[str], group: str) -> ToolCall:
    if not call.name:
        return ToolCall(tool=UNPARSED_TOOL, raw_arguments=call.raw, group=group)
    tool = resolve_name(call.name, names)
    if call.arguments is None:
        return ToolCall(tool=tool, raw_arguments=call.raw, group=group)
    return ToolCall(tool=tool, args=call.arguments, group=group)
