"""What every part of run.py (`make bench`) uses: paths, workload sizes, running a harness,
statistics and number formatting, and the results table."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
