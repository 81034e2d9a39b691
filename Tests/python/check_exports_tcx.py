"""The TCX reader of check_exports.py (xml.etree against the schema's shape); check_exports.py
re-exports every name here."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from check_exports_common import TCX_NS, parse_iso, require, whole_watts

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
    if "lap_power" in expect:
        # Each lap's AvgWatts and MaxWatts (ActivityExtension v2's LX) are the engine's for the lap
        # (the summary's laps), in whole watts.
        got = []
        for lap in laps:
            lx = lap.find("t:Extensions/x:LX", ns)
            values = []
            for name in ("AvgWatts", "MaxWatts"):
                e = None if lx is None else lx.find(f"x:{name}", ns)
                values.append(None if e is None else int(e.text))
            if lx is not None:
                _in_order([c.tag.split("}")[1] for c in lx], ["AvgWatts", "MaxWatts"], "LX")
            got.append(values)
        want = [[whole_watts(w) for w in p[:2]] for p in expect["lap_power"]]
        require(got == want, f"TCX lap AvgWatts/MaxWatts {got[:3]}..., the summary's laps {want[:3]}...")
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
