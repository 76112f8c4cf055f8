"""The records of an OTLP JSON trace export, as `otlp_spans` reads them.

Upstream: opentelemetry-proto, `opentelemetry/proto/collector/trace/v1/trace_service.proto`
(`ExportTraceServiceRequest`), `trace/v1/trace.proto` (`ResourceSpans`, `ScopeSpans`, `Span`,
`Status`, `Span.Event`) and `common/v1/common.proto` (`KeyValue`, `AnyValue`), in the protobuf
JSON mapping (lowerCamelCase names, 64-bit integers as strings) that the OTLP file exporter and
a collector's `file` exporter write.

`otlp_spans` checks every field as it reads it (`AdapterError` naming its JSON path); a record
is cast to these types once it is known to be an object, and its fields are typed as the
mapping writes them.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from toolgrade.jsonio.values import JsonValue


class OtlpKeyValue(TypedDict, total=False):
    """One attribute: `{key, value}`, the value an `AnyValue` object."""

    key: str
    value: JsonValue


class OtlpStatus(TypedDict, total=False):
    """A span's `status`."""

    #: 0 unset, 1 ok, 2 error, or the enum's name (`STATUS_CODE_ERROR`).
    code: int | str
    message: str


class OtlpEvent(TypedDict, total=False):
    """A timed event of a span (`exception`, older GenAI content events)."""

    name: str
    #: Each an `OtlpKeyValue` (checked one by one by `otlp_spans.key_values`).
    attributes: list[JsonValue]


class OtlpSpan(TypedDict, total=False):
    """One span of a `scopeSpans` entry."""

    #: Hex ids; `parentSpanId` is empty or absent on a root span.
    traceId: str
    spanId: str
    parentSpanId: str
    name: str
    #: Nanoseconds since the epoch, a string (the mapping's int64) or a number.
    startTimeUnixNano: str | int
    endTimeUnixNano: str | int
    #: Each an `OtlpKeyValue`.
    attributes: list[JsonValue]
    status: OtlpStatus | None
    events: list[OtlpEvent] | None


#: The span fields that hold a time.
OtlpTimeKey = Literal["startTimeUnixNano", "endTimeUnixNano"]
#: The span fields that hold an id.
OtlpIdKey = Literal["traceId", "spanId", "parentSpanId"]
#: Where `resourceSpans` entries keep their spans (the second: exporters before OTLP 0.15).
OtlpScopeKey = Literal["scopeSpans", "instrumentationLibrarySpans"]


class OtlpResource(TypedDict, total=False):
    """The resource (the process: `service.name`, ...) a block of spans comes from."""

    #: Each an `OtlpKeyValue`.
    attributes: list[JsonValue]


class OtlpResourceSpans(TypedDict, total=False):
    """One entry of `resourceSpans`: a resource and its spans grouped by scope.

    Exporters before OTLP 0.15 wrote `instrumentationLibrarySpans` for `scopeSpans`.
    """

    resource: OtlpResource | None
    #: Each `{scope, spans: [OtlpSpan]}`.
    scopeSpans: list[JsonValue] | None
    instrumentationLibrarySpans: list[JsonValue] | None


class OtlpExport(TypedDict):
    """One `ExportTraceServiceRequest`: a line of a JSON Lines export, or a whole file."""

    #: Each an `OtlpResourceSpans`.
    resourceSpans: list[JsonValue]
