"""Tests of the sample run (examples/data), the terminal replay example (examples/python), the
README's Python example and the links of README.md and docs/.

The generator must reproduce the committed sample byte for byte; the sample must be the run
it claims to be; replay.py must drive the library through the whole sample and print a
summary whose distance is close to the true distance stored in the sample.

The replay tests need librunway: $RUNWAY_LIBRARY, else build/librunway.so (skipped when
neither exists). The JSON Lines tests read real recordings from ../shared/tracks (skipped
when that folder is absent). Replays of FIT and TCX files need runway_import in the library
(skipped until it is there; a test checks the clear refusal meanwhile). The store/export
test reads the GPX back with gpxpy (skipped without it; make installs it). The README's C
example is run by Tests/c/run.sh, its Rust example by bindings/rust/tests/readme.rs.

The replay's store and exports are tested in test_replay_outputs.py, the README and the links in
test_readme_and_docs.py; what the three share is in examples_testkit.py.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

import pytest

from examples_testkit import (GENERATOR, GPX_NS, LIBRARY, REPLAY, REPO, SAMPLE, SAMPLE_DURATION_S,
                              SAMPLE_POINTS, TRACKS, haversine_m, needs_library, needs_tracks,
                              run_replay, sample_points, sample_true_distance_m, summary_distance_m)


# ---- The sample and its generator ------------------------------------------------

def test_generator_reproduces_the_committed_sample_byte_for_byte(tmp_path):
    out = tmp_path / "city_run.gpx"
    subprocess.run([sys.executable, str(GENERATOR), "-o", str(out)], check=True, timeout=60,
                   capture_output=True)
    assert out.read_bytes() == SAMPLE.read_bytes()


def test_generator_output_depends_on_the_seed(tmp_path):
    out = tmp_path / "other.gpx"
    subprocess.run([sys.executable, str(GENERATOR), "-o", str(out), "--seed", "7"],
                   check=True, timeout=60, capture_output=True)
    assert out.read_bytes() != SAMPLE.read_bytes()


def test_sample_is_a_closed_5km_loop_recorded_at_1hz():
    assert SAMPLE.stat().st_size < 1.5 * 1024 * 1024
    root = ET.parse(SAMPLE).getroot()
    assert root.tag == f"{GPX_NS}gpx" and root.get("version") == "1.1"
    points = sample_points()
    assert len(points) == SAMPLE_POINTS
    steps = {b["t"] - a["t"] for a, b in zip(points, points[1:])}
    assert steps == {1.0}
    assert points[-1]["t"] - points[0]["t"] == SAMPLE_DURATION_S
    # Same true start and finish: only the GPS error (a few metres) separates them.
    assert haversine_m(points[0]["lat"], points[0]["lon"],
                       points[-1]["lat"], points[-1]["lon"]) < 15
    assert abs(points[0]["lat"] - 52.37) < 0.02 and abs(points[0]["lon"] - 4.89) < 0.03
    assert 4900 < sample_true_distance_m() < 5100
    elevations = [p["ele"] for p in points]
    assert 10 < max(elevations) - min(elevations) < 60


def test_sample_has_one_stop_with_heart_rate_and_cadence_following_effort():
    points = sample_points()
    stopped = [i for i, p in enumerate(points) if p["cad"] == 0]
    # The standing start (first second) and one stop of 60-120 s, in one piece.
    stop = [i for i in stopped if i > 0]
    assert 60 <= len(stop) <= 120
    assert stop == list(range(stop[0], stop[0] + len(stop)))
    # (The file's cadence is one foot's strides a minute, as Garmin devices write it: half the steps.)
    moving = [2 * p["cad"] for i, p in enumerate(points) if i > 30 and 2 * p["cad"] >= 150]
    assert len(moving) > 0.9 * (len(points) - len(stop))
    assert 165 <= sorted(moving)[len(moving) // 2] <= 180
    hr = [p["hr"] for p in points]
    assert 110 <= hr[0] <= 130 and 150 <= max(hr[-60:]) <= 170
    assert min(hr[stop[0]:stop[-1] + 1]) < hr[stop[0]] - 20       # recovers while stopped
    # While stopped the true position stays put: the fixes wander by GPS error only.
    here = points[stop[len(stop) // 2]]
    assert all(haversine_m(here["lat"], here["lon"], points[i]["lat"], points[i]["lon"]) < 15
               for i in stop)


# ---- The replay example ---------------------------------------------------------

@needs_library
def test_replaying_the_sample_prints_phases_and_a_summary_near_the_true_distance():
    result = run_replay(str(SAMPLE), "--speed", "0")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "phase: preflight -> cruise" in out
    assert "phase: cruise -> touchdown" in out
    assert out.index("phase: cruise -> touchdown") < out.index("flight summary")
    assert "\x1b" not in out                           # not a terminal: plain lines
    true_m = sample_true_distance_m()
    engine_m = summary_distance_m(out)
    assert abs(engine_m / true_m - 1) < 0.03, (engine_m, true_m)
    assert re.search(r"^  flight time +00:27:07$", out, re.M)       # 1627 s of cruise
    assert re.search(rf"^  points +{SAMPLE_POINTS} replayed, \d+ kept on the route, "
                     r"0 rejected$", out, re.M), out
    hr = [p["hr"] for p in sample_points()]
    match = re.search(r"^  heart rate +avg (\d+) bpm, max (\d+) bpm$", out, re.M)
    assert match, out
    assert abs(int(match.group(1)) - sum(hr) / len(hr)) <= 1
    assert int(match.group(2)) == max(hr)
    assert re.search(r"^  cadence +avg 1[67]\d spm$", out, re.M), out   # steps a minute, not doubled twice
    assert re.search(r"^  true distance +[0-9.]+ km", out, re.M)


@needs_library
def test_replay_updates_the_display_at_most_ten_times_a_second():
    started = time.monotonic()
    result = run_replay(str(SAMPLE), "--speed", "0")
    wall = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    updates = [line for line in result.stdout.splitlines() if line.startswith("[")]
    assert updates, result.stdout
    assert len(updates) <= 10 * wall + 2, (len(updates), wall)
    assert updates[-1].startswith(f"[{SAMPLE_POINTS}/{SAMPLE_POINTS}] touchdown")


@needs_library
def test_replay_paces_points_by_their_timestamps_over_speed():
    speed = 2000                  # 1627 s of run -> at least 0.81 s of wall time
    started = time.monotonic()
    result = run_replay(str(SAMPLE), "--speed", str(speed))
    wall = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert wall >= SAMPLE_DURATION_S / speed


@needs_library
def test_replay_on_a_terminal_redraws_one_block_with_ansi_escapes():
    master, slave = pty.openpty()
    env = dict(os.environ, RUNWAY_LIBRARY=str(LIBRARY),
               PYTHONPATH=str(REPO / "bindings" / "python"), COLUMNS="100", LINES="40")
    proc = subprocess.Popen([sys.executable, str(REPLAY), str(SAMPLE), "--speed", "0"],
                            stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE,
                            env=env)
    os.close(slave)
    chunks: list[bytes] = []

    def read_all() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:        # EIO: the child closed the terminal
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    try:
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
        reader.join(timeout=10)
    finally:
        proc.stderr.close()
        os.close(master)
    out = b"".join(chunks).decode("utf-8")
    assert "\x1b[?25l" in out and "\x1b[?25h" in out          # cursor hidden, then restored
    assert re.search(r"\x1b\[5F\x1b\[J", out)                 # the 5-line block redrawn
    assert "PACE" in out and "HDG" in out and "DIST" in out
    assert out.rindex("\x1b[?25h") < out.index("flight summary")
    assert "phase: cruise -> touchdown" in out


@needs_library
@needs_tracks
def test_replaying_a_real_jsonl_recording_matches_the_reference_distance():
    name = "fitparse__activity-small-fenix2-run.fit"
    path = TRACKS / "fixes" / f"{name}.jsonl"
    if not path.exists():
        pytest.skip(f"{path} absent")
    reference = None
    for line in (TRACKS / "reference.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["file"] == name:
            reference = record["geodesic_wgs84"]["distance_2d_fixes_m"]
    assert reference is not None
    fixes = sum(1 for line in path.read_text().splitlines() if line.strip())
    # Raw accumulation (filters off, so every fix is kept): the engine's distance is the
    # geodesic sum over the fixes.
    result = run_replay(str(path), "--speed", "0", "--config", '{"filters": "off"}')
    assert result.returncode == 0, result.stderr
    assert "phase: cruise -> touchdown" in result.stdout
    assert abs(summary_distance_m(result.stdout) - reference) <= 1e-4 * reference + 0.1
    assert re.search(rf"^  points +{fixes} replayed, {fixes} kept", result.stdout, re.M)
    assert re.search(r"^  heart rate +avg \d+ bpm, max \d+ bpm$", result.stdout, re.M)


@needs_library
def test_replay_reports_rejected_points_and_goes_on(tmp_path):
    path = tmp_path / "backwards.jsonl"
    fixes = [{"t": 1700000000 + t, "lat": 52.37 + 0.0001 * i, "lon": 4.89, "hr": 140}
             for i, t in enumerate([0, 10, 5, 20, 30])]          # the third steps backwards
    path.write_text("".join(json.dumps(fix) + "\n" for fix in fixes))
    result = run_replay(str(path), "--speed", "0")
    assert result.returncode == 0, result.stderr
    assert "point 3 rejected" in result.stderr
    assert re.search(r"^  points +5 replayed, 4 kept on the route, 1 rejected$",
                     result.stdout, re.M), result.stdout
    assert re.search(r"^  flight time +00:00:30$", result.stdout, re.M), result.stdout


# ---- Errors ---------------------------------------------------------------------

def test_replay_of_a_missing_file_exits_1(tmp_path):
    result = run_replay(str(tmp_path / "nope.gpx"))
    assert result.returncode == 1
    assert "nope.gpx" in result.stderr


@pytest.mark.parametrize("content, message", [
    # (the library's import reads GPX, with its messages: as `librunway summary` says them)
    ("<gpx><trk><trkseg><trkpt lat='52' lon='4'>", "not a well-formed GPX file"),
    ("<kml></kml>", "not a GPX file"),
    ("<gpx><trk><trkseg><trkpt lat='52' lon='4'/></trkseg></trk></gpx>", "no timed points"),
    ("<gpx><trk><trkseg><trkpt lat='x' lon='4'><time>2024-01-01T00:00:00Z</time></trkpt>"
     "</trkseg></trk></gpx>", 'lat "x" is not a number'),
    ("<gpx><trk><trkseg><trkpt lat='52' lon='4'><time>yesterday</time></trkpt>"
     "</trkseg></trk></gpx>", "not an ISO 8601 date-time"),
    ("", "empty GPX file"),
])
def test_replay_of_a_bad_gpx_exits_1(tmp_path, content, message):
    path = tmp_path / "bad.gpx"
    path.write_text(content)
    result = run_replay(str(path))
    assert result.returncode == 1
    assert message in result.stderr


def test_replay_of_bad_json_lines_exits_1_naming_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"t": 1, "lat": 52, "lon": 4}\n{"t": 2, "lat": \n')
    result = run_replay(str(path))
    assert result.returncode == 1
    assert "bad.jsonl:2" in result.stderr


@pytest.mark.parametrize("config", ["{not json", "[1]"])
def test_replay_with_a_malformed_config_exits_2(config):
    result = run_replay(str(SAMPLE), "--config", config)
    assert result.returncode == 2
    assert "--config" in result.stderr


@needs_library
def test_replay_with_a_config_the_library_refuses_exits_1():
    result = run_replay(str(SAMPLE), "--config", '{"distance_filtre_m": 5}')
    assert result.returncode == 1
    assert result.stderr.startswith("replay: ")
