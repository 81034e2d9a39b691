"""Reading what ``librunway replay`` replays: a GPX, JSON Lines, FIT or TCX file as a
:class:`Track` of points (a fix and its samples each), with the settings the file names. GPX,
TCX and FIT are read by the library (``runway_import``), as ``librunway.analyse`` reads them.

Part of :mod:`librunway.replay` (whose doc says what is read from each format), which
re-exports every name here.
"""

from __future__ import annotations

import json
import os
import re
import stat
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import librunway
from .analysis import _add_file_settings as add_file_settings
from .recording import _NOT_REGULAR, content_format, split_report

IMPORTED_FORMATS = {".gpx": "gpx", ".fit": "fit", ".tcx": "tcx"}   # read by librunway (runway_import)


class InputFileError(Exception):
    """The input file cannot be read or parsed."""


@dataclass
class Point:
    """One replay step: a fix (or None for a bare sample line) and its samples."""
    t: float
    fix: dict | None
    samples: list[dict] = field(default_factory=list)


@dataclass
class Track:
    points: list[Point]
    true_distance_m: float | None = None   # from a GPX <desc> "true distance: N m"
    skipped_untimed: int = 0
    activity: str | None = None            # the profile the file names (import report)
    fix_altitude: str | None = None        # what its altitudes are (the report's altitude_source)
    auto_lap_m: float | None = None        # 0: its own laps are replayed (the report's auto_lap_m)
    report: dict | None = None             # the import report of a file the library read

    def config(self, config: dict | None) -> dict | None:
        """The session config to replay the track with: ``config`` with what the file names
        added where it is silent, by the library's one rule (``librunway.replay_config``, as
        ``librunway.analyse`` applies it) for a file it read; else (JSON Lines, a library
        without ``runway_replay_config``) the settings above, by the same rule in Python.

        Raises:
            ArgumentError: ``config`` names ``activity``, ``fix_altitude`` or ``auto_lap_m``
                as null (which no session takes).
        """
        if self.report is not None and librunway.replay_config_available():
            merged = librunway.replay_config(self.report, config)
            return merged if merged or config is not None else None
        for key, value in (("activity", self.activity), ("fix_altitude", self.fix_altitude),
                           ("auto_lap_m", self.auto_lap_m)):
            if value is not None and not (config and key in config):
                config = dict(config or {}, **{key: value})
        return config

def _local(tag: str) -> str:
    """An element's name without its namespace ("{ns}hr" -> "hr")."""
    return tag.rsplit("}", 1)[-1]


def _true_distance(root: ET.Element) -> float | None:
    """"true distance: N m" from the GPX <metadata><desc> (1.1) or <desc> (1.0)."""
    for parent in [root] + [e for e in root if _local(e.tag) == "metadata"]:
        for element in parent:
            if _local(element.tag) == "desc" and element.text:
                match = re.search(r"true distance:?\s*([0-9]+(?:\.[0-9]+)?)\s*m\b", element.text)
                if match:
                    return float(match.group(1))
    return None


def gpx_true_distance(data: bytes) -> float | None:
    """The "true distance: N m" a GPX file's description gives (a simulated run's, as
    examples/data/city_run.gpx), or None. Only the description is read here: the track is
    read by the library (runway_import), which has accepted the file before this is asked."""
    try:
        return _true_distance(ET.fromstring(data))
    except (ET.ParseError, ValueError):
        return None


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def load_jsonl(path: str) -> Track:
    points: list[Point] = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputFileError(f"{path}:{lineno}: not JSON: {exc.msg}") from None
            if not isinstance(obj, dict):
                raise InputFileError(f"{path}:{lineno}: not a JSON object")
            t = obj.get("t")
            if not _is_number(t):
                raise InputFileError(f"{path}:{lineno}: no numeric \"t\" (a replay needs times)")
            if "type" in obj:                       # a sample line, passed on as it is
                points.append(Point(t, None, [obj]))
                continue
            fix = dict(obj)
            samples = []
            hr = fix.pop("hr", None)
            if hr is not None:
                samples.append({"type": "hr", "bpm": hr, "t": t})
            for key in ("cad", "cadence"):
                cad = fix.pop(key, None)
                if cad is not None:
                    samples.append({"type": "cadence", "spm": cad, "t": t})
            points.append(Point(t, fix, samples))
    if not points:
        raise InputFileError(f"{path}: no fixes")
    return Track(points)


def load_imported(path: str, fmt: str, salvage: bool = False) -> Track:
    """A GPX, TCX or FIT file, turned into librunway inputs by the library (runway_import), as
    ``librunway.analyse`` reads it: the same points, a GPX or TCX file's segment breaks and a
    FIT file's timer stops as pauses, and the settings the file names."""
    if not librunway.import_available():
        raise InputFileError(
            f"{path}: reading {fmt.upper()} files needs librunway.import_recording, and the loaded "
            f"librunway ({librunway.library_path()}) has no runway_import; rebuild the library, "
            "or convert the file to JSON Lines")
    with open(path, "rb") as f:
        data = f.read()
    fmt = content_format(data) or fmt   # (what the file is, as the library's "auto" reads it)
    try:
        lines, report = split_report(librunway.import_recording(data, fmt, salvage=salvage))
    except librunway.RunwayError as exc:
        raise InputFileError(f"{path}: {exc}") from None
    points: list[Point] = []
    untimed = 0
    for line in lines:
        obj = json.loads(line)
        t = obj.get("t")
        if not _is_number(t):
            untimed += 1
            continue
        if obj.get("type", "fix") == "fix":
            points.append(Point(t, obj))        # hr/cadence on a fix count as its samples
        else:
            points.append(Point(t, None, [obj]))
    if report is not None and _is_number(report.get("untimed")):
        untimed += int(report["untimed"])      # the points the import left out for it
    if not points:   # (an indoor flight has speed samples and no fix: it replays as they measure it)
        raise InputFileError(f"{path}: no timed points")
    settings: dict = {}
    add_file_settings(settings, report, data, fmt)
    return Track(points, gpx_true_distance(data) if fmt == "gpx" else None, untimed,
                 activity=settings.get("activity"), fix_altitude=settings.get("fix_altitude"),
                 auto_lap_m=settings.get("auto_lap_m"), report=report)


def file_settings(path: str, fmt: str) -> dict:
    """The session settings a GPX, TCX or FIT file names, as ``librunway.analyse`` takes them:
    the profile (``activity``, from its import report's activity or sport), what its
    altitudes are (``fix_altitude``, the report's ``altitude_source``: ``"barometric"`` for FIT)
    and ``auto_lap_m`` 0 when its own laps are replayed (FIT lap messages, TCX Laps); empty for a file the importer cannot read or a library without import."""
    if not librunway.import_available():
        return {}
    try:
        with open(path, "rb") as f:
            data = f.read()
        _, report = split_report(librunway.import_recording(data, fmt))
    except (OSError, librunway.RunwayError):
        return {}
    settings: dict = {}
    add_file_settings(settings, report, data, fmt)
    return settings


def load_track(path: str, salvage: bool = False) -> Track:
    """GPX, JSON Lines, FIT or TCX, by extension, else by the file's first bytes; a GPX, TCX
    or FIT file read by the library (:func:`load_imported`, ``salvage`` as there), with the
    profile it names."""
    ext = os.path.splitext(path)[1].lower()
    try:
        # Not a regular file (a named pipe, whose open waits for a writer; a device, whose
        # reading might not end): refused unread, as librunway.analyse and batch refuse it.
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            kind = next((what for test, what in _NOT_REGULAR if test(mode)), "a special file")
            raise InputFileError(f"{path}: not a regular file: {kind}")
        if ext in IMPORTED_FORMATS:
            return load_imported(path, IMPORTED_FORMATS[ext], salvage)
        if ext in (".jsonl", ".ndjson", ".json"):
            return load_jsonl(path)
        with open(path, "rb") as f:
            raw = f.read(4096)
        if raw[8:12] == b".FIT":
            return load_imported(path, "fit", salvage)
        head = raw.lstrip(b"\xef\xbb\xbf \t\r\n")
        if head.startswith(b"<"):
            return load_imported(path, "tcx" if b"TrainingCenterDatabase" in head else "gpx",
                                 salvage)
        return load_jsonl(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else exc
        raise InputFileError(f"{path}: {reason}") from None


_load_track = load_track   # its old name
