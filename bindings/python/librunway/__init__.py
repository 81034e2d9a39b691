"""librunway — Python bindings for librunway, a run-tracking engine.

Push GPS fixes (and heart-rate / cadence samples) into a :class:`Session`;
it computes live flight data (distance on the WGS84 ellipsoid, pace, elapsed
time, heading, altitude, display strings), emits events, and at the end
gives a flight record with the route. A run moves through the phases
``preflight`` → ``cruise`` (:meth:`~Session.start`) ⇄ ``holding``
(:meth:`~Session.pause` / :meth:`~Session.resume`) → ``touchdown``
(:meth:`~Session.stop`).

Example::

    import librunway

    with librunway.Session() as s:                  # replay clock: times from inputs
        phases = s.events(kinds=["phase"])           # a poll subscription
        s.start(1700000000.0)
        for i in range(11):                          # 10 s north at 3.3 m/s
            s.push({"t": 1700000000 + i, "lat": 52.0 + i * 0.00003, "lon": 4.0,
                    "speed": 3.3})
        s.push({"type": "hr", "bpm": 148, "t": 1700000010})
        print(s.snapshot()["pfd"]["pace"])           # "5:03"
        s.stop()
        print([event["to"] for event in phases])     # ['cruise', 'touchdown']
        record = s.summary()                         # distance_m, elapsed_s, route, ...

Callbacks instead of polling: ``s.subscribe(fn, kinds=["phase"])`` calls ``fn(event)``
on a library thread, some time after the call that made the event. Events still
queued when the subscription is cancelled are dropped, not delivered: wait in the
callback's own way for the last event you need; closing the session instead delivers
every event already queued and waits for the callbacks (docs/python.md, "Callbacks and
threads").

A flight store journals runs to SQLite so they survive a crash; list, read,
recover, export and delete them with the functions of :mod:`librunway.store`::

    with librunway.Session({"store": "runs.db"}) as s:   # every input durable on return
        s.start(); ...; s.stop()
        flight_id = s.flight_id                       # e.g. "20261129T180512Z-3fa9c2"
    librunway.flights("runs.db")                         # [{"flight_id", "finished", "distance_m", ...}]
    librunway.flight("runs.db", flight_id)               # the summary with laps and route
    gpx = librunway.export_flight("runs.db", flight_id, "gpx")   # bytes; also tcx, fit, geojson, csv
    s2 = librunway.recover("runs.db", unfinished_id)     # after a crash: continue the flight
    librunway.finish_flight("runs.db", unfinished_id)    # ... or land it as it is
    librunway.delete_flight("runs.db", flight_id)

Exports of a live session: ``s.export("fit")`` (bytes). Recordings from
elsewhere (GPX, TCX, FIT) become inputs with :func:`import_recording`, replayed
with the profile their import report names (:func:`replay_config`)::

    lines, report = librunway.split_report(
        librunway.import_recording(Path("ride.fit").read_bytes(), "fit"))
    with librunway.Session(librunway.replay_config(report)) as s:  # {"activity": "ride", ...}
        s.start(json.loads(lines[0])["t"])
        s.push_many(lines)                    # fixes in recorded order, the device's timer
        s.stop()

Errors are :class:`RunwayError` subclasses, one per library status
(:class:`ArgumentError`, :class:`JSONError`, :class:`InputError`,
:class:`StateError`, :class:`NotFoundError`, :class:`StoreError`,
:class:`InternalError`, :class:`LimitError`); an exception raised in your callback comes back as
:class:`CallbackError` from the next call on the session.

Every function and method may be called from any thread.

The shared library is found through :func:`load_library` or
``$RUNWAY_LIBRARY`` (a path), then ``_native/librunway.so`` inside this package
(where the wheel and ``pip install ./bindings/python`` put it), then
``<repo>/build/librunway.so`` (a checkout used in place), then the system
loader.

One call from a recording to its figures: ``librunway.analyse("ride.fit")``
gives a :class:`Flight` (summary, laps, route, events; ``route_frame()``,
``laps_frame()``, ``plot()``). The command line: ``librunway --help``.
"""

from __future__ import annotations

import os

from . import _lib
from .errors import (ArgumentError, CallbackError, InputError, InternalError, JSONError,
                     LibraryError, LimitError, NotFoundError, RecordingNotFoundError, RunwayError,
                     StateError, StoreError)
from .format import (format_altitude, format_direction, format_distance, format_heading_tape,
                     format_pace, format_pace_tape, format_time)
from .analysis import Flight, analyse
from .recording import (IMPORT_FORMATS, analyse_available, analyse_recording,
                        analyse_route_available, import_available, import_recording,
                        replay_config, replay_config_available, split_report)
from .route import RoutePoints
from .session import Event, JSONInput, PollSubscription, Session, Subscription
from .store import delete_flight, export_flight, finish_flight, flight, flights, recover

#: The formats :meth:`Session.export` and :func:`export_flight` write.
EXPORT_FORMATS = ("gpx", "tcx", "fit", "geojson", "csv")

__version__ = "0.1.0"

__all__ = [
    "Session", "Subscription", "PollSubscription", "Event", "JSONInput",
    "RunwayError", "ArgumentError", "JSONError", "InputError", "RecordingNotFoundError", "StateError",
    "NotFoundError", "StoreError", "InternalError", "LimitError", "CallbackError", "LibraryError",
    "format_pace", "format_pace_tape", "format_direction", "format_heading_tape",
    "format_time", "format_distance", "format_altitude",
    "version", "abi_version", "status_string", "library_path", "load_library",
    "recover", "finish_flight", "flights", "flight", "delete_flight", "export_flight",
    "import_recording", "import_available", "analyse_recording", "analyse_available",
    "analyse_route_available", "replay_config", "replay_config_available", "RoutePoints",
    "split_report", "EXPORT_FORMATS", "IMPORT_FORMATS",
    "analyse", "Flight",
]


def version() -> str:
    """The loaded library's version string, e.g. ``"0.1.0"``."""
    return _lib.lib().runway_version().decode("utf-8")


def abi_version() -> int:
    """The loaded library's ABI version (this package requires 1)."""
    return int(_lib.lib().runway_abi_version())


def status_string(status: int) -> str:
    """The library's fixed description of a status code (e.g. 3)."""
    raw = _lib.lib().runway_status_string(status)
    return raw.decode("utf-8") if raw else ""


def load_library(path: "str | os.PathLike[str]") -> str:
    """Use the librunway file at ``path``: first in the search order (as
    ``$RUNWAY_LIBRARY``), for a host that ships its own copy. Call it before
    anything else uses the library; returns the absolute path. Raises
    :class:`LibraryError` if the file is not a usable librunway or another one
    is already loaded."""
    return _lib.load(path)


def library_path() -> str:
    """The path librunway.so was loaded from."""
    return _lib.path()
