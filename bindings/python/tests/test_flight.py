"""librunway.analyse(): from a recording to a Flight (summary, laps, route, events), its
DataFrames and its picture.

Uses the sample run (examples/data/city_run.gpx: 5 km, heart rate, one stop) and, when
../shared/tracks exists, real FIT/TCX/GPX recordings with their reference figures."""

from __future__ import annotations

import errno
import json
import struct
import sys

import pytest

import librunway
from conftest import REPO, TRACKS
from librunway import analysis as flight_module

SAMPLE = REPO / "examples" / "data" / "city_run.gpx"
RIDES = ["fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit", "fitparse__sample-activity.fit",
         "fitparse__2015-10-13-08-43-15.fit"]
# Each ride's distance referee is its device's session distance: the ELEMNT's is its GPS track's
# (its points' raw geodesic sum is 0.7 % longer: it carries their noise), and so is the Edge
# 200's (a receiver without sensors); the Edge 500's is its wheel sensor's, 3.9 % over its GPS
# track: the wheel alone measured the first 408 s, before the GPS locked, which the engine
# counts from the records' speed (speed samples, where positions are silent).
RIDE_REFEREE = {RIDES[0]: ("device", "total_distance_m"), RIDES[1]: ("device", "total_distance_m"),
                RIDES[2]: ("device", "total_distance_m")}
needs_tracks = pytest.mark.skipif(not TRACKS.is_dir(), reason=f"{TRACKS} absent")
pytestmark = pytest.mark.skipif(not librunway.import_available(),
                                reason="the loaded librunway has no runway_import")


def reference(name: str) -> dict:
    for line in (TRACKS / "reference.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r.get("file") == name:
            return r
    raise KeyError(name)


@pytest.fixture(scope="module")
def sample() -> librunway.Flight:
    return librunway.analyse(SAMPLE)


def test_analyse_replays_the_whole_recording(sample):
    lines, _ = librunway.split_report(librunway.import_recording(SAMPLE.read_bytes(), "gpx"))
    first, last = json.loads(lines[0])["t"], json.loads(lines[-1])["t"]
    s = sample.summary
    assert s["phase"] == "touchdown" and (s["start_t"], s["end_t"]) == (first, last)
    assert sample.inputs == len(lines) and sample.rejected == 0
    assert s["distance_m"] == pytest.approx(4996.7, rel=0.005)    # the file's true distance
    assert sample.laps == s["laps"] and len(sample.laps) == 5      # 4 auto laps of 1 km + final
    assert sample.route == s["route"] and len(sample.route) == s["points"]
    kinds = [e["kind"] for e in sample.events]
    assert "flight" not in kinds and kinds.count("split") == 5
    assert [e["to"] for e in sample.events if e["kind"] == "phase"] == ["cruise", "touchdown"]
    assert len(sample.snapshots) == len(lines)       # one per input (no auto-pause here)
    assert sample.snapshots[-1]["distance_m"] == pytest.approx(s["distance_m"])


def test_analyse_reads_bytes_as_a_path(sample):
    again = librunway.analyse(SAMPLE.read_bytes())
    assert again.summary == sample.summary and again.name is None and again.format == "gpx"


def test_config_applies_and_its_activity_overrides_the_files(sample):
    walk = librunway.analyse(SAMPLE, {"activity": "walk", "auto_lap_m": 500})
    assert walk.activity == "walk" and walk.summary["activity"] == "walk"
    assert len(walk.laps) == 10


@needs_tracks
@pytest.mark.parametrize("name", RIDES)
def test_a_ride_fit_is_replayed_as_a_ride(name):
    ride = librunway.analyse(TRACKS / name)
    assert ride.activity == "ride"                                  # the FIT says cycling
    if ride.report is not None:
        assert (ride.report["sport"], ride.report["activity"]) == ("cycling", "ride")
    as_run = librunway.analyse(TRACKS / name, {"activity": "run"})
    assert as_run.activity == "run"
    where, key = RIDE_REFEREE[name]
    ref = reference(name)
    truth = ref["device"]["sessions"][0][key] if where == "device" else ref[where][key]
    # The ride profile reads the ride's distance (within 0.5 %); the run profile's limits
    # do not fit a bike and read it further off.
    assert ride.summary["distance_m"] == pytest.approx(truth, rel=0.005)
    assert abs(ride.summary["distance_m"] - truth) < abs(as_run.summary["distance_m"] - truth)


@needs_tracks
@pytest.mark.parametrize("name,activity", [("fitparse__garmin-fenix-5-walk.fit", "walk"),
                                           ("actparser__garmin-fenix-5-run.fit", "run"),
                                           ("togeojson__tour_hr.tcx", "ride")])
def test_the_profile_is_the_one_the_file_names(name, activity):
    assert librunway.analyse(TRACKS / name).activity == activity


def test_refusals_are_specific():
    with pytest.raises(librunway.InputError, match="not a GPX, TCX or FIT"):
        librunway.analyse(b"hello, not a recording")
    with pytest.raises(librunway.InputError, match="unknown format"):
        librunway.analyse(SAMPLE, format="kml")
    # A config analyse() cannot take is a bad config, as runway_analyse says (RUNWAY_ERR_ARGUMENT).
    with pytest.raises(librunway.ArgumentError, match="store"):
        librunway.analyse(SAMPLE, {"store": "x.db"})
    with pytest.raises(librunway.ArgumentError, match="clock"):
        librunway.analyse(SAMPLE, {"clock": "live"})
    with pytest.raises(librunway.InputError, match="No such file"):
        librunway.analyse(REPO / "nope.gpx")
    with pytest.raises(librunway.InputError):
        librunway.analyse(SAMPLE.read_bytes()[:5000])                 # a cut GPX
    with pytest.raises(librunway.ArgumentError):
        librunway.analyse(SAMPLE, {"distance_filtre_m": 5})


def test_a_missing_path_is_the_same_error_from_analyse_and_the_batch(tmp_path):
    """One error for a recording that is not there, whichever call is given it: an InputError
    (what analyse raises for any file it cannot read) that is also a FileNotFoundError (what a
    batch over paths is caught with), naming the path. The batch raised FileNotFoundError
    alone, analyse InputError alone: a script catching one missed the other's."""
    from librunway import batch
    missing = tmp_path / "nope.gpx"
    for call in (librunway.analyse, batch.analyse, batch.find_recordings):
        for caught in (librunway.InputError, FileNotFoundError):
            with pytest.raises(caught) as e:
                call(missing)
            assert type(e.value) is librunway.RecordingNotFoundError, call
            assert e.value.errno == errno.ENOENT and e.value.filename == str(missing)
            assert e.value.status == librunway.InputError.STATUS and str(missing) in str(e.value)
    # A batch with one missing path among good ones refuses the whole call before any work.
    with pytest.raises(librunway.RecordingNotFoundError):
        batch.analyse([SAMPLE, missing])


def test_split_report_takes_only_a_trailing_report():
    report = {"type": "import_report", "format": "fit", "activity": "ride", "untimed": 3}
    lines = ['{"t":1,"lat":1,"lon":1}', json.dumps(report)]
    assert librunway.split_report(lines) == (lines[:1], report)
    assert librunway.split_report(lines[:1]) == (lines[:1], None)
    assert librunway.split_report([]) == ([], None)
    odd = ['{"t":1,"lat":1,"lon":1,"note":"import_report"}']
    assert librunway.split_report(odd) == (odd, None)


def test_file_activity_follows_the_report_then_the_file():
    gpx = SAMPLE.read_bytes()
    assert flight_module.file_activity({"activity": "ride"}, gpx, "gpx") == "ride"
    assert flight_module.file_activity({"activity": None}, gpx, "gpx") is None
    assert flight_module.file_activity({"activity": "swim"}, gpx, "gpx") is None
    # A library without import reports: the sport read from the file itself.
    assert flight_module.file_activity(None, gpx, "gpx") == "run"
    ride = gpx.replace(b"<type>running</type>", b"<type>cycling</type>")
    assert ride != gpx and flight_module.file_activity(None, ride, "gpx") == "ride"


# ---- DataFrames -----------------------------------------------------------------------------

def _pandas():
    return pytest.importorskip("pandas", reason="pip install pandas (install-deps does)")


def test_route_frame_has_named_columns_and_the_engines_figures(sample):
    _pandas()
    df = sample.route_frame()
    assert tuple(df.columns) == flight_module.ROUTE_COLUMNS
    assert len(df) == len(sample.route)
    assert str(df["time"].dt.tz) == "UTC"
    assert (df["t"].tolist(), df["lat"].tolist()) == ([p[3] for p in sample.route],
                                                     [p[0] for p in sample.route])
    assert df["distance_m"].is_monotonic_increasing
    assert df["distance_m"].iloc[-1] == pytest.approx(sample.summary["distance_m"], abs=5)
    assert df["hr_bpm"].between(100, 200).all()                      # the sample has HR
    assert df["pace_min_per_km"].dropna().between(4.0, 12.0).mean() > 0.95
    assert df["segment"].nunique() == sample.summary["segments"]
    assert df["lap"].max() == len(sample.laps)


def test_laps_frame_has_named_columns_and_adds_up(sample):
    _pandas()
    df = sample.laps_frame()
    assert tuple(df.columns) == flight_module.LAP_COLUMNS
    assert df["lap"].tolist() == [1, 2, 3, 4, 5]
    assert df["trigger"].tolist() == ["auto"] * 4 + ["final"]
    assert df["distance_m"].sum() == pytest.approx(sample.summary["distance_m"])
    assert df["start_distance_m"].tolist() == [0.0, 1000.0, 2000.0, 3000.0, 4000.0]
    assert (df["end"] > df["start"]).all() and str(df["start"].dt.tz) == "UTC"
    # The sample has no power meter: its laps' power columns are there, unknown.
    assert df[["avg_power_w", "max_power_w", "normalized_power_w"]].isna().all().all()
    # Its heart rate: each lap's maximum is the summary lap's, none below the lap's average.
    assert df["max_hr_bpm"].tolist() == [lap["max_hr_bpm"] for lap in sample.summary["laps"]]
    assert (df["max_hr_bpm"] >= df["avg_hr_bpm"]).all()
    # Each lap's max speed is of the flight's speeds: the flight's is the largest of them.
    assert df["max_speed_mps"].max() == sample.summary["max_speed_mps"]


@pytest.mark.skipif(not (TRACKS / "fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit").exists(),
                    reason="../shared/tracks is not here")
def test_laps_frame_has_the_laps_power():
    """The ELEMNT ride's laps have power: the frame has the summary laps' average, maximum and
    normalized power (before, laps_frame had no power column). Its device recorded one lap, so
    the ride is analysed with 1 km auto laps, each with power of its own."""
    _pandas()
    ride = librunway.analyse(TRACKS / "fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit",
                             config={"auto_lap_m": 1000})
    assert len(ride.summary["laps"]) == 80
    df = ride.laps_frame()
    for column in ("avg_power_w", "max_power_w", "normalized_power_w"):
        assert df[column].tolist() == [float(lap[column]) for lap in ride.summary["laps"]], column
    assert (df["avg_power_w"].iloc[0], df["max_power_w"].iloc[0]) == (53.5, 273.0)
    assert df["normalized_power_w"].iloc[0] == pytest.approx(79.0, abs=0.05)
    assert [row["max_power_w"] for row in ride.lap_rows()] == df["max_power_w"].tolist()


def test_frames_without_pandas_say_how_to_get_it(sample, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install pandas"):
        sample.route_frame()


# ---- the picture ----------------------------------------------------------------------------

def test_plot_writes_a_png_with_the_map_and_three_profiles(sample, tmp_path):
    pytest.importorskip("matplotlib", reason="pip install matplotlib (install-deps does)")
    from matplotlib.collections import LineCollection

    out = tmp_path / "run.png"
    fig = sample.plot(out)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 1000 and height > 600
    axes = [a for a in fig.axes if a.get_ylabel()]
    assert [a.get_ylabel() for a in axes] == ["north (m)", "elevation (m)", "pace (min/km)",
                                              "heart rate (bpm)"]
    [route] = [c for c in axes[0].collections if isinstance(c, LineCollection)]
    # One coloured step per pair of consecutive route points of one segment.
    assert len(route.get_paths()) == len(sample.route) - sample.summary["segments"]
    assert len(set(route.get_array().tolist())) > 20                  # coloured by pace
    for ax in axes[1:]:                                               # 4 lap ends marked
        assert sum(1 for line in ax.get_lines() if line.get_linestyle() == ":") == 4
    assert "5.00 km" in fig._suptitle.get_text()


def test_plot_without_matplotlib_says_how_to_get_it(sample, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install matplotlib"):
        sample.plot(tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_export_is_the_same_flight(sample):
    gpx = sample.export("gpx")
    assert gpx.startswith(b"<?xml") and gpx.count(b"<trkpt") == len(sample.route)
    assert sample.export("gpx") is gpx                                # replayed once per format


def test_an_empty_route_frame_has_the_dtypes_of_a_full_one(sample):
    """A flight without route points (an indoor ride: speed samples, no position) has an
    empty route frame with the same dtypes as any other, so that the frames of an archive
    concatenate without turning `lap` and `segment` into objects. Before, its `lap` and
    `segment` were object columns and `time` datetime64[s] (pandas 3) instead of [us]."""
    pd = _pandas()
    with librunway.Session({"activity": "ride"}) as s:
        s.start(1700000000)
        s.push_many({"type": "speed", "speed": 8.0, "t": 1700000000 + i} for i in range(121))
        s.stop()
        indoor = librunway.analyse(s.export("fit"))
    assert indoor.summary["points"] == 0 and indoor.summary["distance_m"] > 900
    empty, full = indoor.route_frame(), sample.route_frame()
    assert len(empty) == 0
    assert empty.dtypes.to_dict() == full.dtypes.to_dict()
    assert pd.concat([full, empty]).dtypes.to_dict() == full.dtypes.to_dict()


def test_route_rows_keep_no_snapshots_and_give_what_the_snapshots_give():
    """route_rows replays for the figures it needs and keeps none of the snapshots (a 10-hour
    ride's 36 000 held 270 MB in the Flight after its frame was dropped); its rows are those
    the full snapshots give."""
    lean = librunway.analyse(SAMPLE)
    rows = lean.route_rows()
    assert lean._snapshots is None and len(rows) == len(lean.route)
    full = librunway.analyse(SAMPLE)
    assert len(full.snapshots) > 0 and full.route_rows() == rows
    assert [e["kind"] for e in lean.events] == [e["kind"] for e in full.events]
