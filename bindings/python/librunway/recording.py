"""Reading recordings made elsewhere (GPX, TCX, FIT files) as librunway inputs."""

from __future__ import annotations

import json
import os
import stat
from ctypes import byref, c_size_t, c_void_p
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

from . import _lib
from .errors import ArgumentError, InputError, JSONError, LibraryError
from .route import RoutePoints
from .session import Session, _c_string
from .session_encoding import _config_object, _encode

__all__ = ["import_recording", "import_available", "split_report", "IMPORT_FORMATS",
           "analyse_recording", "analyse_available", "analyse_route_available",
           "replay_config", "replay_config_available"]

#: The formats :func:`import_recording` reads.
IMPORT_FORMATS = ("gpx", "tcx", "fit")


def content_format(data: bytes) -> Optional[str]:
    """The format a recording's first bytes name, as the library's ``"auto"`` reads them (a
    FIT header names ``.FIT``; XML with a ``TrainingCenterDatabase`` in its first 4 KiB is
    TCX, with ``<gpx`` GPX), or ``None``."""
    if len(data) >= 12 and data[8:12] == b".FIT":
        return "fit"
    head = bytes(data[:4096])
    head = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    if head.lstrip(b" \t\r\n").startswith(b"<"):
        if b"TrainingCenterDatabase" in head:
            return "tcx"
        if b"<gpx" in head:
            return "gpx"
    return None

#: What :func:`import_recording` accepts as the file's contents.
RecordingData = Union[bytes, bytearray, memoryview, str]

#: The largest recording file the library imports (``runway_import`` refuses larger ones).
IMPORT_LIMIT_BYTES = 64 << 20

_NOT_REGULAR = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                (stat.S_ISSOCK, "a socket"))


def _read_recording_file(path: Union[str, "os.PathLike[str]"], fmt: str) -> bytes:
    """A recording file's bytes, refusing what the import would refuse (or never finish
    reading) before reading it: a file that is not a regular file (a named pipe, whose open
    would wait for a writer, is opened without waiting; a device, whose reading might not end)
    and one over :data:`IMPORT_LIMIT_BYTES` (read no further than the limit).

    Raises:
        InputError: not a regular file, or too large (the import's message).
        OSError: the file cannot be opened or read.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = next((what for test, what in _NOT_REGULAR if test(st.st_mode)), "a special file")
            raise InputError(f"not a regular file: {kind}")
        data = f.read(IMPORT_LIMIT_BYTES + 1) if st.st_size <= IMPORT_LIMIT_BYTES else b""
    if st.st_size > IMPORT_LIMIT_BYTES or len(data) > IMPORT_LIMIT_BYTES:
        size = st.st_size if st.st_size > IMPORT_LIMIT_BYTES else f"more than {IMPORT_LIMIT_BYTES}"
        what = f"{fmt.upper()} file" if fmt in IMPORT_FORMATS else "file"
        raise InputError(f"{what} of {size} bytes exceeds the import limit of "
                         f"{IMPORT_LIMIT_BYTES} bytes")
    return data


_CONTENTS_NOT_PATH = ("data is the recording's contents, not its path: pass Path({!r}).read_bytes() "
                      "(librunway.analyse takes a path)")


def _as_bytes(data: Any) -> bytes:
    """A recording's bytes: bytes-like as they are, text as UTF-8. A path (a ``Path``, or a
    one-line ``str`` with no ``<`` that names a file or a recording's name), the mistake
    ``analyse(path)`` invites, is refused saying so, not read as a malformed file."""
    if isinstance(data, str):
        if (len(data) <= 4096 and "<" not in data and "\n" not in data
                and (data.lower().endswith((".gpx", ".tcx", ".fit")) or os.path.isfile(data))):
            raise InputError(_CONTENTS_NOT_PATH.format(data))
        return data.encode("utf-8", "surrogatepass")
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, os.PathLike):
        raise TypeError(_CONTENTS_NOT_PATH.format(os.fspath(data)))
    raise TypeError(f"data must be bytes or str, not {type(data).__name__}")

def import_available() -> bool:
    """Whether the loaded librunway can import recordings (it exports
    ``runway_import``; libraries built before it was added do not)."""
    return _lib.has("runway_import")


def analyse_available() -> bool:
    """Whether the loaded librunway analyses a recording in one call (it exports
    ``runway_analyse``)."""
    return _lib.has("runway_analyse")


def analyse_route_available() -> bool:
    """Whether the loaded librunway hands a route over as structs (it exports
    ``runway_analyse_route``)."""
    return _lib.has("runway_analyse_route")


def replay_config_available() -> bool:
    """Whether the loaded librunway gives the config a recording replays with (it exports
    ``runway_replay_config``)."""
    return _lib.has("runway_replay_config")


def replay_config(report: Union[str, bytes, Mapping[str, Any]],
                  config: Union[Mapping[str, Any], str, bytes, None] = None) -> dict[str, Any]:
    """The session config a recording replays with, as :func:`analyse_recording`
    (``runway_analyse``) opens its flight: ``config`` with what the import ``report`` says added
    where ``config`` is silent: its ``activity``, its ``altitude_source`` as ``fix_altitude``
    and its ``auto_lap_m`` (0 when the file's own laps come as lap lines). The library's rule
    (``runway_replay_config``), for a host that replays the lines itself::

        lines, report = split_report(import_recording(data, "fit"))
        with Session(replay_config(report, {"hr_max": 185})) as s:   # {"activity": "ride", ...}
            ...

    Args:
        report: the import report: :func:`split_report`'s dict, or its line as text.
        config: a session config: ``None``, a dict, or a JSON object as text (``str`` or
            ``bytes``), as :class:`Session` takes it.

    Returns:
        The config as a dict: the added members first, then ``config``'s own.

    Raises:
        InputError: ``report`` is not an import report, or its ``activity``,
            ``altitude_source`` or ``auto_lap_m`` is not one a report has.
        JSONError: ``report`` is text that is not a JSON object (or a dict that cannot be
            JSON: a NaN).
        ArgumentError: ``config`` is not a JSON object (a list, a number, text that is not
            one), names a key twice, or names ``activity``, ``fix_altitude`` or
            ``auto_lap_m`` as ``None`` (null), which no session takes.
        LimitError: the report line or the config is over ``RUNWAY_MAX_INPUT_BYTES``.
        LibraryError: the loaded librunway has no ``runway_replay_config``.
    """
    if not replay_config_available():
        raise LibraryError(f"{_lib.path()} has no runway_replay_config (rebuild it)")
    # As Session takes a config (and the report too): text as it is, anything else as its JSON;
    # the library judges whether it is an object.
    if isinstance(report, (str, bytes)):
        line = _encode(report)
    else:
        try:
            line = json.dumps(report, allow_nan=False).encode("utf-8", "surrogatepass")
        except (TypeError, ValueError) as e:
            raise JSONError(f"report is not JSON: {e}") from e
    text = None if config is None else _c_string(_encode(config, "config"), "config",
                                                 ArgumentError)
    out = c_void_p()
    _lib.lib().runway_replay_config(_c_string(line, "report"), text, byref(out))
    # The config as given when nothing was added (a byte order mark too), judged as the
    # session that opens with it would judge it: a key named twice is refused there.
    return _config_object(_lib.take_string(out))


def analyse_recording(data: RecordingData, format: str = "auto",
                      config: Optional[Mapping[str, Any] | str | bytes] = None, *,
                      route: Union[bool, str] = True, salvage: bool = False) -> dict[str, Any]:
    """A recording's flight in one library call (``runway_analyse``): the file is read
    straight into the engine (no JSON Lines), replayed with the file's sport unless
    ``config`` names an ``activity``, started by its start line or else at its first input,
    and stopped at the latest.

    Args:
        config: a session config, as a mapping or a JSON object as text (``str`` or ``bytes``),
            as :class:`librunway.Session` takes it (a byte order mark before the text is
            skipped; a key named twice, ``null`` and anything but an object are an
            ``ArgumentError``).
        route: ``True`` (the summary's ``"route"`` a list of ``[lat, lon, alt, t]`` lists, read
            from JSON), ``False`` (no route members in the summary) or ``"points"`` (the
            summary's ``"route"`` a :class:`librunway.RoutePoints`, handed over by
            ``runway_analyse_route`` as packed numbers and made into lists only when read: the
            fast way for long recordings; with a library without that function, the JSON route
            is packed instead).
        salvage: keep what a damaged file holds before the damage (a truncated file's
            records or points read before the cut, without a GPX/TCX file's unreadable points;
            the report's ``warnings`` say what was left out) instead of refusing it, as
            ``runway_import``'s ``";salvage"``.

    Returns:
        ``{"summary": ..., "report": ..., "inputs": N, "accepted": N, "rejected": N,
        "first_rejection": None | {"index": i, "message": "..."}}``: the summary is
        ``Session.summary()``'s (without ``route`` when ``route`` is false), the report
        :func:`import_recording`'s last line.

    Raises:
        InputError: not a readable recording, no timed point, or a first time that cannot
            start a flight (a truncated FIT file's message adds that ``salvage`` exists);
            a ``str`` that is a file's path, not its contents (a ``Path``: TypeError).
        ArgumentError: an unknown format, a bad config (a ``store`` or a live clock too) or
            ``route`` not one of the above.
        LibraryError: the loaded librunway has no ``runway_analyse``.
    """
    if not analyse_available():
        raise LibraryError(f"{_lib.path()} has no runway_analyse (rebuild it)")
    points = isinstance(route, str)
    if points and route != "points":
        raise ArgumentError(f"route must be True, False or \"points\", not {route!r}")
    raw = _as_bytes(data)
    options: dict[str, Any] = {"format": str(format).lower(), "route": bool(route),
                               "salvage": bool(salvage)}
    if isinstance(config, (str, bytes, bytearray)):    # a JSON object as text, as Session takes
        config = _config_object(config)
    if config is not None:
        # A mapping as a dict; anything else as it is, for the library to refuse.
        options["config"] = dict(config) if isinstance(config, Mapping) else config
    try:
        text = json.dumps(options, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ArgumentError(f"config is not JSON: {e}") from e
    opts = _c_string(text.encode("utf-8"), "options", ArgumentError)
    out, length = c_void_p(), c_size_t(0)
    if points and analyse_route_available():
        route_out, count = c_void_p(), c_size_t(0)
        try:
            _lib.lib().runway_analyse_route(opts, raw, len(raw), byref(out), byref(length),
                                            byref(route_out), byref(count))
        except InputError as e:
            raise _with_salvage_hint(e) from None
        try:
            result: dict[str, Any] = json.loads(_lib.take_bytes(out, length))
        finally:
            packed = _lib.take_route(route_out, count)
        result["summary"]["route"] = RoutePoints(packed)
        return result
    try:
        _lib.lib().runway_analyse(opts, raw, len(raw), byref(out), byref(length))
    except InputError as e:
        raise _with_salvage_hint(e) from None
    result = json.loads(_lib.take_bytes(out, length))
    if points:
        summary = result["summary"]
        summary["route"] = RoutePoints.from_points(summary.get("route") or ())
    return result


def import_recording(data: RecordingData, format: str, *, salvage: bool = False) -> list[str]:
    """Turn a recording into librunway inputs: one JSON object per line.

    Args:
        data: the whole file's contents (``Path(p).read_bytes()``); a ``str``
            is encoded as UTF-8 (fine for GPX and TCX, never for FIT).
        format: ``"gpx"``, ``"tcx"`` or ``"fit"`` (lower case), optionally with the
            library's options after ``;`` (``"fit;salvage"``).
        salvage: as ``format`` ``"fit;salvage"``: keep the records (the points) a damaged
            file holds before the damage (the report's ``warnings`` say what was left out).

    Returns:
        The inputs as a list of JSON Lines lines (``str``, without line
        ends): fixes (``{"t", "lat", "lon", ...}`` with ``hr``/``cadence``
        where the file has them) in recorded order, and, from FIT, the
        device's timer: a ``{"type": "start", "t": ...}`` line first when
        it started before the first record, its stops and restarts as
        ``{"type": "pause", "t": ...}`` and ``{"type": "resume", "t": ...}``
        lines among them (a session takes them as :meth:`Session.start`,
        :meth:`Session.pause` and :meth:`Session.resume`), ready for
        :meth:`Session.push_many` (values are as recorded: pushing validates
        them), and last the import report (:func:`split_report`; alone when
        the file has no timed points). Replayed as :func:`analyse_recording`
        does, the session opens with the report's profile (:func:`replay_config`:
        a ride is measured with the ride's limits, not the run's), the flight
        starts at the first line's time (a start line's, else the first
        input's) and takes every line (a start line at the flight's own start
        time is already true)::

            lines, report = librunway.split_report(
                librunway.import_recording(Path("ride.fit").read_bytes(), "fit"))
            with librunway.Session(librunway.replay_config(report)) as s:
                s.start(json.loads(lines[0])["t"])
                s.push_many(lines)
                s.stop()

        ``json.loads(line)`` gives a line as a dict.

    Raises:
        ArgumentError: an unknown format.
        InputError: the data is not a valid recording of that format (or
            larger than 64 MiB; a truncated FIT file's message adds that salvage exists);
            a ``str`` that is a file's path, not its contents (a ``Path``: TypeError).
        LibraryError: the loaded librunway has no ``runway_import`` (see
            :func:`import_available`).
    """
    if not import_available():
        raise LibraryError(
            f"{_lib.path()} cannot import recordings: it has no runway_import "
            "(a librunway built before import was added; rebuild it)")
    raw = _as_bytes(data)
    text = str(format)
    if salvage and "salvage" not in text.split(";")[1:]:
        text += ";salvage"
    fmt = _c_string(text.encode("utf-8"), "format", ArgumentError)
    out, length = c_void_p(), c_size_t(0)
    try:
        _lib.lib().runway_import(fmt, raw, len(raw), byref(out), byref(length))
    except InputError as e:
        raise _with_salvage_hint(e) from None
    text = _lib.take_bytes(out, length).decode("utf-8")
    # Split on "\n" only: str.splitlines() would also split inside a string at U+2028.
    return [line.rstrip("\r") for line in text.split("\n") if line.strip()]


def split_report(lines: list[str]) -> tuple[list[str], Optional[dict[str, Any]]]:
    """The inputs of an :func:`import_recording` result, and its import report.

    The library ends an import with one line ``{"type":"import_report", ...}``: the file's
    ``format``, ``sport`` (as the file names it) and ``activity`` (the profile to open the
    session with: ``"run"``, ``"ride"``, ``"walk"`` or ``None``), counts of the points it
    skipped (``untimed``: a position without a time; ``no_position``; ``unreadable``), the
    ``pauses`` among the lines (a FIT file's timer stops, a GPX or TCX file's segment breaks), its
    ``tracks`` and ``warnings``, and ``device``: the totals the file itself stores (distance,
    ascent, timer time, power... each only when the file has it; ``None`` for GPX). Pushing
    the report line is harmless (a session ignores it), so ``push_many(lines)`` works either
    way; this splits it off for reading. The report is ``None`` when the last line is not one
    (a library built before import reports)."""
    if lines:
        last = lines[-1]
        if '"import_report"' in last:
            try:
                obj = json.loads(last)
            except ValueError:
                obj = None
            if isinstance(obj, dict) and obj.get("type") == "import_report":
                return lines[:-1], obj
    return lines, None


#: How a Python host asks for salvage (the end of every salvage hint).
_ASK_FOR_SALVAGE = ": salvage=True in Python, --salvage on the command line"
#: What a truncated FIT file's error adds: salvage exists (and how to ask for it).
SALVAGE_HINT = "; salvage keeps the records read before the cut" + _ASK_FOR_SALVAGE


def _with_salvage_hint(e: InputError) -> InputError:
    """A strict import's error, saying how to ask for salvage where salvage reads the file: a
    truncated FIT file (its message starts "truncated FIT file": :data:`SALVAGE_HINT` added)
    and GPX or TCX that breaks off after its root element (the library's hint, which names
    the C format ``"gpx;salvage"``, ends in the Python way instead); other errors as they
    are."""
    text = str(e)
    for fmt in ("gpx", "tcx"):
        library = f' ("{fmt};salvage")'
        if text.startswith(f"not a well-formed {fmt.upper()} file") and text.endswith(library):
            return _hinted(e, text[:-len(library)] + _ASK_FOR_SALVAGE)
    if text.startswith("truncated FIT file") and SALVAGE_HINT not in text:
        return _hinted(e, text + SALVAGE_HINT)
    return e


def _hinted(e: InputError, text: str) -> InputError:
    hinted = InputError(text, e.status)
    hinted.__cause__ = e
    return hinted


def _start_replay(session: Session, lines: Sequence[str]) -> None:
    """Start a replay of :func:`import_recording`'s ``lines`` as ``runway_analyse`` does: at the
    first line's time (an import report aside): a start line's (a FIT timer started before its
    first record), which is then already true when pushed with the rest, else the first input's."""
    for line in lines:
        first = json.loads(line)
        if first.get("type") != "import_report":
            session.start(first.get("t"))
            return
