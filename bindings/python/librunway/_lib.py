"""Loads librunway.so and declares every C function of ``include/runway.h``.

This is the only module that touches the shared library directly. It finds the
library (see :func:`lib`), checks its ABI version, sets ``argtypes`` /
``restype`` of every function from one table (:data:`SIGNATURES`; the few
:data:`OPTIONAL` ones only when the library has them, see :func:`has`) and gives
every function that returns a ``runway_status`` an ``errcheck`` that raises
the matching :class:`librunway.errors.RunwayError` subclass, carrying the
message of ``runway_last_error()`` read on the calling thread right after the
call.

Raw use (tests, debugging)::

    from librunway import _lib
    L = _lib.lib()
    L.runway_unsubscribe(session, 12345)   # raises librunway.NotFoundError

A :class:`librunway.Session` can be passed wherever the C API takes a
``runway_session *``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double,
                    c_int, c_size_t, c_uint32, c_uint64, c_void_p)
from typing import Any, Callable

from .errors import LibraryError, error_for_status

#: The ABI version this package was written for (``RUNWAY_ABI_VERSION``).
ABI_VERSION = 1
#: Environment variable naming the library file to load, tried first.
LIBRARY_ENV = "RUNWAY_LIBRARY"
LIBRARY_NAME = "librunway.so"
#: The folder inside the package that holds the wheel's copy of the library. It has no
#: ``__init__.py``, so ``pkgutil.iter_modules`` / ``walk_packages`` (and the tools built on them)
#: do not take it for a subpackage, nor ``librunway.so`` in it for an extension module: a
#: ``.so`` directly in the package would be listed as the submodule ``librunway.librunway``.
BUNDLED_DIR = "_native"

RUNWAY_OK = 0


class runway_fix(Structure):
    """``struct runway_fix``: one GPS fix for ``runway_push_fix`` (NaN = unknown)."""

    _fields_ = [
        ("t", c_double),
        ("lat", c_double),
        ("lon", c_double),
        ("alt", c_double),
        ("speed", c_double),
        ("course", c_double),
        ("h_acc", c_double),
        ("v_acc", c_double),
    ]


class runway_route_point(Structure):
    """``struct runway_route_point``: one route point of ``runway_analyse_route`` (alt NaN =
    unknown)."""

    _fields_ = [
        ("lat", c_double),
        ("lon", c_double),
        ("alt", c_double),
        ("t", c_double),
    ]


#: ``typedef void (*runway_event_fn)(const char *event_json, void *user)``.
#: ``c_char_p`` makes ctypes copy the event into ``bytes`` before the Python
#: callable runs, so nothing refers to the library's buffer afterwards.
EVENT_FN = CFUNCTYPE(None, c_char_p, c_void_p)

_status = c_int          # runway_status (a C enum: int)
_session = c_void_p      # runway_session *
_out_str = POINTER(c_void_p)  # char **out: read as an address, so it can be freed
_out_len = POINTER(c_size_t)  # size_t *len: the length of a returned buffer
_fmt = ([c_double, POINTER(c_char), c_size_t], c_size_t)

#: Every function of runway.h: name -> (argtypes, restype, returns a status).
SIGNATURES: dict[str, tuple[list[Any], Any, bool]] = {
    # Library
    "runway_abi_version": ([], c_uint32, False),
    "runway_version": ([], c_char_p, False),
    "runway_last_error": ([], c_char_p, False),
    "runway_status_string": ([c_int], c_char_p, False),
    # Sessions
    "runway_session_open": ([c_char_p, POINTER(c_void_p)], _status, True),
    "runway_session_close": ([_session], None, False),
    # Inputs
    "runway_push_json": ([_session, c_char_p], _status, True),
    "runway_push_jsonl": ([_session, c_char_p, c_size_t, POINTER(c_size_t), POINTER(c_size_t)],
                          _status, True),
    "runway_push_fix": ([_session, POINTER(runway_fix)], _status, True),
    "runway_tick": ([_session, c_double], _status, True),
    # Flight phases
    "runway_start": ([_session, c_double], _status, True),
    "runway_pause": ([_session, c_double], _status, True),
    "runway_resume": ([_session, c_double], _status, True),
    "runway_stop": ([_session, c_double], _status, True),
    "runway_lap": ([_session, c_double], _status, True),
    # Outputs
    "runway_snapshot_json": ([_session, _out_str], _status, True),
    "runway_summary_json": ([_session, _out_str], _status, True),
    "runway_log_json": ([_session, _out_str], _status, True),
    "runway_string_free": ([c_void_p], None, False),
    # Subscriptions
    "runway_subscribe": ([_session, c_char_p, EVENT_FN, c_void_p, POINTER(c_uint64)],
                         _status, True),
    "runway_poll": ([_session, c_uint64, _out_str], _status, True),
    "runway_unsubscribe": ([_session, c_uint64], _status, True),
    # Flight store (SQLite)
    "runway_session_flight_id": ([_session, _out_str], _status, True),
    "runway_session_recover": ([c_char_p, c_char_p, c_char_p, POINTER(c_void_p)], _status, True),
    "runway_flight_finish": ([c_char_p, c_char_p], _status, True),
    "runway_flights_json": ([c_char_p, _out_str], _status, True),
    "runway_flight_json": ([c_char_p, c_char_p, _out_str], _status, True),
    "runway_flight_delete": ([c_char_p, c_char_p], _status, True),
    # Export and import (bytes are passed as c_char_p with an explicit length: they may hold NULs)
    "runway_export": ([_session, c_char_p, _out_str, _out_len], _status, True),
    "runway_flight_export": ([c_char_p, c_char_p, c_char_p, _out_str, _out_len], _status, True),
    "runway_import": ([c_char_p, c_char_p, c_size_t, _out_str, _out_len], _status, True),
    "runway_replay_config": ([c_char_p, c_char_p, _out_str], _status, True),
    "runway_analyse": ([c_char_p, c_char_p, c_size_t, _out_str, _out_len], _status, True),
    "runway_analyse_route": ([c_char_p, c_char_p, c_size_t, _out_str, _out_len,
                              POINTER(c_void_p), POINTER(c_size_t)], _status, True),
    "runway_route_free": ([c_void_p], None, False),
    # PFD formatting
    "runway_format_pace": (*_fmt, False),
    "runway_format_pace_tape": (*_fmt, False),
    "runway_format_direction": (*_fmt, False),
    "runway_format_heading_tape": (*_fmt, False),
    "runway_format_time": (*_fmt, False),
    "runway_format_distance": (*_fmt, False),
    "runway_format_altitude": (*_fmt, False),
}


#: Functions newer than some libraries this package accepts: declared when the library has
#: them, else left out (see :func:`has`) instead of refusing the whole library.
OPTIONAL: frozenset[str] = frozenset({"runway_import", "runway_analyse", "runway_analyse_route",
                                      "runway_route_free", "runway_replay_config"})


def _package_dir() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def candidates() -> list[tuple[str, str]]:
    """Where the library is looked for, in order, as (description, path-or-name)."""
    here = _package_dir()
    found: list[tuple[str, str]] = []
    env = os.environ.get(LIBRARY_ENV)
    if env:
        found.append((f"${LIBRARY_ENV}", env))
    found.append(("inside the package", os.path.join(here, BUNDLED_DIR, LIBRARY_NAME)))
    found.append(("repository build folder",
                  os.path.normpath(os.path.join(here, "..", "..", "..", "build", LIBRARY_NAME))))
    system = ctypes.util.find_library("runway")
    if system:
        found.append(("system loader (ctypes.util.find_library)", system))
    found.append(("system loader", LIBRARY_NAME))
    return found


def _errcheck(result: int, func: Any, args: tuple) -> int:
    # Runs on the calling thread right after the C call: the thread-local
    # message still belongs to this call.
    if result != RUNWAY_OK:
        raise error_for_status(result, last_error_message(result))
    return result


def _declare(cdll: ctypes.CDLL, path: str) -> None:
    missing = [name for name in SIGNATURES if name not in OPTIONAL and not hasattr(cdll, name)]
    if missing:
        raise LibraryError(f"{path} does not export: {', '.join(missing)}")
    for name, (argtypes, restype, returns_status) in SIGNATURES.items():
        if name in OPTIONAL and not hasattr(cdll, name):
            continue
        fn = getattr(cdll, name)
        fn.argtypes = argtypes
        fn.restype = restype
        if returns_status:
            fn.errcheck = _errcheck


def _open(path: str, where: str) -> ctypes.CDLL:
    """Load `path` as librunway: it must export runway_abi_version of ABI_VERSION and every
    function of SIGNATURES (but the OPTIONAL ones)."""
    cdll = ctypes.CDLL(path)
    fn = cdll.runway_abi_version if hasattr(cdll, "runway_abi_version") else None
    if fn is None:
        raise LibraryError(f"{path} is not librunway (no runway_abi_version)")
    fn.argtypes, fn.restype = [], c_uint32
    abi = fn()
    if abi != ABI_VERSION:
        raise LibraryError(
            f"{path} has ABI version {abi}; this librunway package needs {ABI_VERSION}")
    _declare(cdll, path)
    return cdll


def load(path: str | os.PathLike[str]) -> str:
    """Use the library file at ``path`` (the first place of the search order, with
    ``$RUNWAY_LIBRARY``): call before anything else uses the library. Returns the path.
    Calling it again with the same file is harmless.

    Raises:
        LibraryError: the file is missing, cannot be loaded or is not a librunway of this
            ABI, or another library is already loaded (a process loads one).
    """
    global _lib, _path
    p = os.path.abspath(os.fspath(path))
    with _lock:
        if _lib is not None:
            if _path is not None and os.path.exists(_path) and os.path.samefile(_path, p):
                return _path
            raise LibraryError(f"librunway is already loaded from {_path}: cannot switch to {p}")
        if not os.path.exists(p):
            raise LibraryError(f"{p}: no such file")
        try:
            _lib = _open(p, "explicit")
        except OSError as e:
            if isinstance(e, LibraryError):
                raise
            raise LibraryError(f"{p} could not be loaded: {e}") from e
        _path = p
        return p


def _load() -> tuple[ctypes.CDLL, str]:
    tried: list[str] = []
    for where, path in candidates():
        is_file_path = os.sep in path
        if is_file_path and not os.path.exists(path):
            if where == f"${LIBRARY_ENV}":
                # An explicit choice that fails is an error, not a fallback.
                raise LibraryError(f"{LIBRARY_ENV}={path}: no such file")
            tried.append(f"  {where}: {path} (not found)")
            continue
        try:
            cdll = _open(path, where)
        except LibraryError:
            raise
        except OSError as e:
            if where == f"${LIBRARY_ENV}":
                raise LibraryError(f"{LIBRARY_ENV}={path} could not be loaded: {e}") from e
            tried.append(f"  {where}: {path} ({e})")
            continue
        return cdll, path
    raise LibraryError(
        f"{LIBRARY_NAME} not found. Build it (make lib) or set {LIBRARY_ENV} to its path. "
        "Looked in:\n" + "\n".join(tried))


_lock = threading.Lock()
_lib: ctypes.CDLL | None = None
_path: str | None = None


def lib() -> ctypes.CDLL:
    """The loaded library, loading it on first use.

    Search order: the file given to :func:`load` (``librunway.load_library``)
    or ``$RUNWAY_LIBRARY`` (a path; if set it must load), then
    ``_native/librunway.so`` inside this package (a wheel, or
    ``pip install ./bindings/python``, puts it there), then
    ``<repo>/build/librunway.so`` (a source checkout used in place), then the
    system loader (``librunway.so`` on its path). Raises
    :class:`librunway.errors.LibraryError` listing every place tried.
    """
    global _lib, _path
    cdll = _lib
    if cdll is not None:
        return cdll
    with _lock:
        if _lib is None:
            _lib, _path = _load()
        return _lib


def path() -> str:
    """The file the library was loaded from (loads it if needed)."""
    lib()
    assert _path is not None
    return _path


def has(name: str) -> bool:
    """Whether the loaded library exports ``name`` (for the :data:`OPTIONAL` functions;
    every other function of :data:`SIGNATURES` is always there)."""
    return hasattr(lib(), name)


def last_error_message(status: int | None = None) -> str:
    """``runway_last_error()`` of this thread; if empty, the status's fixed text."""
    L = lib()
    raw = L.runway_last_error()
    msg = raw.decode("utf-8", "replace") if raw else ""
    if not msg and status is not None:
        s = L.runway_status_string(status)
        msg = s.decode("utf-8", "replace") if s else f"status {status}"
    return msg


def take_string(ptr: c_void_p) -> str:
    """Copy a library-allocated ``char *`` into a str and free it."""
    address = ptr.value
    if not address:
        raise ValueError("NULL string from librunway")
    try:
        return ctypes.string_at(address).decode("utf-8")
    finally:
        lib().runway_string_free(address)


def _take(ptr: c_void_p, count: c_size_t | int, item_size: int, free, what: str) -> bytes:
    """Copy ``count`` items of ``item_size`` bytes from a library-allocated block into ``bytes``
    and free the block with ``free`` (NULL is fine with a count of 0)."""
    address = ptr.value
    n = count.value if isinstance(count, c_size_t) else int(count)
    if not address:
        if n == 0:
            return b""
        raise ValueError(f"NULL {what} from librunway")
    try:
        return ctypes.string_at(address, n * item_size)
    finally:
        free(address)


def take_bytes(ptr: c_void_p, length: c_size_t | int) -> bytes:
    """Copy a library-allocated buffer of ``length`` bytes (it may hold NUL bytes, as a FIT
    file does) into ``bytes`` and free it."""
    return _take(ptr, length, 1, lib().runway_string_free, "buffer")


def take_route(ptr: c_void_p, count: c_size_t | int) -> bytes:
    """Copy a library-allocated array of ``count`` ``runway_route_point`` structs into
    ``bytes`` and free it with ``runway_route_free``."""
    return _take(ptr, count, ctypes.sizeof(runway_route_point), lib().runway_route_free, "route")


def format_with(fn: Callable[..., int], value: float, initial_cap: int = 32) -> str:
    """Call a ``runway_format_*`` function, growing the buffer if it is short."""
    cap = max(1, initial_cap)
    buf = ctypes.create_string_buffer(cap)
    need = fn(value, buf, cap)
    if need >= cap:
        cap = need + 1
        buf = ctypes.create_string_buffer(cap)
        need = fn(value, buf, cap)
    return buf.raw[:need].decode("utf-8")
