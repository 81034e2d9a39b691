"""What every export reader of check_exports.py shares: the formats' constants, the failure
(ExportCheckError, require), UTC times, and WGS84 geodesic lengths checked against the flight's.

check_exports.py re-exports every name here.
"""

from __future__ import annotations

import math
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


def whole_watts(w):
    """A figure in whole watts as the exports write it (rounded half away from zero, as Swift's
    ``rounded()``); ``None`` when unknown."""
    if w is None or w != w:
        return None
    return int(math.floor(w + 0.5)) if w >= 0 else -int(math.floor(-w + 0.5))


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
