"""The GPX reader of check_exports.py (gpxpy); check_exports.py re-exports every name here."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from check_exports_common import GPX_NS, TPX_NS, check_distances, require


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
