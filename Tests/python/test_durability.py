"""A host killed at any moment loses no acknowledged input.

A child process drives a stored run through librunway and prints "ack N" after each call that
returned OK; the parent kills it with SIGKILL at a random moment, many times, then recovers the
flight from the store and checks that every acknowledged input is in it and nothing else is
(the one input in flight when the kill came may or may not have landed: it was never
acknowledged, so either is correct).
"""
import ctypes
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from store_testkit import LIB, lib, take
# Kill rounds: 25 in `make test`; RUNWAY_KILL_ROUNDS=200 for the long version (RELIABILITY.md).
KILL_ROUNDS = int(os.environ.get("RUNWAY_KILL_ROUNDS", "25"))

CHILD = textwrap.dedent(r"""
    import ctypes, json, sys
    lib = ctypes.CDLL(sys.argv[1])
    lib.runway_session_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.runway_push_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.runway_start.argtypes = [ctypes.c_void_p, ctypes.c_double]
    lib.runway_last_error.restype = ctypes.c_char_p
    s = ctypes.c_void_p()
    config = json.dumps({"store": sys.argv[2], "flight_id": sys.argv[3]}).encode()
    assert lib.runway_session_open(config, ctypes.byref(s)) == 0, lib.runway_last_error()
    assert lib.runway_start(s, 1700000000.0) == 0
    print("ack start", flush=True)
    for i in range(100000):
        fix = {"t": 1700000000.0 + i, "lat": 52.0 + i * 0.00003, "lon": 4.0 + (i % 7) * 0.00001,
               "speed": 3.3, "course": 0.0, "alt": 10.0 + (i % 13) * 0.1}
        if lib.runway_push_json(s, json.dumps(fix).encode()) != 0:
            print("fail", lib.runway_last_error().decode(), flush=True)
            sys.exit(3)
        print("ack", i, flush=True)
""")



def replay_first(l, n):
    """The same first n fixes through a session without a store: the expected state."""
    s = ctypes.c_void_p()
    assert l.runway_session_open(None, ctypes.byref(s)) == 0
    l.runway_start(s, 1700000000.0)
    for i in range(n):
        fix = {"t": 1700000000.0 + i, "lat": 52.0 + i * 0.00003, "lon": 4.0 + (i % 7) * 0.00001,
               "speed": 3.3, "course": 0.0, "alt": 10.0 + (i % 13) * 0.1}
        assert l.runway_push_json(s, json.dumps(fix).encode()) == 0
    snap = take(l, l.runway_snapshot_json, s)
    l.runway_session_close(s)
    return snap


@pytest.fixture(scope="module")
def kill_tally():
    """Totals over the kill rounds, printed at the end (seen with `pytest -s`)."""
    tally = {"rounds": 0, "acknowledged": 0, "landed_unacknowledged": 0, "lost": 0}
    yield tally
    print(f"\nkill rounds: {tally['rounds']}, acknowledged inputs checked: {tally['acknowledged']}, "
          f"lost: {tally['lost']}, unacknowledged input found landed: {tally['landed_unacknowledged']}")


@pytest.mark.parametrize("round_", range(KILL_ROUNDS))
def test_a_killed_host_loses_no_acknowledged_input(tmp_path, round_, kill_tally):
    rng = random.Random(1000 + round_)
    store = str(tmp_path / "runway.db")
    flight = f"kill-{round_}"
    child = subprocess.Popen([sys.executable, "-c", CHILD, LIB, store, flight],
                             stdout=subprocess.PIPE, text=True)
    want = rng.randint(0, 400)          # kill after this many acknowledged fixes
    acked = -1
    started = False
    for line in child.stdout:
        if line.startswith("ack start"):
            started = True
        elif line.startswith("ack "):
            acked = int(line.split()[1])
        else:
            pytest.fail(line)
        if started and acked + 1 >= want:
            break
    os.kill(child.pid, signal.SIGKILL)
    # Acknowledgements already written before the kill still count.
    rest = child.stdout.read()
    child.wait()
    for line in rest.splitlines():
        if line.startswith("ack ") and line.split()[1] != "start":
            acked = int(line.split()[1])
    acked_fixes = acked + 1

    l = lib()
    flights = take(l, l.runway_flights_json, store.encode())
    mine = [f for f in flights if f["flight_id"] == flight]
    assert len(mine) == 1 and mine[0]["finished"] is False

    s = ctypes.c_void_p()
    assert l.runway_session_recover(store.encode(), flight.encode(), None, ctypes.byref(s)) == 0, l.runway_last_error()
    snap = take(l, l.runway_snapshot_json, s)
    l.runway_session_close(s)
    kill_tally["rounds"] += 1
    kill_tally["acknowledged"] += acked_fixes + 1      # the fixes and the start command
    kill_tally["lost"] += max(0, acked_fixes - snap["fixes"])
    kill_tally["landed_unacknowledged"] += int(snap["fixes"] == acked_fixes + 1)
    # Every acknowledged fix is there; at most the one in flight besides.
    assert snap["fixes"] in (acked_fixes, acked_fixes + 1), (snap["fixes"], acked_fixes)
    assert snap["phase"] == "cruise"
    expected = replay_first(l, snap["fixes"])
    for key in ("distance_m", "elapsed_s", "moving_s", "points", "lap", "t"):
        assert snap[key] == expected[key], key

    # Finishing it as recovered lands it, with its figures.
    assert l.runway_flight_finish(store.encode(), flight.encode()) == 0, l.runway_last_error()
    done = [f for f in take(l, l.runway_flights_json, store.encode()) if f["flight_id"] == flight][0]
    assert done["finished"] is True and done["end_reason"] == "recovered"
    assert done["distance_m"] == expected["distance_m"]


def test_a_flight_being_written_cannot_be_recovered_finished_or_deleted(tmp_path):
    l = lib()
    l.runway_flight_delete.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    store = str(tmp_path / "runway.db").encode()
    a = ctypes.c_void_p()
    assert l.runway_session_open(json.dumps({"store": store.decode(), "flight_id": "live"}).encode(), ctypes.byref(a)) == 0
    assert l.runway_start(a, 1700000000.0) == 0
    b = ctypes.c_void_p()
    assert l.runway_session_recover(store, b"live", None, ctypes.byref(b)) == 4   # RUNWAY_ERR_STATE
    assert b"another open session" in l.runway_last_error()
    assert l.runway_flight_finish(store, b"live") == 4
    assert l.runway_flight_delete(store, b"live") == 4
    # A second process cannot take it either.
    probe = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        import ctypes, sys
        l = ctypes.CDLL({LIB!r})
        l.runway_flight_finish.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        sys.exit(l.runway_flight_finish({store!r}, b"live"))
    """)])
    assert probe.returncode == 4
    l.runway_session_close(a)
    # Closed (as a dead host's would be): now it can be recovered.
    assert l.runway_session_recover(store, b"live", None, ctypes.byref(b)) == 0
    l.runway_session_close(b)


def test_reading_a_store_that_does_not_exist_creates_nothing(tmp_path):
    l = lib()
    missing = tmp_path / "nothing.db"
    out = ctypes.c_void_p()
    assert l.runway_flights_json(str(missing).encode(), ctypes.byref(out)) == 5   # RUNWAY_ERR_NOT_FOUND
    assert not missing.exists()


def test_flights_deleted_while_the_store_is_listed_are_left_out(tmp_path):
    """runway_flights_json reads the list of flights, then replays each unfinished one: a flight
    another thread (or process) deletes in between is left out, and the listing still succeeds."""
    l = lib()
    l.runway_flight_delete.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    l.runway_push_jsonl.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                    ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t)]
    store = str(tmp_path / "runway.db")
    ids = [f"f{k:02d}" for k in range(24)]
    for k, fid in enumerate(ids):   # unfinished flights (closed without stop), as a dead host leaves them
        s = ctypes.c_void_p()
        config = json.dumps({"store": store, "flight_id": fid, "durability": "batched"}).encode()
        assert l.runway_session_open(config, ctypes.byref(s)) == 0, l.runway_last_error()
        t0 = 1700000000.0 + k * 10000
        assert l.runway_start(s, t0) == 0
        batch = "".join(json.dumps({"t": t0 + i, "lat": 52.0 + i * 0.00003, "lon": 4.0, "speed": 3.3}) + "\n"
                        for i in range(1500)).encode()
        acc, rej = ctypes.c_size_t(), ctypes.c_size_t()
        assert l.runway_push_jsonl(s, batch, len(batch), ctypes.byref(acc), ctypes.byref(rej)) == 0
        l.runway_session_close(s)
    full = take(l, l.runway_flights_json, store.encode())
    assert [f["flight_id"] for f in full] == ids and not any(f["finished"] for f in full)

    deleted, errors = [], []

    def delete_newest_first():
        for fid in reversed(ids):   # the listing goes oldest first: it meets flights deleted after it began
            time.sleep(0.01)
            st = l.runway_flight_delete(store.encode(), fid.encode())
            if st != 0:
                errors.append((fid, st, l.runway_last_error()))
                return
            deleted.append(fid)

    deleter = threading.Thread(target=delete_newest_first)
    deleter.start()
    listings = 0
    while deleter.is_alive() or listings == 0:
        out = ctypes.c_void_p()
        st = l.runway_flights_json(store.encode(), ctypes.byref(out))
        assert st == 0, l.runway_last_error()
        listing = json.loads(ctypes.string_at(out.value).decode())
        l.runway_string_free(out)
        listings += 1
        got = [f["flight_id"] for f in listing]
        assert got == [fid for fid in ids if fid in got], got      # the flights in order, nothing else
        assert not any(f["damaged"] for f in listing), listing
        for f in listing:   # a listed flight has its replayed figures, not another's
            assert f == next(g for g in full if g["flight_id"] == f["flight_id"])
    deleter.join()
    assert not errors, errors
    assert deleted == list(reversed(ids))
    assert take(l, l.runway_flights_json, store.encode()) == []
    assert listings > 1


# The child: a batched session whose commit fails (writes past RLIMIT_FSIZE fail with EFBIG, as on
# a full disk) for one push and one stop, then succeeds again; prints what the host saw.
REFUSED_CHILD = textwrap.dedent(r"""
    import ctypes, json, resource, signal, sys, time
    lib = ctypes.CDLL(sys.argv[1])
    lib.runway_session_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.runway_push_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.runway_start.argtypes = [ctypes.c_void_p, ctypes.c_double]
    lib.runway_stop.argtypes = [ctypes.c_void_p, ctypes.c_double]
    lib.runway_snapshot_json.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.runway_session_close.argtypes = [ctypes.c_void_p]
    lib.runway_last_error.restype = ctypes.c_char_p
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails with EFBIG
    s = ctypes.c_void_p()
    config = json.dumps({"store": sys.argv[2], "flight_id": "f", "durability": "batched"}).encode()
    assert lib.runway_session_open(config, ctypes.byref(s)) == 0, lib.runway_last_error()
    assert lib.runway_start(s, 1700000000.0) == 0
    def push(i):
        fix = {"t": 1700000000.0 + i, "lat": 52.0 + i * 0.00003, "lon": 4.0, "speed": 3.3}
        return lib.runway_push_json(s, json.dumps(fix).encode())
    for i in range(1, 11):
        assert push(i) == 0
    time.sleep(1.1)
    assert push(11) == 0                  # a second passed: the first 12 entries are committed
    assert push(12) == 0                  # buffered (acknowledged)
    hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
    resource.setrlimit(resource.RLIMIT_FSIZE, (1, hard))   # no file can be written now
    time.sleep(1.1)
    failed = [push(13), lib.runway_stop(s, 1700000013.5)]  # their commits fail: both refused
    error = lib.runway_last_error().decode()
    resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
    out = ctypes.c_void_p()
    assert lib.runway_snapshot_json(s, ctypes.byref(out)) == 0
    snap = json.loads(ctypes.string_at(out.value).decode())
    lib.runway_session_close(s)           # commits what is buffered
    print(json.dumps({"failed": failed, "error": error, "fixes": snap["fixes"], "phase": snap["phase"]}))
""")


def test_a_batched_input_whose_commit_fails_is_not_journaled(tmp_path):
    """A call that returns RUNWAY_ERR_STORE was not processed, so it must not reach the journal
    either: with "batched", the commit that fails is of the entries before it, which stay
    buffered for the next write; the refused input or command is not among them. Otherwise the
    recovered flight would hold a fix the live one never counted, and a stop the host saw fail."""
    store = str(tmp_path / "runway.db")
    child = subprocess.run([sys.executable, "-c", REFUSED_CHILD, LIB, store],
                           capture_output=True, text=True, timeout=60)
    assert child.returncode == 0, child.stderr
    live = json.loads(child.stdout)
    assert live["failed"] == [6, 6], live                       # RUNWAY_ERR_STORE, both
    assert "I/O error" in live["error"] or "disk is full" in live["error"], live["error"]
    assert live["fixes"] == 12 and live["phase"] == "cruise", live

    l = lib()
    s = ctypes.c_void_p()
    assert l.runway_session_recover(store.encode(), b"f", None, ctypes.byref(s)) == 0, l.runway_last_error()
    snap = take(l, l.runway_snapshot_json, s)
    l.runway_session_close(s)
    assert (snap["fixes"], snap["phase"]) == (live["fixes"], live["phase"])
    free = ctypes.c_void_p()                       # the same start and fixes 1..12 without a store
    assert l.runway_session_open(None, ctypes.byref(free)) == 0
    assert l.runway_start(free, 1700000000.0) == 0
    for i in range(1, 13):
        fix = {"t": 1700000000.0 + i, "lat": 52.0 + i * 0.00003, "lon": 4.0, "speed": 3.3}
        assert l.runway_push_json(free, json.dumps(fix).encode()) == 0
    expected = take(l, l.runway_snapshot_json, free)
    l.runway_session_close(free)
    for key in ("distance_m", "elapsed_s", "moving_s", "points", "t"):
        assert snap[key] == expected[key], key


FINISH_CHILD = textwrap.dedent(r"""
    import ctypes, resource, signal, sys
    lib = ctypes.CDLL(sys.argv[1])
    lib.runway_flight_finish.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.runway_last_error.restype = ctypes.c_char_p
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    # Room for the 32 KiB shared-memory index and 9 WAL frames (24 + 4096 bytes each): a journal
    # entry's, not the finished record's (some 40 pages of route).
    resource.setrlimit(resource.RLIMIT_FSIZE, (40000, resource.RLIM_INFINITY))
    st = lib.runway_flight_finish(sys.argv[2].encode(), b"f")
    print(st, lib.runway_last_error().decode() if st else "")
""")


def test_a_finish_that_fails_leaves_the_flight_as_it_was(tmp_path):
    """runway_flight_finish journals a stop and writes the record: in one transaction, so that a
    finish that fails (a full disk; or a kill between the two) leaves the flight unfinished as
    it was, and the next finish lands it "recovered" — not "stopped", as if its user had."""
    store = str(tmp_path / "runway.db")
    l = lib()
    l.runway_push_jsonl.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                    ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t)]
    s = ctypes.c_void_p()
    config = json.dumps({"store": store, "flight_id": "f", "durability": "batched"}).encode()
    assert l.runway_session_open(config, ctypes.byref(s)) == 0, l.runway_last_error()
    assert l.runway_start(s, 1700000000.0) == 0
    batch = "".join(json.dumps({"t": 1700000001.0 + i, "lat": 52.0 + i * 0.00003, "lon": 4.0, "speed": 3.3,
                                "alt": 10.0 + (i % 13) * 0.1}) + "\n" for i in range(3000)).encode()
    acc, rej = ctypes.c_size_t(), ctypes.c_size_t()
    assert l.runway_push_jsonl(s, batch, len(batch), ctypes.byref(acc), ctypes.byref(rej)) == 0
    l.runway_session_close(s)                           # unfinished, as a dead host leaves it

    child = subprocess.run([sys.executable, "-c", FINISH_CHILD, LIB, store],
                           capture_output=True, text=True, timeout=60)
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith("6 "), child.stdout  # RUNWAY_ERR_STORE: the record did not fit
    listed = take(l, l.runway_flights_json, store.encode())
    assert [(f["flight_id"], f["finished"]) for f in listed] == [("f", False)]
    assert l.runway_flight_finish(store.encode(), b"f") == 0, l.runway_last_error()
    done = take(l, l.runway_flights_json, store.encode())[0]
    assert (done["finished"], done["end_reason"]) == (True, "recovered")
