"""Field results reused across runs: the judge-free comparison of a call with a reference call.

Pairing compares every call of a tool with every reference call of that tool, without the
judge; that comparison depends only on the reference's comparators and the call's arguments.
Runs of a case send the same arguments again and again (the reference call itself, above
all), so the results are kept per parsed reference call, keyed by the arguments' `exact_key`:
equal keys mean the same value written the same way, so every status, similarity and finding
(which quotes the value) is the same. Results are frozen; nothing downstream changes them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from toolgrade.checks.arguments.comparators import Comparator
from toolgrade.checks.arguments.pairing import FieldResult
from toolgrade.checks.call_identity import exact_key
from toolgrade.checks.memo import IdentityMemo

Spec = dict[str, Comparator]
FieldResults = dict[str, FieldResult]
#: Results kept per reference call before its table starts afresh (they only save time).
LIMIT = 1024

_TABLES: IdentityMemo[Spec, dict[Hashable, FieldResults]] = IdentityMemo()


def judge_free_results(
    spec: Spec, args: Mapping[str, Any], compute: Callable[[], FieldResults]
) -> FieldResults:
    """`compute()` (the judge-free `field_results(spec, args, None)`), or the results already
    computed for equal arguments against the same `spec`."""
    key = _key(args)
    if key is None:
        return compute()
    table = _TABLES(spec, lambda _: {})
    results = table.get(key)
    if results is None:
        results = compute()
        if len(table) >= LIMIT:
            table.clear()
        table[key] = results
    return results


def _key(args: Mapping[str, Any]) -> Hashable | None:
    """`exact_key(args)`, built in one loop for the usual arguments (an object of scalars):
    the same nested tuple `call_identity._exact` builds, so equal keys still mean equal
    arguments written alike; anything nested is left to `exact_key`."""
    if type(args) is not dict:
        return exact_key(args)
    items = []
    for name, value in args.items():
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None:
            items.append((name, (kind, value)))
        elif kind is float:
            items.append((name, (kind, value.hex())))  # tells -0.0 from 0.0, as `_exact` does
        else:
            return exact_key(args)
    return (dict, tuple(items))
