"""librunway.batch's pieces: finding recordings, the sport a file names, importing librunway
without dask; the archive and the cluster are batch_testkit.py's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import librunway
from batch_testkit import SHARED, T0, archive, client, expected_count, northward, pytestmark  # noqa: F401
from conftest import PYTHON_DIR, TRACKS
from librunway import batch


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
    # One lap each, but the exports': their laps (1 km, as the GPX they come from was analysed)
    # are the file's own, device lap lines, replayed with the config's auto_lap_m 0.
    assert {r["laps"] for r in rows if "_export." not in r["file"]} == {1}
    exported = {r["laps"] for r in rows if "_export." in r["file"]}
    assert len(exported) == 1 and exported.pop() > 1
    assert batch.analyse(gen, config={"activity": "walk", "auto_lap_m": 0}, client=client) == rows
    with pytest.raises(ValueError, match="clock"):
        batch.analyse(gen, config={"clock": "live"})
    with pytest.raises(ValueError, match="store"):
        batch.analyse(gen, config={"store": str(archive / "x.db")})
    with pytest.raises(librunway.ArgumentError):
        batch.analyse(gen, config={"no_such_key": 1})


def test_a_profile_mismatch_has_its_columns(tmp_path):
    # 48 km/h with no sport named: refused as too fast for a run, agreeing at a ride's speed.
    path = tmp_path / "fast.gpx"
    points = "".join(f'<trkpt lat="{52 + k * 0.00012:.7f}" lon="4.9"><time>'
                     f'{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T0 + k))}</time></trkpt>' for k in range(600))
    path.write_text('<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
                    f"{points}</trkseg></trk></gpx>")
    mismatch = librunway.analyse(path).summary["profile_mismatch"]
    row = batch.analyse_file(path)
    assert row["error"] is None, row["error"]
    assert (row["suggested_activity"], row["mismatch_refused"]) == ("ride", mismatch["refused"])
    as_ride = batch.analyse_file(path, {"activity": "ride"})
    assert (as_ride["suggested_activity"], as_ride["mismatch_refused"]) == (None, None)
    columns = list(batch.COLUMNS)
    assert columns.index("rejected") + 1 == columns.index("suggested_activity")
    assert columns.index("suggested_activity") + 1 == columns.index("mismatch_refused")


def test_start_has_one_format_for_whole_and_fractional_seconds():
    """A column of starts with and without a fraction of a second reads as dates in pandas
    without a format (mixed "…:20Z" and "…:54.692Z" made pandas 3 raise)."""
    from librunway.batch_rows import _iso_utc
    starts = [_iso_utc(T0), _iso_utc(T0 + 0.692), _iso_utc(T0 + 59.9996)]
    assert starts == ["2023-11-14T22:13:20.000Z", "2023-11-14T22:13:20.692Z", "2023-11-14T22:14:20.000Z"]
    pd = pytest.importorskip("pandas")
    parsed = pd.to_datetime(pd.Series(starts))
    assert [t.timestamp() for t in parsed] == [T0, T0 + 0.692, T0 + 60]
