"""The flight store: flights journaled to SQLite, listed, read, recovered, exported, deleted.

A session opened with ``{"store": "runs.db"}`` journals its flight to that
file (SQLite, WAL): every accepted input, phase change and lap, and every
clock tick that moves the clock, is durable when the call returns (config
``"durability": "every_fix"``, the default) or within about a second
(``"batched"``). :meth:`Session.stop` writes the finished record. If the host
dies before that, the flight stays *unfinished*: :func:`recover` continues it
(the journal is replayed, so distance, time, laps, phase and every figure are
those at the last acknowledged input or tick), or :func:`finish_flight` lands
it as it is.

Another process may read the store while a session writes it. Every function
here takes the store's path (``str`` or ``os.PathLike``) and opens it for the
call.

Example::

    with librunway.Session({"store": "runs.db"}) as s:
        s.start(); ...; s.stop()
        flight_id = s.flight_id
    librunway.flights("runs.db")[-1]["distance_m"]
    Path("run.gpx").write_bytes(librunway.export_flight("runs.db", flight_id, "gpx"))

Errors: :class:`NotFoundError` for an unknown flight id, :class:`StateError`
for a flight in the wrong state (recovering or finishing a finished flight),
:class:`StoreError` for a store that cannot be opened or read (a directory, a
file that is not a librunway store, a damaged file).
"""

from __future__ import annotations

import json
import os
from ctypes import byref, c_size_t, c_void_p
from typing import Any, Mapping, Union

from . import _lib
from .errors import ArgumentError, StateError
from .session import Session, _c_string, _encode

__all__ = ["StorePath", "recover", "finish_flight", "flights", "flight", "delete_flight",
           "export_flight"]

#: A store's file name: ``str`` or any ``os.PathLike`` (``pathlib.Path``).
StorePath = Union[str, os.PathLike]


def _path(store_path: StorePath) -> bytes:
    return _c_string(os.fsencode(store_path), "store path", ArgumentError)


def _id(flight_id: str) -> bytes:
    if not isinstance(flight_id, str):
        raise TypeError(f"flight_id must be a str, not {type(flight_id).__name__}")
    return _c_string(flight_id.encode("utf-8", "surrogatepass"), "flight id", ArgumentError)


def recover(store_path: StorePath, flight_id: str,
            config: Mapping[str, Any] | str | bytes | None = None) -> Session:
    """Continue an unfinished stored flight after its host died.

    The flight's journal is replayed through the engine, so the returned
    session is in the phase, with the distance, elapsed time, laps and every
    figure, of the last acknowledged input or tick; new inputs are journaled
    to the same flight, and
    :meth:`Session.stop` finishes it.

    Args:
        store_path: the store file.
        flight_id: the flight (see :func:`flights`; unfinished ones have
            ``"finished": False``).
        config: ``None`` (recommended) to use the flight's own config; a
            different engine config replays differently.

    Returns:
        An open :class:`Session` (close it, or use ``with``).

    Raises:
        NotFoundError: no such flight in the store.
        StateError: the flight is finished (read it with :func:`flight`).
        StoreError: the store cannot be opened, read or written (a read-only
            file, a full disk: checked before the session is returned).
        ArgumentError: a bad ``config``.
    """
    raw = None if config is None else _c_string(_encode(config, "config"), "config", ArgumentError)
    out = c_void_p()
    try:
        _lib.lib().runway_session_recover(_path(store_path), _id(flight_id), raw, byref(out))
    except StateError as e:
        # The library names its C reader; a Python caller reads the flight with flight().
        raise StateError(e.message.replace("runway_flight_json", "librunway.flight(store_path, flight_id)"),
                         e.status) from None
    return Session._from_handle(out, "runway_session_recover")


def finish_flight(store_path: StorePath, flight_id: str) -> None:
    """Land an unfinished stored flight without opening a session: it becomes
    ``touchdown`` with ``end_reason`` ``"recovered"`` at its last journaled time.

    Raises:
        NotFoundError: no such flight. StateError: it is already finished.
        StoreError: the store cannot be opened or written.
    """
    _lib.lib().runway_flight_finish(_path(store_path), _id(flight_id))


def flights(store_path: StorePath) -> list[dict]:
    """The store's flights, oldest first, each a dict with ``flight_id``,
    ``start_t``, ``end_t``, ``end_reason``, ``finished`` (bool), ``activity``,
    ``distance_m``, ``elapsed_s``, ``moving_s`` and ``avg_pace_min_per_km``
    (unknown values ``None``) and ``damaged`` (bool). An unfinished flight
    shows its figures at the last journaled input. A damaged flight is listed
    with its id, ``damaged`` True, ``error`` (why it cannot be read) and every
    other value ``None``; :func:`flight` on it raises :class:`StoreError`.

    Raises:
        StoreError: the store cannot be opened or read.
    """
    out = c_void_p()
    _lib.lib().runway_flights_json(_path(store_path), byref(out))
    return json.loads(_lib.take_string(out))


def flight(store_path: StorePath, flight_id: str) -> dict:
    """One stored flight: its summary, as :meth:`Session.summary` gives it
    (``flight_id``, ``phase``, ``end_reason``, ``distance_m``, ``elapsed_s``,
    ..., ``laps`` and ``route``).

    Raises:
        NotFoundError: no such flight. StoreError: the store cannot be read.
    """
    out = c_void_p()
    _lib.lib().runway_flight_json(_path(store_path), _id(flight_id), byref(out))
    return json.loads(_lib.take_string(out))


def delete_flight(store_path: StorePath, flight_id: str) -> None:
    """Delete a stored flight: its journal and its record.

    Raises:
        NotFoundError: no such flight (also when deleted already).
        StoreError: the store cannot be opened or written.
    """
    _lib.lib().runway_flight_delete(_path(store_path), _id(flight_id))


def export_flight(store_path: StorePath, flight_id: str, format: str) -> bytes:
    """A stored flight as a file in ``format``: ``"gpx"``, ``"tcx"``,
    ``"fit"``, ``"geojson"`` or ``"csv"`` (as :meth:`Session.export`, which
    gives the same bytes for the same flight).

    Raises:
        ArgumentError: an unknown format. NotFoundError: no such flight.
        StoreError: the store cannot be read.
    """
    fmt = _c_string(str(format).encode("utf-8"), "format", ArgumentError)
    out, length = c_void_p(), c_size_t(0)
    _lib.lib().runway_flight_export(_path(store_path), _id(flight_id), fmt, byref(out),
                                    byref(length))
    return _lib.take_bytes(out, length)
