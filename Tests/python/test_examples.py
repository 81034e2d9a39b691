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
"""

from __future__ import annotations

import json
import math
import os
import pty
import re
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "examples" / "data" / "gen_city_run.py"
SAMPLE = REPO / "examples" / "data" / "city_run.gpx"
REPLAY = REPO / "examples" / "python" / "replay.py"
LIBRARY = Path(os.environ.get("RUNWAY_LIBRARY") or REPO / "build" / "librunway.so")
TRACKS = REPO.parent / "shared" / "tracks"

GPX_NS = "{http://www.topografix.com/GPX/1/1}"
TPX_NS = "{http://www.garmin.com/xmlschemas/TrackPointExtension/v2}"

# The committed sample, as gen_city_run.py makes it with its default seed.
SAMPLE_POINTS = 1628          # one a second
SAMPLE_DURATION_S = 1627

needs_library = pytest.mark.skipif(not LIBRARY.exists(), reason=f"{LIBRARY} not built")
needs_tracks = pytest.mark.skipif(not (TRACKS / "fixes").is_dir(),
                                  reason=f"{TRACKS} absent")


def run_replay(*args: str, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, RUNWAY_LIBRARY=str(LIBRARY),
               PYTHONPATH=str(REPO / "bindings" / "python"))
    return subprocess.run([sys.executable, str(REPLAY), *args], env=env, timeout=timeout,
                          capture_output=True, text=True, **kwargs)


def summary_distance_m(stdout: str) -> float:
    match = re.search(r"^  distance +[0-9.]+ km \(([0-9.]+) m\)$", stdout, re.M)
    assert match, f"no distance in the summary:\n{stdout}"
    return float(match.group(1))


def haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(h))


def sample_points() -> list[dict]:
    root = ET.parse(SAMPLE).getroot()
    points = []
    for trkpt in root.iter(f"{GPX_NS}trkpt"):
        points.append({
            "lat": float(trkpt.get("lat")), "lon": float(trkpt.get("lon")),
            "ele": float(trkpt.findtext(f"{GPX_NS}ele")),
            "t": datetime.fromisoformat(trkpt.findtext(f"{GPX_NS}time")).timestamp(),
            "hr": int(trkpt.findtext(f".//{TPX_NS}hr")),
            "cad": int(trkpt.findtext(f".//{TPX_NS}cad")),
        })
    return points


def sample_true_distance_m() -> float:
    desc = ET.parse(SAMPLE).getroot().findtext(f"{GPX_NS}metadata/{GPX_NS}desc")
    match = re.search(r"true distance: ([0-9.]+) m", desc or "")
    assert match, f"no true distance in <metadata><desc>: {desc!r}"
    return float(match.group(1))


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
    moving = [p["cad"] for i, p in enumerate(points) if i > 30 and p["cad"] >= 150]
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
    assert re.search(r"^  cadence +avg \d+ spm$", out, re.M)
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


# ---- Store and exports ------------------------------------------------------------

def runway_package():
    """The Python package of this tree, on the library the replays use."""
    os.environ.setdefault("RUNWAY_LIBRARY", str(LIBRARY))
    sys.path.insert(0, str(REPO / "bindings" / "python"))
    import librunway

    return librunway


def import_available() -> bool:
    if not LIBRARY.exists():
        return False
    return runway_package().import_available()


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
def test_replay_with_an_unusable_store_exits_2(tmp_path):
    (tmp_path / "noise.db").write_bytes(b"\x07" * 4096)
    result = run_replay(str(SAMPLE), "--speed", "0", "--store", str(tmp_path / "noise.db"))
    assert result.returncode == 2
    assert result.stderr.startswith("replay: ") and "noise.db" in result.stderr


@needs_library
@pytest.mark.skipif(import_available(), reason="librunway has runway_import")
def test_replay_of_a_fit_file_without_runway_import_says_what_is_missing(tmp_path):
    path = tmp_path / "run.fit"
    path.write_bytes(b"\x0e\x10" + bytes(6) + b".FIT" + bytes(4))
    result = run_replay(str(path), "--speed", "0")
    assert result.returncode == 2
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


# ---- Errors ---------------------------------------------------------------------

def test_replay_of_a_missing_file_exits_2(tmp_path):
    result = run_replay(str(tmp_path / "nope.gpx"))
    assert result.returncode == 2
    assert "nope.gpx" in result.stderr


@pytest.mark.parametrize("content, message", [
    ("<gpx><trk><trkseg><trkpt lat='52' lon='4'>", "not a valid GPX"),
    ("<kml></kml>", "not a GPX file"),
    ("<gpx><trk><trkseg><trkpt lat='52' lon='4'/></trkseg></trk></gpx>", "no track points"),
    ("<gpx><trk><trkseg><trkpt lat='x' lon='4'><time>2024-01-01T00:00:00Z</time></trkpt>"
     "</trkseg></trk></gpx>", "bad lat/lon"),
    ("<gpx><trk><trkseg><trkpt lat='52' lon='4'><time>yesterday</time></trkpt>"
     "</trkseg></trk></gpx>", "bad <time>"),
])
def test_replay_of_a_bad_gpx_exits_2(tmp_path, content, message):
    path = tmp_path / "bad.gpx"
    path.write_text(content)
    result = run_replay(str(path))
    assert result.returncode == 2
    assert message in result.stderr


def test_replay_of_bad_json_lines_exits_2_naming_the_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"t": 1, "lat": 52, "lon": 4}\n{"t": 2, "lat": \n')
    result = run_replay(str(path))
    assert result.returncode == 2
    assert "bad.jsonl:2" in result.stderr


@pytest.mark.parametrize("config", ["{not json", "[1]"])
def test_replay_with_a_malformed_config_exits_2(config):
    result = run_replay(str(SAMPLE), "--config", config)
    assert result.returncode == 2
    assert "--config" in result.stderr


@needs_library
def test_replay_with_a_config_the_library_refuses_exits_2():
    result = run_replay(str(SAMPLE), "--config", '{"distance_filtre_m": 5}')
    assert result.returncode == 2
    assert result.stderr.startswith("replay: ")


# ---- README and docs -------------------------------------------------------------

README = REPO / "README.md"

#: Pages the README links to that other branches add (docs/install.md: door-native;
#: docs/formats.md: files). Delete this set once they are merged: then a missing one fails.


def readme_block(heading: str, tag: str) -> str:
    """The first ```tag block after the line `heading` in README.md, with a final newline."""
    lines = README.read_text().splitlines()
    assert heading in lines, f"README.md has no {heading!r}"
    rest = lines[lines.index(heading):]
    assert f"```{tag}" in rest, f"README.md: no ```{tag} block after {heading!r}"
    rest = rest[rest.index(f"```{tag}") + 1:]
    assert "```" in rest, f"README.md: the ```{tag} block after {heading!r} is not closed"
    return "".join(line + "\n" for line in rest[:rest.index("```")])


def test_the_readme_is_a_front_door_of_at_most_200_lines():
    lines = README.read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move reference to docs/"


@needs_library
def test_the_readme_python_example_prints_what_the_readme_shows(tmp_path):
    example = tmp_path / "readme_example.py"
    example.write_text(readme_block("## A run from Python", "python"))
    env = dict(os.environ, RUNWAY_LIBRARY=str(LIBRARY),
               PYTHONPATH=str(REPO / "bindings" / "python"))
    result = subprocess.run([sys.executable, str(example)], env=env, timeout=60,
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == readme_block("## A run from Python", "text")


MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def heading_anchors(page: Path) -> set[str]:
    """GitHub's anchors of a Markdown page's headings (lower case, punctuation dropped)."""
    anchors = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def relative_links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)      # not inside code
    return [link for link in MARKDOWN_LINK.findall(text)
            if not re.match(r"[a-z][a-z0-9+.-]*:", link)]                  # http:, mailto:


def test_every_relative_link_in_the_readme_and_docs_resolves_to_a_file_in_the_repo():
    pages = [README, *sorted((REPO / "docs").glob("*.md"))]
    assert len(pages) > 1, "docs/ holds no page"
    broken = []
    for page in pages:
        for link in relative_links(page):
            path, _, anchor = link.partition("#")
            target = (page.parent / path).resolve() if path else page
            name = target.relative_to(REPO).as_posix() if target.is_relative_to(REPO) else None
            if name is None:
                broken.append(f"{page.name}: {link} (outside the repository)")
            elif not target.exists():
                broken.append(f"{page.name}: {link} (no such file)")
            elif anchor and target.suffix == ".md" and anchor not in heading_anchors(target):
                broken.append(f"{page.name}: {link} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_link_check_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[a](missing.md) [b](https://example.org) `[c](code.md)`\n"
                    "```\n[d](in-a-block.md)\n```\n[e](page.md#nowhere)\n")
    assert relative_links(page) == ["missing.md", "code.md", "page.md#nowhere"]
    assert "nowhere" not in heading_anchors(page)
