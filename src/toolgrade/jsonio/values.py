"""Names for values that are arbitrary JSON: what a tool was called with or returned, a schema.

The formats toolgrade reads name some fields whose content nobody fixes: a call's arguments, a
tool's result, a parameter schema, a run's metadata. They are typed as what they are, JSON,
from this one place, so a reader can tell "any JSON" from "a shape not written down yet".
"""

from __future__ import annotations

from typing import TypeAlias

#: A JSON scalar as `json.loads` returns it.
JsonScalar: TypeAlias = str | int | float | bool | None
#: Any JSON value: a scalar, an array or an object, nested to any depth.
JsonValue: TypeAlias = "JsonScalar | list[JsonValue] | dict[str, JsonValue]"
#: A JSON object (tool arguments, a JSON Schema, free-form metadata).
JsonObject: TypeAlias = dict[str, JsonValue]
#: A JSON array.
JsonArray: TypeAlias = list[JsonValue]
