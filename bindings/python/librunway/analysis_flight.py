"""A recording's flight as :func:`librunway.analyse` gives it: :class:`Flight`, its figures as
rows and DataFrames, its exports and its picture.

:mod:`librunway.analysis` (which makes flights) re-exports :class:`Flight`,
:data:`ROUTE_COLUMNS` and :data:`LAP_COLUMNS`.
"""

from __future__ import annotations

import bisect
import datetime
import math
import os
from collections.abc import Sequence
from typing import Any, Optional, Union

from .errors import RunwayError, _install_hint
from .recording import _start_replay, import_recording, split_report
from .route import RoutePoints
from .session import Session

#: Columns of :meth:`Flight.route_frame`, in order.
ROUTE_COLUMNS = ("time", "t", "lat", "lon", "alt_m", "distance_m", "elapsed_s", "speed_mps",
                 "pace_min_per_km", "altitude_m", "hr_bpm", "cadence_spm", "power_w", "lap",
                 "segment")
#: Columns of :meth:`Flight.laps_frame`, in order.
LAP_COLUMNS = ("lap", "trigger", "start", "end", "start_t", "end_t", "distance_m", "elapsed_s",
               "pace_min_per_km", "max_speed_mps", "avg_hr_bpm", "max_hr_bpm", "max_cadence_spm", "gain_m", "loss_m",
               "start_distance_m",
               "avg_power_w", "max_power_w", "normalized_power_w")

_POLL_EVERY = 2000            # inputs pushed between two drains of the event queue
_QUEUE_CAPACITY = 65536       # RUNWAY_MAX_QUEUE_CAPACITY: far more than _POLL_EVERY makes


#: The snapshot figures a route row takes: :meth:`Flight.route_rows` keeps only these of a replay.
_ROUTE_SNAPSHOT_KEYS = ("t", "distance_m", "elapsed_s", "ground_speed_mps", "pace_min_per_km",
                        "altitude_m", "hr_bpm", "cadence_spm", "power_w", "lap")


def _replay(lines: list[str], cfg: dict,
            keep: Optional[tuple[str, ...]] = None) -> tuple[dict, list[dict], list[dict], int]:
    """Replays the lines through a session as ``runway_analyse`` does (start at the first
    input's time unless a start line starts it, stop at the latest time seen), keeping its
    events and snapshots (of each snapshot only the ``keep`` keys, when given)."""
    snapshots: list[dict] = []
    events: list[dict] = []
    rejected = 0
    with Session(cfg) as s:
        with s.events(policy="queue", capacity=_QUEUE_CAPACITY) as sub:
            def drain(inputs: bool) -> None:
                for event in sub:
                    if event.get("kind") != "flight":
                        events.append(event)
                    elif inputs:           # not the snapshots of start() and stop()
                        snapshots.append(event if keep is None else {k: event.get(k) for k in keep})

            _start_replay(s, lines)
            drain(False)
            for i in range(0, len(lines), _POLL_EVERY):
                rejected += s.push_many(lines[i:i + _POLL_EVERY])[1]
                drain(True)
            s.stop()
            drain(False)
        summary = s.summary()
    return summary, events, snapshots, rejected


def _iso(t: Optional[float]) -> Optional[str]:
    if t is None:
        return None
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat()


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as e:
        raise ImportError("DataFrames need pandas: " + _install_hint("pandas", "pandas")) from e
    return pandas


class Flight:
    """A recording's flight, as :func:`analyse` gives it.

    Attributes:
        summary: the flight record (``Session.summary()``: distance, times, pace, heart rate,
            laps, route, ...; the README's JSON shapes).
        laps: ``summary["laps"]``: the auto laps (every ``auto_lap_m``, 1 km by default) and the
            final one, as dicts.
        route: ``summary["route"]``: ``[lat, lon, alt, t]`` per kept point (alt ``None`` when
            unknown). From :func:`analyse` with a library that has ``runway_analyse_route``, a
            :class:`librunway.RoutePoints` (the same object as ``summary["route"]``): a
            read-only sequence equal to that list of lists, whose points become lists only
            when read (``list(flight.route)`` for a plain list, e.g. for ``json``).
        events: the session's discrete events in order (``phase``, ``log``, ``split``,
            ``alert``; the README's shapes).
        snapshots: the ``flight`` events of the inputs, in order (the live figures:
            ``distance_m``, ``pace_min_per_km``, ``hr_bpm``, ...; one per processed input, and
            one more at each phase change the inputs cause, such as an auto-pause; not those of
            start and stop).
        report: the import report (format, sport, activity, counts of skipped points, the
            device's own totals), or ``None`` from a library whose import writes none.
        activity: the profile the session used (``"run"``, ``"ride"`` or ``"walk"``).
        format, name: the recording's format and path (``None`` for bytes).
        inputs, rejected: inputs pushed, and how many of them the engine refused.
    """

    def __init__(self, summary: dict, events: Optional[list[dict]],
                 snapshots: Optional[list[dict]], *, report: Optional[dict], format: str,
                 name: Optional[str], inputs: int, rejected: int, config: dict,
                 _lines: Optional[list[str]] = None, _data: Optional[bytes] = None,
                 _salvage: bool = False) -> None:
        self.summary = summary
        self.laps: list[dict] = list(summary.get("laps") or [])
        route = summary.get("route")
        self.route: Sequence[list[Any]] = (route if isinstance(route, RoutePoints)
                                           else list(route or []))
        self._events = events
        self._snapshots = snapshots
        self._data = _data
        self._salvage = _salvage
        self.report = report
        self.activity: Optional[str] = summary.get("activity")
        self.format = format
        self.name = name
        self.inputs = inputs
        self.rejected = rejected
        self.config = config
        self._lines = _lines
        self._exports: dict[str, bytes] = {}

    @property
    def events(self) -> list[dict]:
        """The session's discrete events (replayed on first use: :func:`analyse` reads the
        figures in one call, without them)."""
        if self._events is None:
            self._replay()
        return self._events or []

    @property
    def snapshots(self) -> list[dict]:
        """The ``flight`` events of the inputs (replayed on first use, as :attr:`events`)."""
        if self._snapshots is None:
            self._replay()
        return self._snapshots or []

    def _inputs(self) -> list[str]:
        if self._lines is None:
            if self._data is None:
                raise RunwayError("this Flight keeps no inputs to replay")
            self._lines = split_report(import_recording(self._data, self.format,
                                                        salvage=self._salvage))[0]
        return self._lines

    def _replay(self) -> None:
        _, self._events, self._snapshots, _ = _replay(self._inputs(), self.config)

    def __repr__(self) -> str:
        d = self.summary.get("distance_m")
        dist = f"{d / 1000:.2f} km" if isinstance(d, (int, float)) else "no distance"
        return (f"<Flight {self.name or self.format}: {self.activity}, {dist}, "
                f"{len(self.laps)} laps, {len(self.route)} route points>")

    # ---- exports ------------------------------------------------------------------------

    def export(self, format: str) -> bytes:
        """The flight as a ``gpx``, ``tcx``, ``fit``, ``geojson`` or ``csv`` file's bytes
        (:meth:`Session.export`). The recording is replayed again with the same config (the
        replay clock makes that the same flight), once per format."""
        fmt = str(format).lower()
        if fmt not in self._exports:
            lines = self._inputs()
            with Session(self.config) as s:
                _start_replay(s, lines)
                s.push_many(lines)
                s.stop()
                self._exports[fmt] = s.export(fmt)
        return self._exports[fmt]

    # ---- tables -------------------------------------------------------------------------

    def _lap_starts(self) -> list[float]:
        """Distance (m) at which each lap starts."""
        starts, at = [], 0.0
        for lap in self.laps:
            starts.append(at)
            at += float(lap.get("distance_m") or 0.0)
        return starts

    def route_rows(self) -> list[dict]:
        """One dict per route point (:data:`ROUTE_COLUMNS`): the point (``t``, ``lat``,
        ``lon``, ``alt_m`` as recorded) and the engine's live figures at that point's input
        (the ``flight`` snapshot of the last input at the point's time: ``distance_m`` so far, ``elapsed_s``, ``speed_mps`` and
        ``pace_min_per_km`` over the pace window, smoothed ``altitude_m``, ``hr_bpm``,
        ``cadence_spm``, ``power_w`` (the snapshot's: the mean of the power samples of the
        last 3 s, not the point's recorded value), ``lap`` number), and its ``segment``
        (0-based; a new one after each pause). Unknown values are ``None``.

        Unless :attr:`snapshots` were read before, the recording is replayed again for the
        figures it needs, which are not kept: a snapshot is some 7 KB of Python objects, and a
        10-hour ride's 36 000 of them would hold 270 MB in the Flight after its frame was dropped."""
        full = self._snapshots
        if full is None:
            _, events, full, _ = _replay(self._inputs(), self.config, keep=_ROUTE_SNAPSHOT_KEYS)
            if self._events is None:
                self._events = events
        snaps = [e for e in full if isinstance(e.get("t"), (int, float))]
        times = [e["t"] for e in snaps]
        seg_starts = list(self.summary.get("segment_starts") or [0])
        rows = []
        seg = 0
        for i, point in enumerate(self.route):
            lat, lon, alt, t = (list(point) + [None] * 4)[:4]
            power = point[4] if len(point) > 4 else None
            while seg + 1 < len(seg_starts) and i >= seg_starts[seg + 1]:
                seg += 1
            # The snapshot of the last input at the point's time (its fix, or a sample of
            # that time after it).
            j = bisect.bisect_right(times, t) - 1 if isinstance(t, (int, float)) else -1
            snap = snaps[j] if j >= 0 else {}
            if power is not None and isinstance(power, float) and math.isnan(power):
                power = None
            rows.append({
                "time": _iso(t), "t": t, "lat": lat, "lon": lon, "alt_m": alt,
                "distance_m": snap.get("distance_m"), "elapsed_s": snap.get("elapsed_s"),
                "speed_mps": snap.get("ground_speed_mps"),
                "pace_min_per_km": snap.get("pace_min_per_km"),
                "altitude_m": snap.get("altitude_m"), "hr_bpm": snap.get("hr_bpm"),
                "cadence_spm": snap.get("cadence_spm"),
                "power_w": power if power is not None else snap.get("power_w"),
                "lap": snap.get("lap"), "segment": seg,
            })
        return rows

    def route_frame(self) -> Any:
        """:meth:`route_rows` as a ``pandas.DataFrame`` (columns :data:`ROUTE_COLUMNS`;
        ``time`` a UTC ``datetime64``; unknown values NaN). Needs pandas (the ``pandas``
        extra)."""
        pd = _pandas()
        frame = pd.DataFrame(self.route_rows(), columns=list(ROUTE_COLUMNS))
        for c in ROUTE_COLUMNS:
            if c not in ("time", "lap", "segment"):
                frame[c] = pd.to_numeric(frame[c], errors="coerce").astype("float64")
        frame["time"] = pd.to_datetime(frame["t"], unit="s", utc=True)
        if frame.empty:  # (no route points: an indoor flight) the dtypes of a full frame
            frame = frame.astype({"lap": "int64", "segment": "int64"})
        return frame

    def lap_rows(self) -> list[dict]:
        """One dict per lap (:data:`LAP_COLUMNS`): its number, trigger (``auto``, ``manual`` or
        ``final``, the rest of the flight at stop; for a recording's device lap, what ended it on
        the device: ``manual``, ``time``, ``distance``, ``position_start``, ``position_lap``,
        ``position_waypoint``, ``position_marked``, ``session_end``, ``fitness_equipment`` or
        ``heart_rate``: docs/formats.md "Laps"), start and end (ISO 8601 UTC and unix seconds), distance, elapsed time,
        pace, maximum speed (of the speeds the flight's ``max_speed_mps`` is taken from), average
        and maximum heart rate, maximum cadence (over every sample the flight took in the lap;
        ``None`` without the sensor), gain and loss, the flight distance at its
        start, and its average, maximum and normalized power (the summary's lap figures; ``None``
        without a power meter)."""
        rows = []
        for lap, start in zip(self.laps, self._lap_starts()):
            rows.append({
                "lap": lap.get("index"), "trigger": lap.get("trigger"),
                "start": _iso(lap.get("start_t")), "end": _iso(lap.get("end_t")),
                "start_t": lap.get("start_t"), "end_t": lap.get("end_t"),
                "distance_m": lap.get("distance_m"), "elapsed_s": lap.get("elapsed_s"),
                "pace_min_per_km": lap.get("pace_min_per_km"), "max_speed_mps": lap.get("max_speed_mps"),
                "avg_hr_bpm": lap.get("avg_hr_bpm"), "max_hr_bpm": lap.get("max_hr_bpm"),
                "max_cadence_spm": lap.get("max_cadence_spm"), "gain_m": lap.get("gain_m"),
                "loss_m": lap.get("loss_m"), "start_distance_m": start,
                "avg_power_w": lap.get("avg_power_w"), "max_power_w": lap.get("max_power_w"),
                "normalized_power_w": lap.get("normalized_power_w"),
            })
        return rows

    def laps_frame(self) -> Any:
        """:meth:`lap_rows` as a ``pandas.DataFrame`` (columns :data:`LAP_COLUMNS`, ``start``
        and ``end`` UTC ``datetime64``). Needs pandas (the ``pandas`` extra)."""
        pd = _pandas()
        frame = pd.DataFrame(self.lap_rows(), columns=list(LAP_COLUMNS))
        frame["start"] = pd.to_datetime(frame["start_t"], unit="s", utc=True)
        frame["end"] = pd.to_datetime(frame["end_t"], unit="s", utc=True)
        for c in LAP_COLUMNS:
            if c not in ("lap", "trigger", "start", "end"):
                frame[c] = pd.to_numeric(frame[c], errors="coerce").astype("float64")
        return frame

    # ---- picture ------------------------------------------------------------------------

    def plot(self, path: Union[str, "os.PathLike[str]", None] = None, *,
             title: Optional[str] = None, dpi: int = 110) -> Any:
        """Draw the flight: the route coloured by pace (a map, north up, metres to scale), and
        below it elevation, pace and heart rate over distance, with the laps marked. Writes
        ``path`` (PNG, SVG or PDF by its extension) when given; returns the matplotlib
        ``Figure``. Needs matplotlib (the ``plot`` extra)."""
        from .plot import plot_flight
        return plot_flight(self, path, title=title, dpi=dpi)
