#!/usr/bin/env python3
"""librunway.batch on Dask: recordings per second with 1 and 2 workers, and the cost of a
recording against gpxpy doing the same analysis in the same workers.

    bench_batch.py RUNS [COPIES]

Archives (in a fresh folder under $RUNWAY_BENCH_TMP, default /tmp/runway-bench, removed at
the end):
  mixed  the recordings of ../shared/tracks as published (GPX, TCX, FIT), COPIES copies each
         (default 60); without that folder, pieces of examples/data/city_run.gpx.
  gpx    the same recordings as GPX 1.1 (GPX files copied; FIT and TCX written from their
         points in ../shared/tracks/fixes, with heart rate), COPIES/2 copies each: what gpxpy
         can read; without the ones runway refuses as a whole (they would cost it nothing).

Local clusters (librunway.batch.local_cluster: processes of one thread), one at a time, each
started and warmed before anything is timed: in each run one of 1 worker and one of 2 for
(a), in an order that alternates, and one of 2 for (b).

(a) Scaling: librunway.batch.analyse(mixed, client=...) on the 1-worker and on the 2-worker
    cluster, alternating which goes first; recordings per second over the whole call (files
    listed, tasks submitted, rows gathered).
(b) Against gpxpy, on a 2-worker cluster, over the gpx archive cut into the same tasks:
    librunway.batch's task (read, sniff the sport, import, replay through a session, summary)
    against gpxpy's (parse, length_2d, get_moving_data, get_uphill_downhill) per file.
    Each task times itself (perf_counter), so the cost per recording is the sum of the
    tasks' times over the files; the wall time of each side is reported too.

One JSON line per run on stdout.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACKS = ROOT.parent / "shared" / "tracks"
SAMPLE = ROOT / "examples" / "data" / "city_run.gpx"
TMP = Path(os.environ.get("RUNWAY_BENCH_TMP", "/tmp/runway-bench"))

GPX_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<gpx version="1.1" creator="librunway benchmarks" xmlns="http://www.topografix.com/GPX/1/1" '
            'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">\n'
            '<trk><name>{name}</name><trkseg>\n')
GPX_TAIL = "</trkseg></trk>\n</gpx>\n"


def iso(t: float) -> str:
    whole = int(t // 1)
    ms = round((t - whole) * 1000)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))
    return f"{stamp}.{ms:03d}Z" if ms else f"{stamp}Z"


def write_gpx(path: Path, fixes: list[dict]) -> None:
    with open(path, "w") as f:
        f.write(GPX_HEAD.format(name=path.stem))
        for p in fixes:
            ele = f"<ele>{p['alt']}</ele>" if p.get("alt") is not None else ""
            hr = p.get("hr")
            ext = ("" if hr is None else
                   f"<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>{int(hr)}</gpxtpx:hr>"
                   "</gpxtpx:TrackPointExtension></extensions>")
            f.write(f'<trkpt lat="{p["lat"]}" lon="{p["lon"]}">{ele}<time>{iso(p["t"])}</time>{ext}</trkpt>\n')
        f.write(GPX_TAIL)


def sources(folder: Path) -> tuple[list[Path], list[Path]]:
    """(the mixed recordings, the same as GPX) written to `folder`/src."""
    src = folder / "src"
    (src / "mixed").mkdir(parents=True)
    (src / "gpx").mkdir()
    mixed, gpx = [], []
    recordings = sorted(p for p in TRACKS.glob("*") if p.suffix in (".gpx", ".tcx", ".fit")) if TRACKS.is_dir() else []
    if recordings:
        for p in recordings:
            shutil.copyfile(p, src / "mixed" / p.name)
            mixed.append(src / "mixed" / p.name)
            out = src / "gpx" / (p.stem + ".gpx")
            if p.suffix == ".gpx":
                shutil.copyfile(p, out)
            else:
                fixes = [json.loads(line) for line in (TRACKS / "fixes" / f"{p.name}.jsonl").read_text().splitlines()
                         if line.strip()]
                write_gpx(out, fixes)
            gpx.append(out)
        return mixed, refused_dropped(gpx)
    # No shared recordings: pieces of the sample run, 200 to 1 628 points.
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_python import sample_points
    pts = [{"lat": lat, "lon": lon, "alt": ele, "t": float(t), "hr": hr} for lat, lon, ele, t, hr, _ in sample_points()]
    for k, n in enumerate((200, 400, 600, 800, 1000, 1200, 1400, len(pts))):
        out = src / "mixed" / f"city_run_{k}.gpx"
        write_gpx(out, pts[:n])
        shutil.copyfile(out, src / "gpx" / out.name)
        mixed.append(out)
        gpx.append(src / "gpx" / out.name)
    return mixed, gpx


def refused_dropped(gpx: list[Path]) -> list[Path]:
    """The GPX recordings runway analyses (those it refuses as a whole, e.g. placeholder
    times, would cost it nothing and gpxpy a full parse: left out of the comparison)."""
    from librunway import batch
    return [p for p in gpx if batch.analyse_file(p)["error"] is None]


def replicate(files: list[Path], copies: int, folder: Path) -> Path:
    for k in range(copies):
        d = folder / f"copy{k:03d}"
        d.mkdir(parents=True)
        for p in files:
            shutil.copyfile(p, d / p.name)
    return folder


# ---- the tasks (defined here, in __main__: Dask ships them to the workers by value) -------------

def runway_task(items, config):
    import time as _time
    from librunway import batch
    t0 = _time.perf_counter()
    rows = batch._analyse_chunk(items, config)
    return _time.perf_counter() - t0, [(r["distance_m"], r["moving_s"], r["gain_m"], r["error"]) for r in rows]


def gpxpy_task(items, config):
    import time as _time
    import gpxpy
    t0 = _time.perf_counter()
    out = []
    for path, _ in items:
        try:
            with open(path, encoding="utf-8") as f:
                g = gpxpy.parse(f)
            moving = g.get_moving_data()
            updown = g.get_uphill_downhill()
            out.append((g.length_2d(), moving.moving_time, updown.uphill, None))
        except Exception as e:  # noqa: BLE001 - a file gpxpy cannot read is its row
            out.append((None, None, None, f"{type(e).__name__}: {e}"))
    return _time.perf_counter() - t0, out


@contextlib.contextmanager
def cluster(workers: int, folder: Path):
    """A started, warmed local cluster of `workers` processes (the only one running while
    it is measured: an idle cluster's scheduler and workers cost a few % of a core)."""
    import distributed
    from librunway import batch
    with batch.local_cluster(workers) as c, distributed.Client(c, set_as_default=False) as client:
        batch.analyse(folder / "src" / "mixed", client=client)   # libraries loaded, modules imported
        yield client


def timed_map(client, task, items, chunks):
    t0 = time.perf_counter()
    futures = client.map(task, [[items[j] for j in c] for c in chunks], config=None, pure=False)
    results = client.gather(futures)
    wall = time.perf_counter() - t0
    rows = [row for _, rs in results for row in rs]
    return wall, sum(s for s, _ in results), rows


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    runs = int(argv[1])
    copies = int(argv[2]) if len(argv) > 2 else 60
    from librunway import batch

    TMP.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="batch-", dir=TMP))
    try:
        mixed_src, gpx_src = sources(folder)
        mixed = replicate(mixed_src, copies, folder / "mixed")
        gpx = replicate(gpx_src, max(1, copies // 2), folder / "gpx")
        n_mixed = len(batch.find_recordings(mixed))
        items = [(os.path.abspath(p), p) for p in batch.find_recordings(gpx)]
        chunks = batch._chunks(items, 2)
        for r in range(runs):
            res = {}
            for workers in ((1, 2) if r % 2 == 0 else (2, 1)):
                with cluster(workers, folder) as client:
                    t0 = time.perf_counter()
                    rows = batch.analyse(mixed, client=client)
                    res[f"w{workers}_s"] = time.perf_counter() - t0
                    res["failed"] = sum(1 for row in rows if row["error"])
            print(json.dumps({"bench": "batch", "run": r, "files": n_mixed, "sources": len(mixed_src), **res}),
                  flush=True)
            res = {}
            with cluster(2, folder) as client:
                client.run(lambda: __import__("gpxpy"))
                timed_map(client, gpxpy_task, items, chunks[:2])
                for k in range(2):
                    if (k == 0) == (r % 2 == 0):
                        wall, task_s, rows = timed_map(client, runway_task, items, chunks)
                        res.update(engine_s=wall, engine_task_s=task_s,
                                   engine={"distance_m": sum(x[0] or 0 for x in rows),
                                           "failed": sum(1 for x in rows if x[3])})
                    else:
                        wall, task_s, rows = timed_map(client, gpxpy_task, items, chunks)
                        res.update(base_s=wall, base_task_s=task_s,
                                   base={"distance_m": sum(x[0] or 0 for x in rows),
                                         "failed": sum(1 for x in rows if x[3])})
            print(json.dumps({"bench": "batch_gpxpy", "run": r, "files": len(items), "tasks": len(chunks), **res}),
                  flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
