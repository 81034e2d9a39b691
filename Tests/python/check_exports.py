#!/usr/bin/env python3
"""Independent readers for librunway's exports (GPX, TCX, FIT, GeoJSON, CSV).

Each ``check_<format>(data, expect)`` reads an export with a tool that has nothing to do with
librunway -- gpxpy for GPX, Garmin's own FIT SDK (``garmin-fit-sdk``) for FIT, the standard
library's ``xml.etree``, ``json`` and ``csv`` for TCX, GeoJSON and CSV -- checks its shape,
compares it with what the flight says (``expect``), and returns the figures it read. A failed
check raises ``ExportCheckError`` (an ``AssertionError``) saying what is wrong.

``expect`` (every key optional) describes the flight::

    points        route points (GPX trkpt, TCX Trackpoint, FIT record with a position, CSV row;
                  a FIT record without one is a speed sensor's, only when sensor_distance_m > 0)
    segments      route segments (CSV segment numbers; a gap, a jump or a resume starts one)
    segment_sizes points per route segment (GeoJSON lines: segments of two or more points)
    legs          the flight's timer legs that have points (GPX trkseg: a break only where the
                  timer stopped and started again, never at a gap inside a leg)
    leg_sizes     points per leg (GPX trkseg sizes)
    leg_starts    the index of each leg's first point after the first leg's (a TCX Track starts
                  at each, and otherwise only at a Lap's first point)
    laps          laps in TCX and FIT (the finished laps, plus the lap in progress of a
                  flight still in the air; one lap over the flight when it has none)
    summary_laps  laps in the GeoJSON properties (the summary's laps), default ``laps``
    distance_m    the flight's distance (FIT session total_distance within 0.01 m; the sum of
                  the TCX / FIT laps)
    route_geodesic_m  the route's own WGS84 length within route segments: the GeoJSON and CSV
                  points' length must agree within 0.1%
    leg_geodesic_m  the route's length within timer legs: the GPX points' length must agree
                  within 0.1%
    filters       "off" (raw accumulation, no distance filter): the GPX points' length must then
                  also agree with distance_m within 0.1% (bridging the gaps when count_gaps, less
                  `uncounted_bridges_m`: the lines across pauses, which are no distance, and across
                  gaps a speed sensor measured, plus `sensor_distance_m`: what speed samples
                  measured where positions were silent)
    count_gaps    whether the distance counts the straight line across gaps (default true)
    activity      run / walk / ride
    hr            whether the flight has heart rate (GPX extensions, FIT records)

Distances are WGS84 geodesics (GeographicLib when installed, else Vincenty's inverse formula
below, which agrees with it to well under a millimetre for the short steps of a route). gpxpy's
own ``length_2d`` is reported for information only: it uses a flat-earth approximation that is
0.2-0.7% off.

Command line::

    python3 check_exports.py FILE FORMAT [--expect FLIGHT.expect.json]

prints the figures as JSON, or the failure on stderr with exit status 1.
"""

from __future__ import annotations

import bisect
import csv
import io
import json
import math
import sys
import warnings
import xml.etree.ElementTree as ET
from datetime import datetime

GPX_NS = "http://www.topografix.com/GPX/1/1"
TPX_NS = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
TCX_NS = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
CSV_HEADER = ["t", "time_iso", "lat", "lon", "alt_m", "distance_m", "speed_mps", "pace_min_per_km",
              "hr_bpm", "cadence_spm", "segment", "power_w"]
FORMATS = ("gpx", "tcx", "fit", "geojson", "csv")

#: Relative tolerance for distances read back from an export (the issue's 0.1%).
DISTANCE_TOLERANCE = 1e-3


class ExportCheckError(AssertionError):
    """An export is not what it should be."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise ExportCheckError(message)


# ---------------------------------------------------------------------------------------------
# WGS84 geodesics

WGS84_A = 6378137.0
WGS84_F = 1 / 298.257223563


def vincenty_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Vincenty's inverse formula on WGS84, metres (iterates to 1e-12 rad)."""
    if lat1 == lat2 and lon1 == lon2:
        return 0.0
    a, f = WGS84_A, WGS84_F
    b = a * (1 - f)
    dlon = math.radians(((lon2 - lon1 + 540.0) % 360.0) - 180.0)
    u1 = math.atan((1 - f) * math.tan(math.radians(lat1)))
    u2 = math.atan((1 - f) * math.tan(math.radians(lat2)))
    su1, cu1, su2, cu2 = math.sin(u1), math.cos(u1), math.sin(u2), math.cos(u2)
    lam = dlon
    for _ in range(200):
        sl, cl = math.sin(lam), math.cos(lam)
        ss = math.hypot(cu2 * sl, cu1 * su2 - su1 * cu2 * cl)
        if ss == 0:
            return 0.0
        cs = su1 * su2 + cu1 * cu2 * cl
        sigma = math.atan2(ss, cs)
        sa = cu1 * cu2 * sl / ss
        c2a = 1 - sa * sa
        c2sm = cs - 2 * su1 * su2 / c2a if c2a != 0 else 0.0
        c = f / 16 * c2a * (4 + f * (4 - 3 * c2a))
        prev = lam
        lam = dlon + (1 - c) * f * sa * (sigma + c * ss * (c2sm + c * cs * (-1 + 2 * c2sm * c2sm)))
        if abs(lam - prev) < 1e-12:
            break
    u2s = c2a * (a * a - b * b) / (b * b)
    big_a = 1 + u2s / 16384 * (4096 + u2s * (-768 + u2s * (320 - 175 * u2s)))
    big_b = u2s / 1024 * (256 + u2s * (-128 + u2s * (74 - 47 * u2s)))
    ds = big_b * ss * (c2sm + big_b / 4 * (cs * (-1 + 2 * c2sm * c2sm)
                                          - big_b / 6 * c2sm * (-3 + 4 * ss * ss) * (-3 + 4 * c2sm * c2sm)))
    return b * big_a * (sigma - ds)


try:  # GeographicLib (Karney), when installed, is the reference.
    from geographiclib.geodesic import Geodesic as _Geodesic

    def geodesic_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
        return _Geodesic.WGS84.Inverse(lat1, lon1, lat2, lon2, _Geodesic.DISTANCE)["s12"]

    GEODESIC = "geographiclib"
except ImportError:  # pragma: no cover - depends on the machine
    geodesic_m = vincenty_m
    GEODESIC = "vincenty"


def path_lengths(segments: list[list[tuple[float, float]]]) -> tuple[float, float]:
    """(length within segments, length bridging the gaps between them), metres."""
    within = bridged = 0.0
    prev = None
    for seg in segments:
        for k, (lat, lon) in enumerate(seg):
            if prev is not None:
                d = geodesic_m(prev[0], prev[1], lat, lon)
                bridged += d
                if k > 0:
                    within += d
            prev = (lat, lon)
    return within, bridged


def close(a: float, b: float, rel: float = DISTANCE_TOLERANCE, abs_m: float = 0.01) -> bool:
    return abs(a - b) <= max(abs_m, rel * abs(b))


def parse_iso(text: str) -> datetime:
    require(text.endswith("Z"), f"time {text!r} is not UTC with Z")
    return datetime.fromisoformat(text[:-1] + "+00:00")


def check_distances(segments: list[list[tuple[float, float]]], expect: dict, what: str,
                    within_key: str = "route_geodesic_m") -> dict:
    """The path's geodesic length within its pieces against the route's (`within_key`: within
    route segments, or within timer legs for GPX) and (raw flights) the flight's distance."""
    within, bridged = path_lengths(segments)
    out = {"geodesic_m": within, "geodesic_bridged_m": bridged, "geodesic_tool": GEODESIC}
    if within_key in expect:
        require(close(within, expect[within_key]),
                f"{what}: geodesic length {within:.3f} m vs the route's {expect[within_key]:.3f} m ({within_key})")
    if expect.get("filters") == "off" and "distance_m" in expect:
        length = ((bridged if expect.get("count_gaps", True) else within) - expect.get("uncounted_bridges_m", 0.0)
                  + expect.get("sensor_distance_m", 0.0))
        require(close(length, expect["distance_m"]),
                f"{what}: geodesic length {length:.3f} m vs the flight's distance {expect['distance_m']:.3f} m"
                " (raw accumulation: they must agree within 0.1%)")
        out["distance_error"] = (length - expect["distance_m"]) / expect["distance_m"] if expect["distance_m"] else 0.0
    return out


# ---------------------------------------------------------------------------------------------
# GPX: gpxpy


def check_gpx(data: bytes, expect: dict | None = None) -> dict:
    import gpxpy

    expect = expect or {}
    root = ET.fromstring(data)
    require(root.tag == f"{{{GPX_NS}}}gpx", f"root element {root.tag}")
    require(root.get("version") == "1.1", "GPX version is not 1.1")
    require(root.get("creator") == "librunway", "creator is not librunway")
    gpx = gpxpy.parse(data.decode("utf-8"))
    require(len(gpx.tracks) == 1, f"{len(gpx.tracks)} tracks, expected 1")
    segs = gpx.tracks[0].segments
    points = [p for s in segs for p in s.points]
    if "points" in expect:
        require(len(points) == expect["points"], f"{len(points)} trkpt, expected {expect['points']}")
    if "legs" in expect:
        require(len(segs) == expect["legs"], f"{len(segs)} trkseg, expected {expect['legs']} (one per timer leg)")
    if "leg_sizes" in expect:
        sizes = [len(s.points) for s in segs]
        require(sizes == expect["leg_sizes"], f"trkseg sizes {sizes}, expected the legs' {expect['leg_sizes']}")
    times = [p.time for p in points]
    require(all(t is not None and t.tzinfo is not None for t in times), "a trkpt without a UTC time")
    require(all(a <= b for a, b in zip(times, times[1:])), "trkpt times go backwards")
    require(all(-90 <= p.latitude <= 90 and -180 <= p.longitude <= 180 for p in points), "a position out of range")
    hr_points = 0
    for el in root.iter(f"{{{TPX_NS}}}TrackPointExtension"):
        hr = el.find(f"{{{TPX_NS}}}hr")
        if hr is not None:
            require(1 <= int(hr.text) <= 255, f"heart rate {hr.text}")
            hr_points += 1
    if expect.get("hr"):
        require(hr_points > 0, "no gpxtpx:hr although the flight has heart rate")
    elif expect.get("hr") is False:
        require(hr_points == 0, "gpxtpx:hr in a flight without heart rate")
    if "power_w" in expect:
        # gpxpy keeps each trkpt's <extensions> children: <power> is the watts.
        got = [next((float(e.text) for e in p.extensions if e.tag.rsplit("}", 1)[-1] == "power"), None) for p in points]
        require(got == expect["power_w"], f"GPX power {got[:5]}..., expected {expect['power_w'][:5]}...")
    out = {"tracks": 1, "segments": len(segs), "points": len(points), "hr_points": hr_points,
           "gpxpy_length_2d_m": gpx.length_2d()}
    out.update(check_distances([[(p.latitude, p.longitude) for p in s.points] for s in segs], expect, "GPX",
                               within_key="leg_geodesic_m"))
    return out


# ---------------------------------------------------------------------------------------------
# TCX: xml.etree against the schema's shape

TCX_LAP_ORDER = ["TotalTimeSeconds", "DistanceMeters", "MaximumSpeed", "Calories", "AverageHeartRateBpm",
                 "MaximumHeartRateBpm", "Intensity", "Cadence", "TriggerMethod", "Track", "Notes", "Extensions"]
TCX_POINT_ORDER = ["Time", "Position", "AltitudeMeters", "DistanceMeters", "HeartRateBpm", "Cadence",
                   "SensorState", "Extensions"]
TCX_SPORT = {"run": "Running", "ride": "Biking", "walk": "Other"}


def _in_order(names: list[str], order: list[str], what: str) -> None:
    ranks = []
    for n in names:
        require(n in order, f"{what}: unexpected element {n}")
        ranks.append(order.index(n))
    require(ranks == sorted(ranks), f"{what}: elements out of the schema's order: {names}")


def check_tcx(data: bytes, expect: dict | None = None) -> dict:
    expect = expect or {}
    ns = {"t": TCX_NS, "x": "http://www.garmin.com/xmlschemas/ActivityExtension/v2"}
    root = ET.fromstring(data)
    require(root.tag == f"{{{TCX_NS}}}TrainingCenterDatabase", f"root element {root.tag}")
    activities = root.findall("t:Activities/t:Activity", ns)
    require(len(activities) == 1, f"{len(activities)} activities, expected 1")
    act = activities[0]
    sport = act.get("Sport")
    require(sport in ("Running", "Biking", "Other"), f"Sport {sport}")
    if "power_w" in expect:
        x = "{http://www.garmin.com/xmlschemas/ActivityExtension/v2}"
        got = []
        for p in act.iter(f"{{{TCX_NS}}}Trackpoint"):
            w = p.find(f"{{{TCX_NS}}}Extensions/{x}TPX/{x}Watts")
            got.append(None if w is None else float(w.text))
        require(got == expect["power_w"], f"TCX Watts {got[:5]}..., expected {expect['power_w'][:5]}...")
    if "activity" in expect:
        require(sport == TCX_SPORT[expect["activity"]], f"Sport {sport} for a {expect['activity']}")
    ident = act.find("t:Id", ns)
    require(ident is not None, "no Id")
    start = parse_iso(ident.text)
    laps = act.findall("t:Lap", ns)
    require(len(laps) >= 1, "no Lap (the schema needs one)")
    if "laps" in expect:
        require(len(laps) == expect["laps"], f"{len(laps)} laps, expected {expect['laps']}")
    lap_distance = 0.0
    points = []   # the positioned trackpoints (the route's)
    times, distances, sensed = [], [], 0
    lap_starts = []
    track_firsts, lap_firsts = set(), set()   # the index of a Track's, a Lap's first positioned point
    for k, lap in enumerate(laps):
        what = f"lap {k + 1}"
        names = [c.tag.split("}")[1] for c in lap]
        _in_order(names, TCX_LAP_ORDER, what)
        for needed in ("TotalTimeSeconds", "DistanceMeters", "Calories", "Intensity", "TriggerMethod"):
            require(needed in names, f"{what}: no {needed}")
        lap_start = parse_iso(lap.get("StartTime"))
        require(lap_start >= start, f"{what} starts before the activity")
        lap_starts.append(lap_start)
        require(float(lap.find("t:TotalTimeSeconds", ns).text) >= 0, f"{what}: negative time")
        d = float(lap.find("t:DistanceMeters", ns).text)
        require(d >= 0, f"{what}: negative distance")
        lap_distance += d
        require(lap.find("t:Intensity", ns).text in ("Active", "Resting"), f"{what}: Intensity")
        require(lap.find("t:TriggerMethod", ns).text in ("Manual", "Distance", "Location", "Time", "HeartRate"),
                f"{what}: TriggerMethod")
        lap_first = len(points)
        for track in lap.findall("t:Track", ns):
            tps = track.findall("t:Trackpoint", ns)
            require(len(tps) >= 1, f"{what}: an empty Track")
            track_first = len(points)
            for tp in tps:
                _in_order([c.tag.split("}")[1] for c in tp], TCX_POINT_ORDER, f"{what} trackpoint")
                t = parse_iso(tp.find("t:Time", ns).text)
                if k > 0:
                    require(t >= lap_start, f"{what}: a trackpoint at {t} before the lap's start {lap_start}")
                times.append(t)
                dm = tp.find("t:DistanceMeters", ns)
                if dm is not None:
                    distances.append(float(dm.text))
                pos = tp.find("t:Position", ns)
                if pos is None:
                    # A speed sensor's point (where it measured the flight): its sample's speed
                    # and the flight's distance, no position.
                    speed = tp.find("t:Extensions/x:TPX/x:Speed", ns)
                    require(speed is not None and dm is not None, f"{what}: a trackpoint without a position has no speed or distance")
                    sensed += 1
                    continue
                lat = float(pos.find("t:LatitudeDegrees", ns).text)
                lon = float(pos.find("t:LongitudeDegrees", ns).text)
                require(-90 <= lat <= 90 and -180 <= lon <= 180, f"position {lat}, {lon}")
                points.append((t, lat, lon))
            if len(points) > track_first:
                track_firsts.add(track_first)
        if len(points) > lap_first:
            lap_firsts.add(lap_first)
    if "leg_starts" in expect:
        # A Track begins at each timer leg's first point and otherwise only with its Lap.
        legs = set(expect["leg_starts"])
        require(legs <= track_firsts, f"no Track starts at the legs' points {sorted(legs - track_firsts)}")
        stray = track_firsts - legs - lap_firsts
        require(not stray, f"a Track starts inside a Lap where the timer ran on (a gap is no pause), at points {sorted(stray)}")
    require(lap_starts == sorted(lap_starts), "laps out of order")
    require(all(a <= b for a, b in zip(times, times[1:])), "trackpoint times go backwards")
    require(all(a <= b + 1e-9 for a, b in zip(distances, distances[1:])), "trackpoint distance goes backwards")
    require(not sensed or expect.get("sensor_distance_m", 0.0) > 0 or "sensor_distance_m" not in expect,
            f"{sensed} trackpoints without a position, and no speed sample measured the flight")
    if "points" in expect:
        require(len(points) == expect["points"], f"{len(points)} trackpoints, expected {expect['points']}")
    if "distance_m" in expect:
        require(abs(lap_distance - expect["distance_m"]) <= 0.01 * len(laps) + 1e-6,
                f"laps add up to {lap_distance:.2f} m, the flight is {expect['distance_m']:.2f} m")
    return {"laps": len(laps), "trackpoints": len(points), "sensed_trackpoints": sensed, "lap_distance_m": lap_distance,
            "tracks": sum(len(lap.findall("t:Track", ns)) for lap in laps), "sport": sport}


# ---------------------------------------------------------------------------------------------
# FIT: Garmin's SDK

FIT_SPORT = {"run": "running", "ride": "cycling", "walk": "walking"}


def check_fit(data: bytes, expect: dict | None = None) -> dict:
    from garmin_fit_sdk import Decoder, Stream

    expect = expect or {}
    require(len(data) >= 16 and data[0] == 14 and data[8:12] == b".FIT", "not a FIT file with a 14-byte header")
    data_size = int.from_bytes(data[4:8], "little")
    require(14 + data_size + 2 == len(data), f"data size {data_size} does not match the {len(data)}-byte file")
    require(Decoder(Stream.from_byte_array(bytearray(data))).is_fit(), "the SDK says it is not FIT")
    require(Decoder(Stream.from_byte_array(bytearray(data))).check_integrity(), "the SDK's integrity check fails (CRC)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages, errors = Decoder(Stream.from_byte_array(bytearray(data))).read()
    require(errors == [], f"the SDK reports errors: {errors}")
    require(not caught, f"the SDK warns: {[str(w.message) for w in caught]}")
    for name in ("file_id_mesgs", "device_info_mesgs", "event_mesgs", "record_mesgs", "lap_mesgs",
                 "session_mesgs", "activity_mesgs"):
        require(name in messages or (name == "record_mesgs" and expect.get("points") == 0), f"no {name}")
    file_id = messages["file_id_mesgs"][0]
    require(file_id.get("type") == "activity", f"file_id type {file_id.get('type')}")
    events = messages["event_mesgs"]
    require(events[0].get("event") == "timer" and events[0].get("event_type") == "start", "no timer start event first")
    require(events[-1].get("event") == "timer" and events[-1].get("event_type") == "stop_all",
            "no timer stop_all event last")
    records = messages.get("record_mesgs", [])
    # A record without a position is a speed sensor's (where it measured the flight): its sample's
    # speed and the flight's distance; the others are the route's points.
    sensed = [r for r in records if r.get("position_lat") is None and r.get("position_long") is None]
    records_all, records = records, [r for r in records if not (r.get("position_lat") is None and r.get("position_long") is None)]
    laps = messages["lap_mesgs"]
    sessions = messages["session_mesgs"]
    # The timer as Garmin's tools derive it: the sum of the start -> stop_all intervals of the
    # timer events (whole seconds: each interval's ends are rounded down, < 1 s off per leg).
    timer_events = [(e.get("event_type"), e.get("timestamp")) for e in events if e.get("event") == "timer"]
    kinds = [k for k, _ in timer_events]
    require(kinds == ["start", "stop_all"] * (len(kinds) // 2), f"timer events are not start/stop_all pairs: {kinds}")
    stamps = [t for _, t in timer_events]
    timed = all(t is not None for t in stamps)   # a flight that never started has no times
    derived = sum((b - a).total_seconds() for a, b in zip(stamps[::2], stamps[1::2])) if timed else None
    timer = sessions[0].get("total_timer_time") if sessions else None
    if timer is not None and derived is not None:
        require(abs(derived - timer) < max(1, len(kinds) // 2),
                f"the timer events give {derived} s, the session's total_timer_time is {timer} s")
        moving, elapsed = sessions[0].get("total_moving_time"), sessions[0].get("total_elapsed_time")
        require(moving is None or moving <= timer + 1e-3, f"total_moving_time {moving} > total_timer_time {timer}")
        require(elapsed is None or timer <= elapsed + 1e-3, f"total_timer_time {timer} > total_elapsed_time {elapsed}")
    activity = messages["activity_mesgs"]
    require(len(sessions) == 1, f"{len(sessions)} sessions")
    require(len(activity) == 1 and activity[0].get("num_sessions") == 1, "activity: num_sessions is not 1")
    session = sessions[0]
    if "points" in expect:
        require(len(records) == expect["points"], f"{len(records)} records, expected {expect['points']}")
    if "power_w" in expect:
        got = [r.get("power") for r in records]
        require(got == expect["power_w"], f"FIT record power {got[:5]}..., expected {expect['power_w'][:5]}...")
    if "laps" in expect:
        require(len(laps) == expect["laps"], f"{len(laps)} laps, expected {expect['laps']}")
    require(session.get("num_laps") == len(laps), f"session num_laps {session.get('num_laps')} for {len(laps)} laps")
    total = session.get("total_distance")
    require(total is not None, "session without total_distance")
    if "distance_m" in expect:
        require(abs(total - expect["distance_m"]) <= 0.01 + 1e-9,
                f"session total_distance {total} m, the flight is {expect['distance_m']:.3f} m")
    lap_total = sum(lap.get("total_distance") or 0 for lap in laps)
    require(abs(lap_total - total) <= 0.01 * len(laps) + 0.011, f"laps add up to {lap_total} m, session {total} m")
    if "activity" in expect:
        require(session.get("sport") == FIT_SPORT[expect["activity"]], f"session sport {session.get('sport')}")
    require(not sensed or expect.get("sensor_distance_m", 0.0) > 0 or "sensor_distance_m" not in expect,
            f"{len(sensed)} records without a position, and no speed sample measured the flight")
    require(all(r.get("speed") is not None and r.get("distance") is not None for r in sensed),
            "a record without a position has no speed or distance")
    stamps = [r["timestamp"] for r in records_all]
    require(all(a <= b for a, b in zip(stamps, stamps[1:])), "record timestamps go backwards")
    semis = 180.0 / 2 ** 31
    path = [(r["position_lat"] * semis, r["position_long"] * semis) for r in records
            if r.get("position_lat") is not None and r.get("position_long") is not None]
    require(len(path) == len(records), "a record with half a position")
    if expect.get("hr"):
        require(any(r.get("heart_rate") is not None for r in records_all), "no record heart rate")
    elif expect.get("hr") is False:
        require(all(r.get("heart_rate") is None for r in records_all), "record heart rate in a flight without it")
    distances = [r.get("distance") for r in records_all if r.get("distance") is not None]
    require(all(a <= b + 1e-9 for a, b in zip(distances, distances[1:])), "record distance goes backwards")
    return {"records": len(records), "sensed_records": len(sensed), "laps": len(laps), "session_total_distance_m": total,
            "session_total_timer_time_s": session.get("total_timer_time"), "sport": session.get("sport"),
            "profile_version": Decoder(Stream.from_byte_array(bytearray(data))).read_file_header(True)
            .get_dict()["profile_version"]}


# ---------------------------------------------------------------------------------------------
# GeoJSON: json


def _no_constants(name: str):
    raise ExportCheckError(f"JSON constant {name} (NaN/Infinity are not JSON)")


def _position(p, what: str) -> tuple[float, float]:
    require(isinstance(p, list) and len(p) in (2, 3) and all(isinstance(v, (int, float)) for v in p),
            f"{what}: position {p!r}")
    lon, lat = p[0], p[1]
    require(-180 <= lon <= 180 and -90 <= lat <= 90, f"{what}: position {p!r} out of range (lon, lat order)")
    return lat, lon


def check_geojson(data: bytes, expect: dict | None = None) -> dict:
    expect = expect or {}
    doc = json.loads(data.decode("utf-8"), parse_constant=_no_constants)
    require(isinstance(doc, dict) and doc.get("type") == "Feature", "not a GeoJSON Feature")
    require("geometry" in doc and isinstance(doc.get("properties"), dict), "Feature without geometry or properties")
    geometry = doc["geometry"]
    sizes = expect.get("segment_sizes")
    lines_expected = [n for n in sizes if n >= 2] if sizes is not None else None
    if geometry is None:
        lines = []
        require(expect.get("points", 0) == 0, "null geometry for a route with points")
    else:
        kind = geometry.get("type")
        coords = geometry.get("coordinates")
        if kind == "LineString":
            lines = [coords]
        elif kind == "MultiLineString":
            lines = coords
            require(len(lines) >= 2, "a MultiLineString of one line should be a LineString")
        elif kind == "Point":
            lines = []
            _position(coords, "Point")
            require(expect.get("points", 1) >= 1, "a Point for an empty route")
        else:
            raise ExportCheckError(f"geometry type {kind}")
        for line in lines:
            require(isinstance(line, list) and len(line) >= 2, "a line of fewer than two positions")
        if lines_expected is not None:
            want = "LineString" if len(lines_expected) == 1 else "MultiLineString" if lines_expected else "Point or null"
            require(kind == want or (not lines_expected and kind == "Point"), f"geometry {kind}, expected {want}")
            require([len(line) for line in lines] == lines_expected,
                    f"line sizes {[len(line) for line in lines]}, expected {lines_expected}")
    path = [[_position(p, "coordinates") for p in line] for line in lines]
    props = doc["properties"]
    for key in ("flight_id", "activity", "start_time", "end_time", "distance_m", "elapsed_s", "moving_s",
                "avg_pace_min_per_km", "gain_m", "loss_m", "avg_hr_bpm", "max_hr_bpm", "laps"):
        require(key in props, f"properties without {key}")
    require(isinstance(props["laps"], list), "laps is not an array")
    if "distance_m" in expect:
        require(close(props["distance_m"], expect["distance_m"], rel=1e-9, abs_m=1e-6), "properties distance_m")
    want_laps = expect.get("summary_laps", expect.get("laps"))
    if want_laps is not None:
        require(len(props["laps"]) == want_laps, f"{len(props['laps'])} laps in properties, expected {want_laps}")
    if props["start_time"] is not None:
        parse_iso(props["start_time"])
    out = {"geometry": None if geometry is None else geometry["type"], "lines": len(lines),
           "positions": sum(len(line) for line in lines)}
    if lines_expected is not None and len(lines_expected) == len(sizes or []):
        out.update(check_distances(path, expect, "GeoJSON"))
    return out


# ---------------------------------------------------------------------------------------------
# CSV: csv


def check_csv(data: bytes, expect: dict | None = None) -> dict:
    expect = expect or {}
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    require(rows and rows[0] == CSV_HEADER, f"header {rows[0] if rows else None}")
    body = rows[1:]
    if "points" in expect:
        require(len(body) == expect["points"], f"{len(body)} rows, expected {expect['points']}")
    segments: list[list[tuple[float, float]]] = []
    last_segment = 0
    last_distance = -math.inf
    for n, row in enumerate(body, start=2):
        require(len(row) == len(CSV_HEADER), f"line {n}: {len(row)} cells")
        t = float(row[0])
        iso = parse_iso(row[1])
        require(abs(iso.timestamp() - t) < 0.0015, f"line {n}: t {t} and time_iso {row[1]} differ")
        lat, lon = float(row[2]), float(row[3])
        require(-90 <= lat <= 90 and -180 <= lon <= 180, f"line {n}: position")
        for k in (4, 5, 6, 7, 8, 9):
            if row[k] != "":
                v = float(row[k])
                require(math.isfinite(v), f"line {n}: {CSV_HEADER[k]} {row[k]}")
        if row[5] != "":
            require(float(row[5]) >= last_distance - 1e-9, f"line {n}: distance goes backwards")
            last_distance = float(row[5])
        seg = int(row[10])
        require(seg in (last_segment, last_segment + 1), f"line {n}: segment {seg} after {last_segment}")
        if seg != last_segment:
            segments.append([])
            last_segment = seg
        segments[-1].append((lat, lon))
    if "segments" in expect:
        require(len(segments) == expect["segments"], f"{len(segments)} segments, expected {expect['segments']}")
    if "power_w" in expect:
        got = [float(row[11]) if row[11] != "" else None for row in body]
        require(got == expect["power_w"], f"CSV power_w {got[:5]}..., expected {expect['power_w'][:5]}...")
    out = {"rows": len(body), "segments": len(segments)}
    out.update(check_distances(segments, expect, "CSV"))
    return out


CHECKS = {"gpx": check_gpx, "tcx": check_tcx, "fit": check_fit, "geojson": check_geojson, "csv": check_csv}


def check(data: bytes, fmt: str, expect: dict | None = None) -> dict:
    """Checks `data` as an export in `fmt` (gpx, tcx, fit, geojson, csv)."""
    require(fmt in CHECKS, f"unknown format {fmt}")
    if fmt != "fit":
        require(b"\x00" not in data, f"{fmt}: a NUL byte in a text export")
        data.decode("utf-8")
    return CHECKS[fmt](data, expect)


def expect_from_summary(summary: dict, *, filters: str = "on", count_gaps: bool = True,
                        activity: str | None = None, resumes: tuple[float, ...] = (),
                        sensed: tuple[float, ...] = ()) -> dict:
    """The `expect` figures of a flight from librunway's summary (``runway_summary_json``, with the
    route): the route's geodesic length computed here, from the route's own points. `resumes`:
    the times the flight's timer started again (a resume, or an auto-pause's end): each starts a
    timer leg, whose points (those at or after it, before the next) are one GPX trkseg; the line
    from a segment to the next across one is a pause's, no distance (a resume at a point's time
    comes before that point, as an import writes it: it is on the line to that point, not on the
    one leaving it). `sensed`: the times of speed samples; the line across a gap in which one
    came is the sensor's stretch (its distance is the summary's `sensor_distance_m`)."""
    route = summary.get("route") or []
    starts = [s for s in summary.get("segment_starts") or [0] if 0 <= s < len(route)] or [0]
    bounds = starts + [len(route)]
    segments = [[(p[0], p[1]) for p in route[a:b]] for a, b in zip(bounds, bounds[1:]) if b > a]
    within, bridged = path_lengths(segments)
    times = [p[3] for p in route]
    leg_starts = sorted({bisect.bisect_left(times, r) for r in resumes} - {0, len(route)})
    leg_bounds = [0] + leg_starts + [len(route)]
    legs = [[(p[0], p[1]) for p in route[a:b]] for a, b in zip(leg_bounds, leg_bounds[1:]) if b > a]
    uncounted = 0.0
    for b in bounds[1:-1]:
        last, first = route[b - 1], route[b]
        if any(last[3] < r <= first[3] for r in resumes) or any(last[3] < s < first[3] for s in sensed):
            uncounted += geodesic_m(last[0], last[1], first[0], first[1])
    landed = summary.get("phase") == "touchdown"
    laps = len(summary.get("laps") or [])
    return {
        "points": len(route),
        "segments": len(segments),
        "segment_sizes": [len(s) for s in segments],
        "legs": len(legs),
        "leg_sizes": [len(s) for s in legs],
        "leg_starts": leg_starts,
        "leg_geodesic_m": path_lengths(legs)[0],
        "laps": max(1, laps if landed else laps + 1),
        "summary_laps": laps,
        "distance_m": summary["distance_m"],
        "route_geodesic_m": within,
        "route_geodesic_bridged_m": bridged,
        "uncounted_bridges_m": uncounted,
        "sensor_distance_m": summary.get("sensor_distance_m", 0.0),
        "filters": filters,
        "count_gaps": count_gaps,
        "activity": activity or summary.get("activity", "run"),
        "hr": summary.get("avg_hr_bpm") is not None,
    }


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("format", choices=FORMATS)
    ap.add_argument("--expect", help="a JSON file of expected figures (see the module docstring)")
    args = ap.parse_args(argv)
    with open(args.file, "rb") as f:
        data = f.read()
    expect = None
    if args.expect:
        with open(args.expect, encoding="utf-8") as f:
            expect = json.load(f)
    try:
        figures = check(data, args.format, expect)
    except (ExportCheckError, ValueError, ET.ParseError) as e:
        print(f"{args.file}: {args.format} check failed: {e}", file=sys.stderr)
        return 1
    print(json.dumps(figures, default=str, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
