#!/usr/bin/env python3
"""`make bench`: runs every benchmark harness, prints one table, writes benchmarks/RESULTS.md.

Every row is a ratio against a reference run side by side (same process or same script,
alternating which side goes first), with the number of runs and the spread (median, min–max).
Where a target is missed, the notes below the table say where the time goes (callgrind
profiles of the same paths, and the split of the measured times).

Environment: BENCH_BIN (default build/bench) holds the C harnesses, RUNWAY_LIBRARY the library
(default build/librunway.so), RUNWAY_BENCH_TMP scratch files (default /tmp/runway-bench),
BENCH_QUICK=1 shrinks every workload (a smoke test of the harnesses; the figures mean little).

`run.py --only fanout` runs one step (rows 4) and replaces only its rows (and its note) in the
RESULTS.md that is there, saying so under the header; the other rows keep their figures.
`run.py --only callgrind` likewise re-counts the instructions (rows 7 and 7s: deterministic, so
a busy machine gives the same figures).
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
# The parts of the driver are in files of their own beside this one (run_common, run_steps,
# run_notes); every name this file had is imported here.
import callgrind  # noqa: E402,F401
from run_common import (  # noqa: E402,F401
    BATCH_COPIES, BATCH_RUNS, BIN, DAY, DICTS_N, FANOUT_N, FIT_FILE, GPX_POINTS, GPX_RUNS,
    HOST_RSS_GROWTH_D35E492_KB, HOUR, HUNDRED_H, INGEST_N, LIB, MEM_RUNS, ONE_CALL_POINTS, QUICK,
    RESULTS, RUNS, STORE_BATCHED_N, STORE_EVERY_N, TMP, Table, fmt, log, pct, per_s, python_env,
    ratio_cell, run_lines, spread)
from run_notes import import_profile, machine, notes, profile_note  # noqa: E402,F401
from run_steps import (bench_batch, bench_callgrind, bench_fanout, bench_ingest, bench_memory,  # noqa: E402,F401
                       bench_one_call, bench_python, bench_store, gpxpy_version, librunway_has)


STEPS = {"fanout": (("4",), "bench_fanout"), "callgrind": (("7", "7s"), "bench_callgrind")}


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
    keys, fn = STEPS[step]
    if not RESULTS.exists():
        print(f"{RESULTS} is missing: run every benchmark first", file=sys.stderr)
        return 2
    started = time.time()
    t = Table()
    ctx: dict = {}
    globals()[fn](t, ctx)
    lines = RESULTS.read_text().splitlines()
    fresh_lines = t.markdown().splitlines()
    mine: list[str] = []
    for key in keys:
        prefix = f"| {key} |"
        rows = [i for i, line in enumerate(lines) if line.startswith(prefix)]
        fresh_rows = [line for line in fresh_lines if line.startswith(prefix)]
        if not rows or not fresh_rows:
            # (A step that measured nothing, such as callgrind without valgrind, leaves RESULTS.md as it is.)
            why = f"RESULTS.md has no row {key}" if not rows else f"the step gave no row {key}: {' / '.join(fresh_lines[2:]) or 'nothing'}"
            print(f"{why}; RESULTS.md unchanged", file=sys.stderr)
            return 2
        lines[rows[0]:rows[-1] + 1] = fresh_rows
        mine += fresh_rows
    table = [line for line in lines if re.match(r"^\| \d", line)]
    met = sum(1 for line in table if line.endswith("| met |"))
    missed = sum(1 for line in table if line.endswith("| **MISSED** |"))
    label = ("Row " if len(keys) == 1 else "Rows ") + " and ".join(keys)
    stamp = (f"{label} re-measured alone (`benchmarks/run.py --only {step}`, {time.time() - started:.0f} s) — "
             f"{machine()}; the other rows, and the notes below, are the full run's.")
    out, done = [], False
    for line in lines:
        if line.startswith(f"{label} re-measured alone"):
            if out and out[-1] == "":
                out.pop()   # (with the blank line put before it)
            continue
        if re.match(r"^\d+ targets met, \d+ missed\.$", line):
            line = f"{met} targets met, {missed} missed."
        out.append(line)
        if not done and line.startswith("`make bench`"):
            out += ["", stamp]
            done = True
    text = "\n".join(out)
    if step == "fanout":
        # The step's note (its paragraph under "Where the time goes"): replaced, or dropped once met.
        fresh = notes(t, ctx)
        old_note = re.compile(r"\n\*Struct path with one subscriber[^\n]*\n")
        new_note = "".join(f"\n{n}\n" for n in fresh if n.startswith("*Struct path with one subscriber"))
        text = old_note.sub(lambda _: new_note, text) if old_note.search(text) else text.rstrip("\n") + "\n" + new_note
    RESULTS.write_text(text.rstrip("\n") + "\n")
    print("\n".join(mine))
    log(f"{label} of {RESULTS.relative_to(ROOT)} replaced in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
