"""librunway.batch: figures for archives of recordings on a Dask cluster.

One local cluster (2 worker processes, 1 thread each) serves the module. The archive is
the real recordings of ../shared/tracks copied 20 times (when that folder exists), GPX files
written here with the standard library (southern hemisphere, across the antimeridian, with
and without a sport), the library's own FIT/TCX exports of one of them, and broken files
(truncated, not a recording at all, no points). The cluster's rows must equal a run in this
process exactly; broken files must be rows with an error, never a failed job.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("dask", reason="librunway.batch needs dask: pip install './bindings/python[batch]' "
                                   "(scripts/install-deps.sh installs it for make test)")
distributed = pytest.importorskip(
    "distributed", reason="librunway.batch needs distributed: pip install './bindings/python[batch]' "
                          "(scripts/install-deps.sh installs it for make test)")

import librunway  # noqa: E402
from conftest import PYTHON_DIR, TRACKS  # noqa: E402
from librunway import batch  # noqa: E402
from runway_testkit import WGS84_A, WGS84_E2, meridian_arc_m  # noqa: E402


def _import_available() -> bool:
    try:
        return librunway.import_available()
    except librunway.LibraryError:
        return False


pytestmark = pytest.mark.skipif(not _import_available(),
                                reason="the loaded librunway has no runway_import")

COPIES = 20
SHARED = sorted(p for p in TRACKS.glob("*") if p.suffix in (".gpx", ".tcx", ".fit")) if TRACKS.is_dir() else []
#: Shared recordings the engine refuses as a whole (README of ../shared/tracks: 1901 placeholder times).
SHARED_REFUSED = {"gpxpy__Mojstrovka.gpx": "InputError"}

T0 = 1_700_000_000


# ---- generated recordings ---------------------------------------------------------------------

def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def write_gpx(path: Path, points: list[tuple], sport: str | None) -> None:
    """A GPX 1.1 file of (lat, lon, ele, t, hr|None) points, with <trk><type> when `sport`
    is given, and a metadata link whose <type> (a MIME type) must not be taken for the sport."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<gpx version="1.1" creator="test_batch" xmlns="http://www.topografix.com/GPX/1/1" '
           'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">',
           '<metadata><link href="https://example.org"><text>x</text><type>text/html</type></link></metadata>',
           "<trk><name>generated</name>" + (f"<type>{sport}</type>" if sport else "") + "<trkseg>"]
    for lat, lon, ele, t, hr in points:
        lon = (lon + 180.0) % 360.0 - 180.0
        ext = ("" if hr is None else
               f"<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>{hr}</gpxtpx:hr>"
               "</gpxtpx:TrackPointExtension></extensions>")
        out.append(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{ele:.1f}</ele>'
                   f"<time>{_iso(t)}</time>{ext}</trkpt>")
    out.append("</trkseg></trk></gpx>")
    path.write_text("\n".join(out) + "\n")


def northward(lat0: float, lon0: float, n: int, speed: float) -> tuple[list[tuple], float]:
    """n fixes at 1 Hz due north at `speed` m/s, hr alternating 140/150; and the true
    distance (the WGS84 meridian arc between the first and last written points)."""
    dlat = speed / (meridian_arc_m(lat0, lat0 + 0.01) / 0.01)
    pts = [(lat0 + i * dlat, lon0, 20 + 10 * math.sin(i / 60), T0 + i, 140 + 10 * (i % 2))
           for i in range(n)]
    return pts, meridian_arc_m(round(pts[0][0], 7), round(pts[-1][0], 7))


def eastward(lat0: float, lon0: float, n: int, speed: float) -> tuple[list[tuple], float]:
    """n fixes at 1 Hz due east along a parallel (no heart rate); the true distance is the
    parallel's arc (equal to the geodesics to well under a millimetre a step)."""
    radius = WGS84_A / math.sqrt(1 - WGS84_E2 * math.sin(math.radians(lat0)) ** 2) * math.cos(math.radians(lat0))
    dlon = math.degrees(speed / radius)
    pts = [(lat0, lon0 + i * dlon, 5.0, T0 + i, None) for i in range(n)]
    return pts, radius * math.radians(round(pts[-1][1], 7) - round(pts[0][1], 7))


#: name -> (points, true distance, sport written, sport read, activity)
GENERATED = {
    "sydney_run.gpx": (*northward(-33.87, 151.21, 1200, 3.0), "running", "running", "run"),
    "fiji_ride.gpx": (*eastward(-17.7, 179.9, 900, 8.0), "cycling", "cycling", "ride"),   # crosses 180°
    "alps_hike.gpx": (*northward(46.5, 7.9, 900, 1.3), "Hiking", "hiking", "walk"),
    "no_sport.gpx": (*northward(52.0, 4.0, 600, 2.5), None, None, "run"),
}

#: name -> the error class its row must name
BROKEN = {
    "truncated.fit": "InputError",      # a FIT file cut in half
    "truncated.gpx": "InputError",      # a GPX file cut mid-element
    "notes.fit": "InputError",          # text, not a FIT file
    "photo.gpx": "InputError",          # PNG bytes, not XML
    "no_points.gpx": "RecordingError",  # valid GPX without a timed point
    "report.txt": "RecordingError",     # named explicitly: not a recording
}


def _exported(path: Path, fmt: str) -> bytes:
    """The library's own export of a generated recording replayed as a ride."""
    lines = librunway.import_recording(path.read_bytes(), "gpx")
    with librunway.Session({"activity": "ride"}) as s:
        s.start(json.loads(lines[0])["t"])
        s.push_many(lines, strict=True)
        s.stop()
        return s.export(fmt)


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("archive")
    for k in range(COPIES if SHARED else 0):
        folder = root / "shared" / f"copy{k:02d}"
        folder.mkdir(parents=True)
        for p in SHARED:
            shutil.copyfile(p, folder / p.name)
    gen = root / "generated"
    gen.mkdir()
    for name, (pts, _, sport, _, _) in GENERATED.items():
        write_gpx(gen / name, pts, sport)
    (gen / "fiji_ride_export.fit").write_bytes(_exported(gen / "fiji_ride.gpx", "fit"))
    (gen / "fiji_ride_export.tcx").write_bytes(_exported(gen / "fiji_ride.gpx", "tcx"))
    broken = root / "broken"
    broken.mkdir()
    fit = (gen / "fiji_ride_export.fit").read_bytes()
    (broken / "truncated.fit").write_bytes(fit[:len(fit) // 2])
    gpx = (gen / "sydney_run.gpx").read_bytes()
    (broken / "truncated.gpx").write_bytes(gpx[:len(gpx) // 2])
    (broken / "notes.fit").write_text("meeting notes, not a FIT file\n")
    (broken / "photo.gpx").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    (broken / "no_points.gpx").write_text('<?xml version="1.0"?><gpx version="1.1" '
                                          'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg/></trk></gpx>')
    (broken / "report.txt").write_text("not a recording\n")   # skipped by directory scans
    (root / "README.md").write_text("an archive\n")
    (root / ".hidden.gpx").write_bytes(gpx)                     # skipped: a hidden file
    return root


@pytest.fixture(scope="module")
def client():
    cluster = batch.local_cluster(2)
    c = distributed.Client(cluster, set_as_default=False)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def expected_count() -> int:
    return COPIES * len(SHARED) + len(GENERATED) + 2 + len(BROKEN) - 1   # report.txt not scanned


def by_name(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(Path(r["file"]).name, []).append(r)
    return out


# ---- the cluster equals one process -----------------------------------------------------------

def test_cluster_rows_equal_single_process_rows(archive, client):
    with pytest.raises(ValueError):
        distributed.default_client()          # no current client: analyse() runs in this process
    single = batch.analyse(archive)
    with distributed.get_task_stream(client=client) as stream:
        clustered = batch.analyse(archive, client=client)
    assert len(single) == expected_count()
    key = lambda r: r["file"]  # noqa: E731
    assert sorted(clustered, key=key) == sorted(single, key=key)
    assert clustered == single                # and in the same order: the order found
    assert [list(r) for r in clustered] == [list(batch.COLUMNS)] * len(clustered)
    # The work was spread over both workers, in tasks of several files.
    workers = {t["worker"] for t in stream.data}
    assert len(workers) == 2, workers
    assert 1 < len(stream.data) < len(clustered)

    names = by_name(clustered)
    assert "README.md" not in names and ".hidden.gpx" not in names and "report.txt" not in names
    for p in SHARED:
        copies = names[p.name]
        assert len(copies) == COPIES
        figures = [{k: v for k, v in r.items() if k != "file"} for r in copies]
        assert all(f == figures[0] for f in figures), p.name   # every copy, whichever worker
        if p.name in SHARED_REFUSED:
            assert figures[0]["error"].startswith(SHARED_REFUSED[p.name] + ": ")
        else:
            assert figures[0]["error"] is None, figures[0]
            assert figures[0]["distance_m"] > 0 and figures[0]["fixes"] > 0
            assert figures[0]["laps"] >= 1 and figures[0]["start"].endswith("Z")


def test_generated_recordings_have_their_true_figures(archive):
    rows = by_name(batch.analyse(archive / "generated"))
    for name, (pts, truth, _, sport, activity) in GENERATED.items():
        (r,) = rows[name]
        assert r["error"] is None, r
        assert (r["format"], r["sport"], r["activity"]) == ("gpx", sport, activity)
        assert r["start"] == _iso(T0)                                  # started at the first fix
        assert r["elapsed_s"] == len(pts) - 1                         # stopped at the last
        assert r["distance_m"] == pytest.approx(truth, rel=0.005)     # the engine's figure, not 0
        assert r["laps"] == int(r["distance_m"] // 1000) + 1          # auto-laps of 1 km + final
        assert r["fixes"] == len(pts) and r["rejected"] == 0
        if pts[0][4] is None:
            assert r["avg_hr_bpm"] is None and r["max_hr_bpm"] is None
        else:
            assert r["max_hr_bpm"] == 150 and 140 < r["avg_hr_bpm"] < 150
    # The library's own FIT and TCX exports of the ride read back as rides.
    assert (rows["fiji_ride_export.fit"][0]["sport"], rows["fiji_ride_export.fit"][0]["activity"]) == ("cycling", "ride")
    assert (rows["fiji_ride_export.tcx"][0]["sport"], rows["fiji_ride_export.tcx"][0]["activity"]) == ("biking", "ride")
    for name in ("fiji_ride_export.fit", "fiji_ride_export.tcx"):
        assert rows[name][0]["distance_m"] == pytest.approx(rows["fiji_ride.gpx"][0]["distance_m"], rel=0.01)


def test_broken_files_are_error_rows_not_a_failed_job(archive, client):
    files = sorted(str(p) for p in (archive / "broken").iterdir())
    rows = batch.analyse(files, client=client)        # files named explicitly: report.txt too
    assert [Path(r["file"]).name for r in rows] == sorted(BROKEN)
    for r in rows:
        want = BROKEN[Path(r["file"]).name]
        assert r["error"] and r["error"].startswith(want + ": "), r
        assert all(r[c] is None for c in batch.COLUMNS
                   if c not in ("file", "format", "sport", "activity", "error")), r
    assert rows == batch.analyse(files)


#: A child that analyses a folder in one process, its address space capped (a file read
#: without end fails there, not on the machine), printing the rows as JSON.
_SERIAL_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
from librunway import batch
print(json.dumps(batch.analyse(sys.argv[1])))
"""


def test_files_that_are_not_regular_or_too_large_are_refused_unread(archive, client, tmp_path):
    """A named pipe called run.gpx, a link to a device (/dev/zero) called zero.fit, and a file
    past the import limit: each is a row saying why, without being read (opening the pipe
    blocked the batch for ever; the device was read until memory ran out; the large file
    was read whole before the library refused it), and the other files' rows are as alone."""
    folder = tmp_path / "odd"
    folder.mkdir()
    shutil.copyfile(archive / "generated" / "no_sport.gpx", folder / "good.gpx")
    os.mkfifo(folder / "pipe.gpx")
    os.symlink("/dev/zero", folder / "zero.fit")
    with open(folder / "big.gpx", "wb") as f:
        f.truncate((64 << 20) + 1)                        # sparse: one byte past the limit
    env = {**os.environ, "RUNWAY_LIBRARY": librunway.library_path(), "PYTHONPATH": str(PYTHON_DIR)}
    child = subprocess.run([sys.executable, "-c", _SERIAL_CHILD, str(folder)], env=env,
                           capture_output=True, text=True, timeout=20)   # a hang fails here
    assert child.returncode == 0, child.stderr[-2000:]
    rows = json.loads(child.stdout)
    errors = {Path(r["file"]).name: r["error"] for r in rows}
    assert errors == {
        "big.gpx": "InputError: GPX file of 67108865 bytes exceeds the import limit of 67108864 bytes",
        "good.gpx": None,
        "pipe.gpx": "InputError: not a regular file: a named pipe (FIFO)",
        "zero.fit": "InputError: not a regular file: a character device",
    }
    assert rows[1] == batch.analyse_file(folder / "good.gpx", name=str(folder / "good.gpx"))
    assert batch.analyse(folder, client=client) == rows


def test_a_task_that_fails_is_retried_file_by_file(archive, client, monkeypatch):
    """A task that raises (a bug, or a worker lost) costs only its own file a row: the
    other files of its task are analysed again one by one."""
    target = "fiji_ride.gpx"
    monkeypatch.setattr(batch, "CHUNKS_PER_THREAD", 1)   # 6 files in 2 tasks: several a task
    items = [(os.path.abspath(f), f) for f in batch.find_recordings(archive / "generated")]
    chunks = batch._chunks(items, 2)
    assert any(len(c) > 1 and any(items[j][1].endswith(target) for j in c) for c in chunks)

    def poison() -> None:
        import librunway.batch as b
        real = b.analyse_file

        def analyse_file(path, config=None, *, name=None):
            if str(path).endswith(target):
                raise RuntimeError("boom")
            return real(path, config, name=name)
        analyse_file.real = real
        b.analyse_file = analyse_file

    def heal() -> None:
        import librunway.batch as b
        b.analyse_file = getattr(b.analyse_file, "real", b.analyse_file)

    client.run(poison)
    try:
        rows = batch.analyse(archive / "generated", client=client)
    finally:
        client.run(heal)
    expected = batch.analyse(archive / "generated")
    assert len(rows) == len(expected)
    for got, want in zip(rows, expected):
        if got["file"].endswith(target):
            assert got["error"] == "worker failed on this file: RuntimeError: boom"
        else:
            assert got == want


def test_a_worker_without_the_library_fails_the_job(archive, client):
    """No usable librunway on a worker is not a file's fault: LibraryError, not error rows."""
    def break_library() -> None:
        import librunway.batch_rows as b      # where librunway.batch.analyse_file is
        real, real_analyse = b.import_recording, b.analyse_recording

        def import_recording(data, fmt):
            raise librunway.LibraryError("librunway.so not found (test)")

        def analyse_recording(data, fmt, config=None, **options):
            raise librunway.LibraryError("librunway.so not found (test)")
        import_recording.real = real
        analyse_recording.real = real_analyse
        b.import_recording = import_recording
        b.analyse_recording = analyse_recording

    def heal() -> None:
        import librunway.batch_rows as b
        b.import_recording = getattr(b.import_recording, "real", b.import_recording)
        b.analyse_recording = getattr(b.analyse_recording, "real", b.analyse_recording)

    client.run(break_library)
    try:
        with pytest.raises(librunway.LibraryError, match="not found"):
            batch.analyse(archive / "generated", client=client)
    finally:
        client.run(heal)


# ---- command line -----------------------------------------------------------------------------

def _read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == batch.COLUMNS
        return list(reader)


def _as_csv_cells(row: dict) -> dict:
    return {k: "" if v is None else str(v) for k, v in row.items()}


def test_command_line_writes_the_table(archive, tmp_path):
    folder = archive / "generated"
    out = tmp_path / "figures.csv"
    env = {**os.environ, "RUNWAY_LIBRARY": librunway.library_path(),
           "PYTHONPATH": os.pathsep.join([str(PYTHON_DIR), os.environ.get("PYTHONPATH", "")])}
    p = subprocess.run([sys.executable, "-m", "librunway.batch", str(folder), str(archive / "broken"),
                        "--workers", "2", "--out", str(out)],
                       capture_output=True, text=True, env=env, timeout=50)
    assert p.returncode == 0, p.stderr
    rows = _read_csv(out)
    expected = batch.analyse([folder, archive / "broken"])
    assert rows == [_as_csv_cells(r) for r in expected]       # floats written exactly (repr)
    failed = sum(1 for r in expected if r["error"])
    assert f"librunway.batch: {len(expected)} files, {failed} failed, " in p.stderr
    assert "recordings/s" in p.stderr and "2 workers" in p.stderr


def test_command_line_on_an_existing_scheduler(archive, client, tmp_path, capsys):
    out = tmp_path / "figures.csv"
    status = batch.main([str(archive / "generated"), "--scheduler", client.scheduler.address,
                         "--out", str(out)])
    assert status == 0
    assert _read_csv(out) == [_as_csv_cells(r) for r in batch.analyse(archive / "generated")]
    assert f"2 workers at {client.scheduler.address}" in capsys.readouterr().err


def test_command_line_draws_a_progress_bar_on_stderr_of_a_terminal(archive, client, capsys,
                                                                   monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    status = batch.main([str(archive / "generated"), "--scheduler", client.scheduler.address])
    assert status == 0
    captured = capsys.readouterr()
    frames = captured.err.split("\r")[1:]                 # each redraw starts with \r
    assert frames[0] == "[" + "-" * 30 + "] 0/6 files   0%"
    assert frames[-1].startswith("[" + "#" * 30 + "] 6/6 files 100%\n")
    done = [int(f.split("] ")[1].split("/")[0]) for f in frames]
    assert done == sorted(done)                            # (how often it moves: the next test)
    assert "librunway batch: 6 files, 0 failed, " in frames[-1]   # then the summary line
    assert captured.out.startswith(",".join(batch.COLUMNS) + "\r\n") or \
        captured.out.startswith(",".join(batch.COLUMNS) + "\n")
    assert "files" not in captured.out.split("\n", 1)[1] and "#" not in captured.out  # CSV only


class _Task:
    """A stand-in for a Dask future that is done after its polls run out."""
    def __init__(self, polls: int):
        self.polls = polls

    def done(self) -> bool:
        self.polls -= 1
        return self.polls < 0


def test_the_progress_bar_moves_as_each_task_finishes():
    out = io.StringIO()
    # Three tasks of 1, 2 and 3 files, finishing at the 1st, 3rd and 5th poll.
    batch._progress_bar([_Task(0), _Task(2), _Task(4)], [1, 2, 3], 6, out=out, width=6)
    frames = out.getvalue().split("\r")[1:]
    assert frames == ["[------] 0/6 files   0%", "[#-----] 1/6 files  16%",
                      "[###---] 3/6 files  50%", "[######] 6/6 files 100%\n"]


def test_progress_bar_follows_the_flag_not_the_terminal(archive, client, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert batch.main([str(archive / "generated"), "--scheduler", client.scheduler.address,
                       "--no-progress"]) == 0
    assert "\r" not in capsys.readouterr().err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert batch.main([str(archive / "generated"), "--scheduler", client.scheduler.address]) == 0
    assert "\r" not in capsys.readouterr().err
    assert batch.main([str(archive / "generated"), "--scheduler", client.scheduler.address,
                       "--progress"]) == 0
    assert "6/6 files 100%" in capsys.readouterr().err


def test_rows_carry_speed_segments_filters_and_rounded_figures(archive):
    rows = by_name(batch.analyse(archive / "generated"))
    for name, (pts, truth, _, _, activity) in GENERATED.items():
        (r,) = rows[name]
        speed = 3.0 if name.startswith("sydney") else 8.0 if "ride" in name else \
            1.3 if "hike" in name else 2.5
        assert r["segments"] == 1 and r["filtered"] == 0, r
        assert r["avg_speed_mps"] == pytest.approx(speed, abs=0.02), r
        assert speed - 0.02 <= r["max_speed_mps"] <= speed * 1.1, r
        assert r["avg_power_w"] is None and r["max_power_w"] is None   # no power in them
        assert r["device_distance_m"] is None and r["device_ascent_m"] is None   # GPX: none
        for column, places in batch.DECIMALS.items():
            v = r[column]
            assert v is None or round(v, places) == v, (column, v)
        assert r["distance_m"] == pytest.approx(truth, rel=0.005)


def test_rounding_keeps_what_the_measurement_supports():
    row = dict.fromkeys(batch.COLUMNS)
    row.update(distance_m=4981.23456, elapsed_s=1627.04, avg_pace_min_per_km=5.44449,
               avg_speed_mps=3.06167, max_hr_bpm=167.0, avg_hr_bpm=146.349, gain_m=27.96,
               avg_power_w=102.449, max_power_w=668.4, device_ascent_m=185.2)
    r = batch._rounded(dict(row))
    assert (r["distance_m"], r["elapsed_s"], r["avg_pace_min_per_km"], r["avg_speed_mps"],
            r["max_hr_bpm"], r["avg_hr_bpm"], r["gain_m"], r["avg_power_w"], r["max_power_w"],
            r["device_ascent_m"]) == (4981.2, 1627.0, 5.444, 3.06, 167.0, 146.3, 28.0, 102.4,
                                      668.0, 185.0)
    assert batch._rounded({"distance_m": None, "laps": 3}) == {"distance_m": None, "laps": 3}


def test_points_without_a_time_are_counted_as_untimed(tmp_path):
    pts, _ = northward(-33.87, 151.21, 120, 3.0)
    path = tmp_path / "gaps.gpx"
    write_gpx(path, pts, "running")
    text = path.read_text()
    untimed = "".join(f'<trkpt lat="{-33.8 + i / 1000:.7f}" lon="151.2"><ele>5</ele></trkpt>'
                      for i in range(3))
    path.write_text(text.replace("</trkseg>", untimed + "</trkseg>"))
    lines, report = librunway.split_report(librunway.import_recording(path.read_bytes(), "gpx"))
    if report is None:
        pytest.skip("the loaded librunway's import writes no report (branch files)")
    (r,) = batch.analyse([path])
    assert r["error"] is None and r["untimed"] == 3 and r["fixes"] == 120


@pytest.mark.skipif(not SHARED, reason="../shared/tracks absent")
def test_rows_of_a_power_ride_with_device_totals(tmp_path):
    """The ELEMNT ride: its FIT session stores distance 78 940.55 m and ascent 185 m; the
    engine reads the device's distance within 0.5 % from the positions, as a ride (the file says
    cycling), its timer stops replayed as pauses (the lines across them are no distance)."""
    name = "fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit"
    (r,) = batch.analyse([TRACKS / name])
    assert r["error"] is None and (r["sport"], r["activity"]) == ("cycling", "ride")
    assert r["segments"] > 1                                   # auto-pause legs
    assert abs(r["distance_m"] - 78940.55) < 0.005 * 78940.55
    lines, report = librunway.split_report(librunway.import_recording(
        (TRACKS / name).read_bytes(), "fit"))
    if report is None:
        pytest.skip("the loaded librunway's import writes no report (branch files)")
    assert r["device_distance_m"] == pytest.approx(78940.6, abs=0.1)
    assert r["device_ascent_m"] == 185.0
    assert r["untimed"] == report["untimed"]


def test_parquet_needs_pyarrow_and_says_so(archive, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyarrow", None)     # import pyarrow -> ImportError
    with pytest.raises(SystemExit) as e:
        batch.main([str(archive / "generated"), "--out", str(tmp_path / "f.parquet")])
    assert e.value.code == 2
    assert "writing Parquet needs pyarrow" in capsys.readouterr().err
    assert not (tmp_path / "f.parquet").exists()


def test_parquet_holds_the_rows(archive, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (Parquet is optional)")
    rows = batch.analyse(archive / "broken") + batch.analyse(archive / "generated")
    batch.write_parquet(rows, tmp_path / "f.parquet")
    assert pq.read_table(tmp_path / "f.parquet").to_pylist() == rows


def test_command_line_usage_errors(archive, tmp_path, capsys):
    for argv in ([str(archive), "--out", str(tmp_path / "f.xlsx")],
                 [str(archive), "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
                 [str(archive), "--workers", "0"],
                 [str(tmp_path / "missing")],
                 [str(archive), "--config", '{"clock": "live"}']):
        with pytest.raises(SystemExit) as e:
            batch.main(argv)
        assert e.value.code == 2, argv
    assert not list(tmp_path.iterdir())


# ---- pieces -----------------------------------------------------------------------------------

def test_import_runway_does_not_import_dask():
    code = ("import sys, librunway, librunway.batch; "
            "assert not {'dask', 'distributed'} & set(sys.modules), sorted(sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=30)
    assert p.returncode == 0, p.stderr


def test_finding_recordings(archive):
    gen = archive / "generated"
    found = batch.find_recordings(archive)
    assert len(found) == expected_count()
    assert not [f for f in found if Path(f).name.startswith(".") or not f.endswith((".gpx", ".tcx", ".fit"))]
    # A glob matches files (recording names only) and folders (scanned); duplicates once.
    fits = batch.find_recordings(str(archive / "**" / "*.fit"))
    assert {Path(f).name for f in fits} == ({p.name for p in SHARED if p.suffix == ".fit"}
                                            | {"fiji_ride_export.fit", "truncated.fit", "notes.fit"})
    assert batch.find_recordings([gen, gen / "no_sport.gpx", str(gen) + "/*.gpx"]) == \
        batch.find_recordings(gen)
    assert batch.find_recordings(str(archive / "nothing-*")) == []
    with pytest.raises(FileNotFoundError):
        batch.find_recordings(archive / "missing")


def test_a_folder_that_cannot_be_searched_is_a_row_not_a_silent_gap(archive, tmp_path, monkeypatch):
    """os.walk skips a folder it cannot list without a word: its recordings were missing from
    the table, which looked complete. It is a row whose error says why (a real unreadable
    folder needs a user other than root: scandir is made to refuse it instead)."""
    root = tmp_path / "runs"
    for sub in ("a", "b", "c"):
        (root / sub).mkdir(parents=True)
        shutil.copyfile(archive / "generated" / "no_sport.gpx", root / sub / "run.gpx")
    locked = str(root / "b")
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real(path)
    monkeypatch.setattr(os, "scandir", scandir)
    assert batch.find_recordings(root) == [str(root / "a" / "run.gpx"), locked, str(root / "c" / "run.gpx")]
    rows = batch.analyse(root)
    assert [r["error"] for r in rows] == [None, f"PermissionError: [Errno 13] Permission denied: '{locked}'", None]
    assert rows[1]["file"] == locked and rows[1]["format"] is None
    assert rows[0] == {**rows[2], "file": rows[0]["file"]}


def test_sport_as_the_library_writes_it():
    """The library's exports name the activity; the sniffer reads each back."""
    names = {"run": ("running", "running", "running"), "walk": ("walking", "other", "walking"),
             "ride": ("cycling", "biking", "cycling")}
    pts, _ = northward(52.0, 4.0, 30, 2.0)
    for activity, (gpx, tcx, fit) in names.items():
        with librunway.Session({"activity": activity}) as s:
            s.start(float(T0))
            s.push_many([{"t": t, "lat": lat, "lon": lon} for lat, lon, _, t, _ in pts], strict=True)
            s.stop()
            got = tuple(batch.sniff_sport(s.export(f), f) for f in ("gpx", "tcx", "fit"))
        assert got == (gpx, tcx, fit), activity
        assert batch.activity_for(gpx) == activity == batch.activity_for(fit)
    assert batch.activity_for("other") == batch.activity_for(None) == "run"
    assert batch.activity_for("e_biking") == batch.activity_for("Mountain Biking") == "ride"


@pytest.mark.skipif(not any(p.suffix == ".fit" for p in SHARED), reason=f"no FIT recordings in {TRACKS}")
def test_fit_sport_agrees_with_garmins_sdk():
    sdk = pytest.importorskip("garmin_fit_sdk")
    for p in SHARED:
        if p.suffix != ".fit":
            continue
        messages, errors = sdk.Decoder(sdk.Stream.from_file(str(p))).read()
        assert not errors
        sessions = messages.get("session_mesgs") or messages.get("sport_mesgs")
        assert batch.sniff_sport(p.read_bytes(), "fit") == sessions[0]["sport"], p.name


def test_config_applies_to_every_recording(archive, client):
    gen = archive / "generated"
    rows = batch.analyse(gen, config={"activity": "walk", "auto_lap_m": 0})
    assert {r["activity"] for r in rows} == {"walk"}                 # the config's activity wins
    assert {r["laps"] for r in rows} == {1}
    assert batch.analyse(gen, config={"activity": "walk", "auto_lap_m": 0}, client=client) == rows
    with pytest.raises(ValueError, match="clock"):
        batch.analyse(gen, config={"clock": "live"})
    with pytest.raises(ValueError, match="store"):
        batch.analyse(gen, config={"store": str(archive / "x.db")})
    with pytest.raises(librunway.ArgumentError):
        batch.analyse(gen, config={"no_such_key": 1})
