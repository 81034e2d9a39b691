"""librunway.batch: figures for archives of recordings on a Dask cluster.

One local cluster (2 worker processes, 1 thread each) serves the module. The archive is
the real recordings of ../shared/tracks copied 20 times (when that folder exists), GPX files
written here with the standard library (southern hemisphere, across the antimeridian, with
and without a sport), the library's own FIT/TCX exports of one of them, and broken files
(truncated, not a recording at all, no points). The cluster's rows must equal a run in this
process exactly; broken files must be rows with an error, never a failed job.
The command line's tests are in test_batch_cli.py, the pieces' in test_batch_pieces.py, and what
they share in batch_testkit.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import librunway
from batch_testkit import (BROKEN, COPIES, GENERATED, SHARED, SHARED_REFUSED, T0, _iso,  # noqa: F401
                           archive, by_name, client, distributed, expected_count, northward,
                           pytestmark, write_gpx)
from conftest import PYTHON_DIR, TRACKS
from librunway import batch


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
        assert r["start"] == _iso(T0).replace("Z", ".000Z")           # started at the first fix
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

        def analyse_file(path, config=None, **kwargs):
            if str(path).endswith(target):
                raise RuntimeError("boom")
            return real(path, config, **kwargs)
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


def test_the_cluster_salvages_a_truncated_fit_when_asked(tmp_path, client):
    from conftest import REPO
    whole = librunway.analyse(REPO / "examples" / "data" / "city_run.gpx").export("fit")
    path = tmp_path / "cut.fit"
    path.write_bytes(whole[:len(whole) // 2])
    strict, = batch.analyse(path, client=client)
    assert strict["error"].startswith("InputError: truncated FIT file"), strict
    salvaged, = batch.analyse(path, client=client, salvage=True)
    assert salvaged["error"] is None and salvaged == batch.analyse_file(path, salvage=True)
