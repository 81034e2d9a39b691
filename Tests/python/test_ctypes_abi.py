"""The C ABI driven from raw ctypes, as a host without the librunway package
would: open a session, push a run, two callback subscribers (one cancelled
while the other keeps receiving), pause, resume, stop, read the summary."""

import ctypes
import json
import os
import queue
from ctypes import (CFUNCTYPE, POINTER, byref, c_char_p, c_double, c_int, c_size_t, c_uint64,
                    c_void_p)
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIB = os.environ.get("RUNWAY_LIBRARY") or str(REPO / "build" / "librunway.so")
EVENT_FN = CFUNCTYPE(None, c_char_p, c_void_p)
T0 = 1_700_000_000.0
WAIT_S = 10.0


def load():
    L = ctypes.CDLL(LIB)
    sigs = {
        "runway_abi_version": ([], ctypes.c_uint32),
        "runway_last_error": ([], c_char_p),
        "runway_session_open": ([c_char_p, POINTER(c_void_p)], c_int),
        "runway_session_close": ([c_void_p], None),
        "runway_push_json": ([c_void_p, c_char_p], c_int),
        "runway_push_jsonl": ([c_void_p, c_char_p, c_size_t, POINTER(c_size_t),
                               POINTER(c_size_t)], c_int),
        "runway_start": ([c_void_p, c_double], c_int),
        "runway_pause": ([c_void_p, c_double], c_int),
        "runway_resume": ([c_void_p, c_double], c_int),
        "runway_stop": ([c_void_p, c_double], c_int),
        "runway_summary_json": ([c_void_p, POINTER(c_void_p)], c_int),
        "runway_string_free": ([c_void_p], None),
        "runway_subscribe": ([c_void_p, c_char_p, EVENT_FN, c_void_p, POINTER(c_uint64)], c_int),
        "runway_unsubscribe": ([c_void_p, c_uint64], c_int),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(L, name)
        fn.argtypes, fn.restype = args, res
    return L


def fix(i, t):
    return json.dumps({"t": t, "lat": 52.0 + 0.0001 * i, "lon": 4.0, "speed": 2.8}).encode()


def test_a_run_through_the_raw_c_abi():
    L = load()
    assert L.runway_abi_version() == 1

    def ok(status):
        assert status == 0, L.runway_last_error()

    s = c_void_p()
    ok(L.runway_session_open(b'{"distance_filter_m":5}', byref(s)))
    callbacks = {}
    try:
        queues = {"a": queue.Queue(), "b": queue.Queue()}
        ids = {}
        for name, q in queues.items():
            # The CFUNCTYPE object must outlive the subscription: keep it in `callbacks`.
            callbacks[name] = EVENT_FN(lambda js, user, q=q: q.put(json.loads(js)))
            ids[name] = c_uint64()
            ok(L.runway_subscribe(s, b'{"policy":"queue"}', callbacks[name], None,
                                  byref(ids[name])))
        assert ids["a"].value != 0 and ids["a"].value != ids["b"].value

        def wait_for(q, pred):
            while True:
                ev = q.get(timeout=WAIT_S)  # queue.Empty fails the test
                if pred(ev):
                    return ev

        ok(L.runway_start(s, T0))
        ok(L.runway_push_json(s, fix(0, T0)))
        for q in queues.values():
            wait_for(q, lambda ev: ev["kind"] == "flight" and ev["t"] == T0)

        ok(L.runway_unsubscribe(s, ids["a"].value))  # returns once a's callback can never run again
        a_count = queues["a"].qsize()
        assert L.runway_unsubscribe(s, ids["a"].value) == 5  # twice: NOT_FOUND, harmless

        batch = b"\n".join(fix(i, T0 + 4 * i) for i in range(1, 11))
        acc, rej = c_size_t(), c_size_t()
        ok(L.runway_push_jsonl(s, batch, len(batch), byref(acc), byref(rej)))
        assert (acc.value, rej.value) == (10, 0)
        ok(L.runway_pause(s, c_double(float("nan"))))
        ok(L.runway_resume(s, T0 + 50))
        ok(L.runway_push_json(s, fix(11, T0 + 54)))
        ok(L.runway_stop(s, T0 + 60))

        seen = []
        while not seen or seen[-1] != ("cruise", "touchdown"):
            ev = wait_for(queues["b"], lambda e: e["kind"] == "phase")
            seen.append((ev["from"], ev["to"]))
        assert seen == [("cruise", "holding"), ("holding", "cruise"), ("cruise", "touchdown")]
        assert queues["a"].qsize() == a_count  # the cancelled subscriber got nothing more

        out = c_void_p()
        ok(L.runway_summary_json(s, byref(out)))
        summary = json.loads(ctypes.string_at(out.value))
        L.runway_string_free(out)
        assert summary["phase"] == "touchdown"
        assert summary["distance_m"] > 0
        assert summary["fixes"] == 12
        assert summary["elapsed_s"] == 40.0 + 10.0
    finally:
        L.runway_session_close(s)  # ends b and waits for its callback
    del callbacks  # only now may the CFUNCTYPE objects go: no callback can run any more


def test_a_store_path_that_is_not_utf8_is_refused_not_changed(tmp_path):
    """A Linux file name is any bytes; the library's paths are UTF-8 text. A path that is not
    UTF-8 was repaired (each bad byte became U+FFFD) and so named another file: a session's
    config {"store": "caf\\xe9.db"} journaled to "caf\\xef\\xbf\\xbd.db", and the store at
    caf\\xe9.db was "not found". Now the config is RUNWAY_ERR_JSON (invalid UTF-8, as for any
    JSON text) and a path argument RUNWAY_ERR_ARGUMENT, and no file is made."""
    L = load()
    L.runway_flights_json.argtypes = [c_char_p, POINTER(c_void_p)]
    L.runway_flights_json.restype = c_int
    folder = os.fsencode(tmp_path)
    s = c_void_p()
    config = b'{"store":"' + folder + b'/caf\xe9.db","flight_id":"x"}'
    assert L.runway_session_open(config, byref(s)) == 2                   # RUNWAY_ERR_JSON
    cut = len(b'{"store":"' + folder + b'/caf')
    assert b"config is not valid UTF-8 at byte %d, after `" % cut in L.runway_last_error()
    assert L.runway_last_error().endswith((b'{"store":"' + folder + b'/caf')[-32:] + b"`")   # where: the store path
    assert os.listdir(folder) == []

    assert L.runway_session_open(json.dumps({"store": str(tmp_path / "a.db")}).encode(), byref(s)) == 0
    L.runway_session_close(s)
    os.rename(tmp_path / "a.db", folder + b"/caf\xe9.db")
    out = c_void_p()
    assert L.runway_flights_json(folder + b"/caf\xe9.db", byref(out)) == 1   # RUNWAY_ERR_ARGUMENT
    assert b"store_path is not valid UTF-8" in L.runway_last_error()
    assert sorted(os.listdir(folder)) == [b"a.db.lock", b"caf\xe9.db"]
