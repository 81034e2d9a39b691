"""The library through ctypes with the store's functions declared, for the store tests
(test_durability.py, test_unwritable_store.py)."""
import ctypes
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIB = os.environ.get("RUNWAY_LIBRARY") or os.path.join(ROOT, "build", "librunway.so")


def lib():
    l = ctypes.CDLL(LIB)
    l.runway_session_recover.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                         ctypes.POINTER(ctypes.c_void_p)]
    l.runway_session_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    l.runway_push_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    l.runway_start.argtypes = [ctypes.c_void_p, ctypes.c_double]
    l.runway_snapshot_json.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    l.runway_summary_json.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    l.runway_flights_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    l.runway_flight_finish.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    l.runway_session_close.argtypes = [ctypes.c_void_p]
    l.runway_string_free.argtypes = [ctypes.c_void_p]
    l.runway_last_error.restype = ctypes.c_char_p
    return l


def take(l, fn, *args):
    """Calls `fn(*args, &out)`, asserts success, and returns the JSON it wrote, freed."""
    out = ctypes.c_void_p()
    st = fn(*args, ctypes.byref(out))
    assert st == 0, l.runway_last_error()
    text = ctypes.string_at(out.value).decode()
    l.runway_string_free(out)
    return json.loads(text)
