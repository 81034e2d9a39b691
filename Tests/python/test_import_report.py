"""The import report (the trailing {"type":"import_report"} line of runway_import) against
Garmin's FIT SDK reading the same real files in ../shared/tracks: the device totals of every FIT
session and lap, the sport, the activity it maps to, and the power of every record."""
import ctypes
import json
import os

import pytest

garmin = pytest.importorskip("garmin_fit_sdk")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TRACKS = os.path.join(os.path.dirname(ROOT), "shared", "tracks")
LIB = os.environ.get("RUNWAY_LIBRARY") or os.path.join(ROOT, "build", "librunway.so")

pytestmark = pytest.mark.skipif(not os.path.isdir(TRACKS), reason="../shared/tracks is not here")

FIT_EPOCH = 631065600
ACTIVITY = {"cycling": "ride", "running": "run", "walking": "walk", "hiking": "walk"}


def fit_files():
    if not os.path.isdir(TRACKS):
        return []
    return sorted(f for f in os.listdir(TRACKS) if f.endswith(".fit"))


def run_import(raw, fmt):
    l = ctypes.CDLL(LIB)
    l.runway_import.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
    l.runway_string_free.argtypes = [ctypes.c_void_p]
    l.runway_last_error.restype = ctypes.c_char_p
    out, n = ctypes.c_void_p(), ctypes.c_size_t()
    status = l.runway_import(fmt.encode(), raw, len(raw), ctypes.byref(out), ctypes.byref(n))
    if status != 0:
        return status, l.runway_last_error().decode(), None
    text = ctypes.string_at(out.value, n.value).decode()
    l.runway_string_free(out)
    lines = [json.loads(x) for x in text.split("\n") if x.strip()]
    return 0, lines[:-1], lines[-1]


def sdk(path):
    messages, errors = garmin.Decoder(garmin.Stream.from_file(path)).read(
        convert_datetimes_to_dates=False, apply_scale_and_offset=True)
    assert errors == []
    return messages


def close(ours, theirs, what):
    if theirs is None:
        assert ours is None, f"{what}: {ours}, the SDK reads none"
    else:
        assert ours == pytest.approx(theirs, abs=1e-6), what


@pytest.mark.parametrize("name", fit_files())
def test_fit_device_totals_and_sport_are_what_garmins_sdk_reads(name):
    path = os.path.join(TRACKS, name)
    status, inputs, report = run_import(open(path, "rb").read(), "fit")
    assert status == 0, inputs
    m = sdk(path)
    assert report["type"] == "import_report" and report["format"] == "fit"
    assert report["inputs"] == len(inputs)
    (session,) = m["session_mesgs"]
    assert report["sport"] == session["sport"]
    assert report["activity"] == ACTIVITY.get(session["sport"])
    d = report["device"]
    for ours, theirs in [("distance_m", "total_distance"), ("timer_s", "total_timer_time"),
                         ("elapsed_s", "total_elapsed_time"), ("ascent_m", "total_ascent"),
                         ("descent_m", "total_descent"), ("calories_kcal", "total_calories"),
                         ("avg_power_w", "avg_power"), ("max_power_w", "max_power"),
                         ("normalized_power_w", "normalized_power")]:
        close(d.get(ours), session.get(theirs), f"{name} {ours}")
    laps = m["lap_mesgs"]
    assert len(d["laps"]) == len(laps)
    for k, (a, b) in enumerate(zip(d["laps"], laps)):
        close(a.get("start_t"), b["start_time"] + FIT_EPOCH, f"lap {k} start")
        close(a.get("distance_m"), b.get("total_distance"), f"lap {k} distance")
        close(a.get("timer_s"), b.get("total_timer_time"), f"lap {k} timer")
        close(a.get("elapsed_s"), b.get("total_elapsed_time"), f"lap {k} elapsed")
        close(a.get("ascent_m"), b.get("total_ascent"), f"lap {k} ascent")
    # Counts: every record with a time is a fix or samples; those without a position are counted.
    records = [r for r in m["record_mesgs"] if r.get("timestamp") is not None]
    positioned = [r for r in records if r.get("position_lat") is not None and r.get("position_long") is not None]
    assert report["no_position"] == len(records) - len(positioned)
    assert sum(1 for x in inputs if "lat" in x) == len(positioned)
    # A record without a position keeps the device's altitude as an altimeter sample.
    unplaced = [r for r in records if r.get("position_lat") is None or r.get("position_long") is None]
    heights = [(r["timestamp"] + FIT_EPOCH, r.get("enhanced_altitude", r.get("altitude"))) for r in unplaced]
    expected = [(t, a) for t, a in heights if a is not None]
    altimeter = [(x["t"], x["alt"]) for x in inputs if x.get("type") == "altimeter"]
    assert len(altimeter) == len(expected), name
    for (t, a), (st, sa) in zip(altimeter, expected):
        assert t == st and a == pytest.approx(sa, abs=1e-6), f"{name} at {t}"


def test_fit_record_power_is_on_the_fixes_as_the_sdk_reads_it():
    name = "fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit"
    path = os.path.join(TRACKS, name)
    status, inputs, report = run_import(open(path, "rb").read(), "fit")
    assert status == 0, inputs
    records = [r for r in sdk(path)["record_mesgs"] if r.get("timestamp") is not None]
    positioned = [r for r in records if r.get("position_lat") is not None]
    fixes = [x for x in inputs if "lat" in x]
    assert len(fixes) == len(positioned)
    assert [f.get("power") for f in fixes] == [r.get("power") for r in positioned]
    assert sum(1 for f in fixes if f.get("power") is not None) > 13000
    # Records without a position keep their power as {"type":"power"} samples.
    unplaced = [r for r in records if r.get("position_lat") is None and r.get("power") is not None]
    samples = [x for x in inputs if x.get("type") == "power"]
    assert [s["watts"] for s in samples] == [r["power"] for r in unplaced]
    assert [s["t"] for s in samples] == [r["timestamp"] + FIT_EPOCH for r in unplaced]


@pytest.mark.parametrize("name", ["tcxreader__cross-country-skiing_activity_1.tcx", "togeojson__tour_hr.tcx"])
def test_tcx_lap_totals_are_the_files_own(name):
    import xml.etree.ElementTree as ET
    path = os.path.join(TRACKS, name)
    status, inputs, report = run_import(open(path, "rb").read(), "tcx")
    assert status == 0, inputs
    ns = "{http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2}"
    root = ET.parse(path).getroot()
    activity = root.find(f"{ns}Activities/{ns}Activity")
    assert report["sport"] == activity.get("Sport").lower()
    laps = activity.findall(f"{ns}Lap")
    d = report["device"]
    assert len(d["laps"]) == len(laps)
    assert d["distance_m"] == pytest.approx(sum(float(l.find(f"{ns}DistanceMeters").text) for l in laps))
    assert d["timer_s"] == pytest.approx(sum(float(l.find(f"{ns}TotalTimeSeconds").text) for l in laps))
    assert d["calories_kcal"] == pytest.approx(sum(float(l.find(f"{ns}Calories").text) for l in laps))
    assert len(report["tracks"]) == len(activity.findall(f"{ns}Lap/{ns}Track"))
