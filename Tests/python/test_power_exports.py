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
