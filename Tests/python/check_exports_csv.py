"""The CSV reader of check_exports.py (csv); check_exports.py re-exports every name here."""

from __future__ import annotations

import csv
import io
import math

from check_exports_common import CSV_HEADER, check_distances, parse_iso, require


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
