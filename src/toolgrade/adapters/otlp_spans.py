"""OTLP JSON trace exports (`resourceSpans -> scopeSpans -> spans`) decoded into plain spans.

This is the protobuf JSON mapping an OTLP file exporter or a collector's `file` exporter writes:
attribute values are `AnyValue` objects (`{"stringValue": ...}`, `{"intValue": "3"}`,
`{"kvlistValue": {"values": [...]}}`, ...), times are nanoseconds as strings or numbers, and
the status code is 0/1/2 (or its enum name). Older exporters wrote
`instrumentationLibrarySpans`; it is read as `scopeSpans`.

Every problem is an `AdapterError` whose field is the JSON path of the offending value, with
the span id once it is known, so a user can find it in a file of thousands of spans.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from toolgrade.adapters.common import AdapterError
from toolgrade.adapters.otlp_format import (
    OtlpExport,
    OtlpIdKey,
    OtlpKeyValue,
    OtlpResourceSpans,
    OtlpScopeKey,
    OtlpSpan,
    OtlpTimeKey,
)
from toolgrade.jsonio.values import JsonObject, JsonValue

#: The status codes of the OTLP `Status` message, by number and by enum name.
_STATUS = {
    0: None, 1: False, 2: True,
    "STATUS_CODE_UNSET": None, "STATUS_CODE_OK": False, "STATUS_CODE_ERROR": True,
    "UNSET": None, "OK": False, "ERROR": True,
}
_SCALARS = ("stringValue", "boolValue", "intValue", "doubleValue", "bytesValue")


@dataclass(frozen=True)
class SpanEvent:
    """A timed event recorded on a span (an exception, a deprecated prompt event, ...)."""

    name: str
    attributes: JsonObject


@dataclass(frozen=True)
class Span:
    """One span, its attribute values decoded to plain JSON values."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: int
    end: int
    #: Attribute values decoded from `AnyValue` (`key_values`).
    attributes: JsonObject
    resource: JsonObject
    #: True for status ERROR, False for OK, None when unset.
    status_error: bool | None = None
    status_message: str = ""
    events: tuple[SpanEvent, ...] = ()
    #: Where the span stands: its export's line (None inside a one-document file) and path.
    line: int | None = None
    path: str = ""
    #: Its position in the file, the tie-break between equal times.
    order: int = 0


def any_value(value: JsonValue, where: str) -> JsonValue:
    """An OTLP `AnyValue` as a plain value: arrays as lists, key-value lists as dicts."""
    if not isinstance(value, dict):
        raise AdapterError(where, "an attribute value must be an AnyValue object")
    if not value:
        return None  # an empty AnyValue: the attribute is set, with no value
    if len(value) != 1:
        raise AdapterError(where, f"an AnyValue holds one value, got {sorted(value)}")
    ((kind, inner),) = value.items()
    if kind == "intValue":
        return _integer(inner, f"{where}.intValue")
    if kind == "doubleValue":
        return _double(inner, f"{where}.doubleValue")
    if kind in ("stringValue", "bytesValue"):
        if not isinstance(inner, str):
            raise AdapterError(f"{where}.{kind}", "must be a string")
        return inner
    if kind == "boolValue":
        if not isinstance(inner, bool):
            raise AdapterError(f"{where}.boolValue", "must be true or false")
        return inner
    if kind == "arrayValue":
        items = _values(inner, f"{where}.arrayValue")
        return [any_value(item, f"{where}.arrayValue.values[{i}]") for i, item in enumerate(items)]
    if kind == "kvlistValue":
        return key_values(_values(inner, f"{where}.kvlistValue"), f"{where}.kvlistValue.values")
    known = ", ".join((*_SCALARS, "arrayValue", "kvlistValue"))
    raise AdapterError(f"{where}.{kind}", f"unknown AnyValue kind (known: {known})")


def _values(inner: JsonValue, where: str) -> list[JsonValue]:
    if not isinstance(inner, dict):
        raise AdapterError(where, "must be an object with a 'values' list")
    values = inner.get("values", [])
    if not isinstance(values, list):
        raise AdapterError(f"{where}.values", "must be a list")
    return values


def key_values(items: JsonValue, where: str) -> JsonObject:
    """A list of `{key, value}` as a dict (a repeated key keeps its last value)."""
    if items is None:
        return {}
    if not isinstance(items, list):
        raise AdapterError(where, "must be a list of {key, value}")
    out: JsonObject = {}
    for i, item in enumerate(items):
        pair = cast(OtlpKeyValue, item) if isinstance(item, dict) else None
        key = pair.get("key") if pair is not None else None
        if pair is None or not isinstance(key, str):
            raise AdapterError(f"{where}[{i}].key", "an attribute needs a string key")
        out[key] = any_value(pair.get("value", {}), f"{where}[{key}]")
    return out


def _integer(value: JsonValue, where: str) -> int:
    # int64 is written as a JSON string by the protobuf mapping, as a number by some exporters.
    if isinstance(value, bool):
        raise AdapterError(where, "must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        try:
            number = int(value)
        except ValueError:  # a digit int() does not read ("²"), or past its digit limit
            number = None
        if number is not None and -(2**63) <= number < 2**64:  # int64, or a uint64 time
            return number
    raise AdapterError(where, f"must be an integer (64-bit), got {value!r}")


def _double(value: JsonValue, where: str) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)  # "NaN", "Infinity" are the mapping's spelling
        except ValueError:
            pass
    raise AdapterError(where, f"must be a number, got {value!r}")


def _time(span: OtlpSpan, key: OtlpTimeKey, where: str) -> int:
    value = span.get(key)
    return 0 if value is None else _integer(value, f"{where}.{key}")


def _id(span: OtlpSpan, key: OtlpIdKey, where: str, required: bool) -> str | None:
    value = span.get(key)
    if value in (None, "") and not required:
        return None
    if not isinstance(value, str) or not value:
        raise AdapterError(f"{where}.{key}", "must be a non-empty string (hex id)")
    return value


def _status(span: OtlpSpan, where: str) -> tuple[bool | None, str]:
    status = span.get("status") or {}
    if not isinstance(status, dict):
        raise AdapterError(f"{where}.status", "must be an object")
    code = status.get("code", 0)
    if isinstance(code, bool) or code not in _STATUS:
        raise AdapterError(f"{where}.status.code", f"unknown status code {code!r} (0, 1, 2)")
    message = status.get("message") or ""
    if not isinstance(message, str):
        raise AdapterError(f"{where}.status.message", "must be a string")
    return _STATUS[code], message


def _events(span: OtlpSpan, where: str) -> tuple[SpanEvent, ...]:
    events = span.get("events") or []
    if not isinstance(events, list):
        raise AdapterError(f"{where}.events", "must be a list")
    out = []
    for i, event in enumerate(events):
        if not isinstance(event, dict):
            raise AdapterError(f"{where}.events[{i}]", "must be an object")
        attrs = key_values(event.get("attributes"), f"{where}.events[{i}].attributes")
        out.append(SpanEvent(str(event.get("name") or ""), attrs))
    return tuple(out)


def read_span(
    raw: JsonValue, where: str, resource: JsonObject, line: int | None, order: int
) -> Span:
    """One span object of an export; raises AdapterError naming the path and the span id."""
    if not isinstance(raw, dict):
        raise AdapterError(where, "a span must be an object")
    span = cast(OtlpSpan, raw)
    span_id = _id(span, "spanId", where, required=True)
    assert span_id is not None  # required
    try:
        trace_id = _id(span, "traceId", where, required=True)
        assert trace_id is not None
        name = span.get("name") or ""
        if not isinstance(name, str):
            raise AdapterError(f"{where}.name", "must be a string")
        error, message = _status(span, where)
        return Span(
            trace_id=trace_id,
            span_id=span_id,
            parent_id=_id(span, "parentSpanId", where, required=False),
            name=name,
            start=_time(span, "startTimeUnixNano", where),
            end=_time(span, "endTimeUnixNano", where),
            attributes=key_values(span.get("attributes"), f"{where}.attributes"),
            resource=resource,
            status_error=error,
            status_message=message,
            events=_events(span, where),
            line=line,
            path=where,
            order=order,
        )
    except AdapterError as exc:
        raise AdapterError(f"{exc.field} (span {span_id})", exc.reason) from exc


def _list(value: JsonValue, where: str) -> list[JsonValue]:
    """A list field (`where` its path); absent or null is an empty list."""
    value = value or []
    if not isinstance(value, list):
        raise AdapterError(where, "must be a list")
    return value


def read_export(value: JsonValue, line: int | None, first_order: int = 0) -> list[Span]:
    """Every span of one `ExportTraceServiceRequest` object; raises AdapterError."""
    if not isinstance(value, dict) or not isinstance(value.get("resourceSpans"), list):
        raise AdapterError("resourceSpans", "an OTLP trace export needs a 'resourceSpans' list")
    spans: list[Span] = []
    for r, item in enumerate(cast(OtlpExport, value)["resourceSpans"]):
        where = f"resourceSpans[{r}]"
        if not isinstance(item, dict):
            raise AdapterError(where, "must be an object")
        block = cast(OtlpResourceSpans, item)
        resource_node = block.get("resource") or {}
        if not isinstance(resource_node, dict):
            raise AdapterError(f"{where}.resource", "must be an object")
        resource = key_values(resource_node.get("attributes"), f"{where}.resource.attributes")
        scope_key: OtlpScopeKey = (
            "scopeSpans" if "scopeSpans" in block else "instrumentationLibrarySpans")
        for s, scope in enumerate(_list(block.get(scope_key), f"{where}.{scope_key}")):
            scope_where = f"{where}.{scope_key}[{s}]"
            if not isinstance(scope, dict):
                raise AdapterError(scope_where, "must be an object")
            for k, raw in enumerate(_list(scope.get("spans"), f"{scope_where}.spans")):
                order = first_order + len(spans)
                spans.append(read_span(raw, f"{scope_where}.spans[{k}]", resource, line, order))
    return spans
