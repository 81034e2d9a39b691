"""A damaged store file, through the C ABI: clear errors, no crash, intact flights still read.

A store is built with five finished flights of 3000 fixes each (many pages of journal, one
record of about 150 KB each) and one unfinished flight (a host that died). Copies of it are then
damaged -- truncated at several points, overwritten page by page, and with bytes flipped at
seeded random offsets -- and every store call runs on each copy in a child process (so a crash
would show as a signal, not take the test down):

    runway_flights_json, runway_flight_json and runway_flight_export (GPX and FIT) of every
    flight, runway_session_recover of the unfinished one, runway_flight_finish of it,
    runway_flight_delete of a finished one, and a new session writing to the store.

Each call's outcome must be either exactly what the undamaged store gives (status and output,
byte for byte) or RUNWAY_ERR_STORE with a message that names the store and says it is corrupt:
never a crash, never another status, never a silently different flight. A listing may instead
succeed with the damaged flights marked "damaged" (with such a message) and every other entry
as the undamaged store lists it. Where the damage is
confined to pages of one flight's journal, every other flight must read back identical.

RUNWAY_CORRUPT_ROUNDS sets the number of random-flip copies (40 by default; the long version
in RELIABILITY.md uses 1000).
"""
import ctypes
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIB = os.environ.get("RUNWAY_LIBRARY") or os.path.join(ROOT, "build", "librunway.so")
FLIP_ROUNDS = int(os.environ.get("RUNWAY_CORRUPT_ROUNDS", "40"))

FINISHED = [f"flight-{k}" for k in range(5)]
UNFINISHED = "died"
FIXES = 3000
T0 = 1700000000.0
ERR_STORE = 6

# The child: every store call on one file; prints one JSON object of outcomes.
WORKER = textwrap.dedent(r"""
    import ctypes, hashlib, json, sys
    lib = ctypes.CDLL(sys.argv[1])
    path = sys.argv[2].encode()
    finished, unfinished = json.loads(sys.argv[3]), sys.argv[4]
    P = ctypes.POINTER
    lib.runway_last_error.restype = ctypes.c_char_p
    lib.runway_flights_json.argtypes = [ctypes.c_char_p, P(ctypes.c_void_p)]
    lib.runway_flight_json.argtypes = [ctypes.c_char_p, ctypes.c_char_p, P(ctypes.c_void_p)]
    lib.runway_flight_export.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                         P(ctypes.c_void_p), P(ctypes.c_size_t)]
    lib.runway_session_recover.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, P(ctypes.c_void_p)]
    lib.runway_session_open.argtypes = [ctypes.c_char_p, P(ctypes.c_void_p)]
    lib.runway_snapshot_json.argtypes = [ctypes.c_void_p, P(ctypes.c_void_p)]
    lib.runway_push_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.runway_start.argtypes = [ctypes.c_void_p, ctypes.c_double]
    lib.runway_stop.argtypes = [ctypes.c_void_p, ctypes.c_double]
    lib.runway_session_close.argtypes = [ctypes.c_void_p]
    lib.runway_flight_finish.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.runway_flight_delete.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.runway_string_free.argtypes = [ctypes.c_void_p]
    out = {}

    def note(name, st, data=None):
        out[name] = {"status": st, "error": lib.runway_last_error().decode("utf-8", "replace") if st else "",
                     "digest": hashlib.sha256(data).hexdigest() if data is not None else None}

    def text(name, fn, *args):
        p = ctypes.c_void_p()
        st = fn(*args, ctypes.byref(p))
        data = ctypes.string_at(p.value) if st == 0 else None
        if st == 0:
            lib.runway_string_free(p)
        note(name, st, data)
        return data

    listing = text("flights", lib.runway_flights_json, path)
    if listing is not None:
        out["flights"]["listing"] = json.loads(listing)
    for fid in finished + [unfinished]:
        text("json " + fid, lib.runway_flight_json, path, fid.encode())
        for fmt in ("gpx", "fit"):
            p, n = ctypes.c_void_p(), ctypes.c_size_t()
            st = lib.runway_flight_export(path, fid.encode(), fmt.encode(), ctypes.byref(p), ctypes.byref(n))
            data = ctypes.string_at(p.value, n.value) if st == 0 else None
            if st == 0:
                lib.runway_string_free(p)
            note(fmt + " " + fid, st, data)
    s = ctypes.c_void_p()
    st = lib.runway_session_recover(path, unfinished.encode(), None, ctypes.byref(s))
    if st == 0:
        text("recover " + unfinished, lib.runway_snapshot_json, s)
        lib.runway_session_close(s)
    else:
        note("recover " + unfinished, st)
    note("finish " + unfinished, lib.runway_flight_finish(path, unfinished.encode()))
    note("delete " + finished[0], lib.runway_flight_delete(path, finished[0].encode()))
    st = lib.runway_session_open(json.dumps({"store": path.decode(), "flight_id": "new"}).encode(), ctypes.byref(s))
    if st == 0:
        st = lib.runway_start(s, 1800000000.0)
        if st == 0:
            st = lib.runway_push_json(s, b'{"t":1800000001,"lat":10,"lon":10}')
        if st == 0:
            st = lib.runway_stop(s, 1800000002.0)
        note("write new", st)
        lib.runway_session_close(s)
    else:
        note("write new", st)
    print(json.dumps(out))
""")


def fix_line(i, k):
    return json.dumps({"t": T0 + k * 10000 + i, "lat": 52.0 + k * 0.01 + i * 0.00003,
                       "lon": 4.0 + (i % 7) * 0.00001, "speed": 3.3, "course": 0.0,
                       "alt": 10.0 + (i % 13) * 0.1, "h_acc": 4.0, "hr": 140 + i % 20})


def build_store(path):
    l = ctypes.CDLL(LIB)
    l.runway_session_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    l.runway_push_jsonl.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                    ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t)]
    l.runway_start.argtypes = [ctypes.c_void_p, ctypes.c_double]
    l.runway_stop.argtypes = [ctypes.c_void_p, ctypes.c_double]
    l.runway_session_close.argtypes = [ctypes.c_void_p]
    l.runway_last_error.restype = ctypes.c_char_p
    for k, fid in enumerate(FINISHED + [UNFINISHED]):
        s = ctypes.c_void_p()
        config = {"store": path, "flight_id": fid, "durability": "batched"}
        assert l.runway_session_open(json.dumps(config).encode(), ctypes.byref(s)) == 0, l.runway_last_error()
        assert l.runway_start(s, T0 + k * 10000) == 0
        n = FIXES if fid != UNFINISHED else 500
        batch = "\n".join(fix_line(i, k) for i in range(n)).encode()
        acc, rej = ctypes.c_size_t(), ctypes.c_size_t()
        assert l.runway_push_jsonl(s, batch, len(batch), ctypes.byref(acc), ctypes.byref(rej)) == 0, l.runway_last_error()
        assert acc.value == n
        if fid != UNFINISHED:
            assert l.runway_stop(s, float("nan")) == 0
        l.runway_session_close(s)   # the unfinished flight stays as a dead host leaves it
    assert not os.path.exists(path + "-wal") or os.path.getsize(path + "-wal") == 0


def run_worker(path):
    p = subprocess.run([sys.executable, "-c", WORKER, LIB, path, json.dumps(FINISHED), UNFINISHED],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"the worker died on {path}: returncode {p.returncode}\n{p.stderr[-2000:]}"
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    d = tmp_path_factory.mktemp("corrupt")
    path = str(d / "clean.db")
    build_store(path)
    with open(path, "rb") as f:
        data = f.read()
    # The baseline: the undamaged store, twice (outputs must be deterministic to compare).
    first = run_worker(copy_of(data, d / "base1.db"))
    second = run_worker(copy_of(data, d / "base2.db"))
    assert first == second
    for name, r in first.items():
        assert r["status"] == 0, (name, r)
    return {"dir": d, "data": data, "base": first}


def copy_of(data, path):
    path = str(path)
    for suffix in ("", "-wal", "-shm", ".lease"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    with open(path, "wb") as f:
        f.write(data)
    return path


def corrupt_report(error, path):
    return "corrupt" in error and path in error


def damaged_in_listing(want, got, path):
    """The flights a listing that succeeded on a damaged store marks damaged. Every other entry
    must be the undamaged store's entry of the same id (damage to a sort key may move a damaged
    entry); a damaged one has its reason and nothing else. Its id is as read, so it may be
    damaged too: then the undamaged flight it stands for is the one missing from the intact."""
    assert len(got) == len(want), f"the listing has {len(got)} flights, undamaged {len(want)}"
    by_id = {w["flight_id"]: w for w in want}
    intact, damaged = set(), []
    for g in got:
        if not g["damaged"]:
            assert g == by_id.get(g["flight_id"]), f"an intact entry differs from the undamaged store's: {g}"
            intact.add(g["flight_id"])
            continue
        assert corrupt_report(g["error"], path), g
        assert all(g[k] is None for k in want[0] if k not in ("flight_id", "damaged")), g
        damaged.append(g["flight_id"])
    assert len(intact) + len(damaged) == len(want)
    return sorted(f for f in by_id if f not in intact)


def judge(base, got, path):
    """Outcomes that differ from the undamaged store's; fails on any that is not a clean report.
    A listing that succeeds with flights marked damaged reports those as "flights <id>"."""
    reported = []
    for name, want in base.items():
        r = got[name]
        if r == want:
            continue
        if name == "flights" and r["status"] == 0:
            damaged = damaged_in_listing(want["listing"], r["listing"], path)
            assert damaged, "the listing differs from the undamaged store's without marking a flight damaged"
            reported += ["flights " + fid for fid in damaged]
            continue
        assert r["status"] == ERR_STORE, f"{name}: status {r['status']} ({r['error']}), undamaged {want['status']}"
        assert corrupt_report(r["error"], path), f"{name}: {r['error']}"
        reported.append(name)
    return reported


def journal_pages_by_flight(path):
    """For each flight, the journal leaf pages that hold only its entries (key order: flight, n)."""
    con = sqlite3.connect(path)
    counts = dict(con.execute("SELECT flight_id, count(*) FROM journal GROUP BY flight_id"))
    leaves = con.execute("SELECT pageno, ncell FROM dbstat WHERE name = 'journal' AND pagetype = 'leaf' "
                         "ORDER BY path").fetchall()
    con.close()
    ranges, start = {}, 0
    for fid in sorted(counts):
        ranges[fid] = (start, start + counts[fid])
        start += counts[fid]
    pages = {fid: [] for fid in counts}
    cell = 0
    for pageno, ncell in leaves:
        for fid, (lo, hi) in ranges.items():
            if lo <= cell and cell + ncell <= hi:
                pages[fid].append(pageno)
        cell += ncell
    return pages


def test_the_store_spans_many_pages(clean):
    size = len(clean["data"])
    assert size >= 400 * 4096, size
    pages = journal_pages_by_flight(copy_of(clean["data"], clean["dir"] / "pages.db"))
    assert all(len(pages[f]) >= 20 for f in FINISHED), {f: len(p) for f, p in pages.items()}


@pytest.mark.parametrize("cut", [10, 50, 100, 4096, 3 * 4096, 0.25, 0.5, 0.75, -4096, -1])
def test_a_truncated_store_is_reported_as_corrupt(clean, cut):
    data = clean["data"]
    at = cut if isinstance(cut, int) and cut > 0 else (len(data) + cut if isinstance(cut, int) else int(len(data) * cut))
    path = copy_of(data[:at], clean["dir"] / "cut.db")
    got = run_worker(path)
    reported = judge(clean["base"], got, path)
    assert reported, f"a store cut to {at} of {len(data)} bytes read back as if whole"


@pytest.mark.parametrize("victim", [1, 3])
@pytest.mark.parametrize("fill", ["noise", "zeros"])
def test_an_overwritten_journal_page_spares_the_other_flights(clean, victim, fill):
    data = bytearray(clean["data"])
    fid = FINISHED[victim]
    pages = journal_pages_by_flight(copy_of(bytes(data), clean["dir"] / "pages.db"))[fid]
    pageno = pages[len(pages) // 2]
    rng = random.Random(victim)
    data[(pageno - 1) * 4096: pageno * 4096] = (bytes(rng.randrange(256) for _ in range(4096))
                                                if fill == "noise" else bytes(4096))
    path = copy_of(bytes(data), clean["dir"] / "page.db")
    got = run_worker(path)
    reported = judge(clean["base"], got, path)
    # The damaged journal is found when it is replayed (export, listing of nothing else).
    assert "gpx " + fid in reported and "fit " + fid in reported, reported
    # Every other flight reads and exports byte-identical; its stored record is intact too.
    for name in reported:
        assert name.endswith(fid) or name in ("delete " + FINISHED[0],), (name, got[name])
    assert got["json " + fid] == clean["base"]["json " + fid]


def test_one_damaged_flight_does_not_hide_the_others_from_the_listing(clean):
    """A finished flight whose figures changed under its checksum and an unfinished flight with a
    changed journal entry are listed as damaged, with why; the other flights list as before, and
    reading a damaged one by id is RUNWAY_ERR_STORE."""
    path = copy_of(clean["data"], clean["dir"] / "listing.db")
    con = sqlite3.connect(path)
    con.execute("UPDATE flight SET distance_m = distance_m + 1 WHERE id = ?", (FINISHED[2],))
    con.execute("UPDATE journal SET payload = replace(payload, '52.0', '53.0') "
                "WHERE flight_id = ? AND n = 100", (UNFINISHED,))
    con.commit()
    con.close()
    got = run_worker(path)
    base = clean["base"]
    assert got["flights"]["status"] == 0, got["flights"]
    assert damaged_in_listing(base["flights"]["listing"], got["flights"]["listing"], path) == sorted([FINISHED[2], UNFINISHED])
    by_id = {e["flight_id"]: e for e in got["flights"]["listing"]}
    assert "does not match its checksum" in by_id[FINISHED[2]]["error"]
    assert "journal entry 100" in by_id[UNFINISHED]["error"]
    assert got["json " + FINISHED[2]]["status"] == ERR_STORE
    assert got["recover " + UNFINISHED]["status"] == ERR_STORE
    for fid in FINISHED[:2] + FINISHED[3:]:
        assert got["json " + fid] == base["json " + fid] and got["gpx " + fid] == base["gpx " + fid]


def test_randomly_flipped_bytes_never_read_back_as_a_different_flight(clean):
    data = clean["data"]
    rng = random.Random(20261129)
    detected = listing_failed = listing_marked = 0
    for r in range(FLIP_ROUNDS):
        damaged = bytearray(data)
        for _ in range(rng.choice([1, 4, 32])):
            at = rng.randrange(len(damaged))
            damaged[at] ^= 1 << rng.randrange(8)
        path = copy_of(bytes(damaged), clean["dir"] / "flip.db")
        got = run_worker(path)
        reported = judge(clean["base"], got, path)
        if reported:
            detected += 1
            listing_failed += "flights" in reported
            listing_marked += any(name.startswith("flights ") for name in reported)
    print(f"\nflip rounds: {FLIP_ROUNDS}, damage reported in {detected}, "
          f"the rest read back identical; the listing failed in {listing_failed} and "
          f"listed the other flights with the damaged ones marked in {listing_marked}")
    assert detected > 0


def forward_and_backward_disagree(path, fid):
    """True when SQLite, reading this file, ends the flight's journal at another entry forwards
    than backwards: the damage that cuts a journal short without any error from SQLite."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            fwd = con.execute("SELECT count(*) FROM (SELECT n FROM journal WHERE flight_id = ? ORDER BY n)",
                              (fid,)).fetchone()[0]
            back = con.execute("SELECT n FROM journal WHERE flight_id = ? ORDER BY n DESC LIMIT 1",
                               (fid,)).fetchone()
        finally:
            con.close()
    except sqlite3.DatabaseError:
        return False  # SQLite itself reports this damage: not the silent kind
    return back is not None and back[0] != fwd - 1


def test_a_journal_cut_short_without_an_error_is_reported(clean):
    """Damage that makes SQLite's forward scan of the unfinished flight end early (found by 300
    flip rounds: a listing showed the flight 12 s long instead of 499 s). Every seeded damage of
    that kind must make listing, recovering and finishing the flight report the store as corrupt,
    and at least one must be of the silent kind, caught only by reading the journal backwards
    (the rest are caught by a checksum on the way)."""
    data = clean["data"]
    rng = random.Random(20261129)
    cut, silent = 0, 0
    for r in range(3000):
        damaged = bytearray(data)
        for _ in range(rng.choice([1, 4, 32])):
            damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
        path = copy_of(bytes(damaged), clean["dir"] / "cut.db")
        if not forward_and_backward_disagree(path, UNFINISHED):
            continue
        cut += 1
        got = run_worker(path)
        reported = judge(clean["base"], got, path)
        for name in ("recover " + UNFINISHED, "finish " + UNFINISHED):
            assert got[name]["status"] == ERR_STORE, (r, name, got[name])
        # The listing marks the flight damaged (or, when SQLite itself fails the scan, fails).
        assert "flights " + UNFINISHED in reported or "flights" in reported, (r, got["flights"])
        errors = [got["flights"]["error"]] + [e.get("error") or "" for e in got["flights"].get("listing", [])]
        silent += any("read backwards" in e for e in errors)
        if silent:
            break
    print(f"\ncut-short journals met: {cut}, of the silent kind: {silent}")
    assert silent, f"none of {cut} cut-short journals was of the silent kind: the search needs another seed"
