"""The `librunway` command line (python -m librunway; the console script is the same main,
tested installed by Tests/python/test_wheel.py): summary, splits, export, replay, plot,
batch; one-line errors with a non-zero exit status; --help on each."""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
import time

import pytest

import librunway
from conftest import PYTHON_DIR, REPO, TRACKS

SAMPLE = REPO / "examples" / "data" / "city_run.gpx"
pytestmark = pytest.mark.skipif(not librunway.import_available(),
                                reason="the loaded librunway has no runway_import")
needs_tracks = pytest.mark.skipif(not TRACKS.is_dir(), reason=f"{TRACKS} absent")
COMMANDS = ("summary", "splits", "export", "replay", "plot", "batch")


def run(*args: str, cwd=None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "RUNWAY_LIBRARY": librunway.library_path(),
           "PYTHONPATH": str(PYTHON_DIR)}
    return subprocess.run([sys.executable, "-m", "librunway", *map(str, args)], env=env,
                          cwd=cwd, capture_output=True, text=True, timeout=timeout)


def one_line_error(p: subprocess.CompletedProcess, prefix: str) -> str:
    assert p.returncode != 0
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), p.stderr
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command):
    p = run(command, "--help")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"usage: librunway {command}")


def test_the_command_lists_its_commands():
    p = run("--help")
    assert p.returncode == 0
    for command in COMMANDS:
        assert re.search(rf"^    {command} ", p.stdout, re.M), p.stdout
    assert one_line_error(run(), "librunway: ")
    assert "invalid choice" in one_line_error(run("fly"), "librunway: ")
    assert run("--version").stdout.strip() == f"librunway {librunway.__version__}"


def summary_rows(stdout: str) -> dict[str, list[str]]:
    lines = stdout.splitlines()
    assert lines[0].split()[:3] == ["file", "activity", "km"] and set(lines[1]) <= {"-", " "}
    return {line.split()[0]: line.split() for line in lines[2:]}


def test_summary_is_a_table_of_the_engines_figures():
    p = run("summary", SAMPLE)
    assert p.returncode == 0 and p.stderr == ""
    row = summary_rows(p.stdout)["city_run.gpx"]
    f = librunway.analyse(SAMPLE)
    assert row[1] == "run" and row[2] == f"{f.summary['distance_m'] / 1000:.2f}"
    assert row[3] == "0:27:07" and row[-1] == str(len(f.laps))


@needs_tracks
def test_summary_of_a_fit_a_gpx_and_a_tcx():
    names = ["fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit",
             "togeojson__Friday-Evening-Run.gpx", "tcxreader__cross-country-skiing_activity_1.tcx"]
    p = run("summary", *(TRACKS / n for n in names))
    assert p.returncode == 0, p.stderr
    rows = summary_rows(p.stdout)
    assert sorted(rows) == sorted(names)
    assert rows[names[0]][1] == "ride" and abs(float(rows[names[0]][2]) - 78.94) < 0.005 * 78.94


def test_a_bad_file_is_one_line_and_exit_1_the_others_still_shown(tmp_path):
    bad = tmp_path / "broken.fit"
    bad.write_bytes(b"not a fit file at all")
    p = run("summary", SAMPLE, bad, tmp_path / "missing.gpx")
    assert p.returncode == 1
    assert "city_run.gpx" in summary_rows(p.stdout)
    errors = p.stderr.splitlines()
    assert len(errors) == 2 and all(e.startswith("librunway summary: ") for e in errors)
    assert str(bad) in errors[0] and "missing.gpx" in errors[1]


def test_splits_are_the_laps():
    p = run("splits", SAMPLE)
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()[2:]]
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5"]
    assert [r[1] for r in rows] == ["auto"] * 4 + ["final"] and rows[0][2] == "1000"
    half = run("splits", SAMPLE, "--every", "500")
    assert len(half.stdout.splitlines()) - 2 == 10
    assert "--every" in one_line_error(run("splits", SAMPLE, "--every", "0"), "librunway splits: ")


@needs_tracks
def test_a_fit_files_splits_are_its_devices_laps():
    # Its 4 lap messages (3 pressed, the rest): device lap lines and no auto laps; --every
    # replaces them with its auto laps (no slivers where the two nearly met). Before, 86 laps
    # of 1 km.
    p = run("splits", str(TRACKS / "fitparse__sample-activity.fit"))
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()[2:]]
    assert [r[1] for r in rows] == ["manual"] * 3 + ["final"]
    every = run("splits", str(TRACKS / "fitparse__sample-activity.fit"), "--every", "20000")
    triggers = [line.split()[1] for line in every.stdout.splitlines()[2:]]
    assert triggers == ["auto"] * 4 + ["final"], triggers


def test_export_writes_the_flight(tmp_path):
    p = run("export", SAMPLE, "--to", "fit", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    out = tmp_path / "city_run.fit"
    assert out.read_bytes()[8:12] == b".FIT"
    assert p.stdout.strip() == f"wrote city_run.fit (fit, {out.stat().st_size} bytes)"
    gpx = tmp_path / "x.gpx"
    assert run("export", SAMPLE, "--to", "gpx", "-o", gpx).returncode == 0
    assert gpx.read_bytes() == librunway.analyse(SAMPLE).export("gpx")
    assert "--to" in one_line_error(run("export", SAMPLE, "--to", "kml"), "librunway export: ")
    assert "input" in one_line_error(run("export", SAMPLE, "--to", "gpx", "-o", SAMPLE),
                                     "librunway export: ")


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib", reason="pip install matplotlib (install-deps does)")
    out = tmp_path / "run.png"
    p = run("plot", SAMPLE, "-o", out)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 50_000
    one_line_error(run("plot", SAMPLE, "-o", tmp_path / "no" / "such" / "dir.png"),
                   "librunway plot: ")


@needs_tracks
def test_replay_of_a_ride_uses_the_ride_profile():
    name = "fitparse__2015-10-13-08-43-15.fit"
    p = run("replay", TRACKS / name, "--speed", "0")
    assert p.returncode == 0, p.stderr
    assert re.search(r"^  profile +ride \(named by the file\)$", p.stdout, re.M), p.stdout
    run_profile = run("replay", TRACKS / name, "--speed", "0", "--config", '{"activity":"run"}')
    assert re.search(r"^  profile +run \(--config\)$", run_profile.stdout, re.M)


@needs_tracks
def test_replay_opens_its_session_with_the_librarys_rule():
    """librunway replay merges what the file names into --config by replay_config, the rule of
    analyse and runway_analyse (it merged by hand before): the same config for every file and
    config, and a config naming a setting as null is refused as replay_config refuses it."""
    from librunway.replay_input import load_track
    checked = 0
    for path in sorted(TRACKS.iterdir()):
        if path.suffix not in (".gpx", ".tcx", ".fit"):
            continue
        track = load_track(str(path))
        report = librunway.split_report(librunway.import_recording(path.read_bytes(), path.suffix[1:]))[1]
        for config in (None, {}, {"activity": "walk", "hr_max": 180}, {"auto_lap_m": 500}):
            assert track.config(config) == (librunway.replay_config(report, config) or config), path.name
        with pytest.raises(librunway.ArgumentError):
            track.config({"activity": None})
        checked += 1
    assert checked >= 10
    p = run("replay", SAMPLE, "--speed", "0", "--config", '{"activity":null}')
    assert p.returncode == 2
    assert one_line_error(p, "librunway replay: --config: config: \"activity\" must be one of")


@needs_tracks
def test_replay_counts_a_fit_files_altitude_as_the_file_says():
    # A FIT file's altitude is the device's barometric one (its import report's
    # altitude_source): the replay opens its session with it, as analyse() does, so the two
    # agree on the climb (GPS altitude would be averaged over 5 minutes and read less).
    name = "fitparse__2013-02-06-12-11-14.fit"
    p = run("replay", TRACKS / name, "--speed", "0")
    assert p.returncode == 0, p.stderr
    m = re.search(r"^  climb +\+([\d.]+) m, -([\d.]+) m \(barometric altitude\)$", p.stdout, re.M)
    assert m, p.stdout
    summary = librunway.analyse(TRACKS / name).summary
    assert (float(m.group(1)), float(m.group(2))) == (round(summary["gain_m"], 1), round(summary["loss_m"], 1))
    as_gps = run("replay", TRACKS / name, "--speed", "0", "--config", '{"fix_altitude":"gps"}')
    g = re.search(r"^  climb +\+([\d.]+) m, -[\d.]+ m \(gps altitude\)$", as_gps.stdout, re.M)
    assert g and float(g.group(1)) != float(m.group(1)), as_gps.stdout


def test_replay_of_an_indoor_flights_fit_is_measured_by_its_speed_samples(tmp_path):
    # A trainer ride's FIT (records without a position: its speed samples, and heart rate).
    t0 = 1_700_000_000
    with librunway.Session({"activity": "ride", "auto_pause": False}) as s:
        s.start(t0)
        for k in range(1, 601):
            s.push({"type": "hr", "bpm": 140, "t": t0 + k})
            s.push({"type": "speed", "speed": 7.5, "t": t0 + k})
        s.stop()
        (tmp_path / "trainer.fit").write_bytes(s.export("fit"))
    p = run("replay", tmp_path / "trainer.fit", "--speed", "0")
    assert p.returncode == 0, p.stderr
    assert re.search(r"^  distance +4\.50 km \(4500\.0 m\)$", p.stdout, re.M), p.stdout
    assert re.search(r"^  heart rate +avg 140 bpm", p.stdout, re.M), p.stdout


def replayed_flight(stdout: str) -> tuple[str, str]:
    """The distance (m, one decimal) and flight time a replay's summary prints."""
    d = re.search(r"^  distance +[\d.]+ km \(([\d.]+) m\)$", stdout, re.M)
    t = re.search(r"^  flight time +(\S+)$", stdout, re.M)
    assert d and t, stdout
    return d.group(1), t.group(1)


def analysed_flight(path) -> tuple[str, str]:
    s = librunway.analyse(path).summary
    return f"{s['distance_m']:.1f}", librunway.format_time(s["elapsed_s"])


TWO_SEGMENTS_GPX = """<?xml version="1.0"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk>
<trkseg>{}</trkseg>
<trkseg>{}</trkseg>
</trk></gpx>"""


def _trkpts(t0: int, lat0: float, n: int) -> str:
    # one a second at about 3 m/s northwards
    return "".join(f'<trkpt lat="{lat0 + k * 0.000027:.7f}" lon="4.9"><time>'
                   f'{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0 + k))}</time></trkpt>'
                   for k in range(n))


def test_replay_of_a_gpx_is_the_flight_summary_and_analyse_give(tmp_path):
    # The library reads the GPX (as for FIT and TCX): a segment break is a pause, so the
    # 20 minutes between the two segments are no flight time, and the jump between them no
    # distance.
    path = tmp_path / "two_segments.gpx"
    t0 = 1_700_000_000
    path.write_text(TWO_SEGMENTS_GPX.format(_trkpts(t0, 52.0, 300),
                                            _trkpts(t0 + 1500, 52.02, 300)))
    p = run("replay", path, "--speed", "0")
    assert p.returncode == 0, p.stderr
    assert replayed_flight(p.stdout) == analysed_flight(path)
    assert replayed_flight(p.stdout)[1] < "00:11:00", p.stdout


@needs_tracks
@pytest.mark.parametrize("name", ["gpxpy__cerknicko-jezero.gpx",
                                  "togeojson__Friday-Evening-Run.gpx"])
def test_replay_of_a_real_gpx_is_the_flight_summary_gives(name):
    p = run("replay", TRACKS / name, "--speed", "0")
    assert p.returncode == 0, p.stderr
    assert replayed_flight(p.stdout) == analysed_flight(TRACKS / name)


@pytest.mark.parametrize("content", [
    "",
    '<?xml version="1.0"?>\n<!DOCTYPE gpx>\n<gpx><trk><trkseg><trkpt lat="52" lon="4">'
    "<time>2024-01-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>",
])
def test_replay_refuses_a_gpx_as_summary_does(tmp_path, content):
    path = tmp_path / "bad.gpx"
    path.write_text(content)
    replayed = one_line_error(run("replay", path, "--speed", "0"), "librunway replay: ")
    summed = one_line_error(run("summary", path), "librunway summary: ")
    assert replayed.removeprefix("librunway replay: ") == summed.removeprefix("librunway summary: ")


@pytest.mark.parametrize("command", ["summary", "splits", "export", "plot", "replay"])
@pytest.mark.parametrize("config", ["{bad", "[1]"])
def test_a_bad_config_option_is_a_usage_error_exit_2(command, config):
    extra = ["--to", "gpx", "-o", "-"] if command == "export" else []
    p = run(command, SAMPLE, "--config", config, *extra)
    assert "--config" in one_line_error(p, f"librunway {command}: ")
    assert p.returncode == 2, p.stderr


@pytest.mark.parametrize("every", ["0", "-5", "inf", "nan", "5", "9.9", "1000001"])
def test_a_bad_every_is_a_usage_error_exit_2(every):
    p = run("splits", SAMPLE, "--every", every)
    error = one_line_error(p, "librunway splits: ")
    assert "--every" in error and "auto_lap_m" not in error, error
    assert p.returncode == 2, p.stderr


def test_every_at_the_bounds_is_taken():
    assert run("splits", SAMPLE, "--every", "10").returncode == 0
    assert run("splits", SAMPLE, "--every", "1000000").returncode == 0


def test_replay_errors_are_one_line(tmp_path):
    one_line_error(run("replay", tmp_path / "nope.gpx"), "librunway replay: ")
    one_line_error(run("replay", SAMPLE, "--speed", "-1"), "librunway replay: ")


def test_replay_names_the_file_in_a_library_error(tmp_path):
    # A first time the session cannot start at (before 1970): the library's error, from
    # Session.start, names the file as summary's does.
    path = tmp_path / "old.gpx"
    path.write_text('<gpx><trk><trkseg><trkpt lat="46.43" lon="13.74">'
                    "<time>1901-12-13T20:45:52Z</time></trkpt></trkseg></trk></gpx>")
    replayed = one_line_error(run("replay", path, "--speed", "0"), "librunway replay: ")
    summed = one_line_error(run("summary", path), "librunway summary: ")
    assert replayed.startswith(f"librunway replay: {path}: "), replayed
    assert replayed.removeprefix("librunway replay: ") == summed.removeprefix("librunway summary: ")


def too_fast_for_a_run(tmp_path):
    """A GPX at 48 km/h that names no sport: replayed with the default profile, run, its fixes
    are refused as too fast, and agree at a ride's speed (a profile mismatch)."""
    path = tmp_path / "fast.gpx"
    path.write_text(TWO_SEGMENTS_GPX.replace("<trkseg>{}</trkseg>\n", "", 1).format(
        "".join(f'<trkpt lat="{52 + k * 0.00012:.7f}" lon="4.9"><time>'
                f'{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_700_000_000 + k))}</time>'
                "</trkpt>" for k in range(600))))
    mismatch = librunway.analyse(path).summary["profile_mismatch"]
    assert mismatch and mismatch["suggested"] == "ride", mismatch
    return path, mismatch["refused"]


@pytest.mark.parametrize("command", ["summary", "splits", "replay"])
def test_a_profile_mismatch_is_a_warning_naming_the_profile_and_the_refused_fixes(tmp_path,
                                                                                 command):
    path, refused = too_fast_for_a_run(tmp_path)
    extra = ["--speed", "0"] if command == "replay" else []
    p = run(command, path, *extra)
    assert p.returncode == 0, p.stderr
    assert p.stderr == (f"librunway {command}: {path}: warning: {refused} fixes refused as too "
                        "fast for a run: is it a ride? (--config '{\"activity\":\"ride\"}')\n")
    as_ride = run(command, path, *extra, "--config", '{"activity":"ride"}')
    assert as_ride.returncode == 0 and as_ride.stderr == "", as_ride.stderr


@needs_tracks
def test_a_ride_summarised_as_a_run_says_so():
    name = TRACKS / "fitparse__2015-10-13-08-43-15.fit"
    p = run("summary", name, "--config", '{"activity":"run"}')
    assert p.returncode == 0
    assert p.stderr.startswith(f"librunway summary: {name}: warning: 8 fixes refused as too fast "
                               "for a run, "), p.stderr
    assert "is it a ride?" in p.stderr


@pytest.mark.parametrize("command", ["summary", "splits", "export", "plot", "replay", "batch"])
def test_salvage_reads_a_truncated_fit(tmp_path, command):
    if command == "plot":
        pytest.importorskip("matplotlib", reason="pip install matplotlib (install-deps does)")
    if command == "batch":
        pytest.importorskip("distributed", reason="pip install dask distributed")
    whole = librunway.analyse(SAMPLE).export("fit")
    path = tmp_path / "cut.fit"
    path.write_bytes(whole[:len(whole) // 2])
    extra = {"export": ["--to", "gpx", "-o", "-"], "plot": ["-o", tmp_path / "cut.png"],
             "replay": ["--speed", "0"], "batch": ["--workers", "1"]}.get(command, [])
    strict = run(command, path, *extra)
    if command == "batch":       # a table with an error row (exit 0), not a failed job
        assert "InputError: truncated FIT file" in strict.stdout and "salvage" in strict.stdout
    else:
        error = one_line_error(strict, f"librunway {command}: {path}: truncated FIT file")
        assert "--salvage" in error, error
    salvaged = run(command, path, *extra, "--salvage")
    assert salvaged.returncode == 0, salvaged.stderr
    if command == "summary":
        distance = librunway.analyse(path, salvage=True).summary["distance_m"]
        assert summary_rows(salvaged.stdout)["cut.fit"][2] == f"{distance / 1000:.2f}"
    if command == "batch":
        row = next(csv.DictReader(io.StringIO(salvaged.stdout)))
        assert row["error"] == "" and float(row["distance_m"]) > 1000, salvaged.stdout


def test_batch_writes_the_table(tmp_path):
    pytest.importorskip("distributed", reason="pip install dask distributed (install-deps does)")
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.gpx").write_bytes(SAMPLE.read_bytes())
    (folder / "b.fit").write_bytes(librunway.analyse(SAMPLE).export("fit"))
    out = tmp_path / "figures.csv"
    p = run("batch", folder, "--workers", "1", "--out", out, "--progress")
    assert p.returncode == 0, p.stderr
    assert "2/2 files 100%" in p.stderr and "librunway batch: 2 files, 0 failed" in p.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == 3 and lines[0].startswith("file,format,sport,activity,start,distance_m")
    assert one_line_error(run("batch", tmp_path / "nowhere"), "librunway batch: ")


def test_a_named_pipe_or_a_device_is_refused_unread(tmp_path):
    """librunway.analyse(path) and the commands that read one FILE refuse, without reading
    it, what is not a regular file, as librunway batch does: a named pipe called run.gpx
    (opening it waited for a writer for ever) and a link to a device (/dev/zero) called
    zero.fit (read until memory ran out: the child here has 2 GiB)."""
    os.mkfifo(tmp_path / "pipe.gpx")
    os.symlink("/dev/zero", tmp_path / "zero.fit")
    code = ("import resource, sys, librunway\n"
            "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
            "try:\n"
            "    librunway.analyse(sys.argv[1])\n"
            "except librunway.InputError as e:\n"
            "    print(e)\n")
    env = {**os.environ, "RUNWAY_LIBRARY": librunway.library_path(), "PYTHONPATH": str(PYTHON_DIR)}
    for name, kind in (("pipe.gpx", "a named pipe (FIFO)"), ("zero.fit", "a character device")):
        path = tmp_path / name
        child = subprocess.run([sys.executable, "-c", code, str(path)], env=env,
                               capture_output=True, text=True, timeout=20)   # a hang fails here
        assert child.stdout.strip() == f"{path}: not a regular file: {kind}", child.stderr[-500:]
        for command, status in (("summary", 1), ("splits", 1), ("replay", 1)):
            p = run(command, path, timeout=20)
            assert p.returncode == status, (command, p.stderr)
            assert f"not a regular file: {kind}" in one_line_error(p, f"librunway {command}: "), command


def test_summary_of_a_file_name_that_is_not_utf8(tmp_path):
    """A recording in a Latin-1 folder (a name that is not UTF-8) is a row of the summary,
    its name's other bytes as \\xNN escapes, with a UTF-8 locale's strict stdout too. Before,
    printing the table raised UnicodeEncodeError: no row at all, exit status 1."""
    path = os.path.join(os.fsencode(tmp_path), b"caf\xe9.gpx")
    with open(path, "wb") as f:
        f.write(SAMPLE.read_bytes())
    env = {**os.environ, "RUNWAY_LIBRARY": librunway.library_path(),
           "PYTHONPATH": str(PYTHON_DIR), "PYTHONIOENCODING": "utf-8:strict"}
    p = subprocess.run([sys.executable, "-m", "librunway", "summary", path, str(SAMPLE)],
                       env=env, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    rows = summary_rows(p.stdout.decode("utf-8"))
    assert rows["caf\\xe9.gpx"][1:] == rows["city_run.gpx"][1:]


@pytest.mark.skipif(not (TRACKS / "fitparse__activity-small-fenix2-run.fit").exists(), reason="no ../shared/tracks")
def test_a_recording_is_read_as_what_it_is_whatever_its_name(tmp_path):
    """A FIT file named ride.gpx and a TCX file named ride.fit are read by their contents, as
    the library's "auto" (the C and Rust analyse) reads them, by analyse, the batch, summary
    and replay; before, the batch and the CLI refused them as badly formed GPX and FIT."""
    from librunway import batch
    for real, fake in (("fitparse__activity-small-fenix2-run.fit", "run.gpx"), ("togeojson__tour_hr.tcx", "ride.fit")):
        data = (TRACKS / real).read_bytes()
        (tmp_path / fake).write_bytes(data)
        truth = librunway.analyse(data)
        assert librunway.analyse(tmp_path / fake).summary == truth.summary
        row = batch.analyse_file(tmp_path / fake)
        assert row["error"] is None and row["format"] == real.rsplit(".", 1)[1]
        assert row["distance_m"] == pytest.approx(truth.summary["distance_m"], abs=0.05)
        p = run("summary", tmp_path / fake)
        assert p.returncode == 0, p.stderr
        p = run("replay", tmp_path / fake, "--speed", "0")
        assert p.returncode == 0, p.stderr
    # A file that says nothing by its contents is its extension's: that reader's own refusal.
    (tmp_path / "empty.gpx").write_bytes(b"")
    with pytest.raises(librunway.InputError, match="GPX"):
        librunway.analyse(tmp_path / "empty.gpx")
