"""Session.export writes each format as the file it claims to be (checked with the standard
library only; Tests/python/test_exports.py checks them with gpxpy and Garmin's FIT SDK), and
import_recording turns GPX, TCX and FIT files into as many fixes as an independent reader
found in them (the recordings in ../shared/tracks; skipped when absent)."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest

import librunway
from conftest import TRACKS
from runway_testkit import T0, drive_run, fix

GPX = "{http://www.topografix.com/GPX/1/1}"
TCX = "{http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2}"


@pytest.fixture
def flown():
    """A session stopped after a run with a pause (two route segments), heart rate and cadence."""
    with librunway.Session() as s:
        figures = drive_run(s)
        yield s, figures["summary"]


def fit_header(data: bytes) -> tuple[int, int]:
    """(header size, data size) of a FIT file, checking what makes it one."""
    assert data[0] in (12, 14), f"FIT header size byte is {data[0]}"
    assert data[8:12] == b".FIT"
    header_size, data_size = data[0], int.from_bytes(data[4:8], "little")
    assert len(data) == header_size + data_size + 2      # header, records, CRC
    return header_size, data_size


def test_every_format_of_a_finished_run_is_the_file_it_claims_to_be(flown):
    s, summary = flown
    points = len(summary["route"])
    assert points == 22 and summary["segments"] == 2

    gpx = ET.fromstring(s.export("gpx"))
    assert gpx.tag == f"{GPX}gpx" and gpx.get("version") == "1.1"
    assert len(gpx.findall(f".//{GPX}trkseg")) == 2
    trkpts = gpx.findall(f".//{GPX}trkpt")
    assert len(trkpts) == points
    assert [float(p.get("lat")) for p in trkpts] == pytest.approx([r[0] for r in summary["route"]])

    tcx = ET.fromstring(s.export("tcx"))
    assert tcx.tag == f"{TCX}TrainingCenterDatabase"
    assert len(tcx.findall(f".//{TCX}Trackpoint")) == points
    assert len(tcx.findall(f".//{TCX}Lap")) >= 1

    feature = json.loads(s.export("geojson"))
    assert feature["type"] == "Feature"
    assert feature["geometry"]["type"] == "MultiLineString"          # one line per segment
    assert sum(len(line) for line in feature["geometry"]["coordinates"]) == points
    assert feature["properties"]["distance_m"] == pytest.approx(summary["distance_m"])

    rows = list(csv.reader(io.StringIO(s.export("csv").decode("utf-8"))))
    assert rows[0][:4] == ["t", "time_iso", "lat", "lon"]
    assert len(rows) == 1 + points
    assert {row[rows[0].index("segment")] for row in rows[1:]} == {"1", "2"}

    data = s.export("fit")
    _, data_size = fit_header(data)
    assert data_size > 20 * points                        # a record per point at least
    assert b"\0" in data                                  # binary: the whole buffer came back


def test_a_flight_still_in_the_air_exports_every_format(session):
    session.start(T0)
    for i in range(10):
        session.push(fix(i, T0 + 4 * i, hr=150))
    for fmt in ("gpx", "tcx", "fit", "geojson", "csv"):
        data = session.export(fmt)
        assert isinstance(data, bytes) and data, fmt
    assert len(ET.fromstring(session.export("gpx")).findall(f".//{GPX}trkpt")) == 10
    fit_header(session.export("fit"))
    assert session.snapshot()["phase"] == "cruise"        # exporting changes nothing
    session.push(fix(10, T0 + 40))


def test_a_flight_without_points_still_exports_valid_files(session):
    assert ET.fromstring(session.export("gpx")).tag == f"{GPX}gpx"
    assert json.loads(session.export("geojson"))["type"] == "Feature"
    assert session.export("csv").decode().splitlines()[0].startswith("t,time_iso,lat,lon")
    fit_header(session.export("fit"))


@pytest.mark.parametrize("fmt", ["kml", "GPX", "", "gpx\0tcx"])
def test_an_unknown_format_is_an_argument_error(session, fmt):
    with pytest.raises(librunway.ArgumentError):
        session.export(fmt)


def test_export_of_a_closed_session_is_a_state_error():
    s = librunway.Session()
    s.close()
    with pytest.raises(librunway.StateError):
        s.export("gpx")


# ---- import ---------------------------------------------------------------------------------

def _import_available() -> bool:
    try:
        return librunway.import_available()
    except librunway.LibraryError:      # no library at all: every test here fails on its own
        return False


HAS_IMPORT = _import_available()
needs_import = pytest.mark.skipif(
    not HAS_IMPORT,
    reason="the loaded librunway has no runway_import yet (nm -D finds no runway_import)")


def fixes_of(lines: list[str]) -> list[dict]:
    """The fixes among imported lines (samples carry a "type" other than "fix")."""
    objects = [json.loads(line) for line in lines]
    assert all(isinstance(o, dict) for o in objects)
    return [o for o in objects if o.get("type", "fix") == "fix"]


def _recordings() -> list[str]:
    if not (TRACKS / "fixes").is_dir():
        return []
    return sorted(p.name for p in TRACKS.iterdir()
                  if p.suffix in (".gpx", ".fit", ".tcx") and (TRACKS / "fixes" / f"{p.name}.jsonl").exists())


RECORDINGS = _recordings()


@pytest.mark.skipif(HAS_IMPORT, reason="runway_import is present")
def test_without_runway_import_import_recording_says_so():
    with pytest.raises(librunway.LibraryError, match="runway_import"):
        librunway.import_recording(b"<gpx/>", "gpx")


@needs_import
@pytest.mark.skipif(not RECORDINGS, reason=f"no recordings in {TRACKS}")
@pytest.mark.parametrize("name", RECORDINGS or ["none"])
def test_import_finds_the_fixes_an_independent_reader_found(name):
    expected = [json.loads(line) for line in
                (TRACKS / "fixes" / f"{name}.jsonl").read_text().splitlines() if line.strip()]
    lines = librunway.import_recording((TRACKS / name).read_bytes(), name.rsplit(".", 1)[1])
    got = fixes_of(lines)
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        assert a["lat"] == pytest.approx(b["lat"], abs=1e-6)
        assert a["lon"] == pytest.approx(b["lon"], abs=1e-6)
        assert a["t"] == pytest.approx(b["t"], abs=1e-3)


@needs_import
@pytest.mark.parametrize("fmt", ["gpx", "tcx", "fit"])
def test_an_export_imports_back_to_its_route(flown, fmt):
    s, summary = flown
    lines = librunway.import_recording(s.export(fmt), fmt)
    got = fixes_of(lines)
    assert len(got) == len(summary["route"])
    for f, (lat, lon, _alt, t) in zip(got, summary["route"]):
        assert f["lat"] == pytest.approx(lat, abs=1e-6)
        assert f["lon"] == pytest.approx(lon, abs=1e-6)
        assert f["t"] == pytest.approx(t, abs=1e-3)
    # The lines are inputs: a new session takes every one of them.
    with librunway.Session() as again:
        again.start(got[0]["t"])
        accepted, rejected = again.push_many(lines)
        assert (accepted, rejected) == (len(lines), 0)


@needs_import
def test_import_accepts_text_and_refuses_what_it_cannot_read(flown):
    s, summary = flown
    gpx_text = s.export("gpx").decode("utf-8")
    assert len(fixes_of(librunway.import_recording(gpx_text, "gpx"))) == len(summary["route"])
    with pytest.raises(librunway.ArgumentError):
        librunway.import_recording(gpx_text, "kml")
    for data, fmt in [(b"not xml at all", "gpx"), (b"<kml/>", "gpx"), (b"\x0e\x10garbage", "fit"),
                      (b"", "tcx")]:
        with pytest.raises(librunway.InputError):       # runway.h: not a valid recording
            librunway.import_recording(data, fmt)
