"""Figures for whole archives of recordings, in parallel on Dask.

Each recording (``.gpx``, ``.tcx``, ``.fit``) is analysed in one library call
(:func:`librunway.analyse_recording`, ``runway_analyse``: the file read straight
into a flight of its own, started at its first input (or by a FIT file's start
line: its timer started before its first record), stopped at the latest time it
saw; with an older library, :func:`librunway.import_recording` and a
:class:`librunway.Session`) —
with the activity profile the file names (FIT sport, TCX ``Sport``, GPX
``<type>``; ``run`` when it names none). The result is one row per recording::

    from distributed import Client
    from librunway.batch import analyse, local_cluster

    if __name__ == "__main__":          # Dask starts workers by spawning: guard the script
        with local_cluster(2) as cluster, Client(cluster) as client:
            rows = analyse("archive/", client=client)   # or a glob: "archive/**/*.fit"
        print(rows[0]["distance_m"], rows[0]["error"])

``Client("tcp://host:8786")`` uses an existing cluster instead; without a
client (and none current) :func:`analyse` works through the files in this
process.

The command line does the same and writes a table::

    librunway batch archive/ more/ --workers 2 --out figures.csv    # a local cluster
    librunway batch /data/runs --scheduler tcp://host:8786 --out figures.parquet

(``python -m librunway batch`` and ``python -m librunway.batch`` are the same command.) A
progress bar on stderr shows the files done while the cluster works (on a terminal, or with
``--progress``).

Rows (:data:`COLUMNS`, in that order): ``file`` (the path as found), ``format``,
``sport`` (as the file names it, lower case, or ``None``), ``activity`` (the
profile used: ``run``, ``walk`` or ``ride``), ``start`` (ISO 8601 UTC),
``distance_m``, ``elapsed_s``, ``moving_s``, ``avg_pace_min_per_km``,
``avg_speed_mps``, ``max_speed_mps``, ``gain_m``, ``loss_m``, ``segments``
(recorded stretches: a pause starts a new one), ``laps``, ``avg_hr_bpm``,
``max_hr_bpm``, ``avg_power_w``, ``max_power_w`` (when the engine reports power),
``fixes`` (fixes the engine saw), ``filtered`` (fixes its filters set aside:
accuracy, null island, speed, repeated time), ``untimed`` (points of the file
with a position but no time, skipped by the import), ``rejected`` (inputs the
engine refused), ``device_distance_m`` and ``device_ascent_m`` (the totals the
file itself stores, FIT session or TCX laps; ``None`` when it has none) and
``error``. Figures are rounded to what the measurement supports (:data:`DECIMALS`:
0.1 m, 0.1 s, 0.01 m/s, 0.001 min/km, 0.1 bpm, 0.1 W; maxima of whole units as
recorded). ``untimed`` and the device columns come from the import report
(``None`` with a library whose import writes none).
A file that cannot be analysed — truncated, not a recording, no timed points,
no input accepted, not a regular file (a named pipe, a device), larger than the
import's 64 MiB (these two refused unread) — is a row whose ``error`` says why
(``"InputError: ..."``) and whose figures are ``None``; it never fails the job.

Dask (``dask``, ``distributed``) is an optional extra:
``pip install './bindings/python[batch]'``. ``import librunway`` never imports it,
and neither does this module until a cluster is used. Workers read the files
themselves (the paths must resolve on every worker: one machine, or a shared
filesystem) and load librunway like any other process: workers of
:func:`local_cluster` get ``RUNWAY_LIBRARY`` set to the library this process
loaded; workers of a remote cluster need the package installed and
``RUNWAY_LIBRARY`` set (or ``librunway.so`` shipped inside the package).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import glob
import json
import math
import os
import sys
import time
import xml.parsers.expat
from collections.abc import Iterable, Mapping
from typing import Any, Optional, Union

from . import _lib
from .errors import InputError, LibraryError, RunwayError
from .recording import (_read_recording_file, _start_replay, analyse_available, analyse_recording,
                        import_recording, split_report)
from .session import Session

__all__ = ["analyse", "analyse_file", "find_recordings", "local_cluster", "sniff_sport",
           "activity_for", "write_csv", "write_parquet", "main", "COLUMNS", "EXTENSIONS"]

#: The columns of a row, in order.
COLUMNS = ("file", "format", "sport", "activity", "start", "distance_m", "elapsed_s",
           "moving_s", "avg_pace_min_per_km", "avg_speed_mps", "max_speed_mps", "gain_m",
           "loss_m", "segments", "laps", "avg_hr_bpm", "max_hr_bpm", "avg_power_w",
           "max_power_w", "fixes", "filtered", "untimed", "rejected", "device_distance_m",
           "device_ascent_m", "error")

#: Decimals each float column is rounded to: what the measurement supports (GPS positions
#: are good to metres, times to the recording's second or tenth, heart rate and power are
#: recorded in whole units, so their averages to a tenth).
DECIMALS = {"distance_m": 1, "elapsed_s": 1, "moving_s": 1, "avg_pace_min_per_km": 3,
            "avg_speed_mps": 2, "max_speed_mps": 2, "gain_m": 1, "loss_m": 1,
            "avg_hr_bpm": 1, "max_hr_bpm": 0, "avg_power_w": 1, "max_power_w": 0,
            "device_distance_m": 1, "device_ascent_m": 0}

#: File name endings read as recordings when a directory or a glob is scanned.
EXTENSIONS = {".gpx": "gpx", ".tcx": "tcx", ".fit": "fit"}

#: Session config keys a batch refuses: a replay needs the replay clock, and
#: thousands of concurrent sessions must not journal into one store.
_REFUSED_CONFIG = {"clock": "recordings are replayed (replay clock) only",
                   "store": "a batch does not journal flights to a store"}

#: Input bytes per task (about), and tasks per worker thread at least: recordings are
#: small (milliseconds each), so one task per file would be mostly scheduling overhead;
#: tasks of many files (a tenth of a second or so) keep that small while balancing the load.
CHUNK_BYTES = 2 << 20
CHUNKS_PER_THREAD = 4

PathLike = Union[str, "os.PathLike[str]"]


# ---- finding recordings ---------------------------------------------------------------------

def _is_recording_name(name: str) -> bool:
    return os.path.splitext(name)[1].lower() in EXTENSIONS


def _scan(folder: str) -> list[str]:
    """Recordings under `folder`, recursively, sorted; hidden files and folders skipped; a
    folder that cannot be listed in their place (its row says why)."""
    found = []

    def unlisted(error: OSError) -> None:   # os.walk would skip it without a word
        found.append(error.filename)

    for root, dirs, files in os.walk(folder, onerror=unlisted):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [os.path.join(root, f) for f in sorted(files)
                  if not f.startswith(".") and _is_recording_name(f)]
    return found


def find_recordings(paths_or_glob: PathLike | Iterable[PathLike]) -> list[str]:
    """The recordings named by a path, a glob, or a list of them, in order.

    A directory is searched recursively for ``.gpx``, ``.tcx`` and ``.fit``
    files (any case; names starting with ``.`` skipped; a folder that cannot be
    listed is listed itself, for its row to say why); a glob (``*``,
    ``?``, ``[``; ``**`` recurses) contributes the recordings it matches (and
    those under directories it matches); a file is taken whatever its name
    (one that is not a recording gives an error row). Each argument's files
    are sorted; a file named twice is listed once.

    Raises:
        FileNotFoundError: a path that is not a glob does not exist.
    """
    if isinstance(paths_or_glob, (str, os.PathLike)):
        args = [paths_or_glob]
    else:
        args = list(paths_or_glob)
    out: list[str] = []
    seen: set[str] = set()
    for arg in args:
        s = os.fspath(arg)
        if os.path.isdir(s):
            names = _scan(s)
        elif os.path.isfile(s):
            names = [s]
        elif glob.has_magic(s):
            names = []
            for match in sorted(glob.glob(s, recursive=True)):
                if os.path.isdir(match):
                    names += _scan(match)
                elif _is_recording_name(match):
                    names.append(match)
        else:
            raise FileNotFoundError(2, "No such file or directory", s)
        for name in names:
            key = os.path.abspath(name)
            if key not in seen:
                seen.add(key)
                out.append(name)
    return out


# ---- the sport a file names -------------------------------------------------------------------

#: FIT profile `sport` enum (Garmin FIT SDK, Profile.xlsx).
_FIT_SPORTS = (
    "generic", "running", "cycling", "transition", "fitness_equipment", "swimming", "basketball",
    "soccer", "tennis", "american_football", "training", "walking", "cross_country_skiing",
    "alpine_skiing", "snowboarding", "rowing", "mountaineering", "hiking", "multisport",
    "paddling", "flying", "e_biking", "motorcycling", "boating", "driving", "golf",
    "hang_gliding", "horseback_riding", "hunting", "fishing", "inline_skating", "rock_climbing",
    "sailing", "ice_skating", "sky_diving", "snowshoeing", "snowmobiling",
    "stand_up_paddleboarding", "surfing", "wakeboarding", "water_skiing", "kayaking", "rafting",
    "windsurfing", "kitesurfing", "tactical", "jumpmaster", "boxing", "floor_climbing",
    "baseball", None, None, None, "diving", None, None, "shooting", None, "winter_sport",
    "grinding", None, None, "hiit", "video_gaming", "racket", "wheelchair_push_walk",
    "wheelchair_push_run", "meditation", "para_sport", "disc_golf", "team_sport", "cricket",
    "rugby", "hockey", "lacrosse", "volleyball", "water_tubing", "wakesurfing", "water_sport",
    "archery")

#: FIT messages that carry the sport: global message number -> (field number, rank; lower wins).
_FIT_SPORT_FIELDS = {18: (5, 0),   # session.sport
                     12: (0, 1),   # sport.sport
                     19: (25, 2)}  # lap.sport


def _fit_sport(data: bytes) -> Optional[str]:
    """The sport of a FIT file's first session (else its sport or lap message),
    walking the records without decoding them; None if it names none or is
    not readable (the import then says why)."""
    n = len(data)
    if n < 12 or data[8:12] != b".FIT" or data[0] < 12:
        return None
    pos = data[0]
    end = min(n, pos + int.from_bytes(data[4:8], "little"))
    defs: dict[int, tuple[int, int, int]] = {}  # local type -> (record size, sport offset, rank)
    best: tuple[int, int] | None = None          # (rank, value)
    while pos < end:
        header = data[pos]
        pos += 1
        if header & 0x80:                        # compressed timestamp header: a data record
            local = (header >> 5) & 0x03
        elif header & 0x40:                      # definition record
            if pos + 5 > end:
                break
            big_endian = data[pos + 1] == 1
            number = int.from_bytes(data[pos + 2:pos + 4], "big" if big_endian else "little")
            nfields = data[pos + 4]
            pos += 5
            want = _FIT_SPORT_FIELDS.get(number)
            size, offset = 0, -1
            for _ in range(nfields):
                if pos + 3 > end:
                    return _fit_sport_name(best)
                if want and data[pos] == want[0] and data[pos + 1] >= 1:
                    offset = size
                size += data[pos + 1]
                pos += 3
            if header & 0x20:                    # developer fields
                if pos >= end:
                    break
                ndev = data[pos]
                pos += 1
                for _ in range(ndev):
                    if pos + 3 > end:
                        return _fit_sport_name(best)
                    size += data[pos + 1]
                    pos += 3
            defs[header & 0x0F] = (size, offset, want[1] if want and offset >= 0 else -1)
            continue
        else:                                    # normal header: a data record
            local = header & 0x0F
        d = defs.get(local)
        if d is None:
            break
        size, offset, rank = d
        if rank >= 0 and pos + offset < end:
            value = data[pos + offset]
            if value != 0xFF and (best is None or rank < best[0]):
                best = (rank, value)
                if rank == 0:
                    break
        pos += size
    return _fit_sport_name(best)


def _fit_sport_name(best: tuple[int, int] | None) -> Optional[str]:
    if best is None:
        return None
    value = best[1]
    name = _FIT_SPORTS[value] if value < len(_FIT_SPORTS) else None
    return name or f"fit sport {value}"


class _Found(Exception):
    def __init__(self, value: Optional[str]) -> None:
        super().__init__(value)
        self.value = value


def _xml_sport(data: bytes, fmt: str) -> Optional[str]:
    """GPX: the first track's ``<type>``; TCX: the first activity's ``Sport``.
    Parses only up to there (expat; a DTD stops it: the import refuses those)."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator="}")
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[str] = []
    text: list[str] = []
    collecting = False

    def local(name: str) -> str:
        return name.rsplit("}", 1)[-1]

    def doctype(*_: Any) -> None:
        raise _Found(None)

    def start(name: str, attrs: dict) -> None:
        nonlocal collecting
        tag = local(name)
        if fmt == "tcx":
            if tag == "Activity":
                sport = next((v for k, v in attrs.items() if local(k) == "Sport"), None)
                raise _Found(sport)
            if tag in ("Lap", "Trackpoint"):
                raise _Found(None)
        else:
            if tag == "type" and stack and stack[-1] == "trk":
                collecting = True
            elif tag in ("trkseg", "trkpt"):
                raise _Found(None)
        stack.append(tag)

    def end(name: str) -> None:
        tag = local(name)
        if stack:
            stack.pop()
        if collecting and tag == "type":
            raise _Found("".join(text))
        if tag == "trk":
            raise _Found(None)

    def chars(s: str) -> None:
        if collecting:
            text.append(s)

    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        for i in range(0, len(data), 1 << 16):
            parser.Parse(data[i:i + (1 << 16)], False)
        parser.Parse(b"", True)
    except _Found as found:
        return found.value
    except xml.parsers.expat.ExpatError:
        return None
    return None


def sniff_sport(data: bytes, fmt: str) -> Optional[str]:
    """The sport a recording's file names, lower case: FIT ``sport`` of the
    session (e.g. ``"cycling"``), TCX ``Activity Sport`` (``"running"``,
    ``"biking"``, ``"other"``), GPX ``trk/type`` (free text, e.g.
    ``"running"``); ``None`` when it names none or cannot be read."""
    sport = _fit_sport(data) if fmt == "fit" else _xml_sport(data, fmt)
    sport = sport.strip().lower() if sport else None
    return sport or None


_RIDE_WORDS = ("cycl", "bik", "ride")
_WALK_WORDS = ("walk", "hik", "mountaineer", "snowshoe", "trek")


def activity_for(sport: Optional[str]) -> str:
    """The session profile for a sport: ``"ride"`` (cycling, biking, e-biking,
    ...), ``"walk"`` (walking, hiking, mountaineering, snowshoeing) or
    ``"run"`` (running and everything else, including no sport)."""
    s = (sport or "").lower()
    if any(w in s for w in _RIDE_WORDS):
        return "ride"
    if any(w in s for w in _WALK_WORDS):
        return "walk"
    return "run"


# ---- one recording ----------------------------------------------------------------------------

def _iso_utc(t: Optional[float]) -> Optional[str]:
    if t is None:
        return None
    ms = round(t * 1000)
    secs, ms = divmod(ms, 1000)
    stamp = datetime.datetime.fromtimestamp(secs, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{ms:03d}Z" if ms else f"{stamp}Z"


class RecordingError(Exception):
    """A file that is not an analysable recording (the row's error says why)."""


def analyse_file(path: PathLike, config: Optional[Mapping[str, Any]] = None, *,
                 name: Optional[str] = None) -> dict:
    """Analyse one recording in its own flight, return its row.

    The flight starts at the first input's time (or where a FIT file's start
    line says) and stops at the latest time it saw; ``config`` (a session
    config) applies to it, with ``activity`` from the file's sport unless
    ``config`` sets one. ``name`` is the row's ``file`` (default: ``path``).
    Never raises for a bad file: the row's ``error`` says what went wrong.
    Raises only :class:`librunway.LibraryError` (no usable librunway: not the
    file's fault).
    """
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row["file"] = os.fspath(path) if name is None else name
    try:
        if os.path.isdir(path):     # a folder find_recordings could not list: why
            with os.scandir(path):
                raise RecordingError("a folder, not a recording")
        ext = os.path.splitext(os.fspath(path))[1].lower()
        fmt = EXTENSIONS.get(ext)
        if fmt is None:
            raise RecordingError(f"not a recording: {ext or 'no'} extension "
                                 "(expected .gpx, .tcx or .fit)")
        row["format"] = fmt
        data = _read_recording_file(path, fmt)
        if analyse_available():
            summary, report, rejected = _analyse_one(data, fmt, config, row)
        else:
            summary, report, rejected = _analyse_by_lines(data, fmt, config, row)
    except LibraryError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure on a file is that file's row
        row["error"] = f"{type(e).__name__}: {e}"
        return row
    filtered = summary.get("filtered")
    device = (report or {}).get("device") or {}
    row.update(start=_iso_utc(summary.get("start_t")), distance_m=summary.get("distance_m"),
               elapsed_s=summary.get("elapsed_s"), moving_s=summary.get("moving_s"),
               avg_pace_min_per_km=summary.get("avg_pace_min_per_km"),
               avg_speed_mps=summary.get("avg_speed_mps"),
               max_speed_mps=summary.get("max_speed_mps"),
               gain_m=summary.get("gain_m"), loss_m=summary.get("loss_m"),
               segments=summary.get("segments"),
               laps=len(summary.get("laps") or ()), avg_hr_bpm=summary.get("avg_hr_bpm"),
               max_hr_bpm=summary.get("max_hr_bpm"), avg_power_w=summary.get("avg_power_w"),
               max_power_w=summary.get("max_power_w"), fixes=summary.get("fixes"),
               filtered=(sum(v for v in filtered.values() if isinstance(v, int))
                         if isinstance(filtered, dict) else filtered),
               untimed=(report or {}).get("untimed"), rejected=rejected,
               device_distance_m=device.get("distance_m"), device_ascent_m=device.get("ascent_m"))
    return _rounded(row)


def _analyse_one(data: bytes, fmt: str, config: Optional[Mapping[str, Any]],
                 row: dict) -> tuple[dict, Optional[dict], int]:
    """One ``runway_analyse`` call: the file straight into the engine."""
    cfg = dict(config or {})
    try:
        result = analyse_recording(data, fmt, cfg, route=False)
    except InputError as e:
        if str(e) == "no timed points":
            raise RecordingError("no timed points") from None
        raise
    report = result.get("report")
    sport = (report or {}).get("sport")
    row["sport"] = sport.strip().lower() if isinstance(sport, str) and sport.strip() else None
    row["activity"] = cfg.get("activity") or (report or {}).get("activity") or "run"
    accepted, rejected = result["accepted"], result["rejected"]
    if accepted == 0:
        first = result.get("first_rejection") or {}
        raise RecordingError(f"no input accepted ({rejected} rejected; the first: InputError: "
                             f"line {first.get('index')}: {first.get('message')} "
                             f"({rejected} of {result['inputs']} lines rejected))")
    return result["summary"], report, rejected


def _analyse_by_lines(data: bytes, fmt: str, config: Optional[Mapping[str, Any]],
                      row: dict) -> tuple[dict, Optional[dict], int]:
    """With a library that has no ``runway_analyse``: import, then replay the lines."""
    lines, report = split_report(import_recording(data, fmt))
    if report is not None:
        sport, activity = report.get("sport"), report.get("activity") or "run"
    else:                       # a library whose import writes no report
        sport = sniff_sport(data, fmt)
        activity = activity_for(sport)
    row["sport"] = sport.strip().lower() if isinstance(sport, str) and sport.strip() else None
    cfg = dict(config or {})
    cfg.setdefault("activity", activity)
    row["activity"] = cfg["activity"]
    if not lines:
        raise RecordingError("no timed points")
    with Session(cfg) as s:
        _start_replay(s, lines)
        try:
            accepted, rejected = s.push_many(lines, strict=True)
        except RunwayError as e:
            accepted = getattr(e, "accepted", None)
            rejected = getattr(e, "rejected", None)
            if accepted is None:        # not about an input: re-raise
                raise
            if accepted == 0:
                raise RecordingError(f"no input accepted ({rejected} rejected; the first: "
                                     f"{type(e).__name__}: {e})") from e
        s.stop()
        summary = s.summary()
    return summary, report, rejected


def _rounded(row: dict) -> dict:
    """Floats rounded to :data:`DECIMALS` (NaN and infinities, which JSON never carries, stay
    as they are)."""
    for column, places in DECIMALS.items():
        v = row.get(column)
        if isinstance(v, float) and math.isfinite(v):
            row[column] = float(round(v, places))
    return row


def _analyse_chunk(items: list[tuple[str, str]], config: Optional[dict]) -> list[dict]:
    """The task a worker runs: rows of (path, name) items, in order."""
    return [analyse_file(path, config, name=name) for path, name in items]


# ---- many recordings --------------------------------------------------------------------------

def _check_config(config: Optional[Mapping[str, Any] | str]) -> Optional[dict]:
    if config is None:
        return None
    if isinstance(config, (str, bytes)):
        config = json.loads(config)
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a session config), not {type(config).__name__}")
    config = dict(config)
    for key, why in _REFUSED_CONFIG.items():
        if key in config and not (key == "clock" and config[key] == "replay"):
            raise ValueError(f"config {key!r}: {why}")
    try:                            # the library judges the rest; once here, not per file
        Session(config).close()
    except LibraryError:
        pass                        # none here (a remote cluster's workers have it)
    return config


def _default_client() -> Any:
    """The Dask client this process made current (Client(...) does), else None."""
    if "distributed" not in sys.modules:
        return None
    from distributed import default_client
    try:
        return default_client()
    except ValueError:
        return None


def _chunks(items: list[tuple[str, str]], threads: int) -> list[list[int]]:
    """Indices of consecutive items cut into tasks of about equal input bytes: at
    least CHUNKS_PER_THREAD tasks per worker thread, at most about CHUNK_BYTES a
    task, and a multiple of the threads in number (so that no thread is left with
    one more task than the others at the end); never more tasks than files."""
    sizes = []
    for path, _ in items:
        try:
            sizes.append(max(1, os.path.getsize(path)))
        except OSError:
            sizes.append(1)
    if not sizes:
        return []
    threads = max(1, threads)
    total = sum(sizes)
    n = max(CHUNKS_PER_THREAD * threads, -(-total // CHUNK_BYTES))
    n = min(len(sizes), -(-n // threads) * threads)
    bound = total / n
    chunks: list[list[int]] = []
    current: list[int] = []
    held = 0
    for j, size in enumerate(sizes):
        current.append(j)
        held += size
        if held >= bound * (len(chunks) + 1) and len(chunks) < n - 1:
            chunks.append(current)
            current = []
    if current:
        chunks.append(current)
    return chunks


def _run_on(client: Any, items: list[tuple[str, str]], config: Optional[dict],
            progress: bool) -> list[dict]:
    """Rows of (path, name) `items`, in order, computed by `client`'s workers
    (``client.map`` of tasks of files, ``client.gather``)."""
    rows: list[Optional[dict]] = [None] * len(items)
    chunks = _chunks(items, sum(client.nthreads().values()))
    key = "runway-batch"
    while chunks:
        futures = client.map(_analyse_chunk, [[items[j] for j in c] for c in chunks],
                             config=config, key=key, pure=False)
        if progress:   # a bar on stderr, until every task is done
            _progress_bar(futures, [len(c) for c in chunks], len(items))
            progress = False
        results = iter(client.gather(futures, errors="skip"))   # all done; failed ones left out
        retry: list[list[int]] = []
        for chunk, future in zip(chunks, futures):
            if future.status == "finished":
                for j, row in zip(chunk, next(results)):
                    rows[j] = row
            elif future.status != "error":        # cancelled: the cluster went away
                raise RuntimeError(f"librunway.batch: a task was {future.status} (cluster lost?)")
            elif isinstance(future.exception(), LibraryError):
                raise future.exception()          # a worker without librunway: not the file's fault
            elif len(chunk) > 1:                  # a worker died (or a bug): find the file alone
                retry += [[j] for j in chunk]
            else:
                rows[chunk[0]] = _failed_row(items[chunk[0]], future.exception())
        chunks, key = retry, "runway-batch-single"
        del futures
    return rows  # type: ignore[return-value]


def _progress_bar(futures: list[Any], sizes: list[int], total: int, out: Any = None,
                  width: int = 30) -> None:
    """Draw ``[#####-----]  120/840 files  14%`` on ``out`` (stderr) as tasks finish (a task
    of ``sizes[i]`` files counts them all at once), then end the line."""
    out = out or sys.stderr
    done = 0

    def draw() -> None:
        filled = round(width * done / total) if total else width
        out.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {done:>{len(str(total))}}/{total} "
                  f"files {100 * done // max(total, 1):3d}%")
        out.flush()

    draw()
    pending = list(zip(futures, sizes))
    while pending:                  # polled: distributed.as_completed needs a default client
        time.sleep(0.05)
        finished = [f.done() for f, _ in pending]
        if any(finished):
            done += sum(n for (_, n), yes in zip(pending, finished) if yes)
            pending = [item for item, yes in zip(pending, finished) if not yes]
            draw()
    out.write("\n")
    out.flush()


def _failed_row(item: tuple[str, str], exc: BaseException) -> dict:
    row = dict.fromkeys(COLUMNS)
    row["file"] = item[1]
    row["format"] = EXTENSIONS.get(os.path.splitext(item[0])[1].lower())
    row["error"] = f"worker failed on this file: {type(exc).__name__}: {exc}"
    return row


def analyse(paths_or_glob: PathLike | Iterable[PathLike],
            config: Optional[Mapping[str, Any]] = None, client: Any = None, *,
            progress: bool = False) -> list[dict]:
    """Figures for every recording found, one row each (see the module's doc).

    Args:
        paths_or_glob: a directory (searched recursively), a file, a glob
            (``"runs/**/*.fit"``), or a list of them (:func:`find_recordings`).
        config: a session config for every recording (keys in
            docs/inputs.md), e.g. ``{"hr_max": 185}``; its ``activity``, if any,
            overrides the files' sports. ``clock`` and ``store`` are refused.
        client: a ``distributed.Client``: tasks of files run on its workers
            (``client.map`` + ``client.gather``). ``None``: the Dask client
            this process made current, if any; else every file is analysed
            here, one after another.
        progress: show Dask's progress bar (``distributed.progress``) while
            the cluster works.

    Returns:
        The rows in the order the files were found; the same figures
        whichever cluster (or none) computed them.

    Raises:
        FileNotFoundError: a path (not a glob) does not exist.
        librunway.ArgumentError: ``config`` is not a valid session config.
        librunway.LibraryError: no usable librunway (here or on a worker).
    """
    config = _check_config(config)
    items = [(os.path.abspath(p), p) for p in find_recordings(paths_or_glob)]
    if client is None:
        client = _default_client()
    if client is None:
        return [analyse_file(path, config, name=name) for path, name in items]
    return _run_on(client, items, config, progress)


def local_cluster(n_workers: Optional[int] = None, **kwargs: Any) -> Any:
    """A ``distributed.LocalCluster`` for :func:`analyse`: ``n_workers``
    processes (default: one per core) of one thread each, whose
    ``RUNWAY_LIBRARY`` is the library this process loaded (workers inherit
    the rest of the environment and ``sys.path``), without the workers'
    statistical profiler (it samples every thread every 10 ms, for the
    dashboard: about 5% of a worker here). ``kwargs`` go to
    ``LocalCluster``. Close it (or use ``with``) when done."""
    import dask
    from distributed import LocalCluster

    opts: dict[str, Any] = dict(n_workers=n_workers or os.cpu_count() or 1,
                                threads_per_worker=1, processes=True,
                                dashboard_address=":0",
                                env={_lib.LIBRARY_ENV: _lib.path()})
    opts.update(kwargs)
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        return LocalCluster(**opts)


# ---- writing the table ------------------------------------------------------------------------

def write_csv(rows: list[dict], out: Any) -> None:
    """Rows as CSV (header :data:`COLUMNS`; ``None`` is an empty cell; floats
    written exactly, as ``repr``). ``out`` is a path or a text file."""
    if isinstance(out, (str, os.PathLike)):
        with open(out, "w", newline="", encoding="utf-8") as f:
            write_csv(rows, f)
        return
    w = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)


_INT_COLUMNS = {"segments", "laps", "fixes", "filtered", "untimed", "rejected"}
_STR_COLUMNS = {"file", "format", "sport", "activity", "start", "error"}


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError as e:
        raise ImportError("writing Parquet needs pyarrow, which is not installed: "
                          "pip install pyarrow (or write CSV: --out figures.csv)") from e
    return pyarrow


def write_parquet(rows: list[dict], path: PathLike) -> None:
    """Rows as a Parquet file (needs ``pyarrow``: ImportError saying so
    without it). Strings, float64 figures, int64 counts; ``None`` is null."""
    pa = _pyarrow()
    schema = pa.schema([(c, pa.string() if c in _STR_COLUMNS else
                         pa.int64() if c in _INT_COLUMNS else pa.float64()) for c in COLUMNS])
    table = pa.Table.from_pylist([{c: r.get(c) for c in COLUMNS} for r in rows], schema=schema)
    pa.parquet.write_table(table, os.fspath(path))


# ---- command line -----------------------------------------------------------------------------

def _parser(prog: str = "librunway batch") -> argparse.ArgumentParser:
    from ._args import ArgumentParser

    p = ArgumentParser(
        prog=prog,
        description="Figures for every GPX/TCX/FIT recording under DIR (recursively), one row per "
                    "recording, computed on a Dask cluster: a local one (--workers) or an "
                    "existing one (--scheduler).")
    p.add_argument("paths", nargs="+", metavar="DIR",
                   help="a directory (searched recursively), a recording, or a quoted glob")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="connect to this Dask scheduler (e.g. tcp://host:8786) instead of starting "
                        "a local cluster; its workers need this package and RUNWAY_LIBRARY")
    p.add_argument("--workers", type=int, metavar="N",
                   help="worker processes of the local cluster (default: one per core)")
    p.add_argument("--out", metavar="FILE",
                   help="write the table to FILE.csv or FILE.parquet (needs pyarrow); "
                        "default: CSV on stdout")
    p.add_argument("--config", metavar="JSON",
                   help='session config for every recording, e.g. \'{"hr_max": 185}\'')
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr while the cluster works (default: when stderr "
                        "is a terminal)")
    return p


def main(argv: Optional[list[str]] = None, prog: str = "librunway batch") -> int:
    """``librunway batch DIR... [--scheduler ADDRESS] [--workers N]
    [--out figures.csv|.parquet] [--config JSON] [--progress]``. Returns the exit status:
    0 when the table was written (rows with errors included), 2 on a usage
    error, 1 when nothing was found, dask is missing or the library fails (one line on
    stderr)."""
    p = _parser(prog)
    args = p.parse_args(argv)
    if args.scheduler and args.workers is not None:
        p.error("--workers sizes the local cluster: not with --scheduler")
    if args.workers is not None and args.workers < 1:
        p.error("--workers must be at least 1")
    kind = "csv"
    if args.out:
        kind = os.path.splitext(args.out)[1].lower().lstrip(".")
        if kind not in ("csv", "parquet"):
            p.error(f"--out {args.out}: the name must end in .csv or .parquet")
        if kind == "parquet":
            try:
                _pyarrow()
            except ImportError as e:
                p.error(str(e))
    try:
        config = _check_config(args.config)
    except (ValueError, TypeError, RunwayError) as e:
        p.error(f"--config: {e}")
    try:
        import distributed
    except ImportError:
        print(f"{prog}: needs dask and distributed: pip install 'librunway[batch]' "
              "(or: pip install dask distributed)", file=sys.stderr)
        return 1
    try:
        items = [(os.path.abspath(f), f) for f in find_recordings(args.paths)]
    except FileNotFoundError as e:
        p.error(f"{e.filename}: no such file or directory")
    if not items:
        print(f"{prog}: no .gpx, .tcx or .fit files in {' '.join(args.paths)}", file=sys.stderr)
        return 1

    t_open = time.perf_counter()
    cluster = None
    if args.scheduler:
        client = distributed.Client(args.scheduler)
    else:
        cluster = local_cluster(args.workers)
        client = distributed.Client(cluster, set_as_default=False)
    try:
        t0 = time.perf_counter()
        workers = len(client.nthreads())
        show = sys.stderr.isatty() if args.progress is None else args.progress
        rows = _run_on(client, items, config, progress=show)
        took = time.perf_counter() - t0
    except LibraryError as e:
        print(f"{prog}: {e}".splitlines()[0], file=sys.stderr)
        return 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

    if not args.out:
        write_csv(rows, sys.stdout)
        sys.stdout.flush()
    elif kind == "parquet":
        write_parquet(rows, args.out)
    else:
        write_csv(rows, args.out)
    failed = sum(1 for r in rows if r["error"])
    some = f"{workers} worker{'s' if workers != 1 else ''}"
    where = (f"{some} at {args.scheduler}" if args.scheduler else
             f"a local cluster of {some}, started in {t0 - t_open:.1f} s")
    print(f"{prog}: {len(rows)} file{'s' if len(rows) != 1 else ''}, {failed} failed, "
          f"{len(rows) / took:.1f} recordings/s ({took:.2f} s on {where})"
          f"{' -> ' + args.out if args.out else ''}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    # Run the functions of the imported module librunway.batch, not of this __main__ copy: Dask
    # pickles functions by module and name, and workers import librunway.batch.
    from librunway.batch import main as _main
    sys.exit(_main(prog="python -m librunway.batch"))
