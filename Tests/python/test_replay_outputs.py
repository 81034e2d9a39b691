"""The replay example's outputs (examples/python/replay.py): a flight journaled to a store,
exports with and without one, FIT and TCX replays through the library's import; its refusals of
what it cannot write or read."""

from __future__ import annotations

import json
import re

import pytest

from examples_testkit import (SAMPLE, SAMPLE_POINTS, TRACKS, import_available, needs_library,
                              needs_tracks, run_replay, runway_package, summary_distance_m)


@needs_library
def test_replay_with_store_and_export_leaves_a_finished_flight_and_a_gpx(tmp_path):
    gpxpy = pytest.importorskip("gpxpy", reason="pip install gpxpy")
    store, out_dir = tmp_path / "db" / "runs.db", tmp_path / "out"
    result = run_replay(str(SAMPLE), "--speed", "0", "--store", str(store),
                        "--export", "gpx,fit", "--out-dir", str(out_dir))
    assert result.returncode == 0, result.stderr
    match = re.search(r"^stored flight (\S+) in (.+)$", result.stdout, re.M)
    assert match, result.stdout
    flight_id, where = match.group(1), match.group(2)
    assert where == str(store)

    librunway = runway_package()
    [flight] = librunway.flights(store)
    assert flight["flight_id"] == flight_id and flight["finished"] is True
    assert flight["distance_m"] == pytest.approx(summary_distance_m(result.stdout), abs=0.05)
    stored = librunway.flight(store, flight_id)

    gpx_path = out_dir / f"{flight_id}.gpx"
    assert f"exported gpx ({gpx_path.stat().st_size} bytes) to {gpx_path}" in result.stdout
    gpx = gpxpy.parse(gpx_path.read_text())
    points = [p for track in gpx.tracks for segment in track.segments for p in segment.points]
    assert len(points) == len(stored["route"])
    assert (points[0].latitude, points[0].longitude) == \
        pytest.approx(tuple(stored["route"][0][:2]), abs=1e-7)
    assert gpx_path.read_bytes() == librunway.export_flight(store, flight_id, "gpx")
    fit = (out_dir / f"{flight_id}.fit").read_bytes()
    assert fit[8:12] == b".FIT" and fit == librunway.export_flight(store, flight_id, "fit")
    assert sorted(p.name for p in out_dir.iterdir()) == sorted([f"{flight_id}.gpx",
                                                                f"{flight_id}.fit"])


@needs_library
def test_replay_exports_without_a_store_are_named_after_the_input(tmp_path):
    result = run_replay(str(SAMPLE), "--speed", "0", "--export", "csv, geojson",
                        "--out-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "stored flight" not in result.stdout
    rows = (tmp_path / "city_run.csv").read_text().splitlines()
    kept = int(re.search(r"(\d+) kept on the route", result.stdout).group(1))
    assert rows[0].startswith("t,time_iso,lat,lon") and len(rows) == 1 + kept
    feature = json.loads((tmp_path / "city_run.geojson").read_text())
    assert feature["properties"]["distance_m"] == pytest.approx(summary_distance_m(result.stdout),
                                                                abs=0.05)
    assert f"to {tmp_path / 'city_run.csv'}" in result.stdout


def test_replay_with_an_unknown_export_format_exits_2_before_replaying(tmp_path):
    result = run_replay(str(SAMPLE), "--speed", "0", "--export", "gpx,kml",
                        "--out-dir", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "'kml'" in result.stderr and "phase:" not in result.stdout
    assert not (tmp_path / "out").exists()


@needs_library
def test_replay_with_an_unusable_store_exits_1(tmp_path):
    (tmp_path / "noise.db").write_bytes(b"\x07" * 4096)
    result = run_replay(str(SAMPLE), "--speed", "0", "--store", str(tmp_path / "noise.db"))
    assert result.returncode == 1
    assert result.stderr.startswith("replay: ") and "noise.db" in result.stderr


@needs_library
@pytest.mark.skipif(import_available(), reason="librunway has runway_import")
def test_replay_of_a_fit_file_without_runway_import_says_what_is_missing(tmp_path):
    path = tmp_path / "run.fit"
    path.write_bytes(b"\x0e\x10" + bytes(6) + b".FIT" + bytes(4))
    result = run_replay(str(path), "--speed", "0")
    assert result.returncode == 1
    assert "runway_import" in result.stderr and "run.fit" in result.stderr


@needs_library
@pytest.mark.skipif(not import_available(), reason="librunway has no runway_import yet")
@pytest.mark.parametrize("fmt", ["fit", "tcx"])
def test_replay_reads_fit_and_tcx_through_the_library(tmp_path, fmt):
    # An export of the sample, replayed raw on both sides: the same fixes, the same distance.
    raw = '{"filters": "off", "distance_filter_m": 0}'
    first = run_replay(str(SAMPLE), "--speed", "0", "--config", raw, "--export", fmt,
                       "--out-dir", str(tmp_path))
    assert first.returncode == 0, first.stderr
    again = run_replay(str(tmp_path / f"city_run.{fmt}"), "--speed", "0", "--config", raw)
    assert again.returncode == 0, again.stderr
    assert "phase: cruise -> touchdown" in again.stdout
    assert re.search(rf"^  points +{SAMPLE_POINTS} replayed, {SAMPLE_POINTS} kept", again.stdout,
                     re.M), again.stdout
    assert summary_distance_m(again.stdout) == pytest.approx(summary_distance_m(first.stdout),
                                                             rel=1e-4)


@needs_library
@needs_tracks
@pytest.mark.skipif(not import_available(), reason="librunway has no runway_import yet")
def test_replaying_a_real_fit_file_matches_its_json_lines_replay():
    name = "fitparse__activity-small-fenix2-run.fit"
    if not (TRACKS / name).exists():
        pytest.skip(f"{TRACKS / name} absent")
    from_fit = run_replay(str(TRACKS / name), "--speed", "0", "--config", '{"filters": "off"}')
    from_jsonl = run_replay(str(TRACKS / "fixes" / f"{name}.jsonl"), "--speed", "0",
                            "--config", '{"filters": "off"}')
    assert from_fit.returncode == 0 and from_jsonl.returncode == 0, from_fit.stderr
    assert summary_distance_m(from_fit.stdout) == pytest.approx(
        summary_distance_m(from_jsonl.stdout), abs=0.2)
