"""The notes of run.py (`make bench`) under the table: callgrind profiles of the paths whose
target is missed, the split of the measured times, and the machine line."""

from __future__ import annotations

import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import callgrind
from run_common import (DICTS_N, GPX_POINTS, INGEST_N, LIB, ROOT, TMP, Table, python_env)


def profile_note(title: str, args: list[str], toggle: str, per: int, program: list[str] | None = None,
                 env: dict | None = None) -> str:
    prof = callgrind.profile(args, toggle, program=program, env=env)
    lines = [f"*{title}* — callgrind, instructions inside `{toggle.strip('*')}`: "
             f"{prof['total'] / per:,.0f} Ir per fix. By kind: "
             + "; ".join(f"{label} {p:.0f}%" for p, label in prof["buckets"] if p >= 1)
             + ". Top functions (self): "
             + "; ".join(f"{name[:90]} {p:.1f}%" for p, _, name in prof["top"]) + "."
             + f" Per fix: {prof['calls'].get('malloc', 0) / per:.1f} malloc calls, "
               f"{prof['calls'].get('swift_retain', 0) / per:.1f} swift_retain, "
               f"{prof['calls'].get('swift_release', 0) / per:.1f} swift_release."]
    return "\n".join(lines)


def import_profile(points: int = 10_000) -> str:
    """Callgrind inside runway_import (its Swift entry point) for a GPX of `points` points, read
    through the Python package as in row 3a."""
    TMP.mkdir(parents=True, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="import-", dir=TMP)
    try:
        env = python_env()
        p = subprocess.run([sys.executable, ROOT / "benchmarks" / "bench_python.py", "write", str(points), folder],
                           capture_output=True, text=True, env={**os.environ, **env})
        gpx = p.stdout.strip()
        code = f"import librunway; librunway.import_recording(open({gpx!r}, 'rb').read(), 'gpx')"
        return profile_note(f"`runway_import` of a {points}-point GPX", ["-c", code], "*runway_import_impl*",
                            points, program=[sys.executable], env=env).replace(" per fix", " per point").replace("Per fix:", "Per point:")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def notes(t: Table, ctx: dict) -> list[str]:
    out = []
    have_cg = callgrind.valgrind() is not None and shutil.which("callgrind_annotate") is not None
    ing = ctx.get("ingest")
    if ing:
        j = statistics.median(r["engine_s"] for r in ing["json"]) / INGEST_N * 1e6
        jl = statistics.median(r["engine_s"] for r in ing["jsonl"]) / INGEST_N * 1e6
        f = statistics.median(r["engine_s"] for r in ing["fix"]) / INGEST_N * 1e6
        fl = statistics.median(r["base_s"] for r in ing["json"]) / INGEST_N * 1e6
        d, raw = ctx["distances"]
        out.append(f"**1, 2 — where an ingested fix goes.** `runway_push_json` costs {j:.2f} µs a line: "
                   f"the pipeline after decoding (the struct path) {f:.2f} µs, so decoding the line "
                   f"(the single pass over a flat line, cJSON for anything else; field checks) about {j - f:.2f} µs — against {fl:.2f} µs for the "
                   f"whole floor (cJSON parse + fields + distance). `runway_push_jsonl` saves the per-call "
                   f"lock and dispatch: {jl:.2f} µs a line. The floor sums raw distances ({raw / 1000:.1f} km); "
                   f"the engine's filtered distance over the same fixes is {d['json'] / 1000:.1f} km.")
        if have_cg and ({"1a", "1b"} & set(t.missed)):
            floor = callgrind.profile(["floor", "20000", "20000"], "floor_line")
            cg = ctx.get("callgrind", {})
            if cg:
                out.append(f"In instructions (callgrind): the floor's line costs {floor['total'] / 20000:,.0f} Ir "
                           f"({floor['calls'].get('malloc', 0) / 20000:.1f} malloc calls, cJSON's nodes and keys); "
                           f"the engine's JSON path {cg['json']:,.0f} Ir, its struct path {cg['fix']:,.0f} Ir, so "
                           f"decoding costs the engine {cg['json'] - cg['fix']:,.0f} Ir a line, "
                           f"{(cg['json'] - cg['fix']) / (floor['total'] / 20000):.2f}× the floor's whole line.")
            out.append(profile_note("JSON path (`runway_push_json`)", ["json", "20000", "20000"],
                                    "runway_push_json", 20000))
        if have_cg and "2" in t.missed:
            out.append(profile_note("Struct path (`runway_push_fix`, no subscriber)", ["fix", "20000", "20000"],
                                    "runway_push_fix", 20000))
    gpx = ctx.get("gpx")
    if gpx:
        e = statistics.median(r["engine_s"] for r in gpx)
        ep = statistics.median(r["engine"]["parse_s"] for r in gpx)
        b = statistics.median(r["base_s"] for r in gpx)
        bp = statistics.median(r["base"]["parse_s"] for r in gpx)
        g0, e0 = gpx[0]["base"], gpx[0]["engine"]
        out.append(f"**3a — GPX to figures.** runway: {e:.1f} s, of which {ep:.1f} s in "
                   f"`librunway.import_recording` (the library's XML parse to JSON Lines, then split into Python "
                   f"strings) and "
                   f"{e - ep:.1f} s replaying ({(e - ep) / GPX_POINTS * 1e6:.1f} µs a point through `push_many`). "
                   f"gpxpy: {b:.1f} s, of which {bp:.1f} s parsing. Figures: runway "
                   f"{e0['distance_m'] / 1000:.1f} km, moving {e0['moving_s'] / 3600:.1f} h, gain "
                   f"{e0['gain_m']:.0f} m; gpxpy {g0['distance_m'] / 1000:.1f} km (raw), moving "
                   f"{g0['moving_s'] / 3600:.1f} h, gain {g0['gain_m']:.0f} m (unsmoothed)."
                   if gpx[0]["import"] else
                   f"**3a — GPX to figures.** runway replays pre-built dicts ({e:.1f} s; GPX parsing not "
                   f"counted); gpxpy {b:.1f} s, of which {bp:.1f} s parsing.")
        if have_cg and "3a" in t.missed and gpx[0]["import"]:
            out.append(import_profile())
    dicts = ctx.get("dicts")
    if dicts and ing:
        e = statistics.median(r["engine_s"] for r in dicts) / DICTS_N * 1e6
        b = statistics.median(r["base_s"] for r in dicts) / DICTS_N * 1e6
        jl = statistics.median(r["engine_s"] for r in ing["jsonl"]) / INGEST_N * 1e6
        out.append(f"**3b — `push_many`.** {e:.2f} µs a dict: `json.dumps` alone is {b:.2f} µs (the floor), the "
                   f"library's `runway_push_jsonl` about {jl:.2f} µs a line (row 1b), the rest "
                   f"({max(0.0, e - b - jl):.2f} µs) the package's Python (encode, strip, batch join, ctypes). "
                   f"The ratio floor/(floor + library) alone is {b / (b + jl):.2f}: the 0.7 target needs the "
                   f"library's cost per line under {b * (1 / 0.7 - 1):.2f} µs.")
    fan = ctx.get("fanout")
    if fan:
        if have_cg and "4" in t.missed:
            out.append(profile_note("Struct path with one subscriber (never drained)",
                                    ["fix", "5000", "5000", "-", "poll"], "runway_push_fix", 5000)
                       + " A push marks a newer flight snapshot pending for each latest subscriber; the snapshot "
                         "is built and serialised by the consumer that takes it, outside the push, and a callback "
                         "subscriber takes at most one every 0.25 ms (docs/threads.md). With few snapshots "
                         "delivered, those taken while the pushing thread waits for a core (other load on the "
                         "machine) weigh on the p99.")
    st = ctx.get("store_batched")
    if st and have_cg:
        db = tempfile.mktemp(prefix="profile-", suffix=".db", dir=str(TMP))
        try:
            out.append(profile_note("Store, batched (`runway_push_fix`)",
                                    ["fix", "5000", "5000", json.dumps({"store": db, "durability": "batched"})],
                                    "runway_push_fix", 5000)
                       + " every_fix is bound by the fsync of each commit on both sides.")
        finally:
            for leftover in Path(db).parent.glob(Path(db).name + "*"):   # -wal, -shm, .lock
                leftover.unlink(missing_ok=True)
    return out


def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "Sources", "include"],
                           capture_output=True, text=True)
    commit = rev.stdout.strip() or "?"
    if dirty.stdout.strip():
        commit += " (Sources/include modified)"
    return (f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC · {cpu}, {os.cpu_count()} cores · "
            f"{platform.platform()} · Python {platform.python_version()} · commit {commit} · "
            f"library {LIB} ({datetime.datetime.fromtimestamp(LIB.stat().st_mtime):%Y-%m-%d %H:%M})")
