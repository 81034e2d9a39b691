"""A session the host forgets to close is closed by the garbage collector —
without a crash or a deadlock, even with callbacks live or running."""

from __future__ import annotations

import gc
import queue
import threading
import time
import weakref

import librunway
from conftest import WAIT_S
from librunway import session as session_module
from runway_testkit import T0, fix


def _finalized(obj) -> threading.Event:
    done = threading.Event()
    weakref.finalize(obj, done.set)
    return done


def _collect_until(done: threading.Event, timeout: float = WAIT_S) -> bool:
    """Run the collector until ``done`` is set. A cycle is not garbage while a
    callback is running on it (its frame refers to it), so one pass may not do."""
    deadline = time.monotonic() + timeout
    while not done.is_set() and time.monotonic() < deadline:
        gc.collect()
        done.wait(0.02)
    return done.is_set()


def test_a_dropped_session_with_a_live_callback_is_collected():
    got = queue.Queue()
    s = librunway.Session()
    s.start(T0)
    sub = s.subscribe(got.put, kinds=["flight"], policy="queue")
    for i in range(50):
        s.push(fix(i, T0 + 4 * i))
    got.get(timeout=WAIT_S)  # callbacks are flowing
    done = _finalized(s)
    del s
    gc.collect()
    assert done.is_set()
    assert not sub.active
    sub.cancel()  # harmless: its session is gone


class _SnapshotReader:
    """A callback that refers to its session: session -> subscription ->
    callback -> session, a cycle only the collector can free."""

    def __init__(self, session, out):
        self.session, self.out = session, out

    def __call__(self, ev):
        self.out.put(self.session.snapshot()["seq"])


def test_a_session_in_a_reference_cycle_through_its_callback_is_collected():
    got = queue.Queue()
    s = librunway.Session()
    s.start(T0)
    s.subscribe(_SnapshotReader(s, got), kinds=["flight"], policy="queue")
    for i in range(20):
        s.push(fix(i, T0 + 4 * i))
    got.get(timeout=WAIT_S)
    done = _finalized(s)
    del s
    assert _collect_until(done)


def test_a_session_whose_last_reference_dies_in_its_own_callback_is_closed_safely():
    holder = [librunway.Session()]
    pushed, dropped = threading.Event(), threading.Event()
    finalized_on = queue.Queue()

    def drop(ev):
        pushed.wait(WAIT_S)  # the host thread holds no reference any more
        if holder:
            holder.pop()  # the last reference: __del__ runs on this library thread
        dropped.set()

    holder[0].start(T0)
    holder[0].subscribe(drop, kinds=["flight"])
    weakref.finalize(holder[0], lambda: finalized_on.put(threading.current_thread()))
    holder[0].push(fix(0, T0))
    pushed.set()
    assert dropped.wait(WAIT_S)
    assert finalized_on.get(timeout=WAIT_S) is not threading.main_thread()
    # The close was handed to a thread of the package's own; it finishes.
    for t in list(session_module._reapers):
        t.join(WAIT_S)
        assert not t.is_alive()


def test_many_sessions_dropped_without_close():
    for _ in range(20):
        s = librunway.Session()
        s.subscribe(lambda ev: None)
        s.events()
        s.start(T0)
        s.push(fix(0, T0))
    del s
    gc.collect()
    assert not [x for x in gc.get_objects() if isinstance(x, librunway.Session) and not x.closed]
