"""The tau benchmarks' domains: which tools write, and which domain a set of tool names is.

tau-bench and tau2 reward their retail and airline tasks on the final database, which only the
write tools change; their tool lists are here, from the benchmarks' sources
(sierra-research/tau-bench `tau_bench/envs/<domain>/tools`, tau2-bench's domain toolkits). A
domain is recognised from the tool names the data uses: a name only one known domain has
(`book_reservation`, `get_order_details`) points at it; names every domain has
(`get_user_details`, `think`) point nowhere. Any other domain's writes are inferred from names
(`importers.common.inferred_writes`).
"""

from __future__ import annotations

from collections.abc import Iterable

from toolgrade.errors import InputError, InputProblem
from toolgrade.importers.common import inferred_writes

#: The side-effecting tools of each known domain (the reward compares the database they change).
WRITE_TOOLS: dict[str, frozenset[str]] = {
    "retail": frozenset({
        "cancel_pending_order",
        "modify_pending_order_address",
        "modify_pending_order_items",
        "modify_pending_order_payment",
        "modify_user_address",
        "return_delivered_order_items",
        "exchange_delivered_order_items",
    }),
    "airline": frozenset({
        "book_reservation",
        "cancel_reservation",
        "update_reservation_baggages",
        "update_reservation_flights",
        "update_reservation_passengers",
        "send_certificate",
    }),
}

#: The tools of each known domain that change no database: free reads. `transfer_to_human_agents`
#: ends the episode and changes nothing (tau-bench's replay skips it); `sort_flights` and
#: `get_flight_status` exist in some releases only.
READ_TOOLS: dict[str, frozenset[str]] = {
    "retail": frozenset({
        "find_user_id_by_email", "find_user_id_by_name_zip", "get_order_details",
        "get_product_details", "get_user_details", "list_all_product_types", "calculate",
        "think", "transfer_to_human_agents",
    }),
    "airline": frozenset({
        "get_user_details", "get_reservation_details", "search_direct_flight",
        "search_onestop_flight", "list_all_airports", "calculate", "think",
        "transfer_to_human_agents", "sort_flights", "get_flight_status",
    }),
}  # fmt: skip

#: The name a domain the data does not reveal gets (case ids `tau-unknown-<i>`).
UNKNOWN = "unknown"


def domain_tools(domain: str) -> frozenset[str]:
    """Every tool of a known domain (empty for another)."""
    return WRITE_TOOLS.get(domain, frozenset()) | READ_TOOLS.get(domain, frozenset())


def domain_writes(domain: str, names: Iterable[str]) -> frozenset[str]:
    """The write tools of a domain: its known list (retail, airline), else inferred from the
    tool names (`importers.common.inferred_writes`)."""
    known = WRITE_TOOLS.get(domain)
    return known if known is not None else inferred_writes(names)


def _distinctive(domain: str) -> frozenset[str]:
    others = set().union(*(domain_tools(d) for d in WRITE_TOOLS if d != domain))
    return domain_tools(domain) - others


def pointers(names: Iterable[str]) -> dict[str, list[str]]:
    """Per known domain, the names (sorted) that only it has; domains with none left out."""
    seen = set(names)
    hits = {d: sorted(seen & _distinctive(d)) for d in WRITE_TOOLS}
    return {d: found for d, found in hits.items() if found}


def _listing(hits: dict[str, list[str]]) -> str:
    return "; ".join(f"{d}: {', '.join(found)}" for d, found in hits.items())


def resolve_domain(requested: str | None, reference: set[str], called: set[str],
                   where: str) -> str:
    """The domain of the data: `requested` when the data agrees, else the one its tools name.

    `reference` are the tool names of the tasks' actions, `called` those the runs call. The
    tasks decide; the runs' calls only when the tasks name no known domain's own tool. An
    InputError (at `where`) names the tools that contradict `requested`, or the tools of each
    domain when the data mixes several.
    """
    if requested is None:
        return _infer(reference, called, where)
    everything = reference | called
    if requested in WRITE_TOOLS:
        foreign = sorted(n for n in everything - domain_tools(requested)
                         if any(n in domain_tools(d) for d in WRITE_TOOLS))
        if foreign:
            owners = sorted({d for d in WRITE_TOOLS for n in foreign if n in domain_tools(d)})
            raise _contradiction(where, requested, foreign, " or ".join(owners))
        return requested
    # Another name for a known domain's data (every tool is that domain's) is a mistake; a
    # custom domain that shares some names with a known one is not.
    hits = pointers(everything)
    if len(hits) == 1:
        known = next(iter(hits))
        if everything <= domain_tools(known):
            raise _contradiction(where, requested, hits[known], known)
    return requested


def _infer(reference: set[str], called: set[str], where: str) -> str:
    hits = pointers(reference) or pointers(called)
    if len(hits) > 1:
        reason = (f"the data holds tools of several tau domains ({_listing(hits)}); import each "
                  "domain's tasks and runs apart")
        raise InputError([InputProblem(where, None, "", reason)])
    return next(iter(hits), UNKNOWN)


def _contradiction(where: str, requested: str, tools: list[str],
                   actual: str | None = None) -> InputError:
    owner = f" (they are {actual}'s)" if actual else ""
    reason = (f"--domain {requested} contradicts the data: these tools do not belong to "
              f"{requested}{owner}: {', '.join(tools)}; leave --domain out to infer it")
    return InputError([InputProblem(where, None, "--domain", reason)])


def tool_notes(domain: str, named: bool, writes: frozenset[str], names: set[str]) -> list[str]:
    """The summary lines that say how the tools were graded: the domain and where it came
    from, the writes (the route, graded) and the reads (free)."""
    if domain in WRITE_TOOLS:
        how = "from --domain" if named else "inferred from the tool names"
        source = "its known write list"
    else:
        how = "from --domain" if named else "no known domain's tools in the data"
        source = "writes inferred from tool names"
    reads = sorted(names - writes)
    return [f"domain: {domain} ({how}; {source})",
            f"graded as writes (the route): {', '.join(sorted(writes & names)) or 'none'}",
            f"free reads (not graded): {', '.join(reads) or 'none'}"]
