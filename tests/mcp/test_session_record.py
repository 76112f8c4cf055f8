"""What the recorder keeps of a session, whatever order its two threads observed lines in."""

from __future__ import annotations

import json

from builders_mcp import call, reply
from toolgrade.mcp.session import SessionRecord


def _line(msg: object) -> bytes:
    return (json.dumps(msg) + "\n").encode()


def test_a_response_observed_before_its_request_is_still_paired() -> None:
    record = SessionRecord()
    # Forwarded in the order request (0), response (1); observed the other way round.
    record.take(_line(reply(7, "ok")), 1, from_agent=False)
    record.take(_line(call(7, "echo", {})), 0, from_agent=True)
    kept, _ = record.replay()
    assert [json.loads(m).get("method") for m in kept] == ["tools/call", None]


def test_the_stamp_is_of_the_last_listing_across_its_pages() -> None:
    record = SessionRecord()
    pages = [
        ({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, {"tools": [{"name": "old"}]}),
        ({"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
         {"tools": [{"name": "a"}], "nextCursor": "n"}),
        ({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "n"}},
         {"tools": [{"name": "b"}]}),
    ]
    seq = 0
    for request, result in pages:
        record.take(_line(request), seq, from_agent=True)
        record.take(_line({"jsonrpc": "2.0", "id": request["id"], "result": result}), seq + 1,
                    from_agent=False)
        seq += 2
    _, stamp = record.replay()
    assert stamp is not None and set(stamp.tools) == {"a", "b"}


def test_notifications_batches_and_other_traffic_are_not_kept() -> None:
    record = SessionRecord()
    record.take(b'{"jsonrpc": "2.0", "method": "notifications/progress"}\n', 0, True)
    record.take(_line([call(1, "a", {}), {"jsonrpc": "2.0", "id": 2, "method": "ping"}]), 1, True)
    record.take(_line([reply(1, "x"), {"jsonrpc": "2.0", "id": 2, "result": {}}]), 2, False)
    record.take(b"not json\n", 3, False)
    line = json.loads(record.run_line("c", 0, None))
    assert [m["id"] for m in line["messages"]] == [1, 1]
    assert "catalogue" not in line and "agent" not in line
