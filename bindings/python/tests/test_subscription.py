"""Event delivery: callback subscriptions (library threads) and poll
subscriptions, their lifetimes, and the delivery policies."""

from __future__ import annotations

import queue
import threading
import time

import pytest

import librunway
from conftest import WAIT_S
from runway_testkit import T0, drive_run, fix


def take_until(q: queue.Queue, pred, timeout: float = WAIT_S) -> list:
    """Take items from q until one satisfies pred; fail after timeout."""
    deadline = time.monotonic() + timeout
    seen = []
    while True:
        try:
            item = q.get(timeout=max(deadline - time.monotonic(), 0.001))
        except queue.Empty:
            pytest.fail(f"timed out after {timeout} s; got {seen!r}")
        seen.append(item)
        if pred(item):
            return seen


def flight_at(t):
    return lambda ev: ev["kind"] == "flight" and ev["t"] == t


def test_callbacks_run_on_library_threads_one_per_subscription():
    a, b = queue.Queue(), queue.Queue()
    with librunway.Session() as s:
        s.subscribe(lambda ev: a.put(threading.get_ident()), kinds=["phase"])
        s.subscribe(lambda ev: b.put(threading.get_ident()), kinds=["phase"])
        s.start(T0)
        thread_a, thread_b = a.get(timeout=WAIT_S), b.get(timeout=WAIT_S)
    main = threading.get_ident()
    assert thread_a != main and thread_b != main
    assert thread_a != thread_b


def test_cancelling_one_subscriber_leaves_the_other_receiving():
    a, b = queue.Queue(), queue.Queue()
    with librunway.Session() as s:
        s.start(T0)
        sub_a = s.subscribe(a.put, kinds=["flight"], policy="queue")
        sub_b = s.subscribe(b.put, kinds=["flight"], policy="queue")
        s.push(fix(0, T0))
        take_until(a, flight_at(T0))
        take_until(b, flight_at(T0))

        sub_a.cancel()
        assert not sub_a.active and sub_b.active
        received_by_a = a.qsize()
        s.push(fix(1, T0 + 4))
        s.push(fix(2, T0 + 8))
        take_until(b, flight_at(T0 + 8))
        assert a.qsize() == received_by_a  # A never ran again after cancel() returned


def test_cancelling_twice_or_after_close_is_harmless():
    s = librunway.Session()
    with s.subscribe(lambda ev: None) as sub:
        sub.cancel()
        sub.cancel()
        assert not sub.active
    # __exit__ cancelled a third time
    poll = s.events()
    s.close()
    assert not poll.active
    poll.cancel()
    poll.cancel()


def test_the_raw_api_reports_an_ended_subscription_as_not_found():
    from librunway import _lib

    with librunway.Session() as s:
        sub = s.subscribe(lambda ev: None)
        sub.cancel()
        with pytest.raises(librunway.NotFoundError):
            _lib.lib().runway_unsubscribe(s, sub.id)


def test_a_callback_can_cancel_its_own_subscription():
    calls, witness = queue.Queue(), queue.Queue()
    cancelled = threading.Event()
    holder: dict = {}

    def once(ev):
        calls.put(ev)
        holder["sub"].cancel()  # from inside: does not wait for itself
        cancelled.set()

    s = librunway.Session()
    s.start(T0)
    holder["sub"] = s.subscribe(once, kinds=["flight"], policy="queue")
    s.subscribe(witness.put, kinds=["flight"], policy="queue")
    s.push(fix(0, T0))
    assert cancelled.wait(WAIT_S)
    for i in range(1, 4):
        s.push(fix(i, T0 + 4 * i))
    take_until(witness, flight_at(T0 + 12))
    s.close()  # raises CallbackError if cancel() raised inside the callback
    assert calls.qsize() == 1
    assert not holder["sub"].active


def test_a_callback_can_cancel_another_subscription():
    done = threading.Event()
    other_calls = queue.Queue()
    with librunway.Session() as s:
        s.start(T0)
        other = s.subscribe(other_calls.put, kinds=["phase"], policy="queue")

        def cancel_other(ev):
            other.cancel()
            done.set()

        s.subscribe(cancel_other, kinds=["flight"])
        s.push(fix(0, T0))
        assert done.wait(WAIT_S)
        assert not other.active
        s.pause()  # a phase event "other" must not see
    assert other_calls.qsize() == 0


def test_a_callback_can_read_the_snapshot():
    out = queue.Queue()
    with librunway.Session() as s:
        s.start(T0)
        s.subscribe(lambda ev: out.put((ev, s.snapshot())), kinds=["flight"])
        s.push(fix(0, T0))
        ev, snap = out.get(timeout=WAIT_S)
    assert snap["kind"] == "flight"
    assert snap["seq"] >= ev["seq"]
    assert snap["lat"] == ev["lat"]


def test_close_waits_for_a_running_callback_and_no_callback_runs_after_it():
    entered, release, finished, closed = (threading.Event() for _ in range(4))
    after_close: list = []

    def slow(ev):
        if closed.is_set():
            after_close.append(ev)
        entered.set()
        release.wait(WAIT_S)
        finished.set()

    s = librunway.Session()
    s.start(T0)
    sub = s.subscribe(slow, kinds=["flight"], policy="queue")
    for i in range(5):  # the first blocks in the callback, the rest queue behind it
        s.push(fix(i, T0 + 4 * i))
    assert entered.wait(WAIT_S)

    result: dict = {}

    def closer():
        s.close()
        result["callback_finished"] = finished.is_set()
        closed.set()

    th = threading.Thread(target=closer)
    th.start()
    th.join(0.3)
    assert th.is_alive(), "close() returned while a callback was still running"
    release.set()
    th.join(WAIT_S)
    assert not th.is_alive()
    assert result["callback_finished"]
    assert not sub.active
    sub.cancel()
    assert after_close == []


def test_close_right_after_stop_delivers_the_touchdown_to_every_callback():
    """Close delivers what is queued: a host that stops and closes at once still sees the
    touchdown and the final snapshot in its callbacks (they were dropped)."""
    for policy in ("latest", "queue"):
        seen: list = []
        s = librunway.Session()
        s.subscribe(seen.append, policy=policy)
        drive_run(s)  # ends with a stop
        s.close()
        phases = [e["to"] for e in seen if e["kind"] == "phase"]
        assert phases[-1:] == ["touchdown"], (policy, phases)
        flights = [e for e in seen if e["kind"] == "flight"]
        assert flights and flights[-1]["phase"] == "touchdown", policy


def test_close_from_inside_a_callback_is_refused():
    errors = queue.Queue()
    s = librunway.Session()
    s.start(T0)

    def try_close(ev):
        try:
            s.close()
        except librunway.StateError as e:
            errors.put(e)

    s.subscribe(try_close, kinds=["flight"])
    s.push(fix(0, T0))
    err = errors.get(timeout=WAIT_S)
    assert "callback" in err.message
    assert not s.closed
    s.push(fix(1, T0 + 4))  # still usable
    s.close()


def test_poll_queue_sees_every_event_in_order():
    with librunway.Session() as s:
        with s.events(policy="queue", capacity=4096) as sub:
            drive_run(s)
            events = list(sub)
            assert sub.poll() is None
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    kinds = {e["kind"] for e in events}
    assert {"flight", "phase"} <= kinds
    assert "overflow" not in kinds
    flights = [e for e in events if e["kind"] == "flight"]
    assert len(flights) >= 25  # one per processed input at least


def test_kinds_filter_delivers_only_those_kinds():
    got = queue.Queue()
    with librunway.Session() as s:
        with s.events(kinds=["phase"]) as phases, \
                s.subscribe(got.put, kinds="phase", policy="queue"):
            drive_run(s)
            polled = list(phases)
            called = take_until(got, lambda ev: ev.get("to") == "touchdown")
    for events in (polled, called):
        assert [e["kind"] for e in events] == ["phase"] * 4
        assert [e["to"] for e in events] == ["cruise", "holding", "cruise", "touchdown"]


def test_latest_policy_coalesces_flight_events_and_keeps_discrete_ones():
    with librunway.Session() as s:
        with s.events(policy="latest") as sub:
            s.start(T0)
            for i in range(20):
                s.push(fix(i, T0 + 4 * i))
            s.pause(T0 + 80)
            s.resume(T0 + 80)
            for i in range(20, 30):
                s.push(fix(i, T0 + 4 * i))
            events = list(sub)
            snapshot = s.snapshot()
    flights = [e for e in events if e["kind"] == "flight"]
    phases = [e for e in events if e["kind"] == "phase"]
    assert len(flights) == 1
    assert flights[0]["t"] == T0 + 4 * 29
    assert {k: v for k, v in flights[0].items() if k != "seq"} == \
           {k: v for k, v in snapshot.items() if k != "seq"}
    assert [e["to"] for e in phases] == ["cruise", "holding", "cruise"]


def test_a_full_queue_drops_newer_events_and_reports_the_overflow():
    with librunway.Session() as s:
        s.start(T0)
        with s.events(kinds=["flight"], policy="queue", capacity=2) as sub:
            for i in range(10):
                s.push(fix(i, T0 + 4 * i))
            last_seq = s.snapshot()["seq"]
            events = list(sub)
    flights = [e for e in events if e["kind"] == "flight"]
    overflows = [e for e in events if e["kind"] == "overflow"]
    assert [e["t"] for e in flights] == [T0, T0 + 4]  # the oldest are kept
    assert len(overflows) == 1
    assert overflows[0]["dropped"] == 8
    assert overflows[0]["seq"] == last_seq


def test_a_poll_subscription_is_iterable_again_later():
    with librunway.Session() as s:
        s.start(T0)
        with s.events(kinds=["flight"]) as sub:
            s.push(fix(0, T0))
            assert [e["t"] for e in sub] == [T0]
            assert list(sub) == []
            s.push(fix(1, T0 + 4))
            assert [e["t"] for e in sub] == [T0 + 4]
        with pytest.raises(librunway.NotFoundError):
            sub.poll()


def test_the_library_refuses_a_raw_close_from_inside_a_callback():
    from librunway import _lib

    L = _lib.lib()
    messages = queue.Queue()
    s = librunway.Session()
    s.start(T0)
    handle = s._as_parameter_

    def raw_close(ev):
        L.runway_session_close(handle)  # must be detected: nothing is closed
        messages.put(L.runway_last_error().decode())

    sub = s.subscribe(raw_close, kinds=["flight"])
    s.push(fix(0, T0))
    assert messages.get(timeout=WAIT_S)  # says why it refused
    sub.cancel()
    s.push(fix(1, T0 + 4))  # the session still works
    assert s.snapshot()["fixes"] == 2
    s.close()
