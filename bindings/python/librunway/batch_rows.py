"""One recording's row of a batch: :func:`analyse_file` and the columns it fills.

Part of :mod:`librunway.batch` (whose doc describes the rows), which re-exports
:func:`analyse_file`, :data:`COLUMNS`, :data:`DECIMALS` and :class:`RecordingError`.
"""

from __future__ import annotations

import datetime
import math
import os
from collections.abc import Mapping
from typing import Any, Optional

from .batch_find import EXTENSIONS, PathLike
from .errors import InputError, LibraryError, RunwayError
from .recording import (_read_recording_file, _start_replay, analyse_available, analyse_recording,
                        content_format, import_recording, split_report)
from .analysis import _add_file_settings
from .session import Session
from .sport import sniff_sport

#: The columns of a row, in order.
COLUMNS = ("file", "format", "sport", "activity", "start", "distance_m", "elapsed_s",
           "moving_s", "avg_pace_min_per_km", "avg_speed_mps", "max_speed_mps", "gain_m",
           "loss_m", "segments", "laps", "avg_hr_bpm", "max_hr_bpm", "avg_power_w",
           "max_power_w", "fixes", "filtered", "untimed", "rejected", "suggested_activity",
           "mismatch_refused", "device_distance_m", "device_ascent_m", "error")

#: Decimals each float column is rounded to: what the measurement supports (GPS positions
#: are good to metres, times to the recording's second or tenth, heart rate and power are
#: recorded in whole units, so their averages to a tenth).
DECIMALS = {"distance_m": 1, "elapsed_s": 1, "moving_s": 1, "avg_pace_min_per_km": 3,
            "avg_speed_mps": 2, "max_speed_mps": 2, "gain_m": 1, "loss_m": 1,
            "avg_hr_bpm": 1, "max_hr_bpm": 0, "avg_power_w": 1, "max_power_w": 0,
            "device_distance_m": 1, "device_ascent_m": 0}


#: How the ``error`` of a row begins when its file got no answer: the worker running it died, or
#: its task raised something that is not the file's fault (:mod:`librunway.batch`). Every other
#: error is the file's own (``"InputError: ..."``: a class name, which has no space).
WORKER_FAILED = "worker failed on this file: "


def worker_failed(row: Mapping[str, Any]) -> bool:
    """Whether `row` is a worker's failure, not the file's answer (the journal never keeps one:
    :mod:`librunway.batch_journal`)."""
    error = row.get("error")
    return isinstance(error, str) and error.startswith(WORKER_FAILED)


def _iso_utc(t: Optional[float]) -> Optional[str]:
    if t is None:
        return None
    ms = round(t * 1000)
    secs, ms = divmod(ms, 1000)
    stamp = datetime.datetime.fromtimestamp(secs, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{ms:03d}Z"   # (one format for every row: pandas reads a column of them)


class RecordingError(Exception):
    """A file that is not an analysable recording (the row's error says why)."""


def analyse_file(path: PathLike, config: Optional[Mapping[str, Any]] = None, *,
                 name: Optional[str] = None, salvage: bool = False) -> dict:
    """Analyse one recording in its own flight, return its row.

    The flight starts at the first input's time (or where a FIT file's start
    line says) and stops at the latest time it saw; ``config`` (a session
    config) applies to it, with ``activity`` from the file's sport unless
    ``config`` sets one. ``name`` is the row's ``file`` (default: ``path``).
    ``salvage``: read what a damaged file holds before the damage instead of
    making it an error row.
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
        os.lstat(path)              # a path that cannot be reached (gone, too long): why
        ext = os.path.splitext(os.fspath(path))[1].lower()
        fmt = EXTENSIONS.get(ext)
        if fmt is None:
            raise RecordingError(f"not a recording: {ext or 'no'} extension "
                                 "(expected .gpx, .tcx or .fit)")
        data = _read_recording_file(path, fmt)
        fmt = content_format(data) or fmt   # (what the file is, as the library's "auto" reads it)
        row["format"] = fmt
        if analyse_available():
            summary, report, rejected = _analyse_one(data, fmt, config, row, salvage)
        else:
            summary, report, rejected = _analyse_by_lines(data, fmt, config, row, salvage)
    except LibraryError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure on a file is that file's row
        row["error"] = f"{type(e).__name__}: {e}"
        return row
    filtered = summary.get("filtered")
    device = (report or {}).get("device") or {}
    mismatch = summary.get("profile_mismatch")
    mismatch = mismatch if isinstance(mismatch, dict) else {}
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
               suggested_activity=mismatch.get("suggested"),
               mismatch_refused=mismatch.get("refused"),
               device_distance_m=device.get("distance_m"), device_ascent_m=device.get("ascent_m"))
    return _rounded(row)


def _analyse_one(data: bytes, fmt: str, config: Optional[Mapping[str, Any]],
                 row: dict, salvage: bool = False) -> tuple[dict, Optional[dict], int]:
    """One ``runway_analyse`` call: the file straight into the engine."""
    cfg = dict(config or {})
    try:
        result = analyse_recording(data, fmt, cfg, route=False, salvage=salvage)
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
                      row: dict, salvage: bool = False) -> tuple[dict, Optional[dict], int]:
    """With a library that has no ``runway_analyse``: import, then replay the lines."""
    lines, report = split_report(import_recording(data, fmt, salvage=salvage))
    sport = report.get("sport") if report is not None else sniff_sport(data, fmt)  # (no report: an old import)
    row["sport"] = sport.strip().lower() if isinstance(sport, str) and sport.strip() else None
    cfg = dict(config or {})
    _add_file_settings(cfg, report, data, fmt)   # (what the file says, where the config is silent)
    cfg.setdefault("activity", "run")
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
