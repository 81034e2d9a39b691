"""One call from a recording to its figures: :func:`analyse` gives a :class:`Flight`.

::

    import librunway

    flight = librunway.analyse("ride.fit")          # a path, or the file's bytes
    flight.summary["distance_m"], flight.activity   # 79481.3, "ride" (the file says cycling)
    flight.laps                                     # the auto laps (1 km) and the final one
    flight.route_frame()                            # pandas: one row per route point
    flight.laps_frame()                             # pandas: one row per lap
    flight.plot("ride.png")                         # matplotlib: map by pace, profiles by distance

The file is imported (as :func:`librunway.import_recording` does), a flight is opened with the
profile (``activity``) the file names (its import report's ``activity``: a FIT or TCX cycling
sport is ``ride``, walking or hiking ``walk``; otherwise the default, ``run``), started at the
first input's time (or by a FIT file's start line: its timer started before its first record),
fed every input and stopped at the latest time it saw: one library call
(``runway_analyse``, :func:`librunway.analyse_recording`) that reads the file straight into the
engine. The events and snapshots (:attr:`Flight.events`, :attr:`Flight.snapshots`, used by
:meth:`Flight.route_rows`) are replayed from the file the first time they are asked for.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Optional, Union

# Flight and its tables are in librunway.analysis_flight, re-exported here where they always were.
from .analysis_flight import (LAP_COLUMNS, ROUTE_COLUMNS, _POLL_EVERY, _QUEUE_CAPACITY, Flight,
                              _iso, _pandas, _replay)
from .errors import ArgumentError, InputError, RecordingNotFoundError, RunwayError
from .recording import (IMPORT_FORMATS, _read_recording_file, _start_replay, analyse_available,
                        analyse_recording, content_format, import_recording, replay_config,
                        replay_config_available, split_report)
from .route import RoutePoints
from .session import Session
from .session_encoding import _config_dict
from .sport import activity_for, sniff_sport

__all__ = ["analyse", "Flight", "detect_format", "file_activity", "ROUTE_COLUMNS",
           "LAP_COLUMNS"]

#: What :func:`analyse` reads: a path, or the file's contents.
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]

_EXTENSIONS = {".gpx": "gpx", ".tcx": "tcx", ".fit": "fit"}


def detect_format(data: bytes, name: Optional[str] = None) -> str:
    """``"fit"``, ``"gpx"`` or ``"tcx"``: by the contents, as the library's ``"auto"`` reads
    them (:func:`content_format`: a FIT file named ``ride.gpx`` is FIT, as the C and Rust
    ``analyse`` read it), else by the file name's extension (a file too damaged to say,
    refused by that format's reader with its own message). Raises :class:`InputError`."""
    fmt = content_format(data)
    if fmt is not None:
        return fmt
    if name:
        ext = os.path.splitext(name)[1].lower()
        if ext in _EXTENSIONS:
            return _EXTENSIONS[ext]
    what = f"{name}: " if name else ""
    raise InputError(f"{what}not a GPX, TCX or FIT recording (by its name and its first bytes)")


def file_activity(report: Optional[Mapping[str, Any]], data: bytes, fmt: str) -> Optional[str]:
    """The profile a recording's file names: its import report's ``activity`` (``"run"``,
    ``"ride"``, ``"walk"`` or ``None``); with a library whose import has no report, the sport
    read from the file itself (:func:`librunway.sport.sniff_sport`)."""
    if report is not None:
        activity = report.get("activity")
        return activity if activity in ("run", "ride", "walk") else None
    sport = sniff_sport(data, fmt)
    return activity_for(sport) if sport else None


def _read(source: Source, format: Optional[str]) -> tuple[bytes, str, Optional[str]]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data, name = bytes(source), None
    elif isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        ext = os.path.splitext(name)[1].lower().lstrip(".")
        try:   # not a regular file (a named pipe, a device) or too large: refused unread
            data = _read_recording_file(name, str(format or ext).lower())
        except InputError as e:
            raise InputError(f"{name}: {e}") from None
        except FileNotFoundError:
            raise RecordingNotFoundError(name) from None
        except OSError as e:
            raise InputError(f"{name}: {e.strerror or e}") from e
    else:
        raise TypeError(f"analyse() needs a path or bytes, not {type(source).__name__}")
    if format is not None:
        fmt = str(format).lower()
        if fmt not in IMPORT_FORMATS:
            raise InputError(f"unknown format {format!r} (expected gpx, tcx or fit)")
    else:
        fmt = detect_format(data, name)
    return data, fmt, name


def analyse(source: Source, config: Union[Mapping[str, Any], str, bytes, None] = None, *,
            format: Optional[str] = None, salvage: bool = False) -> Flight:
    """Import a GPX, TCX or FIT recording, replay it through a session, and give its figures.

    Args:
        source: a path (``str`` or ``pathlib.Path``) or the file's bytes.
        config: a session config (the README's keys, e.g. ``{"hr_max": 185}``), a dict or a
            JSON object as text, as :class:`Session` takes it; its
            ``activity``, when given, overrides the file's. ``clock`` must be ``"replay"`` (the
            default) and ``store`` is refused: a recording is replayed, not journaled.
        format: ``"gpx"``, ``"tcx"`` or ``"fit"``; default: by its first bytes
            (:func:`detect_format`), else by the file's extension.
        salvage: read what a damaged file holds before the damage (a truncated file's
            records or points before the cut, without a GPX/TCX file's unreadable points;
            :attr:`Flight.report`'s ``warnings`` say what was left out) instead of refusing it.

    Returns:
        A :class:`Flight` (the session is closed).

    Raises:
        InputError: not a readable recording, or one without a timed point (a truncated FIT
            file's message adds that ``salvage`` exists); a path that does not exist is a
            :class:`RecordingNotFoundError`, an ``InputError`` and a ``FileNotFoundError``.
        ArgumentError: an invalid config (one that is not a dict or a JSON object as text too).
        LibraryError: no usable librunway.
    """
    data, fmt, name = _read(source, format)
    cfg = _config_dict(config)
    if cfg.get("clock", "replay") != "replay":
        raise ArgumentError("analyse() replays a recording: config 'clock' must be 'replay'")
    if "store" in cfg:
        raise ArgumentError("analyse() does not journal: no 'store' in its config")
    if not analyse_available():
        return _analyse_by_lines(data, fmt, name, cfg, salvage)
    try:
        result = analyse_recording(data, fmt, cfg, route="points", salvage=salvage)
    except InputError as e:
        if str(e) == "no timed points":
            raise InputError(f"{name or 'the recording'}: no timed points") from None
        raise
    report = result.get("report")
    _add_file_settings(cfg, report, data, fmt)
    return Flight(result["summary"], None, None, report=report, format=fmt, name=name,
                  inputs=result["inputs"], rejected=result["rejected"], config=cfg,
                  _data=data, _salvage=salvage)


def _analyse_by_lines(data: bytes, fmt: str, name: Optional[str], cfg: dict,
                      salvage: bool = False) -> Flight:
    """:func:`analyse` with a library that has no ``runway_analyse``: import, then replay the
    lines with the events and snapshots."""
    lines, report = split_report(import_recording(data, fmt, salvage=salvage))
    _add_file_settings(cfg, report, data, fmt)
    if not _times(lines):
        raise InputError(f"{name or 'the recording'}: no timed points")
    summary, events, snapshots, rejected = _replay(lines, cfg)
    return Flight(summary, events, snapshots, report=report, format=fmt, name=name,
                  inputs=len(lines), rejected=rejected, config=cfg, _lines=lines)


def _add_file_settings(cfg: dict, report: Optional[Mapping[str, Any]], data: bytes, fmt: str) -> None:
    """What the file says, where ``cfg`` is silent: the profile (``activity``), the altitude
    source (the report's ``altitude_source`` as ``fix_altitude``: ``"barometric"`` for FIT) and
    the laps (the report's ``auto_lap_m``: 0 when the file's own laps are replayed, as its lap
    lines), added to ``cfg`` after its own keys. The library's rule (:func:`replay_config`,
    the one ``runway_analyse`` applies); a library built before ``runway_replay_config`` gets
    the same rule below, and an import without a report the profile the file names."""
    if report is not None and replay_config_available():
        for key, value in replay_config(report, cfg).items():
            cfg.setdefault(key, value)
        return
    activity = file_activity(report, data, fmt)
    if activity is not None:
        cfg.setdefault("activity", activity)
    source = (report or {}).get("altitude_source")
    if source in ("gps", "barometric"):
        cfg.setdefault("fix_altitude", source)
    auto_lap_m = (report or {}).get("auto_lap_m")
    if isinstance(auto_lap_m, (int, float)) and not isinstance(auto_lap_m, bool):
        cfg.setdefault("auto_lap_m", auto_lap_m)


def _times(lines: list[str]) -> list[float]:
    return [t for t in (json.loads(line).get("t") for line in lines)
            if isinstance(t, (int, float)) and not isinstance(t, bool)]
