"""The benchmarks of run.py (`make bench`): each step runs its harnesses side by side with their
reference and adds its rows to the table (benchmarks/README.md has the method)."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import callgrind
from run_common import (BATCH_COPIES, BATCH_RUNS, BIN, DAY, DICTS_N, FANOUT_N, FIT_FILE, GPX_POINTS,
                        GPX_RUNS, HOST_RSS_GROWTH_D35E492_KB, HOUR, HUNDRED_H, INGEST_N, LIB,
                        MEM_RUNS, ONE_CALL_POINTS, ROOT, RUNS, STORE_BATCHED_N, STORE_EVERY_N, TMP,
                        Table, fmt, log, pct, per_s, python_env, ratio_cell, run_lines, spread)


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
