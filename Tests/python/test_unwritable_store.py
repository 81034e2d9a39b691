"""A store that cannot be written is refused when a flight is recovered or opened, not at the
first input after an OK.

Opening a store writes nothing once its schema is current, and SQLite opens a file it may not
write read-only, so a session recovered from a read-only store or onto a full disk used to
return OK, and every input after it failed with RUNWAY_ERR_STORE. Recovery now makes a write
that changes nothing (SQLite writes and syncs a page) before it returns.

These tests run as root too, where file modes bind nothing: a read-only file is made with the
immutable attribute (`chattr +i`, which binds root; skipped where the file system has none) when
running as root, with its mode otherwise; a full disk is a child process whose RLIMIT_FSIZE is
the store's files' sizes, so no file can grow (writes past the limit fail with EFBIG, as on a
full disk with ENOSPC) while the WAL a killed host left holds the flight.
"""
import ctypes
import json
import os
import subprocess
import sys
import textwrap

import pytest

from store_testkit import LIB, lib, take
T0 = 1700000000.0



def fix(i):
    return json.dumps({"t": T0 + 1 + i, "lat": 52.0 + i * 0.00003, "lon": 4.0, "speed": 3.3}).encode()


def unfinished_flight(l, store, fixes=10):
    """Flight "f" started, with `fixes` fixes, closed without a stop (as a dead host leaves it)."""
    s = ctypes.c_void_p()
    assert l.runway_session_open(json.dumps({"store": store, "flight_id": "f"}).encode(), ctypes.byref(s)) == 0
    assert l.runway_start(s, T0) == 0
    for i in range(fixes):
        assert l.runway_push_json(s, fix(i)) == 0, l.runway_last_error()
    l.runway_session_close(s)


def recovered_figures(l, store):
    """The recovered flight's snapshot figures (the session is closed again, nothing pushed)."""
    s = ctypes.c_void_p()
    assert l.runway_session_recover(store.encode(), b"f", None, ctypes.byref(s)) == 0, l.runway_last_error()
    snap = take(l, l.runway_snapshot_json, s)
    l.runway_session_close(s)
    return {k: snap[k] for k in ("phase", "fixes", "points", "distance_m", "elapsed_s", "t")}


@pytest.fixture
def read_only():
    """`read_only(path)` makes a file read-only for this process: immutable when running as
    root, mode 0444 otherwise; `read_only(path, False)` undoes it (and teardown does)."""
    made = set()

    def make(path, on=True):
        if os.geteuid() != 0:
            os.chmod(path, 0o444 if on else 0o644)
            return
        try:
            done = subprocess.run(["chattr", "+i" if on else "-i", path], capture_output=True, text=True)
        except FileNotFoundError:
            pytest.skip("running as root without chattr: no way to make a file read-only for root")
        if done.returncode != 0:
            pytest.skip(f"running as root, and chattr failed: {done.stderr.strip()}")
        (made.add if on else made.discard)(path)

    yield make
    for path in made:
        subprocess.run(["chattr", "-i", path], check=True)


def test_a_read_only_store_is_refused_by_recover_and_open_and_left_as_it_was(tmp_path, read_only):
    l = lib()
    store = str(tmp_path / "runway.db")
    unfinished_flight(l, store)
    before = recovered_figures(l, store)
    listed = take(l, l.runway_flights_json, store.encode())
    read_only(store)
    with open(store, "rb") as f:
        content = f.read()

    s = ctypes.c_void_p()
    assert l.runway_session_recover(store.encode(), b"f", None, ctypes.byref(s)) == 6   # RUNWAY_ERR_STORE
    error = l.runway_last_error().decode()
    assert "not writable" in error and store in error, error
    assert not s.value
    config = json.dumps({"store": store, "flight_id": "g"}).encode()
    assert l.runway_session_open(config, ctypes.byref(s)) == 6
    assert "not writable" in l.runway_last_error().decode()
    assert not s.value
    # Still readable, unchanged.
    assert take(l, l.runway_flights_json, store.encode()) == listed
    with open(store, "rb") as f:
        assert f.read() == content

    read_only(store, False)
    assert recovered_figures(l, store) == before


# The child: tries to recover flight "f" and to open a new flight in the store when no file can
# grow; prints each call's status and message.
FULL_DISK_CHILD = textwrap.dedent(r"""
    import ctypes, json, os, resource, signal, sys
    lib = ctypes.CDLL(sys.argv[1])
    lib.runway_session_recover.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.POINTER(ctypes.c_void_p)]
    lib.runway_session_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.runway_push_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.runway_session_close.argtypes = [ctypes.c_void_p]
    lib.runway_last_error.restype = ctypes.c_char_p
    store = sys.argv[2]
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # a write past the limit fails with EFBIG
    sizes = [os.path.getsize(store + suffix) for suffix in ("", "-wal", "-shm", ".lock")]
    resource.setrlimit(resource.RLIMIT_FSIZE, (max(sizes), resource.RLIM_INFINITY))
    seen = {}
    s = ctypes.c_void_p()
    st = lib.runway_session_recover(store.encode(), b"f", None, ctypes.byref(s))
    seen["recover"] = [st, lib.runway_last_error().decode() if st else ""]
    if st == 0:   # what the host met next, before
        st = lib.runway_push_json(s, json.dumps({"t": 1700000100.0, "lat": 52.01, "lon": 4.0}).encode())
        seen["push"] = [st, lib.runway_last_error().decode() if st else ""]
        lib.runway_session_close(s)
    s = ctypes.c_void_p()
    st = lib.runway_session_open(json.dumps({"store": store, "flight_id": "g"}).encode(), ctypes.byref(s))
    seen["open"] = [st, lib.runway_last_error().decode() if st else ""]
    if st == 0:
        lib.runway_session_close(s)
    print(json.dumps(seen))
""")

# A host killed while writing: its WAL stays beside the store, holding the flight.
KILLED_HOST = textwrap.dedent(r"""
    import ctypes, json, os, sys
    lib = ctypes.CDLL(sys.argv[1])
    lib.runway_session_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.runway_push_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.runway_start.argtypes = [ctypes.c_void_p, ctypes.c_double]
    s = ctypes.c_void_p()
    assert lib.runway_session_open(json.dumps({"store": sys.argv[2], "flight_id": "f"}).encode(), ctypes.byref(s)) == 0
    assert lib.runway_start(s, 1700000000.0) == 0
    for i in range(30):
        fix = {"t": 1700000001.0 + i, "lat": 52.0 + i * 0.00003, "lon": 4.0, "speed": 3.3}
        assert lib.runway_push_json(s, json.dumps(fix).encode()) == 0
    os._exit(0)
""")


def test_a_full_disk_is_refused_by_recover_and_open_and_changes_nothing(tmp_path):
    import sqlite3

    l = lib()
    store = str(tmp_path / "runway.db")
    killed = subprocess.run([sys.executable, "-c", KILLED_HOST, LIB, store], capture_output=True, text=True, timeout=60)
    assert killed.returncode == 0, killed.stderr
    assert os.path.getsize(store + "-wal") > 0
    # A reader holds the store open meanwhile, as another process may: the child's last close
    # does not checkpoint the WAL into the store (the file would grow: that disk is full).
    reader = sqlite3.connect(store)
    before = reader.execute("SELECT count(*) FROM journal").fetchone()[0]
    try:
        child = subprocess.run([sys.executable, "-c", FULL_DISK_CHILD, LIB, store],
                               capture_output=True, text=True, timeout=60)
        assert child.returncode == 0, child.stderr
        seen = json.loads(child.stdout)
        for call in ("recover", "open"):
            st, error = seen[call]
            assert st == 6, seen                                      # RUNWAY_ERR_STORE
            assert store in error and ("I/O error" in error or "disk is full" in error), seen
        assert "push" not in seen, seen
        assert reader.execute("SELECT count(*) FROM journal").fetchone()[0] == before
        assert reader.execute("SELECT id FROM flight").fetchall() == [("f",)]
    finally:
        reader.close()
    # With room again: the flight is as the killed host left it.
    figures = recovered_figures(l, store)
    assert (figures["phase"], figures["fixes"], figures["t"]) == ("cruise", 30, T0 + 30)
