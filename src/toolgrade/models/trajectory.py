"""The run: a trajectory of normalised steps (docs/case-format.md, Runs).

Adapters turn OpenAI or Anthropic chat messages into these steps; checks read only these.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from toolgrade.models.catalogue import CatalogueStamp


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolResult(_Frozen):
    """What a tool returned to the agent."""

    status: Literal["ok", "error"] = "ok"
    content: Any = None
    fault: Literal["error", "empty", "malformed", "timeout"] | None = Field(
        default=None,
        description="The fault a harness injected into this call, when it did (an `empty` or "
        "`malformed` fault is recorded with status ok: this says it failed all the same).",
    )


class ToolCall(_Frozen):
    """One tool call the agent made.

    `raw_arguments` holds the text the agent sent when it was not a JSON object; `args` is then
    empty and the call is reported as `unparseable_arguments`, never dropped.
    """

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    result: ToolResult | None = None
    group: int | str | None = Field(
        default=None, description="Calls issued together share a group; unordered among themselves."
    )
    raw_arguments: str | None = None

    @property
    def unparseable(self) -> bool:
        """True when the agent's arguments were not a JSON object."""
        return self.raw_arguments is not None

    @property
    def failed(self) -> bool:
        """True when the tool reported an error."""
        return self.result is not None and self.result.status == "error"

    @property
    def injected_fault(self) -> bool:
        """True when the run marks this call's result as an injected fault (`result.fault`)."""
        return self.result is not None and self.result.fault is not None


class Message(_Frozen):
    """A chat message between tool calls (user, assistant reply, system)."""

    role: str
    content: Any = None


Step = ToolCall | Message


class Trajectory(_Frozen):
    """One recorded run of an agent on one case."""

    case_id: str
    trial: int = Field(default=0, ge=0)
    agent: str | None = None
    steps: list[Step] = Field(default_factory=list)
    final_state: dict[str, Any] | None = None
    catalogue: CatalogueStamp | None = Field(
        default=None,
        description="The MCP catalogue the run saw (`toolgrade mcp record`).",
        # Read for drift only, never written back: a run dumps as it always has.
        exclude=True,
    )

    @property
    def calls(self) -> list[tuple[int, ToolCall]]:
        """The tool calls with their step index in `steps`."""
        return [(i, s) for i, s in enumerate(self.steps) if isinstance(s, ToolCall)]

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools called, in order."""
        return [s.tool for s in self.steps if isinstance(s, ToolCall)]

    def final_answer(self) -> tuple[int, str] | None:
        """The index and text of the agent's final answer: its last assistant message with
        content after the last tool call. None when the run ends on a tool call (an assistant
        text before it, "Let me check.", was a preamble to the call, not an answer)."""
        for i in range(len(self.steps) - 1, -1, -1):
            step = self.steps[i]
            if isinstance(step, ToolCall):
                return None
            if isinstance(step, Message) and step.role == "assistant" and step.content:
                return i, step.content if isinstance(step.content, str) else str(step.content)
        return None
