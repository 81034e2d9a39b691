"""Reading what ``librunway replay`` replays: a GPX, JSON Lines, FIT or TCX file as a
:class:`Track` of points (a fix and its samples each), with the settings the file names.

Part of :mod:`librunway.replay` (whose doc says what is read from each format), which
re-exports every name here.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timezone

import librunway
from .analysis import _add_file_settings as add_file_settings
from .recording import split_report

IMPORTED_FORMATS = {".fit": "fit", ".tcx": "tcx"}   # read by librunway (runway_import)


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

def _local(tag: str) -> str:
    """An element's name without its namespace ("{ns}hr" -> "hr")."""
    return tag.rsplit("}", 1)[-1]


_ISO_8601 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?"
    r"\s*(?:([Zz])|([+-])(\d{2}):?(\d{2})?)?")


def parse_time(text: str) -> float:
    """ISO 8601 ("2024-05-19T07:30:00Z", any fraction digits, offsets; naive = UTC) to
    unix seconds. Raises ValueError."""
    match = _ISO_8601.fullmatch(text.strip())
    if not match:
        raise ValueError(f"not an ISO 8601 time: {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in match.group(1, 2, 3, 4, 5, 6))
    whole = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc).timestamp()
    fraction = float("0." + match.group(7)) if match.group(7) else 0.0
    offset = 0
    if match.group(9):
        offset = int(match.group(10)) * 3600 + int(match.group(11) or 0) * 60
        offset = -offset if match.group(9) == "-" else offset
    return whole + fraction - offset


# Names (lower case, without namespace) of the values taken from a <trkpt>.
_GPX_FIELDS = {
    "ele": "alt", "time": "t", "speed": "speed", "course": "course",
    "hacc": "h_acc", "vacc": "v_acc",
    "hr": "hr", "heartrate": "hr", "cad": "cad", "cadence": "cad",
}


def _int_if_whole(value: float) -> float | int:
    return int(value) if value.is_integer() else value


def load_gpx(path: str) -> Track:
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise InputFileError(f"{path}: not a valid GPX file: {exc}") from None
    if _local(root.tag) != "gpx":
        raise InputFileError(f"{path}: not a GPX file (root element <{_local(root.tag)}>)")

    points: list[Point] = []
    untimed = 0
    for index, trkpt in enumerate((e for e in root.iter() if _local(e.tag) == "trkpt"), 1):
        try:
            lat, lon = float(trkpt.get("lat", "")), float(trkpt.get("lon", ""))
        except ValueError:
            raise InputFileError(f"{path}: track point {index}: missing or bad lat/lon") from None
        values: dict[str, float] = {}
        for element in trkpt.iter():
            key = _GPX_FIELDS.get(_local(element.tag).lower())
            text = (element.text or "").strip()
            if key is None or key in values or not text:
                continue
            try:
                values[key] = parse_time(text) if key == "t" else float(text)
            except ValueError:
                raise InputFileError(
                    f"{path}: track point {index}: bad <{_local(element.tag)}> {text!r}") from None
        if "t" not in values:
            untimed += 1
            continue
        t = values["t"]
        fix = {"t": t, "lat": lat, "lon": lon}
        for key in ("alt", "speed", "course", "h_acc", "v_acc"):
            if key in values:
                fix[key] = values[key]
        samples = []
        if "hr" in values:
            samples.append({"type": "hr", "bpm": _int_if_whole(values["hr"]), "t": t})
        if "cad" in values:
            samples.append({"type": "cadence", "spm": _int_if_whole(values["cad"]), "t": t})
        points.append(Point(t, fix, samples))

    if not points:
        raise InputFileError(f"{path}: no track points with a time")
    return Track(points, _true_distance(root), untimed)


def _true_distance(root: ET.Element) -> float | None:
    """"true distance: N m" from the GPX <metadata><desc> (1.1) or <desc> (1.0)."""
    for parent in [root] + [e for e in root if _local(e.tag) == "metadata"]:
        for element in parent:
            if _local(element.tag) == "desc" and element.text:
                match = re.search(r"true distance:?\s*([0-9]+(?:\.[0-9]+)?)\s*m\b", element.text)
                if match:
                    return float(match.group(1))
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


def load_imported(path: str, fmt: str) -> Track:
    """A FIT or TCX file, turned into librunway inputs by the library (runway_import)."""
    if not librunway.import_available():
        raise InputFileError(
            f"{path}: reading {fmt.upper()} files needs librunway.import_recording, and the loaded "
            f"librunway ({librunway.library_path()}) has no runway_import; rebuild the library, "
            "or convert the file to GPX or JSON Lines")
    with open(path, "rb") as f:
        data = f.read()
    try:
        lines, _ = split_report(librunway.import_recording(data, fmt))
    except librunway.RunwayError as exc:
        raise InputFileError(f"{path}: not a readable {fmt.upper()} file: {exc}") from None
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
    if not points:   # (an indoor flight has speed samples and no fix: it replays as they measure it)
        raise InputFileError(f"{path}: no timed points")
    return Track(points, None, untimed)


def file_settings(path: str, fmt: str) -> dict:
    """The session settings a GPX, TCX or FIT file names, as ``librunway.analyse`` takes them:
    the profile (``activity``, from its import report's activity or sport) and what its
    altitudes are (``fix_altitude``, the report's ``altitude_source``: ``"barometric"`` for FIT);
    empty for a file the importer cannot read or a library without import."""
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


def load_track(path: str) -> Track:
    """GPX, JSON Lines, FIT or TCX, by extension, else by the file's first bytes; with
    the profile the file names."""
    track = _load_track(path)
    with open(path, "rb") as f:
        raw = f.read(4096)
    fmt = ("fit" if raw[8:12] == b".FIT" else
           "tcx" if b"TrainingCenterDatabase" in raw else
           "gpx" if raw.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<") else None)
    if fmt is not None:
        settings = file_settings(path, fmt)
        track.activity = settings.get("activity")
        track.fix_altitude = settings.get("fix_altitude")
    return track


def _load_track(path: str) -> Track:
    ext = os.path.splitext(path)[1].lower()
    try:
        if ext == ".gpx":
            return load_gpx(path)
        if ext in (".jsonl", ".ndjson", ".json"):
            return load_jsonl(path)
        if ext in IMPORTED_FORMATS:
            return load_imported(path, IMPORTED_FORMATS[ext])
        with open(path, "rb") as f:
            raw = f.read(4096)
        if raw[8:12] == b".FIT":
            return load_imported(path, "fit")
        head = raw.lstrip(b"\xef\xbb\xbf \t\r\n")
        if head.startswith(b"<") and b"TrainingCenterDatabase" in head:
            return load_imported(path, "tcx")
        return load_gpx(path) if head.startswith(b"<") else load_jsonl(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else exc
        raise InputFileError(f"{path}: {reason}") from None
