"""The per-process caps: the sliding window on a fake clock, the in-flight bound, the registry."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from toolgrade.judging.limits import RequestGate, SlidingWindow, gate_for


class FakeClock:
    """A monotonic clock that only sleeping moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_the_window_admits_its_limit_then_waits_for_the_oldest_start() -> None:
    clock = FakeClock()
    window = SlidingWindow(3, window_s=60.0, clock=clock, sleep=clock.sleep)
    waits = [window.acquire() for _ in range(7)]
    assert waits == [0.0, 0.0, 0.0, 60.0, 0.0, 0.0, 60.0]
    assert clock.now == 220.0


def test_the_window_counts_starts_not_a_bucket_refill() -> None:
    clock = FakeClock()
    window = SlidingWindow(2, window_s=10.0, clock=clock, sleep=clock.sleep)
    window.acquire()
    clock.now += 9.0
    window.acquire()
    assert window.acquire() == pytest.approx(1.0)  # the first start leaves the window at 10 s
    assert window.acquire() == pytest.approx(9.0)


def test_a_window_needs_a_positive_limit() -> None:
    with pytest.raises(ValueError):
        SlidingWindow(0)


def test_the_gate_holds_at_most_its_cap_in_flight() -> None:
    gate = RequestGate(max_in_flight=3)
    lock = threading.Lock()
    now, peak = 0, 0

    def request(_: int) -> None:
        nonlocal now, peak
        with gate.request():
            with lock:
                now += 1
                peak = max(peak, now)
            time.sleep(0.02)
            with lock:
                now -= 1

    with ThreadPoolExecutor(10) as pool:
        list(pool.map(request, range(30)))
    assert peak == 3


def test_a_pause_holds_every_start_until_it_ends() -> None:
    clock = FakeClock()
    gate = RequestGate(max_in_flight=2, clock=clock, sleep=clock.sleep)
    gate.pause(5.0)
    gate.pause(1.0)  # a shorter pause asked later does not cut the first one short
    with gate.request():
        assert clock.now == 105.0
    with gate.request():
        assert clock.now == 105.0


def test_one_gate_per_endpoint_and_caps() -> None:
    first = gate_for("http://127.0.0.1:1/v1", 4, None)
    assert first is gate_for("http://127.0.0.1:1/v1", 4, None)
    assert first is not gate_for("http://127.0.0.1:2/v1", 4, None)
    assert first is not gate_for("http://127.0.0.1:1/v1", 2, None)
    assert gate_for("http://127.0.0.1:1/v1", None, None).max_in_flight is None


def test_a_forked_child_gets_gates_of_its_own() -> None:
    import os

    gate = gate_for("http://127.0.0.1:3/v1", 1, None)
    with gate.request():  # a slot held in the parent at the fork
        pid = os.fork()
        if pid == 0:  # the child: a fresh gate, its one slot free
            fresh = gate_for("http://127.0.0.1:3/v1", 1, None)
            os._exit(0 if fresh is not gate and fresh._slots.acquire(timeout=1) else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
