"""Write the example OTLP JSON trace exports of two helpdesk agents (the files in ./exports).

The traces are the scripted runs of `examples/helpdesk/make_runs.py`, recorded the way an
instrumented agent would export them:
- `strong-agent.genai.otlp.jsonl`: OpenTelemetry GenAI conventions (`invoke_agent`, `chat`
  and `execute_tool` spans, `gen_ai.input.messages` / `gen_ai.output.messages`), one export
  per line as a collector's file exporter writes it: each line is one batch of spans, so a
  trace may be spread over two lines. No `toolgrade.trial`: the trials follow the traces'
  start times. Every tool span has a child HTTP span, which is no GenAI span and is counted
  as left out.
- `weak-agent.openinference.otlp.json`: OpenInference (`AGENT`, `LLM`, `TOOL` spans,
  `llm.input_messages.N.message.*`), one pretty-printed export. The agent span names no
  agent, so the resource's `service.name` does; the case id is a resource attribute.

Run `python examples/otel/make_exports.py` to regenerate them.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
HELPDESK = HERE.parent / "helpdesk"
T0 = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z in nanoseconds
MS = 1_000_000


def load_scripts() -> Any:
    """The helpdesk agents' scripts (`make_runs.py`, imported by path)."""
    spec = importlib.util.spec_from_file_location("helpdesk_make_runs", HELPDESK / "make_runs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def value(v: Any) -> dict[str, Any]:
    """A plain value as an OTLP AnyValue."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, str):
        return {"stringValue": v}
    raise TypeError(v)


def attrs(**kv: Any) -> list[dict[str, Any]]:
    """Attributes as OTLP key-values; `__` in a name stands for a dot."""
    return [{"key": k.replace("__", "."), "value": value(v)} for k, v in kv.items() if v is not None]


class Trace:
    """Spans of one trace, with ids derived from a trace number."""

    def __init__(self, number: int, start: int) -> None:
        self.trace_id = f"{number:032x}"
        self.spans: list[dict[str, Any]] = []
        self.clock = start

    def span(self, name: str, parent: str | None, start: int, end: int, attributes: list[Any],
             error: str | None = None) -> str:
        span_id = f"{int(self.trace_id, 16):08x}{len(self.spans) + 1:08x}"
        span: dict[str, Any] = {
            "traceId": self.trace_id, "spanId": span_id, "name": name, "kind": 1,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(end), "attributes": attributes,
        }
        if parent:
            span["parentSpanId"] = parent
        if error is not None:
            span["status"] = {"code": 2, "message": error}
        self.spans.append(span)
        return span_id


def _calls(item: Any) -> list[Any]:
    return item if isinstance(item, list) else [item]


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content)


def _arguments(args: Any) -> str:
    return args if isinstance(args, str) else json.dumps(args)


def _input(case: dict[str, Any]) -> list[tuple[str, str]]:
    """The case input as (role, text) turns: a multi-turn input is a conversation."""
    if isinstance(case["input"], list):
        return [(m["role"], m["content"]) for m in case["input"]]
    return [("user", case["input"])]


def genai_trace(number: int, start: int, case: dict[str, Any], script: list[Any],
                state: dict[str, Any] | None) -> Trace:
    """One run as GenAI spans: invoke_agent > (chat, execute_tool > HTTP)."""
    trace = Trace(number, start)
    root = trace.span("invoke_agent strong-agent", None, start, start, [])
    history: list[dict[str, Any]] = [
        {"role": role, "parts": [{"type": "text", "content": text}]} for role, text in _input(case)
    ]
    t, n = start + MS, 0
    for item in script:
        if isinstance(item, str):
            reply = {"role": "assistant", "parts": [{"type": "text", "content": item}], "finish_reason": "stop"}
        else:
            parts = []
            for tool, args, _, _ in _calls(item):
                n += 1
                parts.append({"type": "tool_call", "id": f"call_{n}", "name": tool, "arguments": _arguments(args)})
            reply = {"role": "assistant", "parts": parts, "finish_reason": "tool_call"}
        trace.span("chat gpt-4o", root, t, t + 400 * MS, attrs(
            gen_ai__operation__name="chat", gen_ai__provider__name="openai", gen_ai__request__model="gpt-4o",
            gen_ai__input__messages=json.dumps(history), gen_ai__output__messages=json.dumps([reply])))
        history.append(reply)
        t += 401 * MS
        if isinstance(item, str):
            continue
        responses = []
        first = n - len(_calls(item)) + 1
        for k, (tool, args, status, content) in enumerate(_calls(item)):
            call_id = f"call_{first + k}"
            failed = status == "error"
            span = trace.span(f"execute_tool {tool}", root, t, t + 120 * MS, attrs(
                gen_ai__operation__name="execute_tool", gen_ai__tool__name=tool, gen_ai__tool__type="function",
                gen_ai__tool__call__id=call_id, gen_ai__tool__call__arguments=_arguments(args),
                gen_ai__tool__call__result=None if failed else _text(content),
                error__type="tool_error" if failed else None), error=_text(content) if failed else None)
            trace.span("POST /api/tools", span, t + 10 * MS, t + 100 * MS, attrs(http__request__method="POST"))
            responses.append({"type": "tool_call_response", "id": call_id, "response": _text(content)})
        history.append({"role": "tool", "parts": responses})
        t += 121 * MS
    root_span = trace.spans[0]
    root_span["endTimeUnixNano"] = str(t)
    root_span["attributes"] = attrs(
        gen_ai__operation__name="invoke_agent", gen_ai__agent__name="strong-agent", toolgrade__case_id=case["id"],
        toolgrade__final_state=json.dumps(state) if state is not None else None)
    return trace


def openinference_trace(number: int, start: int, case: dict[str, Any], script: list[Any]) -> Trace:
    """One run as OpenInference spans: AGENT > (LLM, TOOL)."""
    trace = Trace(number, start)
    root = trace.span("agent", None, start, start, [])
    inputs: list[tuple[str, str]] = _input(case)
    t, n = start + MS, 0
    for item in script:
        flat: dict[str, Any] = {"openinference__span__kind": "LLM", "llm__model_name": "claude-sonnet"}
        for i, (role, text) in enumerate(inputs):
            flat[f"llm__input_messages__{i}__message__role"] = role
            flat[f"llm__input_messages__{i}__message__content"] = text
        flat["llm__output_messages__0__message__role"] = "assistant"
        if isinstance(item, str):
            flat["llm__output_messages__0__message__content"] = item
        else:
            for j, (tool, args, _, _) in enumerate(_calls(item)):
                n += 1
                prefix = f"llm__output_messages__0__message__tool_calls__{j}__tool_call__"
                flat[prefix + "id"] = f"toolu_{n:02d}"
                flat[prefix + "function__name"] = tool
                flat[prefix + "function__arguments"] = _arguments(args)
        trace.span("ChatAnthropic", root, t, t + 300 * MS, attrs(**flat))
        t += 301 * MS
        if isinstance(item, str):
            inputs.append(("assistant", item))
            continue
        first = n - len(_calls(item)) + 1
        for k, (tool, args, status, content) in enumerate(_calls(item)):
            failed = status == "error"
            trace.span(tool, root, t, t + 80 * MS, attrs(
                openinference__span__kind="TOOL", tool__name=tool, tool_call__id=f"toolu_{first + k:02d}",
                input__value=_arguments(args), input__mime_type="application/json",
                output__value=_text(content)), error=_text(content) if failed else None)
            if not failed:
                trace.spans[-1]["status"] = {"code": 1}  # OpenInference marks a success OK
            t += 81 * MS
    root_span = trace.spans[0]
    root_span["endTimeUnixNano"] = str(t)
    root_span["attributes"] = attrs(openinference__span__kind="AGENT", input__value=inputs[0][1])
    return trace


def resource(**kv: Any) -> dict[str, Any]:
    return {"attributes": attrs(**kv)}


def write_exports(out: Path) -> None:
    """Write both example exports into `out`."""
    import yaml

    scripts = load_scripts()
    cases = {c["id"]: c for c in yaml.safe_load((HELPDESK / "suite.yaml").read_text())["cases"]}
    out.mkdir(exist_ok=True)
    traces = []
    number, start = 0, T0
    for trial in range(3):  # trial by trial: the traces' start times give the trial numbers
        for case_id, (script, state) in scripts.STRONG.items():
            s, st = scripts.STRONG_VARIANTS.get((case_id, trial), (script, state))
            number += 1
            start += 60_000 * MS
            traces.append(genai_trace(number, start, cases[case_id], s, st))
    scope = {"name": "opentelemetry.instrumentation.openai_agents", "version": "0.1.0"}
    with (out / "strong-agent.genai.otlp.jsonl").open("w") as fh:
        # Batches of about 40 spans, cut wherever the count falls: traces straddle lines.
        spans = [span for trace in traces for span in trace.spans]
        for i in range(0, len(spans), 40):
            batch = {"resourceSpans": [{
                "resource": resource(service__name="helpdesk-api", telemetry__sdk__language="python"),
                "scopeSpans": [{"scope": scope, "spans": spans[i:i + 40]}]}]}
            fh.write(json.dumps(batch) + "\n")
    blocks = []
    for case_id, (script, state) in scripts.WEAK.items():
        number += 1
        start += 60_000 * MS
        trace = openinference_trace(number, start, cases[case_id], script)
        blocks.append({
            "resource": resource(
                service__name="weak-agent", toolgrade__case_id=case_id,
                toolgrade__final_state=json.dumps(state) if state is not None else None),
            "scopeSpans": [{"scope": {"name": "openinference.instrumentation.langchain"}, "spans": trace.spans}]})
    (out / "weak-agent.openinference.otlp.json").write_text(json.dumps({"resourceSpans": blocks}, indent=1) + "\n")


if __name__ == "__main__":
    write_exports(HERE / "exports")
