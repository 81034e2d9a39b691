"""``librunway replay FILE``: replay a recorded run through librunway with a live terminal PFD.

Reads a GPX file (1.0 or 1.1: every <trkpt> with lat/lon, <ele>, <time>, and
from its <extensions> heart rate and cadence, e.g. Garmin TrackPointExtension
<gpxtpx:hr>/<gpxtpx:cad> under any namespace prefix, plus speed, course,
hAcc/vAcc where present) or a JSON Lines file (one librunway fix a line, as in
/work/shared/tracks/fixes/*.jsonl; a line's "hr" becomes a heart-rate sample and
"cad"/"cadence" a cadence sample; lines with a "type" are passed on as samples),
or a FIT or TCX file, which librunway itself turns into inputs
(librunway.import_recording; a library without it says so and the replay exits 2).

The session uses the profile the file names (its import report's ``activity``: a
cycling FIT or TCX is replayed as a ride, walking or hiking as a walk; else the
default, run) unless --config sets "activity"; the summary says which.

Each point is pushed into a librunway.Session with the replay clock: the flight
starts at the first point's time (or at a first start line's: a FIT file's timer
started before its first record) and stops at the last's, and between points
the command sleeps according to the timestamps divided by --speed (--speed 60:
a minute of run per second; --speed 0: as fast as possible). A subscription to
flight and phase events (policy "latest") drives the display: on a terminal
one status block redrawn in place with ANSI escapes, otherwise one plain line
per update; at most 10 updates per second either way. Phase changes print as
lines ("phase: preflight -> cruise"). At the end the flight summary is printed.

--store PATH journals the flight to a librunway store (SQLite; the file and
its folder are created if missing): the end says "stored flight <id> in <PATH>", and the flight can be
listed, read, exported or deleted later with librunway.flights(PATH) and friends.
--export gpx,fit (any of gpx, tcx, fit, geojson, csv) writes the flight in those
formats to --out-dir (default ./runway-out) as <flight id>.<format> with a
store, else <input name>.<format>, and prints each path.

Exit status: 0 after a replay (inputs the engine rejects, such as a time going
backwards, are reported and skipped), 2 when the file cannot be read or parsed,
the config is invalid or the library fails, 130 when interrupted. Errors are one
line on stderr, starting "librunway replay: ".

Examples:
    librunway replay examples/data/city_run.gpx --speed 120
    python -m librunway replay run.fit --speed 0 --store runs.db --export gpx,fit --out-dir out
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import sys
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timezone

import librunway
from ._args import ArgumentParser
from .analysis import _add_file_settings as add_file_settings
from .recording import split_report

PROG = "librunway replay"
MIN_REDRAW_INTERVAL_S = 0.1     # at most 10 display updates per second of wall time
PHASE_WAIT_S = 5.0              # how long to wait for the final phase event
MAX_REJECTS_SHOWN = 5
DEFAULT_OUT_DIR = "runway-out"
EXPORT_FORMATS = ("gpx", "tcx", "fit", "geojson", "csv")
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


# ---- Reading the input ------------------------------------------------------

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


# ---- The live display ----------------------------------------------------------

def _tape(values, centre: int) -> str:
    """A tape (list of strings, or a space-separated string) with its centre bracketed."""
    items = values.split() if isinstance(values, str) else list(values or [])
    if not items:
        return ""
    centre = min(centre, len(items) - 1)
    return " ".join(f"[{v}]" if i == centre else f" {v} " for i, v in enumerate(items)).rstrip()


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _fit(row: str, width: int) -> str:
    """The row as it is if it fits the terminal, else its plain text cut to the width
    (a wrapped row would break the cursor-up redraw)."""
    plain = _ANSI.sub("", row)
    return row if len(plain) <= width else plain[:width]


class Display:
    """Draws flight events as a PFD block (TTY) or plain lines, at most 10 times a second.

    on_event() runs on a library thread and only stores the event; a renderer
    thread of our own does the drawing, so the library thread never waits on
    the terminal and the newest state is always drawn in the end.
    """

    def __init__(self, out, total_points: int, tty: bool):
        self.out = out
        self.total = total_points
        self.tty = tty
        self.done = 0                     # points pushed so far (written by the replay loop)
        self.touchdown = threading.Event()
        self._cond = threading.Condition()
        self._lines: list[tuple[str, bool]] = []   # (text, to stderr)
        self._pending: dict | None = None
        self._closing = False
        self._block_height = 0
        self._last: dict | None = None
        self._started = False
        self._thread = threading.Thread(target=self._run, name="replay-display", daemon=True)

    # -- producers (any thread)

    def on_event(self, event: dict) -> None:
        kind = event.get("kind")
        with self._cond:
            if kind == "flight":
                self._pending = event
            elif kind == "phase":
                self._lines.append((f"phase: {event.get('from')} -> {event.get('to')}", False))
            elif kind == "overflow":
                self._lines.append((f"display: {event.get('dropped')} events dropped", True))
            else:
                return
            self._cond.notify()
        if kind == "phase" and event.get("to") == "touchdown":
            self.touchdown.set()

    def note(self, text: str, error: bool = False) -> None:
        with self._cond:
            self._lines.append((text, error))
            self._cond.notify()

    # -- lifecycle

    def start(self) -> None:
        if self.tty:
            self.out.write("\x1b[?25l")      # hide the cursor while redrawing
        self._thread.start()
        self._started = True

    def close(self, final_snapshot: dict | None) -> None:
        """Stop the renderer, then draw the final state (unthrottled) and leave the block."""
        if not self._started:
            return
        self._started = False
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join()
        self._emit([], final_snapshot)
        if self.tty:
            self.out.write("\x1b[?25h")
        self.out.flush()

    # -- renderer thread

    def _run(self) -> None:
        next_draw = 0.0
        while True:
            with self._cond:
                while not (self._lines or self._closing):
                    if self._pending is None:
                        self._cond.wait()
                        continue
                    wait = next_draw - time.monotonic()
                    if wait <= 0:
                        break
                    self._cond.wait(wait)
                lines, self._lines = self._lines, []
                flight = None
                if self._pending is not None and time.monotonic() >= next_draw:
                    flight, self._pending = self._pending, None
                closing = self._closing
            self._emit(lines, flight)
            if flight is not None:
                next_draw = time.monotonic() + MIN_REDRAW_INTERVAL_S
            if closing:
                return

    def _emit(self, lines: list[tuple[str, bool]], flight: dict | None) -> None:
        if flight is not None:
            self._last = flight
        if not lines and flight is None:
            return
        if self.tty and self._block_height:
            # Back to the top of the block and clear it: notes go above the new block.
            self.out.write(f"\x1b[{self._block_height}F\x1b[J")
            self._block_height = 0
        for text, error in lines:
            if error:
                self.out.flush()
                print(text, file=sys.stderr, flush=True)
            else:
                self.out.write(text + "\n")
        if self.tty and self._last is not None:
            width = max(shutil.get_terminal_size((80, 24)).columns - 1, 20)
            rows = [_fit(row, width) for row in self._block(self._last)]
            self.out.write("\n".join(rows) + "\n")
            self._block_height = len(rows)
        elif flight is not None:
            self.out.write(self._line(flight) + "\n")
        self.out.flush()

    # -- formatting

    @staticmethod
    def _fields(ev: dict) -> dict:
        pfd = ev.get("pfd") or {}
        return {
            "phase": ev.get("phase", "?"),
            "pace": pfd.get("pace", "--:--"),
            "pace_tape": pfd.get("pace_tape", []),
            "direction": pfd.get("direction", "--"),
            "heading_tape": pfd.get("heading_tape", []),
            "distance": pfd.get("distance", "--"),
            "time": pfd.get("time", "--:--:--"),
            "avg_pace": pfd.get("avg_pace", "AVG --:--"),
            "altitude": pfd.get("altitude", "--"),
            "hr": pfd.get("hr") if ev.get("hr_bpm") is not None else None,
            "cadence": pfd.get("cadence") if ev.get("cadence_spm") is not None else None,
        }

    def _progress(self, width: int) -> tuple[str, str]:
        done = min(self.done, self.total)
        filled = round(width * done / self.total) if self.total else width
        return "#" * filled + "-" * (width - filled), f"{done}/{self.total}"

    def _block(self, ev: dict) -> list[str]:
        f = self._fields(ev)
        bar, count = self._progress(40)
        sensors = ""
        if f["hr"] is not None:
            sensors += f"   HR {f['hr']} bpm"
        if f["cadence"] is not None:
            sensors += f"   CAD {f['cadence']} spm"
        return [
            f" PACE  \x1b[1m{f['pace']:>5}\x1b[0m /km   {_tape(f['pace_tape'], 2)}",
            f" HDG   \x1b[1m{f['direction']:>5}\x1b[0m       {_tape(f['heading_tape'], 1)}",
            f" DIST  \x1b[1m{f['distance']:>5}\x1b[0m km    TIME {f['time']}"
            f"   {f['avg_pace']} /km",
            f" ALT   {f['altitude']:>5} m{sensors}",
            f" [{bar}] {count} points  {f['phase']}",
        ]

    def _line(self, ev: dict) -> str:
        f = self._fields(ev)
        _, count = self._progress(0)
        pace_tape = " ".join(f["pace_tape"]) if not isinstance(f["pace_tape"], str) \
            else f["pace_tape"]
        heading_tape = " ".join(f["heading_tape"]) if not isinstance(f["heading_tape"], str) \
            else f["heading_tape"]
        text = (f"[{count}] {f['phase']}  dist {f['distance']} km  time {f['time']}  "
                f"pace {f['pace']}" + (f" ({pace_tape})" if pace_tape else "")
                + f"  {f['avg_pace'].lower()}  hdg {f['direction']}"
                + (f" ({heading_tape})" if heading_tape else "") + f"  alt {f['altitude']} m")
        if f["hr"] is not None:
            text += f"  hr {f['hr']}"
        if f["cadence"] is not None:
            text += f"  cad {f['cadence']}"
        return text


# ---- The replay ----------------------------------------------------------------

def _nan(value) -> float:
    return float(value) if _is_number(value) else math.nan


def print_summary(summary: dict, track: Track, rejected: int, out,
                  chosen: bool = False, fix_altitude: str | None = None) -> None:
    distance = summary.get("distance_m")
    lines = ["", "flight summary"]
    if summary.get("activity"):
        why = ("--config" if chosen else "named by the file" if track.activity else "default")
        lines.append(f"  profile       {summary['activity']} ({why})")
    if _is_number(distance):
        lines.append(f"  distance      {librunway.format_distance(distance)} km ({distance:.1f} m)")
    else:
        lines.append("  distance      --")
    if track.true_distance_m is not None and _is_number(distance) and track.true_distance_m > 0:
        off = (distance / track.true_distance_m - 1) * 100
        lines.append(f"  true distance {librunway.format_distance(track.true_distance_m)} km "
                     f"({track.true_distance_m:.1f} m, from the file; engine {off:+.1f}%)")
    lines.append(f"  flight time   {librunway.format_time(_nan(summary.get('elapsed_s')))}")
    avg_pace = librunway.format_pace(_nan(summary.get("avg_pace_min_per_km")))
    lines.append(f"  average pace  {avg_pace} /km")
    gain, loss = summary.get("gain_m"), summary.get("loss_m")
    if _is_number(gain) and _is_number(loss):
        source = f" ({fix_altitude} altitude)" if fix_altitude else ""
        lines.append(f"  climb         +{gain:.1f} m, -{loss:.1f} m{source}")
    avg_hr, max_hr = summary.get("avg_hr_bpm"), summary.get("max_hr_bpm")
    if _is_number(avg_hr) or _is_number(max_hr):
        lines.append("  heart rate    avg "
                     + (f"{avg_hr:.0f}" if _is_number(avg_hr) else "--") + " bpm, max "
                     + (f"{max_hr:.0f}" if _is_number(max_hr) else "--") + " bpm")
    avg_cad = summary.get("avg_cadence_spm")
    if _is_number(avg_cad):
        lines.append(f"  cadence       avg {avg_cad:.0f} spm")
    kept = summary.get("points")
    lines.append(f"  points        {len(track.points)} replayed"
                 + (f", {kept} kept on the route" if _is_number(kept) else "")
                 + f", {rejected} rejected")
    out.write("\n".join(lines) + "\n")
    out.flush()


@dataclass
class Outputs:
    """Where the flight goes besides the screen: a store, export files."""
    name: str                               # the input's name, for exports without a store
    store: str | None = None
    formats: list[str] = field(default_factory=list)
    out_dir: str = DEFAULT_OUT_DIR


def _file_name(text: str) -> str:
    """A flight id or input name made safe as a file name."""
    safe = re.sub(r"[^A-Za-z0-9._+-]", "_", text).lstrip(".")
    return safe or "flight"


def save_outputs(session, outputs: Outputs, out) -> None:
    """After the flight: say where it is stored and write its exports."""
    flight_id = session.flight_id
    lines = []
    if flight_id is not None:
        lines.append(f"stored flight {flight_id} in {outputs.store}")
    if outputs.formats:
        os.makedirs(outputs.out_dir, exist_ok=True)
        base = _file_name(flight_id or outputs.name)
        for fmt in outputs.formats:
            path = os.path.join(outputs.out_dir, f"{base}.{fmt}")
            data = session.export(fmt)
            with open(path, "wb") as f:
                f.write(data)
            lines.append(f"exported {fmt} ({len(data)} bytes) to {path}")
    if lines:
        out.write("\n" + "\n".join(lines) + "\n")
        out.flush()


def replay(track: Track, config, speed: float, out, outputs: Outputs | None = None) -> int:
    points = track.points
    display = Display(out, len(points), tty=out.isatty())
    rejected = 0
    latest_t = points[0].t

    def push(session, item: dict, where: str) -> bool:
        nonlocal rejected
        try:
            session.push(item)
            return True
        except librunway.RunwayError as exc:
            rejected += 1
            if rejected <= MAX_REJECTS_SHOWN:
                display.note(f"{PROG}: {where} rejected: {exc}", error=True)
            elif rejected == MAX_REJECTS_SHOWN + 1:
                display.note(f"{PROG}: further rejections not shown", error=True)
            return False

    with librunway.Session(config) as session:
        subscription = session.subscribe(display.on_event, kinds=["flight", "phase"],
                                         policy="latest")
        display.start()
        final = None
        interrupted = False
        try:
            # At the first point's time: a first start line's is then already true when pushed.
            session.start(points[0].t)
            wall0 = time.monotonic()
            try:
                for index, point in enumerate(points, 1):
                    if speed > 0:
                        delay = wall0 + (point.t - points[0].t) / speed - time.monotonic()
                        if delay > 0:
                            time.sleep(delay)
                    accepted = True
                    if point.fix is not None:
                        accepted = push(session, point.fix, f"point {index}")
                    if accepted:
                        latest_t = max(latest_t, point.t)
                        for sample in point.samples:
                            push(session, sample, f"point {index} {sample.get('type')} sample")
                    display.done = index
            except KeyboardInterrupt:
                interrupted = True
            # Stop at the last point's time (the latest accepted one if the last was rejected).
            session.stop(latest_t)
            # The phase event comes on the library's thread: let it reach the screen.
            display.touchdown.wait(PHASE_WAIT_S)
            subscription.cancel()
            final = session.snapshot()
        finally:
            display.close(final)
        print_summary(session.summary(), track, rejected, out,
                      chosen=bool(config) and "activity" in config and
                      config.get("activity") != track.activity,
                      fix_altitude=(config or {}).get("fix_altitude"))
        if outputs is not None:
            save_outputs(session, outputs, out)
    return 130 if interrupted else 0


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the replay command (``librunway replay``); ``prog`` names it in its messages."""
    global PROG
    if prog is not None:
        PROG = prog
    parser = ArgumentParser(
        prog=PROG,
        description="Replay a GPX, JSON Lines, FIT or TCX run through librunway with a live "
                    "terminal PFD; optionally store the flight and export it.")
    parser.add_argument("path", help="a .gpx file, a .jsonl file of fixes, or a .fit or .tcx "
                                     "file (read by librunway)")
    parser.add_argument("--speed", type=float, default=60.0,
                        help="run seconds replayed per wall second (default 60; 0 = as fast "
                             "as possible)")
    parser.add_argument("--config", metavar="JSON",
                        help='session config, e.g. \'{"distance_filter_m": 0}\'')
    parser.add_argument("--store", metavar="PATH",
                        help="journal the flight to this librunway store (SQLite; it and its "
                             "folder are created if missing) and print its flight id")
    parser.add_argument("--export", metavar="FORMAT[,FORMAT...]",
                        help=f"write the flight as any of {', '.join(EXPORT_FORMATS)} "
                             "(comma-separated) to --out-dir")
    parser.add_argument("--out-dir", metavar="DIR", default=DEFAULT_OUT_DIR,
                        help=f"folder for --export files (default ./{DEFAULT_OUT_DIR}); named "
                             "<flight id>.<format> with --store, else <input name>.<format>")
    args = parser.parse_args(argv)
    if not args.speed >= 0 or math.isinf(args.speed):
        parser.error("--speed must be a finite number >= 0")
    formats: list[str] = []
    if args.export is not None:
        for fmt in (f.strip().lower() for f in args.export.split(",")):
            if fmt not in EXPORT_FORMATS:
                parser.error(f"--export: unknown format {fmt!r} "
                             f"(expected any of {', '.join(EXPORT_FORMATS)})")
            if fmt not in formats:
                formats.append(fmt)
    name = os.path.basename(args.path)
    for ext in (".jsonl", ".ndjson", ".json", ".gpx", ".fit", ".tcx"):
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
            break
    outputs = Outputs(name=name, store=args.store, formats=formats, out_dir=args.out_dir)

    config = None
    if args.config is not None:
        try:
            config = json.loads(args.config)
        except json.JSONDecodeError as exc:
            print(f"{PROG}: --config is not JSON: {exc.msg}", file=sys.stderr)
            return 2
        if not isinstance(config, dict):
            print(f"{PROG}: --config must be a JSON object", file=sys.stderr)
            return 2
    if args.store is not None:
        if config is not None and "store" in config:
            print(f"{PROG}: give the store either with --store or in --config, not both",
                  file=sys.stderr)
            return 2
        config = dict(config or {}, store=args.store)
        try:
            os.makedirs(os.path.dirname(args.store) or ".", exist_ok=True)
        except OSError as exc:
            print(f"{PROG}: --store {args.store}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    elif config is not None and isinstance(config.get("store"), str):
        outputs.store = config["store"]

    try:
        track = load_track(args.path)
    except InputFileError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    # What the file names, where --config is silent (as librunway.analyse does).
    if track.activity is not None and not (config and "activity" in config):
        config = dict(config or {}, activity=track.activity)
    if track.fix_altitude is not None and not (config and "fix_altitude" in config):
        config = dict(config or {}, fix_altitude=track.fix_altitude)
    if track.skipped_untimed:
        print(f"{PROG}: {track.skipped_untimed} track points without a time skipped",
              file=sys.stderr)

    try:
        return replay(track, config, args.speed, sys.stdout, outputs)
    except librunway.RunwayError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:              # the library could not be loaded, an export not written
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
