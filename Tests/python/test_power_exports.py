"""Power end to end: pushed through the library (samples and ``power`` on fixes), into the
snapshot, the splits and the summary, then out through every export and read back by independent
readers: Garmin's FIT SDK, gpxpy, and the standard library's XML and CSV parsers."""

from __future__ import annotations

import csv
import io
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "bindings" / "python"))

T0 = 1_700_000_000.0


def _ride():
    """A 10-minute ride at 6 m/s with a 1 km auto lap: 150 W for 5 minutes, then 250 W."""
    import librunway
    s = librunway.Session({"activity": "ride", "auto_lap_m": 1000})
    splits = s.events(kinds=["split"])
    s.start(T0)
    lines = []
    for i in range(601):
        t = T0 + i
        watts = 150 if i < 300 else 250
        fix = {"t": t, "lat": 52.0 + i * 6 / 111_250, "lon": 4.0, "speed": 6.0, "course": 0}
        if i % 2 == 0:
            fix["power"] = watts
            lines.append(fix)
        else:
            lines.append(fix)
            lines.append({"type": "power", "watts": watts, "t": t})
    s.push_many(lines)
    snapshot = s.snapshot()
    s.stop()
    return s, [e["lap"] for e in splits], snapshot


@pytest.fixture(scope="module")
def ride():
    s, laps, snapshot = _ride()
    yield s, laps, snapshot
    s.close()


def test_power_reaches_the_snapshot_the_splits_and_the_summary(ride):
    s, laps, snapshot = ride
    assert snapshot["power_w"] == 250
    summary = s.summary()
    assert summary["max_power_w"] == 250
    assert summary["avg_power_w"] == pytest.approx(200, abs=1)
    assert summary["normalized_power_w"] > summary["avg_power_w"]
    assert laps[0]["avg_power_w"] == pytest.approx(150, abs=1)
    assert laps[-1]["avg_power_w"] == pytest.approx(250, abs=1)


def test_garmins_sdk_reads_the_power_back_from_the_fit(ride):
    sdk = pytest.importorskip("garmin_fit_sdk")
    s, _, _ = ride
    messages, errors = sdk.Decoder(sdk.Stream.from_byte_array(bytearray(s.export("fit")))).read()
    assert not errors
    powers = [r.get("power") for r in messages["record_mesgs"] if r.get("power") is not None]
    assert len(powers) > 100 and set(powers) == {150, 250}
    session = messages["session_mesgs"][0]
    assert session["max_power"] == 250
    assert session["avg_power"] == pytest.approx(200, abs=1)


def test_gpxpy_reads_the_power_back_from_the_gpx(ride):
    gpxpy = pytest.importorskip("gpxpy")
    s, _, _ = ride
    gpx = gpxpy.parse(s.export("gpx").decode("utf-8"))
    powers = []
    for track in gpx.tracks:
        for segment in track.segments:
            for p in segment.points:
                for ext in p.extensions:
                    if ext.tag.split("}")[-1] == "power":
                        powers.append(float(ext.text))
    assert len(powers) > 100 and set(powers) == {150.0, 250.0}


def test_the_tcx_and_the_csv_carry_the_power(ride):
    s, _, _ = ride
    root = ET.fromstring(s.export("tcx"))
    watts = {float(e.text) for e in root.iter() if e.tag.split("}")[-1] == "Watts"}
    assert watts == {150.0, 250.0}
    rows = list(csv.DictReader(io.StringIO(s.export("csv").decode("utf-8"))))
    assert {float(r["power_w"]) for r in rows if r["power_w"]} == {150.0, 250.0}


# -- the laps' power: the engine's for each lap, in the FIT and TCX laps -----------------------

TRACKS = REPO.parent / "shared" / "tracks"
ELEMNT = TRACKS / "fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit"


def _whole(w):
    return None if w is None else int(w + 0.5)


def _lap_power_checks(summary, fit: bytes, tcx: bytes) -> None:
    """The FIT laps (Garmin's SDK) and the TCX laps (the check_exports reader) carry the summary
    laps' power; an import of either reads it back as the device's laps
    (``report["device"]["laps"]``)."""
    sys.path.insert(0, str(HERE))
    import check_exports as ce
    import librunway
    full = ce.expect_from_summary(summary)
    assert full["lap_power"] and len(full["lap_power"]) == len(summary["laps"])
    # (An auto-resumed leg's FIT export has a record more than the route: only the laps here.)
    expect = {"laps": full["laps"], "lap_power": full["lap_power"]}
    ce.check_fit(fit, expect)   # raises when a lap's avg/max/normalized power is not the summary's
    ce.check_tcx(tcx, expect)
    want = [[_whole(lap.get(k)) for k in ("avg_power_w", "max_power_w", "normalized_power_w")]
            for lap in summary["laps"]]
    for fmt, data, keys in (("fit", fit, ("avg_power_w", "max_power_w", "normalized_power_w")),
                            ("tcx", tcx, ("avg_power_w", "max_power_w"))):
        _, report = librunway.split_report(librunway.import_recording(data, fmt))
        back = [[lap.get(k) for k in keys] for lap in report["device"]["laps"]]
        assert back == [w[:len(keys)] for w in want], fmt


def test_each_lap_of_the_fit_and_tcx_has_the_summary_laps_power(ride):
    s, laps, _ = ride
    summary = s.summary()
    assert [lap["avg_power_w"] for lap in summary["laps"]] == [lap["avg_power_w"] for lap in laps]
    _lap_power_checks(summary, s.export("fit"), s.export("tcx"))


@pytest.mark.skipif(not ELEMNT.exists(), reason="../shared/tracks is not here")
def test_the_elemnt_rides_exported_laps_have_the_engines_lap_power():
    """The ELEMNT ride analysed with its defaults (a 5 m distance filter: the FIT export has
    11 519 of its 13 471 records) but 1 km auto laps (its device recorded one lap): its first
    lap is 53.5 W average, 273 W max, 79.0 W normalized in the summary; before, its exported FIT
    lap had no average or normalized power and a max of 256 W (the largest of the kept points),
    and so had the TCX lap's MaxWatts."""
    import librunway
    flight = librunway.analyse(ELEMNT, config={"auto_lap_m": 1000})
    first = flight.summary["laps"][0]
    assert (first["avg_power_w"], first["max_power_w"], round(first["normalized_power_w"], 1)) == (53.5, 273.0, 79.0)
    sdk = pytest.importorskip("garmin_fit_sdk")
    fit = flight.export("fit")
    messages, errors = sdk.Decoder(sdk.Stream.from_byte_array(bytearray(fit))).read()
    assert not errors
    lap = messages["lap_mesgs"][0]
    assert (lap.get("avg_power"), lap.get("max_power"), lap.get("normalized_power")) == (54, 273, 79)
    _lap_power_checks(flight.summary, fit, flight.export("tcx"))
