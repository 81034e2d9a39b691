#!/usr/bin/env python3
"""The Python package against gpxpy and against json.dumps, side by side in one process.

    bench_python.py gpx  RUNS [POINTS]   (a) from a GPX file to figures, runway vs gpxpy
    bench_python.py dicts RUNS [N]       (b) Session.push_many(dicts) vs json.dumps of the dicts
    bench_python.py gpx1 RUNS [POINTS]   (c) one GPX file (default 100 000 points) to figures in one
                                         call, librunway.analyse vs gpxpy
    bench_python.py fit RUNS FILE        (d) a FIT file to figures, librunway.analyse vs fitdecode
                                         reading its records
    bench_python.py write POINTS DIR     write the repeated run as DIR/city_run_xPOINTS.gpx only

(a) The real 1 Hz run examples/data/city_run.gpx (1 628 points) is repeated, each lap shifted
in time to follow the last, to POINTS points (default 1 000 000) and written as one GPX file
(in a fresh folder under $RUNWAY_BENCH_TMP, default /tmp/runway-bench, removed at the end). gpxpy: parse the file, length_2d(),
get_moving_data(), get_uphill_downhill(). runway: when the loaded library can import recordings
(librunway.import_available()), read the file, librunway.import_recording(data, "gpx"), replay the
lines through a started Session with push_many, stop, read the figures from the snapshot. The
library imports at most 64 MiB a file (runway.h), less than a million points of GPX, so the
runway side reads the same points from part files of PART_POINTS points each (written with the
big file, same bytes per point) into one session; with
an older library (no runway_import), the same points are replayed as dicts (built before the
clock starts, so GPX parsing is not counted on the runway side: the row says so).
(b) N dicts (the same run, default 100 000): push_many into a started session vs
[json.dumps(d) for d in dicts], the floor of anything that hands dicts to a JSON engine.

(c) The repeated run as one GPX file of POINTS points (≤ 64 MiB). runway: librunway.analyse(path)
(one runway_analyse_route call: the file straight into a flight, the summary parsed into a Flight
with its route as packed numbers, a RoutePoints), and, as a second figure, librunway.analyse_recording(bytes, route=False) (the
figures without the route). gpxpy as in (a).
(d) runway: librunway.analyse(path) as in (c) (and analyse_recording without the route);
fitdecode: FitReader over the file, every frame read, the `record` messages counted.
Both sides run in this process after their imports; the two sides alternate which goes first.
One JSON line per run on stdout.
"""
from __future__ import annotations

import calendar
import gc
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "data" / "city_run.gpx"
TMP = Path(os.environ.get("RUNWAY_BENCH_TMP", "/tmp/runway-bench"))
#: Points per part file for runway_import (200 000 points of this GPX are ~47 MB < 64 MiB).
PART_POINTS = 200_000

import librunway  # noqa: E402  (PYTHONPATH=bindings/python, RUNWAY_LIBRARY=build/librunway.so)

POINT = re.compile(
    r'<trkpt lat="([^"]+)" lon="([^"]+)"><ele>([^<]+)</ele><time>([^<]+)</time>'
    r'(?:<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>(\d+)</gpxtpx:hr>'
    r'<gpxtpx:cad>(\d+)</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions>)?</trkpt>')


def sample_points() -> list[tuple[str, str, str, int, str | None, str | None]]:
    text = SAMPLE.read_text()
    pts = []
    for lat, lon, ele, stamp, hr, cad in POINT.findall(text):
        t = calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))
        pts.append((lat, lon, ele, t, hr or None, cad or None))
    if len(pts) != text.count("<trkpt"):
        raise SystemExit(f"{SAMPLE}: read {len(pts)} of {text.count('<trkpt')} points")
    return pts


def repeated(points: int):
    """(lat, lon, ele, t, hr, cad) for `points` points: the sample run, lap after lap."""
    pts = sample_points()
    span = pts[-1][3] - pts[0][3] + 1
    for i in range(points):
        lat, lon, ele, t, hr, cad = pts[i % len(pts)]
        yield lat, lon, ele, t + (i // len(pts)) * span, hr, cad


GPX_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<gpx version="1.1" creator="librunway benchmarks" xmlns="http://www.topografix.com/GPX/1/1" '
            'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">\n'
            '<trk><name>city_run.gpx repeated</name><trkseg>\n')
GPX_TAIL = "</trkseg></trk>\n</gpx>\n"


def trkpt(lat, lon, ele, t, hr, cad) -> str:
    ext = ("" if hr is None else
           f"<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>{hr}</gpxtpx:hr>"
           f"<gpxtpx:cad>{cad}</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions>")
    return (f'<trkpt lat="{lat}" lon="{lon}"><ele>{ele}</ele>'
            f'<time>{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))}</time>{ext}</trkpt>\n')


def million_gpx(points: int, folder: Path) -> tuple[Path, list[Path]]:
    """The repeated run as one GPX 1.1 file, and the same points as part files of PART_POINTS
    points each, in `folder`."""
    path = folder / f"city_run_x{points}.gpx"
    parts = [folder / f"city_run_x{points}.part{k}.gpx" for k in range((points + PART_POINTS - 1) // PART_POINTS)]
    with open(path, "w") as f:
        f.write(GPX_HEAD)
        part_file = None
        for i, pt in enumerate(repeated(points)):
            if i % PART_POINTS == 0:
                if part_file:
                    part_file.write(GPX_TAIL)
                    part_file.close()
                part_file = open(parts[i // PART_POINTS], "w")
                part_file.write(GPX_HEAD)
            line = trkpt(*pt)
            f.write(line)
            part_file.write(line)
        if part_file:
            part_file.write(GPX_TAIL)
            part_file.close()
        f.write(GPX_TAIL)
    return path, parts


def as_dicts(points: int) -> list[dict]:
    out = []
    for lat, lon, ele, t, hr, cad in repeated(points):
        d = {"t": float(t), "lat": float(lat), "lon": float(lon), "alt": float(ele)}
        if hr is not None:
            d["hr"] = int(hr)
            d["cadence"] = int(cad)
        out.append(d)
    return out


def run_gpxpy(path: Path) -> tuple[float, dict]:
    import gpxpy
    gc.collect()
    t0 = time.perf_counter()
    with open(path) as f:
        gpx = gpxpy.parse(f)
    t1 = time.perf_counter()
    length = gpx.length_2d()
    moving = gpx.get_moving_data()
    updown = gpx.get_uphill_downhill()
    t2 = time.perf_counter()
    figures = {"points": gpx.get_points_no(), "distance_m": length, "moving_s": moving.moving_time,
               "gain_m": updown.uphill, "loss_m": updown.downhill, "parse_s": t1 - t0}
    del gpx
    return t2 - t0, figures


def replay(inputs, t_start: float) -> dict:
    with librunway.Session() as s:
        s.start(t_start)
        accepted, rejected = s.push_many(inputs)
        s.stop()
        snap = s.snapshot()
    return {"accepted": accepted, "rejected": rejected, "distance_m": snap["distance_m"],
            "moving_s": snap["moving_s"], "gain_m": snap["gain_m"], "loss_m": snap["loss_m"],
            "points": snap["fixes"]}


def run_runway_import(parts: list[Path]) -> tuple[float, dict]:
    gc.collect()
    parse_s = 0.0
    t0 = time.perf_counter()
    with librunway.Session() as s:
        accepted = rejected = 0
        for k, part in enumerate(parts):
            t1 = time.perf_counter()
            lines = librunway.import_recording(part.read_bytes(), "gpx")
            parse_s += time.perf_counter() - t1
            if k == 0:
                s.start(json.loads(lines[0])["t"])
            a, r = s.push_many(lines)
            accepted, rejected = accepted + a, rejected + r
            del lines
        s.stop()
        snap = s.snapshot()
    elapsed = time.perf_counter() - t0
    return elapsed, {"accepted": accepted, "rejected": rejected, "distance_m": snap["distance_m"],
                     "moving_s": snap["moving_s"], "gain_m": snap["gain_m"], "loss_m": snap["loss_m"],
                     "points": snap["fixes"], "parse_s": parse_s, "files": len(parts)}


def run_runway_dicts(dicts: list[dict]) -> tuple[float, dict]:
    gc.collect()
    t0 = time.perf_counter()
    figures = replay(dicts, dicts[0]["t"])
    return time.perf_counter() - t0, figures


def run_runway_analyse(path: Path) -> tuple[float, float, dict]:
    """librunway.analyse(path), then analyse_recording without the route: (seconds, seconds,
    figures)."""
    gc.collect()
    t0 = time.perf_counter()
    flight = librunway.analyse(path)
    t1 = time.perf_counter()
    s = flight.summary
    gc.collect()
    t2 = time.perf_counter()
    bare = librunway.analyse_recording(path.read_bytes(), route=False)
    t3 = time.perf_counter()
    assert bare["summary"]["distance_m"] == s["distance_m"]
    return t1 - t0, t3 - t2, {"distance_m": s["distance_m"], "moving_s": s["moving_s"],
                              "gain_m": s["gain_m"], "loss_m": s["loss_m"], "points": s["fixes"],
                              "route": len(flight.route)}


def run_fitdecode(path: Path) -> tuple[float, dict]:
    import fitdecode
    gc.collect()
    t0 = time.perf_counter()
    records = frames = 0
    with fitdecode.FitReader(str(path)) as reader:
        for frame in reader:
            frames += 1
            if isinstance(frame, fitdecode.FitDataMessage) and frame.name == "record":
                records += 1
    return time.perf_counter() - t0, {"records": records, "frames": frames}


def bench_gpx1(runs: int, points: int) -> None:
    TMP.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="gpx1-", dir=TMP))
    try:
        path = folder / f"city_run_x{points}.gpx"
        with open(path, "w") as f:
            f.write(GPX_HEAD)
            for pt in repeated(points):
                f.write(trkpt(*pt))
            f.write(GPX_TAIL)
        for r in range(runs):
            res = {}
            for k in range(2):
                if (k == 0) == (r % 2 == 0):
                    res["engine_s"], res["bare_s"], res["engine"] = run_runway_analyse(path)
                else:
                    res["base_s"], res["base"] = run_gpxpy(path)
            emit({"bench": "gpx1", "run": r, "points": points, "file_bytes": path.stat().st_size, **res})
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def bench_fit(runs: int, path: Path) -> None:
    librunway.analyse(path)   # warm-up: the library loaded, the file cached
    for r in range(runs):
        res = {}
        for k in range(2):
            if (k == 0) == (r % 2 == 0):
                res["engine_s"], res["bare_s"], res["engine"] = run_runway_analyse(path)
            else:
                res["base_s"], res["base"] = run_fitdecode(path)
        emit({"bench": "fit", "run": r, "file": path.name, "file_bytes": path.stat().st_size, **res})


def emit(obj: dict) -> None:
    print(json.dumps(obj), flush=True)


def bench_gpx(runs: int, points: int) -> None:
    TMP.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="gpx-", dir=TMP))
    try:
        _bench_gpx(runs, points, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _bench_gpx(runs: int, points: int, folder: Path) -> None:
    path, parts = million_gpx(points, folder)
    importing = librunway.import_available()
    dicts = None if importing else as_dicts(points)
    for r in range(runs):
        res = {}
        for k in range(2):
            if (k == 0) == (r % 2 == 0):
                res["engine_s"], res["engine"] = (run_runway_import(parts) if importing
                                                  else run_runway_dicts(dicts))
            else:
                res["base_s"], res["base"] = run_gpxpy(path)
        emit({"bench": "gpx", "run": r, "points": points, "import": importing,
              "file_bytes": path.stat().st_size, **res})


def bench_dicts(runs: int, n: int) -> None:
    dicts = as_dicts(n)
    replay(dicts[:2000], dicts[0]["t"])  # warm-up
    for r in range(runs):
        res = {}
        for k in range(2):
            gc.collect()
            if (k == 0) == (r % 2 == 0):
                t0 = time.perf_counter()
                figures = replay(dicts, dicts[0]["t"])
                res["engine_s"] = time.perf_counter() - t0
                res["accepted"] = figures["accepted"]
            else:
                t0 = time.perf_counter()
                out = [json.dumps(d) for d in dicts]
                res["base_s"] = time.perf_counter() - t0
                res["bytes"] = sum(map(len, out))
                del out
        emit({"bench": "dicts", "run": r, "n": n, **res})


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[1] == "write":   # write POINTS DIR: the GPX file alone (profiles)
        print(million_gpx(int(argv[2]), Path(argv[3]))[0])
        return 0
    if len(argv) < 3 or argv[1] not in ("gpx", "dicts", "gpx1", "fit"):
        print(__doc__, file=sys.stderr)
        return 2
    runs = int(argv[2])
    if argv[1] == "gpx1":
        bench_gpx1(runs, int(argv[3]) if len(argv) > 3 else 100_000)
    elif argv[1] == "fit":
        bench_fit(runs, Path(argv[3]))
    elif argv[1] == "gpx":
        bench_gpx(runs, int(argv[3]) if len(argv) > 3 else 1_000_000)
    else:
        bench_dicts(runs, int(argv[3]) if len(argv) > 3 else 100_000)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
