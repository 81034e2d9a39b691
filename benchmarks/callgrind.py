#!/usr/bin/env python3
"""Instructions per fix of the JSON and struct paths, and per flight snapshot serialised,
counted by valgrind's callgrind.

    callgrind.py measure   print the three figures
    callgrind.py check     re-measure and fail (exit 1) when any is more than 15% above the
                           figure recorded in benchmarks/BASELINE.md; skip (exit 0) without valgrind
    callgrind.py record    re-measure and rewrite benchmarks/BASELINE.md (a deliberate update)

How a figure is made: build/bench/bench_count generates 20 000 fixes (always the same, always
all of them), opens a session with the default config, starts it, pushes the first P of them
(runway_push_json one line at a time, runway_push_jsonl all in one call, or runway_push_fix),
stops and closes. Callgrind counts the
instructions (Ir) of the whole process for P = 20 000 and for P = 0; the difference over 20 000
is the cost of one fix with startup, generation, open, start and close removed. `snapshot`: the
same 20 000 fixes are always pushed (runway_push_fix) and runway_snapshot_json is called after
each of the first P, so the difference over 20 000 is one snapshot's serialisation (read, JSON,
copy out, free). Swift's hashing
is made deterministic (SWIFT_DETERMINISTIC_HASHING=1), so repeated runs agree to a few
instructions in a billion.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_COUNT = Path(os.environ.get("BENCH_BIN", ROOT / "build" / "bench")) / "bench_count"
BASELINE = ROOT / "benchmarks" / "BASELINE.md"
FIXES = 20000
TOLERANCE = 0.15
PATHS = {"json": "runway_push_json", "jsonl": "runway_push_jsonl", "fix": "runway_push_fix",
         "snapshot": "runway_snapshot_json"}


def valgrind() -> str | None:
    return shutil.which("valgrind")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["SWIFT_DETERMINISTIC_HASHING"] = "1"
    return env


def count(args: list[str], out_file: str, extra: list[str] | None = None,
          program: list[str] | None = None, env: dict[str, str] | None = None) -> int:
    """Instructions collected by callgrind for one run of bench_count (or of `program`)."""
    cmd = [valgrind() or "valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
           *(extra or []), *(program or [str(BENCH_COUNT)]), *args]
    p = subprocess.run(cmd, env={**_env(), **(env or {})}, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    m = re.search(r"Collected\s*:\s*(\d+)", p.stderr)
    if not m:
        raise RuntimeError(f"no 'Collected' line from callgrind:\n{p.stderr[-2000:]}")
    return int(m.group(1))


def measure(workdir: str | None = None) -> dict[str, float]:
    """{"json": Ir per fix, "jsonl": Ir per fix, "fix": Ir per fix, "snapshot": Ir per snapshot}.
    The runs go two at a time."""
    own = workdir is None
    wd = workdir or tempfile.mkdtemp(prefix="runway-callgrind-")
    try:
        jobs = {(k, p): ([k, str(FIXES), str(p)], os.path.join(wd, f"cg.{k}.{p}.out"))
                for k in PATHS for p in (FIXES, 0)}
        with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            futures = {key: pool.submit(count, *job) for key, job in jobs.items()}
            ir = {key: f.result() for key, f in futures.items()}
        return {k: (ir[(k, FIXES)] - ir[(k, 0)]) / FIXES for k in PATHS}
    finally:
        if own:
            shutil.rmtree(wd, ignore_errors=True)


def recorded() -> dict[str, float]:
    """The figures in BASELINE.md's table: rows like `| json | runway_push_json | 31633 |`."""
    figures = {}
    for line in BASELINE.read_text().splitlines():
        m = re.match(r"\|\s*`?(jsonl|json|fix|snapshot)`?\s*\|[^|]*\|\s*(\d+)\s*\|", line)
        if m:
            figures[m.group(1)] = float(m.group(2))
    missing = set(PATHS) - set(figures)
    if missing:
        raise SystemExit(f"{BASELINE}: no recorded figure for {', '.join(sorted(missing))}")
    return figures


def record(figures: dict[str, float]) -> None:
    text = BASELINE.read_text() if BASELINE.exists() else ""
    rows = "\n".join(f"| {k} | `{PATHS[k]}` | {round(figures[k])} |" for k in PATHS)
    table = f"| path | call | instructions per fix (per snapshot for `snapshot`) |\n|---|---|---|\n{rows}\n"
    begin, end = "<!-- figures: begin -->", "<!-- figures: end -->"
    if begin in text and end in text:
        text = text[:text.index(begin) + len(begin)] + "\n" + table + text[text.index(end):]
    else:
        text += f"\n{begin}\n{table}{end}\n"
    BASELINE.write_text(text)


BUCKETS = [
    ("heap (malloc/free)", re.compile(r"^(malloc|free|_int_free|_int_malloc|cfree|realloc|_int_realloc|"
                                      r"malloc_consolidate|unlink_chunk|swift_slowAlloc|swift_slowDealloc|"
                                      r"swift_allocObject|swift_deallocObject|tcache|__libc_)")),
    ("reference counting", re.compile(r"swift_(retain|release|bridgeObject|isUniquelyReferenced|"
                                      r"arrayDestroy|arrayInit)|RefCount")),
    ("memcpy/memmove/memset", re.compile(r"__mem(cpy|move|set)|^mem(cpy|move|set)")),
    ("libm (cos/sin/log/...)", re.compile(r"^__(cos|sin|ieee754|atan|exp|log|pow|sqrt)")),
    ("number parsing (strtod)", re.compile(r"strtod|str_to_mpn|localeconv|mpn_|round_and_return")),
    ("Swift exclusivity checks", re.compile(r"swift_beginAccess|swift_endAccess|AccessSet|SwiftTLSContext|"
                                            r"__tls_get_addr")),
    ("expat (no symbols)", re.compile(r"^libexpat")),
    ("cJSON (libcjson, no symbols)", re.compile(r"^libcjson")),
    ("number formatting", re.compile(r"_Float64ToASCII|description\.getter|_SmallString|"
                                     r"JSONWriter\.(number|appendShortest|putDigits|putPadded2)|"
                                     r"ShortestDecimal|swift_float64ToString|_int64ToString")),
]


def call_counts(out_file: str) -> dict[str, int]:
    """Calls made to each function (by name) in a callgrind output file."""
    names: dict[str, str] = {}
    calls: dict[str, int] = {}
    callee = None
    with open(out_file, errors="replace") as f:
        for line in f:
            m = re.match(r"^c?fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
            if m:
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                callee = names.get(m.group(1)) if line.startswith("cfn=") else None
                continue
            if callee and line.startswith("calls="):
                calls[callee] = calls.get(callee, 0) + int(line[6:].split()[0])
                callee = None
    return calls


def profile(args: list[str], toggle: str, top: int = 8, program: list[str] | None = None,
            env: dict[str, str] | None = None) -> dict:
    """Where the instructions under `toggle` go: {"total": Ir, "calls": {function: calls},
    "top": [(pct, Ir, name)] by self cost (names demangled, duplicates merged),
    "buckets": [(pct, name)]}."""
    with tempfile.TemporaryDirectory(prefix="runway-profile-") as wd:
        out = os.path.join(wd, "cg.out")
        total = count(args, out, [f"--toggle-collect={toggle}"], program, env)
        p = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", out], capture_output=True, text=True)
        calls = call_counts(out)
    text = p.stdout
    demangler = shutil.which("swift-demangle")
    if demangler:
        d = subprocess.run([demangler, "--simplified"], input=text, capture_output=True, text=True)
        if d.returncode == 0:
            text = d.stdout
    merged: dict[str, int] = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)(?:\s+\[([^\]]*)\])?$", line)
        if not m or "PROGRAM TOTALS" in line:
            continue
        name, obj = m.group(2), os.path.basename(m.group(3) or "")
        name = name[4:] if name.startswith("???:") else re.sub(r"^[^:]*?:(?=[^:])", "", name, count=1)
        name = name.strip()
        if re.match(r"^0x[0-9a-f]+", name):          # no symbol: name the library
            name = f"{obj.split('.so')[0] or '?'} (no symbols)"
        merged[name] = merged.get(name, 0) + int(m.group(1).replace(",", ""))
    counted = sum(merged.values()) or 1
    ranked = sorted(merged.items(), key=lambda kv: -kv[1])
    buckets: dict[str, int] = {}
    for name, ir in ranked:
        for label, rx in BUCKETS:
            if rx.search(name):
                buckets[label] = buckets.get(label, 0) + ir
                break
    return {
        "total": total,
        "calls": calls,
        "top": [(100.0 * ir / counted, ir, name) for name, ir in ranked[:top]],
        "buckets": sorted(((100.0 * ir / counted, label) for label, ir in buckets.items()), reverse=True),
    }


def main(argv: list[str]) -> int:
    cmd = argv[1] if len(argv) > 1 else "measure"
    if cmd not in ("measure", "check", "record"):
        print(__doc__)
        return 2
    if not valgrind():
        print("test-callgrind: SKIPPED — valgrind is not installed (apt-get install valgrind); "
              "instruction counts were not checked")
        return 0
    if not BENCH_COUNT.exists():
        print(f"{BENCH_COUNT} is missing: build it with `make {BENCH_COUNT.relative_to(ROOT)}`")
        return 2
    figures = measure()
    if cmd == "measure":
        for k in PATHS:
            print(f"{k:8} {PATHS[k]:20} {figures[k]:10.0f} instructions per {'snapshot' if k == 'snapshot' else 'fix'}")
        return 0
    if cmd == "record":
        record(figures)
        print(f"recorded in {BASELINE}: " + ", ".join(f"{k} {figures[k]:.0f}" for k in PATHS))
        return 0
    base = recorded()
    failed = False
    for k in PATHS:
        ratio = figures[k] / base[k]
        verdict = "ok" if ratio <= 1 + TOLERANCE else "FAIL"
        failed |= verdict == "FAIL"
        print(f"test-callgrind: {PATHS[k]:20} {figures[k]:8.0f} instructions per {'snapshot' if k == 'snapshot' else 'fix'}, recorded "
              f"{base[k]:.0f} ({ratio - 1:+.1%}, limit +{TOLERANCE:.0%}) {verdict}")
    if failed:
        print("test-callgrind: FAILED — a path costs more than 15% above benchmarks/BASELINE.md; "
              "find the cause, or if the change is worth it, run `python3 benchmarks/callgrind.py "
              "record` and commit the new figure with the reason")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
