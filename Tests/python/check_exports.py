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
    lap_power     [avg, max, normalized] watts of each lap (None: unknown), a landed flight's
                  summary laps: the FIT laps' avg_power, max_power, normalized_power and the
                  TCX laps' LX AvgWatts, MaxWatts, in whole watts
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
import json
import sys
import xml.etree.ElementTree as ET

# The readers and what they share are in modules of their own beside this file (one per format);
# every name this module had is re-exported.
from check_exports_common import (CSV_HEADER, DISTANCE_TOLERANCE, FORMATS, GEODESIC, GPX_NS, TCX_NS,
                                  TPX_NS, WGS84_A, WGS84_F, ExportCheckError, check_distances, close,
                                  geodesic_m, parse_iso, path_lengths, require, vincenty_m, whole_watts)
from check_exports_csv import check_csv
from check_exports_fit import FIT_SPORT, check_fit
from check_exports_geojson import _no_constants, _position, check_geojson
from check_exports_gpx import check_gpx
from check_exports_tcx import TCX_LAP_ORDER, TCX_POINT_ORDER, TCX_SPORT, _in_order, check_tcx


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
    summary_laps = summary.get("laps") or []
    laps = len(summary_laps)
    extra = {}
    if landed and summary_laps:
        extra["lap_power"] = [[lap.get("avg_power_w"), lap.get("max_power_w"), lap.get("normalized_power_w")]
                              for lap in summary_laps]
    return {
        **extra,
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
