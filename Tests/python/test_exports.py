"""Every export opens in an independent reader (check_exports.py): gpxpy for GPX, Garmin's FIT
SDK for FIT, the standard library for TCX, GeoJSON and CSV.

Two sources of exports, each skipped when absent:

* the library: ``Session.export(format)`` of the Python package (``runway_export`` in the C
  ABI) -- a run with a gap, laps, heart rate and cadence; a raw run whose distance the GPX must
  keep within 0.1%; and every real recording in ``../shared/tracks/fixes`` replayed with raw
  accumulation, exported, and read back with its distance preserved within 0.1%;
* files the Swift tests write: ``RUNWAY_EXPORT_DIR=DIR swift test --filter ExportTests`` writes
  each test flight's five exports and its ``NAME.expect.json``; then
  ``RUNWAY_EXPORT_DIR=DIR pytest Tests/python/test_exports.py`` checks them.

The readers need ``gpxpy`` and ``garmin-fit-sdk`` (``pip install gpxpy garmin-fit-sdk``;
GeographicLib is used for geodesics when installed, else Vincenty's formula).
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "bindings" / "python"))

import check_exports as ce  # noqa: E402

TRACKS = REPO.parent / "shared" / "tracks"
EXPORT_DIR = os.environ.get("RUNWAY_EXPORT_DIR") or ""
LIBRARY = Path(os.environ.get("RUNWAY_LIBRARY") or REPO / "build" / "librunway.so")
T0 = 1_700_000_000.5


@pytest.fixture(autouse=True)
def _readers():
    pytest.importorskip("gpxpy", reason="pip install gpxpy")
    pytest.importorskip("garmin_fit_sdk", reason="pip install garmin-fit-sdk")


# -- exports written by the Swift tests ------------------------------------------------------

def _swift_flights() -> list[str]:
    if not EXPORT_DIR or not os.path.isdir(EXPORT_DIR):
        return []
    return sorted(p.name[: -len(".expect.json")] for p in Path(EXPORT_DIR).glob("*.expect.json"))


SWIFT_FLIGHTS = _swift_flights()


@pytest.mark.skipif(not SWIFT_FLIGHTS, reason="no Swift exports: set RUNWAY_EXPORT_DIR and run "
                    "`swift test --filter ExportTests` with it first")
@pytest.mark.parametrize("fmt", ce.FORMATS)
@pytest.mark.parametrize("name", SWIFT_FLIGHTS or ["none"])
def test_a_swift_export_opens_in_the_independent_reader(name, fmt):
    expect = json.loads((Path(EXPORT_DIR) / f"{name}.expect.json").read_text())
    data = (Path(EXPORT_DIR) / f"{name}.{fmt}").read_bytes()
    figures = ce.check(data, fmt, expect)
    if fmt == "gpx" and expect.get("filters") == "off":
        assert abs(figures["distance_error"]) < ce.DISTANCE_TOLERANCE


@pytest.mark.skipif(not SWIFT_FLIGHTS, reason="no Swift exports (RUNWAY_EXPORT_DIR)")
def test_the_checks_catch_a_broken_export():
    flights = {n: json.loads((Path(EXPORT_DIR) / f"{n}.expect.json").read_text()) for n in SWIFT_FLIGHTS}
    name = next((n for n, e in flights.items() if e["points"] > 10), None)
    if name is None:
        pytest.skip("no Swift export with points")
    expect = flights[name]
    gpx = (Path(EXPORT_DIR) / f"{name}.gpx").read_text()
    first = gpx.index("<trkpt")
    without_point = gpx[:first] + gpx[gpx.index("</trkpt>", first) + len("</trkpt>"):]
    with pytest.raises(ce.ExportCheckError, match="trkpt"):
        ce.check(without_point.encode(), "gpx", expect)
    fit = bytearray((Path(EXPORT_DIR) / f"{name}.fit").read_bytes())
    fit[len(fit) // 2] ^= 0x10
    with pytest.raises(ce.ExportCheckError, match="integrity"):
        ce.check(bytes(fit), "fit", expect)
    # A trkseg break at a gap (a route segment inside a timer leg), which an import reads as a
    # pause, losing the gap's distance.
    split = next((n for n, e in flights.items() if e.get("legs") == 1 and e["segments"] > 1), None)
    if split is not None:
        gpx = (Path(EXPORT_DIR) / f"{split}.gpx").read_text()
        at = -1
        for _ in range(flights[split]["segment_sizes"][0] + 1):
            at = gpx.index("<trkpt", at + 1)
        broken = gpx[:at] + "</trkseg><trkseg>" + gpx[at:]
        with pytest.raises(ce.ExportCheckError, match="trkseg"):
            ce.check(broken.encode(), "gpx", flights[split])
    moved = dict(expect, route_geodesic_m=expect["route_geodesic_m"] * 1.002)
    with pytest.raises(ce.ExportCheckError, match="geodesic"):
        ce.check((Path(EXPORT_DIR) / f"{name}.csv").read_bytes(), "csv", moved)


# -- the checks themselves -------------------------------------------------------------------

def test_vincenty_agrees_with_geographiclib():
    geodesic = pytest.importorskip("geographiclib.geodesic").Geodesic
    for lat1, lon1, lat2, lon2 in [(52.37, 4.89, 52.3712, 4.8931), (-33.87, 151.21, -33.869, 151.2135),
                                   (-16.5, 179.9995, -16.5004, -179.9991), (64.1, -21.9, 64.13, -21.8),
                                   (0.0, 0.0, 0.0, 0.001), (89.9, 0.0, 89.9, 90.0)]:
        ref = geodesic.WGS84.Inverse(lat1, lon1, lat2, lon2)["s12"]
        assert abs(ce.vincenty_m(lat1, lon1, lat2, lon2) - ref) < 1e-4   # 0.1 mm


def test_the_checks_refuse_malformed_text_exports():
    with pytest.raises(ce.ExportCheckError, match="NaN"):
        ce.check(b'{"type":"Feature","geometry":null,"properties":{"distance_m":NaN}}', "geojson")
    with pytest.raises(ce.ExportCheckError, match="header"):
        ce.check(b"lat,lon\n1,2\n", "csv")
    with pytest.raises(ce.ExportCheckError, match="NUL"):
        ce.check(b"t,time_iso\x00\n", "csv")
    with pytest.raises(ce.ExportCheckError, match="Lap"):
        ce.check(b'<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">'
                 b'<Activities><Activity Sport="Running"><Id>2023-11-14T22:13:20Z</Id></Activity></Activities>'
                 b'</TrainingCenterDatabase>', "tcx")


# -- exports from the library ----------------------------------------------------------------

def _session_class():
    """librunway.Session when the library is built and exports; else the test is skipped."""
    if not LIBRARY.exists():
        pytest.skip(f"librunway not built ({LIBRARY})")
    import librunway

    if not hasattr(librunway.Session, "export"):
        pytest.skip("Session.export (runway_export) is not in the Python package yet")
    return librunway.Session


def _run_inputs(n: int = 900, gap: tuple[int, int] = (300, 345)):
    """A straight 3.2 m/s run heading 30°, 1 Hz from a fractional second, with heart rate and
    cadence on every fix and no fixes during `gap` (longer than gap_s: a new segment)."""
    lat0, lon0 = 52.0, 4.0
    heading = math.radians(30)
    for i in range(n):
        if gap[0] <= i < gap[1]:
            continue
        d = 3.2 * i
        yield i, {"t": T0 + i, "lat": lat0 + d * math.cos(heading) / 111_250,
                  "lon": lon0 + d * math.sin(heading) / (111_320 * math.cos(math.radians(lat0))),
                  "alt": 5 + 3 * math.sin(i / 60), "speed": 3.2, "hr": 130 + i // 30, "cadence": 170 + i % 5}


def _exports(session) -> dict[str, bytes]:
    out = {}
    for fmt in ce.FORMATS:
        data = session.export(fmt)
        assert isinstance(data, bytes) and data
        out[fmt] = data
    return out


@pytest.mark.parametrize("filters", ["on", "off"])
def test_every_export_of_a_run_with_a_gap_laps_and_sensors_opens_in_its_reader(filters):
    Session = _session_class()
    config = {"filters": filters, "auto_lap_m": 1000}
    with Session(config) as s:
        s.start(T0)
        for i, fix in _run_inputs():
            s.push(fix)
            if i == 450:
                s.lap(fix["t"])
        s.stop()
        summary = s.summary()
        exports = _exports(s)
    expect = ce.expect_from_summary(summary, filters=filters)
    assert expect["laps"] >= 3
    if filters == "on":
        assert expect["segments"] == 2   # the gap starts a second segment (raw mode keeps one)
    assert expect["legs"] == 1   # but the timer ran across it: the GPX has one trkseg, the TCX no Track break
    for fmt, data in exports.items():
        ce.check(data, fmt, expect)


def test_a_paused_flights_fit_has_timer_events_garmins_sdk_turns_into_the_same_timer():
    """Paused by the user twice (whole seconds): the SDK reads a timer start at the start and
    each resume and a stop_all at each pause and the stop; their intervals are the session's
    total_timer_time, which is the engine's timer (elapsed_s)."""
    from garmin_fit_sdk import Decoder, Stream

    Session = _session_class()
    t0 = 1_700_000_000
    with Session({"auto_pause": False}) as s:
        s.start(t0)
        for i, fix in _run_inputs(1001, gap=(0, 0)):
            fix["t"] = t0 + i
            if i in (300, 700):
                s.push(fix)
                s.pause(t0 + i)
                continue
            if i == 360 or i == 750:
                s.resume(t0 + i)
            s.push(fix)
        s.stop(t0 + 1000)
        summary = s.summary()
        fit = s.export("fit")
        tcx = s.export("tcx")
    assert summary["elapsed_s"] == 890
    messages, errors = Decoder(Stream.from_byte_array(bytearray(fit))).read(convert_datetimes_to_dates=False)
    assert errors == []
    timer = [(e["event_type"], e["timestamp"]) for e in messages["event_mesgs"] if e.get("event") == "timer"]
    fit_t0 = t0 - 631_065_600
    assert timer == [("start", fit_t0), ("stop_all", fit_t0 + 300), ("start", fit_t0 + 360),
                     ("stop_all", fit_t0 + 700), ("start", fit_t0 + 750), ("stop_all", fit_t0 + 1000)]
    derived = sum(b[1] - a[1] for a, b in zip(timer[::2], timer[1::2]))
    (session,) = messages["session_mesgs"]
    assert derived == session["total_timer_time"] == summary["elapsed_s"]
    assert session["total_moving_time"] <= session["total_timer_time"] <= session["total_elapsed_time"] == 1000
    ce.check(fit, "fit", {})
    # The run's cadence is per foot in the TCX ActivityExtension, as Garmin writes it.
    import xml.etree.ElementTree as ET
    ns = {"t": ce.TCX_NS, "x": "http://www.garmin.com/xmlschemas/ActivityExtension/v2"}
    points = ET.fromstring(tcx).findall(".//t:Trackpoint", ns)
    run = [p.find("t:Extensions/x:TPX/x:RunCadence", ns) for p in points]
    assert all(p.find("t:Cadence", ns) is None for p in points)
    strides = [int(r.text) for r in run if r is not None]
    assert strides and all(85 <= v <= 87 for v in strides), strides[:10]   # 170-174 steps a minute


def test_exports_of_a_flight_still_in_the_air_carry_the_lap_in_progress():
    Session = _session_class()
    with Session() as s:
        s.start(T0)
        for _, fix in _run_inputs(n=500, gap=(0, 0)):
            s.push(fix)
        summary = s.summary()
        exports = _exports(s)
    expect = ce.expect_from_summary(summary)
    assert summary["phase"] == "cruise" and expect["laps"] == len(summary["laps"]) + 1
    for fmt, data in exports.items():
        ce.check(data, fmt, expect)


def _recordings() -> list[str]:
    if not (TRACKS / "fixes").is_dir():
        return []
    return sorted(p.name for p in (TRACKS / "fixes").glob("*.jsonl"))


RECORDINGS = _recordings()


@pytest.mark.skipif(not RECORDINGS, reason=f"no recordings in {TRACKS}/fixes")
@pytest.mark.parametrize("recording", RECORDINGS or ["none"])
def test_a_real_recording_replayed_and_exported_keeps_its_distance(recording):
    Session = _session_class()
    lines = (TRACKS / "fixes" / recording).read_text().splitlines()
    first = json.loads(lines[0])
    import librunway

    with Session({"filters": "off", "distance_filter_m": 0}) as s:
        try:
            s.start(first["t"])
        except librunway.RunwayError as e:
            pytest.skip(f"{recording}: refused start time ({e})")
        accepted, rejected = s.push_many(lines)
        if rejected:
            pytest.skip(f"{recording}: {rejected} inputs refused (bad times), nothing to export")
        s.stop()
        summary = s.summary()
        exports = _exports(s)
    expect = ce.expect_from_summary(summary, filters="off")
    assert 0 < expect["points"] <= accepted
    figures = {fmt: ce.check(data, fmt, expect) for fmt, data in exports.items()}
    assert abs(figures["gpx"]["distance_error"]) < ce.DISTANCE_TOLERANCE


def test_an_indoor_rides_fit_carries_its_speed_samples_and_replays_to_its_distance():
    """A trainer ride (speed samples and heart rate, no fix): the FIT export's records have no
    position and carry each sample's speed and the flight's distance, as Garmin's SDK reads them;
    analysed again, the FIT gives the ride's distance, moving time and timer. The TCX's
    Trackpoints have no Position and carry the same (speed in the TPX extension), and analysed
    again it gives the distance and moving time (its replay starts at its first Trackpoint: the
    first second, from the start, is not in it). Every export still opens in its reader (GPX,
    GeoJSON and CSV carry positions only: no points)."""
    import librunway
    from garmin_fit_sdk import Decoder, Stream

    Session = _session_class()
    t0 = 1_700_000_000
    speeds = [7.0 + (k % 7) * 0.25 for k in range(600)] + [0.0] * 60 + [8.0] * 300
    with Session({"activity": "ride", "auto_pause": False}) as s:
        s.start(t0)
        for k, v in enumerate(speeds, 1):
            s.push({"type": "hr", "bpm": 140, "t": t0 + k})
            s.push({"type": "speed", "speed": v, "t": t0 + k})
        s.stop()
        summary = s.summary()
        exports = _exports(s)
    assert summary["points"] == 0 and summary["sensor_distance_m"] == summary["distance_m"] > 7000
    messages, errors = Decoder(Stream.from_byte_array(bytearray(exports["fit"]))).read()
    assert errors == []
    records = messages["record_mesgs"]
    assert len(records) == len(speeds)
    assert all(r.get("position_lat") is None and r.get("heart_rate") == 140 for r in records)
    assert [r["speed"] for r in records] == pytest.approx(speeds, abs=1e-3)
    assert records[-1]["distance"] == pytest.approx(summary["distance_m"], abs=0.01)
    expect = ce.expect_from_summary(summary)
    for fmt, data in exports.items():   # (the others have no point to carry heart rate on)
        assert ce.check(data, fmt, expect if fmt in ("fit", "tcx") else {**expect, "hr": None}) is not None
    assert ce.check_tcx(exports["tcx"], expect)["sensed_trackpoints"] == len(speeds)
    tcx = librunway.analyse_recording(exports["tcx"], "tcx", {"auto_pause": False})["summary"]
    assert tcx["distance_m"] == pytest.approx(summary["distance_m"] - speeds[0], abs=0.01)
    assert tcx["moving_s"] == summary["moving_s"] - 1
    again = librunway.analyse_recording(exports["fit"], "fit", {"auto_pause": False})["summary"]
    assert again["distance_m"] == pytest.approx(summary["distance_m"], rel=1e-6)
    assert again["moving_s"] == summary["moving_s"] and again["elapsed_s"] == summary["elapsed_s"]
