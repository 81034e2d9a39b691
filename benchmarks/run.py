#!/usr/bin/env python3
"""`make bench`: runs every benchmark harness, prints one table, writes benchmarks/RESULTS.md.

Every row is a ratio against a reference run side by side (same process or same script,
alternating which side goes first), with the number of runs and the spread (median, min–max).
Where a target is missed, the notes below the table say where the time goes (callgrind
profiles of the same paths, and the split of the measured times).

Environment: BENCH_BIN (default build/bench) holds the C harnesses, RUNWAY_LIBRARY the library
(default build/librunway.so), RUNWAY_BENCH_TMP scratch files (default /tmp/runway-bench),
BENCH_QUICK=1 shrinks every workload (a smoke test of the harnesses; the figures mean little).

`run.py --only fanout` runs one step (here row 4) and replaces only its rows (and its note) in the
RESULTS.md that is there, saying so under the header; the other rows keep their figures.
"""
from __future__ import annotations

import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import callgrind  # noqa: E402

BIN = Path(os.environ.get("BENCH_BIN", ROOT / "build" / "bench"))
LIB = Path(os.environ.get("RUNWAY_LIBRARY", ROOT / "build" / "librunway.so"))
TMP = Path(os.environ.get("RUNWAY_BENCH_TMP", "/tmp/runway-bench"))
QUICK = os.environ.get("BENCH_QUICK") == "1"
RESULTS = ROOT / "benchmarks" / "RESULTS.md"

# Workloads (runs are pairs: engine and reference, side by side).
RUNS = 2 if QUICK else 5
INGEST_N = 20_000 if QUICK else 100_000
FANOUT_N = 5_000 if QUICK else 20_000
GPX_POINTS = 100_000 if QUICK else 1_000_000
GPX_RUNS = 1 if QUICK else 3
ONE_CALL_POINTS = 100_000
FIT_FILE = ROOT.parent / "shared" / "tracks" / "fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit"
DICTS_N = 20_000 if QUICK else 100_000
MEM_RUNS = 1 if QUICK else 3
DAY, HUNDRED_H = 86_400, 360_000
HOUR = 3_600
# Row 5g's reference: the same host's RSS growth measured at d35e492 (before small stacks and the
# malloc-free delivery threads), 3 runs, median; that build cannot run side by side.
HOST_RSS_GROWTH_D35E492_KB = 3_740
STORE_EVERY_N = 500 if QUICK else 3_000
STORE_BATCHED_N = 10_000 if QUICK else 50_000
BATCH_COPIES = 10 if QUICK else 60
BATCH_RUNS = 2 if QUICK else 5


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run_lines(cmd: list[str], env: dict | None = None) -> list[dict]:
    log(" ".join(str(c) for c in cmd))
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                       env={**os.environ, **(env or {})})
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed ({p.returncode}): {p.stderr[-3000:]}")
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]


def python_env() -> dict:
    path = str(ROOT / "bindings" / "python")
    old = os.environ.get("PYTHONPATH")
    return {"RUNWAY_LIBRARY": str(LIB), "PYTHONPATH": path + (os.pathsep + old if old else ""),
            "RUNWAY_BENCH_TMP": str(TMP)}


# ---- statistics and formatting ---------------------------------------------------------------

def spread(values: list[float]) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def fmt(x: float, digits: int = 2) -> str:
    if x != x:
        return "n/a"
    if abs(x) >= 1000:
        return f"{x:,.0f}".replace(",", " ")
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.{digits}f}"


def ratio_cell(values: list[float], unit: str = "×") -> str:
    m, lo, hi = spread(values)
    runs = len(values)
    if runs == 1:
        return f"**{fmt(m)}{unit}** (1 run)"
    return f"**{fmt(m)}{unit}** ({fmt(lo)}–{fmt(hi)}, {runs} runs)"


def per_s(n: float, secs: float) -> str:
    return f"{fmt(n / secs)}/s"


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    k = max(1, min(len(v), int(-(-q * len(v) // 1))))
    return v[k - 1]


class Table:
    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self.notes: list[str] = []
        self.missed: list[str] = []

    def row(self, key: str, measure: str, engine: str, reference: str, ratio: str, target: str,
            met: bool | None) -> None:
        verdict = "—" if met is None else ("met" if met else "**MISSED**")
        if met is False:
            self.missed.append(key)
        self.rows.append([key, measure, engine, reference, ratio, target, verdict])

    def markdown(self) -> str:
        head = ["#", "measure", "engine", "reference (side by side)", "ratio: median (min–max, runs)",
                "target", "verdict"]
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(r) + " |" for r in sorted(self.rows, key=lambda r: r[0])]
        return "\n".join(out)


# ---- the benchmarks ---------------------------------------------------------------------------

def bench_ingest(t: Table, ctx: dict) -> None:
    res = {m: run_lines([BIN / "bench_ingest", m, INGEST_N, RUNS]) for m in ("json", "jsonl", "fix")}
    ctx["ingest"] = res
    for key, m, target in (("1a", "json", 1.5), ("1b", "jsonl", 1.5)):
        rs = res[m]
        ratios = [r["base_s"] / r["engine_s"] for r in rs]
        e = statistics.median(r["engine_s"] for r in rs)
        b = statistics.median(r["base_s"] for r in rs)
        call = ("`runway_push_json`, one call a line" if m == "json"
                else f"`runway_push_jsonl`, one call for {INGEST_N} lines")
        t.row(key, f"JSON ingest: {call} (default filters, started) — throughput",
              f"{per_s(INGEST_N, e)} ({fmt(e / INGEST_N * 1e6)} µs/fix)",
              f"cJSON parse + 8 fields + WGS84 sum: {per_s(INGEST_N, b)} ({fmt(b / INGEST_N * 1e6)} µs/line)",
              ratio_cell(ratios), f"≥ {target}", spread(ratios)[0] >= target)
    rs = res["fix"]
    ratios = [r["engine_s"] / r["base_s"] for r in rs]
    e = statistics.median(r["engine_s"] for r in rs)
    b = statistics.median(r["base_s"] for r in rs)
    t.row("2", "Struct path: `runway_push_fix`, full pipeline, no subscribers — cost per fix",
          f"{fmt(e / INGEST_N * 1e9)} ns/fix",
          f"bare C loop of the same distance formula: {fmt(b / INGEST_N * 1e9)} ns/fix",
          ratio_cell(ratios), "≤ 4×", spread(ratios)[0] <= 4)
    d = {m: statistics.median(r["engine_m"] for r in res[m]) for m in res}
    raw = statistics.median(r["base_m"] for r in res["json"])
    ctx["distances"] = (d, raw)


def librunway_has(name: str) -> bool:
    """Whether the library under test exports `name`."""
    code = f"import ctypes; ctypes.CDLL({str(LIB)!r}).{name}"
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def bench_python(t: Table, ctx: dict) -> None:
    try:
        import gpxpy  # noqa: F401
    except ImportError:
        log("gpxpy is missing: pip install gpxpy")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "gpxpy"], check=False)
    have_gpxpy = subprocess.run([sys.executable, "-c", "import gpxpy"], capture_output=True).returncode == 0
    env = python_env()
    if have_gpxpy:
        rs = run_lines([sys.executable, ROOT / "benchmarks" / "bench_python.py", "gpx", GPX_RUNS, GPX_POINTS], env)
        ctx["gpx"] = rs
        ratios = [r["base_s"] / r["engine_s"] for r in rs]
        e = statistics.median(r["engine_s"] for r in rs)
        b = statistics.median(r["base_s"] for r in rs)
        imp = rs[0]["import"]
        how = (f"`librunway.import_recording` + `Session.push_many` (the same points as "
               f"{rs[0]['engine'].get('files', 1)} GPX part files of ≤ 200 000 points: import limit 64 MiB a file)"
               if imp else
               "`Session.push_many` of the points as dicts (**GPX parsing not counted**: this library has "
               "no `runway_import`)")
        t.row("3a", f"Python, GPX → figures, {fmt(GPX_POINTS)} points (city_run.gpx repeated, "
              f"{rs[0]['file_bytes'] / 1e6:.0f} MB): {how} — points/s",
              per_s(GPX_POINTS, e),
              f"gpxpy {gpxpy_version()}: parse, `length_2d`, `get_moving_data`, `get_uphill_downhill`: "
              f"{per_s(GPX_POINTS, b)}",
              ratio_cell(ratios), "≥ 20×", spread(ratios)[0] >= 20)
    else:
        t.row("3a", "Python, GPX → figures", "not run", "gpxpy could not be installed", "—", "≥ 20×", None)
    rs = run_lines([sys.executable, ROOT / "benchmarks" / "bench_python.py", "dicts", RUNS, DICTS_N], env)
    ctx["dicts"] = rs
    ratios = [r["base_s"] / r["engine_s"] for r in rs]
    e = statistics.median(r["engine_s"] for r in rs)
    b = statistics.median(r["base_s"] for r in rs)
    t.row("3b", f"Python: `Session.push_many` of {fmt(DICTS_N)} dicts (started session) — throughput",
          f"{per_s(DICTS_N, e)} ({fmt(e / DICTS_N * 1e6)} µs/dict)",
          f"`json.dumps` of the same dicts: {per_s(DICTS_N, b)} ({fmt(b / DICTS_N * 1e6)} µs/dict)",
          ratio_cell(ratios), "≥ 0.7", spread(ratios)[0] >= 0.7)


def bench_one_call(t: Table, ctx: dict) -> None:
    """Rows 3c and 3d: a recording to its figures in one call (runway_analyse) from Python."""
    have_gpxpy = subprocess.run([sys.executable, "-c", "import gpxpy"], capture_output=True).returncode == 0
    env = python_env()
    if have_gpxpy and librunway_has("runway_analyse"):
        rs = run_lines([sys.executable, ROOT / "benchmarks" / "bench_python.py", "gpx1", GPX_RUNS, ONE_CALL_POINTS], env)
        ctx["gpx1"] = rs
        ratios = [r["base_s"] / r["engine_s"] for r in rs]
        bare = [r["base_s"] / r["bare_s"] for r in rs]
        e = statistics.median(r["engine_s"] for r in rs)
        b = statistics.median(r["base_s"] for r in rs)
        t.row("3c", f"Python, one GPX file of {fmt(ONE_CALL_POINTS)} points → figures, one call: "
              f"`librunway.analyse(path)` (runway_analyse_route; a Flight with its route) — points/s; without "
              f"the route (`analyse_recording(bytes, route=False)`): {ratio_cell(bare)}",
              per_s(ONE_CALL_POINTS, e),
              f"gpxpy {gpxpy_version()} (parse, `length_2d`, `get_moving_data`, `get_uphill_downhill`): "
              f"{per_s(ONE_CALL_POINTS, b)}",
              ratio_cell(ratios), "≥ 10×", spread(ratios)[0] >= 10)
    if FIT_FILE.exists() and librunway_has("runway_analyse"):
        if subprocess.run([sys.executable, "-c", "import fitdecode"], capture_output=True).returncode != 0:
            log("fitdecode is missing: pip install fitdecode==0.11.0")
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "fitdecode==0.11.0"], check=False)
        if subprocess.run([sys.executable, "-c", "import fitdecode"], capture_output=True).returncode == 0:
            rs = run_lines([sys.executable, ROOT / "benchmarks" / "bench_python.py", "fit", RUNS, FIT_FILE], env)
            ctx["fit"] = rs
            ratios = [r["base_s"] / r["engine_s"] for r in rs]
            bare = [r["base_s"] / r["bare_s"] for r in rs]
            e = statistics.median(r["engine_s"] for r in rs)
            b = statistics.median(r["base_s"] for r in rs)
            n = rs[0]["base"]["records"]
            t.row("3d", f"Python, a FIT file → figures ({FIT_FILE.name}, {n} records): "
                  f"`librunway.analyse(path)` — seconds; without the route: {ratio_cell(bare)}",
                  f"{fmt(e * 1000)} ms",
                  f"fitdecode 0.11 reading its records (`FitReader`, every frame): {fmt(b * 1000)} ms",
                  ratio_cell(ratios), "≥ 40×", spread(ratios)[0] >= 40)
        else:
            t.row("3d", "Python, a FIT file → figures", "not run", "fitdecode could not be installed", "—", "≥ 40×", None)


def bench_batch(t: Table, ctx: dict) -> None:
    need = "import dask, distributed, gpxpy"
    if subprocess.run([sys.executable, "-c", need], capture_output=True).returncode != 0:
        log("dask, distributed or gpxpy is missing: pip install dask distributed gpxpy")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "dask", "distributed", "gpxpy"],
                       check=False)
    if subprocess.run([sys.executable, "-c", need], capture_output=True).returncode != 0:
        t.row("8a", "Batch (`librunway.batch` on Dask)", "not run", "dask/distributed/gpxpy could not be installed",
              "—", "≥ 1.7×", None)
        return
    rs = run_lines([sys.executable, ROOT / "benchmarks" / "bench_batch.py", BATCH_RUNS, BATCH_COPIES], python_env())
    ctx["batch"] = rs
    sc = [r for r in rs if r["bench"] == "batch"]
    n, src = sc[0]["files"], sc[0]["sources"]
    w1 = statistics.median(r["w1_s"] for r in sc)
    w2 = statistics.median(r["w2_s"] for r in sc)
    t.row("8a", f"Batch: `librunway.batch.analyse` of {fmt(n)} recordings ({src} recordings × {n // src}: GPX, TCX, "
          f"FIT; {sc[0]['failed']} refused, as rows) on a Dask `LocalCluster` of 2 worker processes — recordings/s",
          f"2 workers: {per_s(n, w2)} ({fmt(w2 / n * 1e3)} ms/recording)",
          f"1 worker (its own cluster, alternating): {per_s(n, w1)}",
          ratio_cell([r["w1_s"] / r["w2_s"] for r in sc]), "≥ 1.7× (2 cores)",
          spread([r["w1_s"] / r["w2_s"] for r in sc])[0] >= 1.7)
    gp = [r for r in rs if r["bench"] == "batch_gpxpy"]
    m = gp[0]["files"]
    e = statistics.median(r["engine_task_s"] for r in gp) / m * 1e3
    b = statistics.median(r["base_task_s"] for r in gp) / m * 1e3
    ew = statistics.median(r["engine_s"] for r in gp)
    bw = statistics.median(r["base_s"] for r in gp)
    t.row("8b", f"Batch against gpxpy in the same 2 workers: {fmt(m)} GPX recordings (the same recordings as GPX), "
          f"the same {gp[0]['tasks']} tasks — cost per recording (task time / files)",
          f"`librunway.batch` (read, sport, import, session replay, summary): {fmt(e)} ms/recording "
          f"(wall {per_s(m, ew)})",
          f"gpxpy {gpxpy_version()} (parse, `length_2d`, `get_moving_data`, `get_uphill_downhill`): "
          f"{fmt(b)} ms/recording (wall {per_s(m, bw)})",
          ratio_cell([r["engine_task_s"] / r["base_task_s"] for r in gp]), "— (none set)", None)


def gpxpy_version() -> str:
    p = subprocess.run([sys.executable, "-c", "import gpxpy; print(gpxpy.__version__)"],
                       capture_output=True, text=True)
    return p.stdout.strip() or "?"


def bench_fanout(t: Table, ctx: dict) -> None:
    rs = run_lines([BIN / "bench_fanout", FANOUT_N, RUNS])
    ctx["fanout"] = rs
    base = {r["run"]: r["push_s"] for r in rs if r["mode"] == "none"}
    none_rate = statistics.median(FANOUT_N / s for s in base.values())
    for mode in ("callback", "poll"):
        for subs in (1, 8, 64):
            sel = [r for r in rs if r["mode"] == mode and r["subs"] == subs]
            if not sel:
                continue
            ratios = [base[r["run"]] / r["push_s"] for r in sel]
            lat = [x for r in sel for x in r["lat_us"]]
            p99s = [pct(r["lat_us"], 0.99) for r in sel]
            rate = statistics.median(FANOUT_N / r["push_s"] for r in sel)
            delivered = statistics.median(r["delivered"] for r in sel) / (subs * FANOUT_N)
            timed_out = any(r["timed_out"] for r in sel)
            engine = (f"{fmt(rate)} fixes/s; latency p50 {fmt(pct(lat, 0.5))} µs, p99 {fmt(pct(lat, 0.99))} µs "
                      f"(p99 per run {fmt(min(p99s))}–{fmt(max(p99s))}); {delivered:.1%} of flight events "
                      f"delivered{' (coalesced: policy latest)' if mode == 'callback' else ''}"
                      f"{'; TIMED OUT waiting for delivery' if timed_out else ''}")
            target, met = "—", None
            if mode == "callback" and subs == 8:
                target = "≥ 0.5 and p99 < 1 ms"
                met = spread(ratios)[0] >= 0.5 and pct(lat, 0.99) < 1000 and not timed_out
            what = ("callback subscribers (one delivery thread each)" if mode == "callback"
                    else "poll subscribers drained by the pusher after each push")
            if subs == 1:
                what = what.replace("subscribers (one delivery thread each)", "subscriber (its own delivery thread)")
                what = what.replace("poll subscribers", "poll subscriber")
            t.row("4", f"Fan-out, {subs} {what}: `runway_push_fix` throughput",
                  engine, f"no subscriber: {fmt(none_rate)} fixes/s", ratio_cell(ratios), target, met)


def bench_memory(t: Table, ctx: dict) -> None:
    mem = BIN / "bench_mem"
    runs = []
    for _ in range(MEM_RUNS):
        r = {"baseline": run_lines([mem, "baseline"])[0],
             "day": run_lines([mem, "run", DAY, "10000,43200"])[0],
             "day_poll": run_lines([mem, "run", DAY, "10000,43200", "poll"])[0],
             "hundred": run_lines([mem, "run", HUNDRED_H, f"10000,{DAY}"])[0]}
        runs.append(r)
    ctx["memory"] = runs

    def slope(m: dict, i: int, j: int) -> float:
        return (m["rss_kb"][j] - m["rss_kb"][i]) * 1024 / (m["points"][j] - m["points"][i])

    steady = [slope(r["hundred"], 1, 2) for r in runs]            # 86 400 -> 360 000 points
    early = [slope(r["hundred"], 0, 1) for r in runs]             # 10 000 -> 86 400 points
    lin = [slope(r["hundred"], 0, 1) / slope(r["hundred"], 1, 2) for r in runs]
    t.row("5a", "Memory: bytes per stored route point, steady state (RSS growth from 86 400 to "
          "360 000 points; `distance_filter_m` 0, every fix a point)",
          f"{fmt(statistics.median(steady))} B/point",
          "the route's design: 32 B/point (one `Route.Point`)", ratio_cell([s / 32 for s in steady]), "≤ 32 B/point",
          statistics.median(steady) <= 32)
    t.row("5b", "Memory: RSS growth linear in points (slope 10 000→86 400 points vs 86 400→360 000)",
          f"{fmt(statistics.median(early))} B/point early, {fmt(statistics.median(steady))} B/point late",
          "the later slope", ratio_cell(lin), "0.8–1.25 (linear)",
          0.8 <= statistics.median(lin) <= 1.25)
    ev = [slope(r["day_poll"], 0, 2) / slope(r["day"], 0, 2) for r in runs]
    per_event = [(slope(r["day_poll"], 0, 2) - slope(r["day"], 0, 2)) * (r["day"]["points"][2] - r["day"]["points"][0])
                 / max(1, r["day_poll"]["events"]) for r in runs]
    t.row("5c", "Memory: RSS growth not in events delivered (24 h run, 10 000→86 400 points, with a poll "
          "subscriber (policy queue) drained after every push)",
          f"{fmt(statistics.median(slope(r['day_poll'], 0, 2) for r in runs))} B/point with "
          f"{fmt(statistics.median(r['day_poll']['events'] for r in runs))} events delivered "
          f"({fmt(statistics.median(per_event))} B per event delivered)",
          f"no subscriber: {fmt(statistics.median(slope(r['day'], 0, 2) for r in runs))} B/point",
          ratio_cell(ev), "≈ 1 (< 1 B per event)", abs(statistics.median(per_event)) < 1)
    for key, name, label, pts in (("5d", "day", "24-hour run at 1 Hz (86 400 fixes)", DAY),
                                  ("5e", "hundred", "100-hour run at 1 Hz (360 000 fixes)", HUNDRED_H)):
        peaks = [r[name]["hwm_kb"] / r["baseline"]["rss_kb"] for r in runs]
        hwm = statistics.median(r[name]["hwm_kb"] for r in runs)
        bl = statistics.median(r["baseline"]["rss_kb"] for r in runs)
        per = (hwm - bl) * 1024 / pts
        t.row(key, f"Memory: peak RSS (VmHWM) of a {label}",
              f"{hwm / 1024:.1f} MiB (+{(hwm - bl) / 1024:.1f} MiB over the baseline = {fmt(per)} B/point, "
              "session and all)",
              f"the session-less baseline process: {bl / 1024:.1f} MiB", ratio_cell(peaks), "—", None)
    hosts = [run_lines([mem, "host", HOUR, 4])[0] for _ in range(MEM_RUNS)]
    ctx["memory_host"] = hosts
    vm = statistics.median(h["vm_kb"] for h in hosts)
    vm0 = statistics.median(h["vm0_kb"] for h in hosts)
    t.row("5f", "Memory: virtual memory (VmSize) of a host with one session and 4 callback subscribers "
          "after an hour at 1 Hz (3 600 fixes 1 s apart, replay clock; MALLOC_ARENA_MAX unset)",
          f"{vm / 1024:.1f} MiB", f"the same process before the session: {vm0 / 1024:.1f} MiB",
          ratio_cell([h["vm_kb"] / h["vm0_kb"] for h in hosts]), "< 64 MiB",
          vm < 64 * 1024 and not any(h["timed_out"] for h in hosts))
    growth = [h["rss_kb"] - h["rss0_kb"] for h in hosts]
    t.row("5g", "Memory: RSS growth of that host over the hour (VmRSS after − before the session)",
          f"+{statistics.median(growth) / 1024:.1f} MiB ({statistics.median(h['rss_kb'] for h in hosts) / 1024:.1f} MiB)",
          f"the same process before the session: {statistics.median(h['rss0_kb'] for h in hosts) / 1024:.1f} MiB",
          ratio_cell([h["rss_kb"] / h["rss0_kb"] for h in hosts]),
          f"within 2 MiB of {HOST_RSS_GROWTH_D35E492_KB / 1024:.1f} MiB (the growth measured by this row at d35e492, "
          "8 MiB delivery stacks)", statistics.median(growth) <= HOST_RSS_GROWTH_D35E492_KB + 2048)


def bench_store(t: Table, ctx: dict) -> None:
    TMP.mkdir(parents=True, exist_ok=True)
    d = tempfile.mkdtemp(prefix="store-", dir=TMP)
    try:
        for mode, n in (("every_fix", STORE_EVERY_N), ("batched", STORE_BATCHED_N)):
            rs = run_lines([BIN / "bench_store", mode, n, RUNS, d])
            ctx[f"store_{mode}"] = rs
            ratios = [r["base_s"] / r["engine_s"] for r in rs]
            e = statistics.median(r["engine_s"] for r in rs)
            b = statistics.median(r["base_s"] for r in rs)
            tx = "one transaction a row" if mode == "every_fix" else "one transaction a second"
            t.row("6", f"Store `{{\"store\":…,\"durability\":\"{mode}\"}}`: `runway_push_fix` of {fmt(n)} "
                  "fixes + close — throughput",
                  f"{per_s(n, e)} ({fmt(e / n * 1e6)} µs/fix)",
                  f"bare SQLite, same schema and settings (WAL, synchronous=FULL), {tx}: {per_s(n, b)} "
                  f"({fmt(b / n * 1e6)} µs/row)",
                  ratio_cell(ratios), "— (none set)", None)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def bench_callgrind(t: Table, ctx: dict) -> None:
    if not callgrind.valgrind():
        t.row("7", "Instructions per fix (callgrind)", "not measured: valgrind is not installed", "—", "—",
              "≤ 1.15× recorded", None)
        return
    log("callgrind: instructions per fix and per snapshot (6 runs under valgrind)")
    figures = callgrind.measure()
    ctx["callgrind"] = figures
    base = callgrind.recorded() if callgrind.BASELINE.exists() else {}
    for k, call in callgrind.PATHS.items():
        rec = base.get(k)
        ratio = figures[k] / rec if rec else float("nan")
        unit = "snapshot" if k == "snapshot" else "fix"
        t.row("7", f"Instructions per {unit}, `{call}` ({callgrind.FIXES} {unit}s minus 0, callgrind)",
              f"{figures[k]:.0f} Ir/{unit}", f"recorded in BASELINE.md: {rec:.0f} Ir/{unit}" if rec else "none recorded",
              f"**{ratio:.3f}×** (deterministic: 1 run)" if rec else "—", "≤ 1.15× recorded",
              (ratio <= 1.15) if rec else None)
    snap = figures.get("snapshot")
    if snap is not None:
        t.row("7s", "Serialising a flight snapshot (`runway_snapshot_json`, callgrind)", f"{snap:.0f} Ir/snapshot",
              "the issue's target", f"**{snap / 15000:.2f}×** the target", "≤ 15 000 Ir", snap <= 15000)


# ---- profile notes ----------------------------------------------------------------------------

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


STEPS = {"fanout": ("4", "bench_fanout")}


def main() -> int:
    if not LIB.exists():
        print(f"{LIB} is missing: make lib", file=sys.stderr)
        return 2
    if len(sys.argv) > 1:
        if len(sys.argv) != 3 or sys.argv[1] != "--only" or sys.argv[2] not in STEPS:
            print(f"usage: {sys.argv[0]} [--only {'|'.join(STEPS)}]  (no argument: every benchmark)", file=sys.stderr)
            return 2
        return only(sys.argv[2])
    started = time.time()
    t = Table()
    ctx: dict = {}
    for step in (bench_ingest, bench_fanout, bench_memory, bench_store, bench_callgrind, bench_python,
                 bench_one_call, bench_batch):
        step(t, ctx)
    log("profiles for the notes")
    note_list = notes(t, ctx)
    took = time.time() - started
    met = sum(1 for r in t.rows if r[-1] == "met")
    missed = sum(1 for r in t.rows if r[-1] == "**MISSED**")
    text = "\n".join([
        "# librunway benchmarks",
        "",
        f"`make bench` ({'QUICK smoke run, ' if QUICK else ''}{took / 60:.1f} min) — {machine()}.",
        "",
        "Every ratio compares the engine with a reference run side by side, in the same process or "
        "script, alternating which goes first; the cell gives the median ratio, the min–max over the runs "
        "and the number of runs. Throughput ratios are engine/reference (higher is better), cost ratios "
        "engine cost/reference cost (lower is better). Harnesses: `benchmarks/*.c`, `benchmarks/*.py`; "
        "method in `benchmarks/README.md`.",
        "",
        t.markdown(),
        "",
        f"{met} targets met, {missed} missed.",
        "",
        "## Where the time goes",
        "",
        *[n + "\n" for n in note_list],
    ])
    RESULTS.write_text(text)
    print(text)
    log(f"wrote {RESULTS.relative_to(ROOT)} in {took:.0f} s")
    return 0


def only(step: str) -> int:
    """Runs one step and replaces its rows, its note and the met/missed count in RESULTS.md."""
    key, fn = STEPS[step]
    if not RESULTS.exists():
        print(f"{RESULTS} is missing: run every benchmark first", file=sys.stderr)
        return 2
    started = time.time()
    t = Table()
    ctx: dict = {}
    globals()[fn](t, ctx)
    fresh = notes(t, ctx)
    lines = RESULTS.read_text().splitlines()
    prefix = f"| {key} |"
    rows = [i for i, line in enumerate(lines) if line.startswith(prefix)]
    if not rows:
        print(f"RESULTS.md has no row {key}", file=sys.stderr)
        return 2
    mine = [line for line in t.markdown().splitlines() if line.startswith(prefix)]
    lines[rows[0]:rows[-1] + 1] = mine
    table = [line for line in lines if re.match(r"^\| \d", line)]
    met = sum(1 for line in table if line.endswith("| met |"))
    missed = sum(1 for line in table if line.endswith("| **MISSED** |"))
    stamp = (f"Row {key} re-measured alone (`benchmarks/run.py --only {step}`, {time.time() - started:.0f} s) — "
             f"{machine()}.")
    out, done = [], False
    for line in lines:
        if line.startswith(f"Row {key} re-measured alone"):
            continue
        if re.match(r"^\d+ targets met, \d+ missed\.$", line):
            line = f"{met} targets met, {missed} missed."
        out.append(line)
        if not done and line.startswith("`make bench`"):
            out += ["", stamp]
            done = True
    text = "\n".join(out)
    # The step's note (its paragraph under "Where the time goes"): replaced, or dropped once met.
    old_note = re.compile(r"\n\*Struct path with one subscriber[^\n]*\n")
    new_note = "".join(f"\n{n}\n" for n in fresh if n.startswith("*Struct path with one subscriber"))
    text = old_note.sub(lambda _: new_note, text) if old_note.search(text) else text.rstrip("\n") + "\n" + new_note
    RESULTS.write_text(text.rstrip("\n") + "\n")
    print("\n".join(mine))
    log(f"rows {key} of {RESULTS.relative_to(ROOT)} replaced in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
