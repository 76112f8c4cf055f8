"""Caps on the requests one process sends to a model server: in flight at once, and per minute.

`[judge] max_in_flight` and `[judge] requests_per_minute` bound every judge engine of the
process that talks to the same endpoint (the first judge and its escalation judge, calibrate's
engine per repeat, engines built from Python), so the gates are shared: `gate_for` hands out one
`RequestGate` per endpoint and limits. The caps are per process: N processes sharing a server
send it up to N times each cap (docs/served_judge.md says how to divide a server's limit).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

#: The window `requests_per_minute` counts in.
MINUTE_S = 60.0


class SlidingWindow:
    """At most `limit` acquisitions in any `window_s` seconds (a log of the last `limit` start
    times): exact, where a token bucket would allow a burst at the window's edge."""

    def __init__(
        self,
        limit: int,
        window_s: float = MINUTE_S,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if limit < 1:
            raise ValueError("a rate limit needs at least one request per window")
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._sleep = sleep
        self._starts: deque[float] = deque()
        self._lock = threading.Lock()

    def acquire(self) -> float:
        """Wait until one more start fits in the window, record it; the seconds waited."""
        waited = 0.0
        while True:
            delay = self._try_start()
            if delay <= 0.0:
                return waited
            # Sleep outside the lock: other threads may find the same slot free first.
            self._sleep(delay)
            waited += delay

    def _try_start(self) -> float:
        with self._lock:
            now = self._clock()
            while self._starts and now - self._starts[0] >= self.window_s:
                self._starts.popleft()
            if len(self._starts) < self.limit:
                self._starts.append(now)
                return 0.0
            return self._starts[0] + self.window_s - now


class RequestGate:
    """One endpoint's caps: a bounded semaphore for requests in flight, then a sliding window
    for their start rate (either None: no cap), and a pause a server's `Retry-After` asks for
    (`pause`): while it lasts, no request of the process starts."""

    def __init__(
        self,
        max_in_flight: int | None = None,
        requests_per_minute: int | None = None,
        *,
        window_s: float = MINUTE_S,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.max_in_flight = max_in_flight
        self._slots = threading.BoundedSemaphore(max_in_flight) if max_in_flight else None
        self._window = (
            SlidingWindow(requests_per_minute, window_s, clock, sleep)
            if requests_per_minute
            else None
        )
        self._clock = clock
        self._sleep = sleep
        self._resume_at = 0.0
        self._lock = threading.Lock()

    def pause(self, seconds: float) -> None:
        """No request starts for `seconds` from now (a later pause already asked for stands)."""
        with self._lock:
            self._resume_at = max(self._resume_at, self._clock() + seconds)

    def _wait_for_resume(self) -> None:
        while (delay := self._resume_at - self._clock()) > 0:
            self._sleep(delay)

    @contextmanager
    def request(self) -> Iterator[None]:
        """Hold a slot for one request; once it is held, wait out any pause, then count the
        start against the rate, so the window counts starts, not queued waits."""
        slots = self._slots
        slot: AbstractContextManager[object] = slots if slots is not None else nullcontext()
        with slot:
            self._wait_for_resume()
            if self._window is not None:
                self._window.acquire()
            yield


#: The process's gates, by (endpoint, max_in_flight, requests_per_minute).
_GATES: dict[tuple[str, int | None, int | None], RequestGate] = {}
_GATES_LOCK = threading.Lock()


def _forget_gates() -> None:
    # A forked child starts with the parent's semaphores as they were at the fork, slots taken
    # by threads that do not exist in the child included: it gets gates of its own instead.
    global _GATES_LOCK
    _GATES.clear()
    _GATES_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_gates)


def gate_for(
    endpoint: str, max_in_flight: int | None, requests_per_minute: int | None
) -> RequestGate:
    """The process-wide gate of `endpoint` with these caps (with neither, it only pauses)."""
    key = (endpoint, max_in_flight, requests_per_minute)
    with _GATES_LOCK:
        gate = _GATES.get(key)
        if gate is None:
            # MINUTE_S read now, not at import: tests shorten the minute.
            gate = _GATES[key] = RequestGate(
                max_in_flight, requests_per_minute, window_s=MINUTE_S
            )
        return gate
