"""What the librunway.batch tests share (test_batch.py, test_batch_cli.py, test_batch_pieces.py):
the archive of recordings, the local cluster, and the skips without dask or runway_import.

A test module imports the fixtures it uses and ``pytestmark`` from here; importing this module
skips the test module when dask or distributed is missing.
"""

from __future__ import annotations

import json
import math
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("dask", reason="librunway.batch needs dask: pip install './bindings/python[batch]' "
                                   "(scripts/install-deps.sh installs it for make test)")
distributed = pytest.importorskip(
    "distributed", reason="librunway.batch needs distributed: pip install './bindings/python[batch]' "
                          "(scripts/install-deps.sh installs it for make test)")

import librunway  # noqa: E402
from conftest import TRACKS  # noqa: E402
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
