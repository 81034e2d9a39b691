"""The GeoJSON reader of check_exports.py (json); check_exports.py re-exports every name here."""

from __future__ import annotations

import json

from check_exports_common import ExportCheckError, check_distances, close, parse_iso, require


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
