#!/usr/bin/env python3
"""The accuracy figures in the README's "Measured" table, from simulated runs with known truth.

Needs the release library and the simulator tool:
    make lib && swift build -c release --product runway-sim
    RUNWAY_LIBRARY=build/librunway.so python3 benchmarks/accuracy_figures.py
Each figure is also asserted by a Swift test (Tests/RunwayCoreTests/AccuracyTests.swift); this
script prints the measured values for the table.
"""
import bisect, json, os, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bindings", "python"))
import librunway
SIM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".build", "release", "runway-sim")
def run(args, config=None, upto=None):
    p = subprocess.run([SIM] + args, capture_output=True, text=True, check=True)
    truth = json.loads(p.stderr.strip().splitlines()[-1])
    lines = p.stdout.splitlines()
    if upto: lines = lines[:upto]
    with librunway.Session(config) as s:
        s.start()
        s.push_many(lines)
        s.stop()
        sm = s.summary()
    return sm, truth
def err(a, b): return 100 * (a / b - 1)
rows = []
places = [("52.37","4.89"), ("-33.87","151.21"), ("-16.5","179.999"), ("64.1","-21.9")]
for label, extra in [("with speed", []), ("positions only", ["--no-speed", "--no-course"])]:
    es=[]; raws=[]
    for lat, lon in places:
        for seed in (1, 2, 3):
            sm, tr = run(["--seed", str(seed), "--lat", lat, "--lon", lon] + extra)
            es.append(err(sm["distance_m"], tr["truth_distance_m"]))
            if seed == 1 and lat == "52.37":
                raw, _ = run(["--seed", str(seed), "--lat", lat, "--lon", lon] + extra, {"filters": "off"})
                raws.append(err(raw["distance_m"], tr["truth_distance_m"]))
    print(f"{label}: 12 runs, distance error min {min(es):+.2f}% max {max(es):+.2f}% (raw {raws[0]:+.1f}%)")
for label, extra in [("with speed", []), ("positions only", ["--no-speed", "--no-course"])]:
    d=[]
    for seed in (1,2,3):
        a,_ = run(["--seed", str(seed)] + extra); b,_ = run(["--seed", str(seed), "--stop", "2000:120"] + extra)
        d.append(100*abs(b["distance_m"]-a["distance_m"])/a["distance_m"])
    print(f"{label}: 2-min stop changes total by max {max(d):.2f}%")
for label, extra in [("with speed", []), ("positions only", ["--no-speed", "--no-course"])]:
    st=[]; sp=[]
    for seed in (1,2,3):
        sm,_ = run(["--seed", str(seed), "--stand-before", "600"] + extra, upto=600)
        st.append(sm["distance_m"])
        a,_ = run(["--seed", str(seed)] + extra); c,_ = run(["--seed", str(seed), "--spike", "300:null", "--spike", "700:400"] + extra)
        sp.append(100*abs(c["distance_m"]-a["distance_m"])/a["distance_m"])
    print(f"{label}: 10 min standing adds max {max(st):.1f} m; (0,0)+400 m spike change max {max(sp):.2f}%")
def steady_run(seed, extra):
    """The simulator's fixes, with truth fields, of a steady run (no pace variation)."""
    p = subprocess.run([SIM, "--seed", str(seed), "--pace-variation", "0", "--truth"] + extra, capture_output=True, text=True, check=True)
    return [json.loads(line) for line in p.stdout.splitlines()]
def trailing_true_speed(times, paths, f, window=10):
    """The true distance over the trailing window before fix `f` (the fixes so far in `times`
    and `paths`), per second; None before a whole window has passed."""
    i = bisect.bisect_right(times, f["t"] - window) - 1
    return None if i < 0 else (f["true_path"] - paths[i]) / (f["t"] - times[i])
def engine_input(f):
    return {k: v for k, v in f.items() if not k.startswith("true_")}
# Current pace on the steady runs of the pace tests (seeds 1-3, no pace variation): after each
# fix from 15 s on until the runner slows for the finish, the engine's pace against the true
# distance over the trailing 10 s window.
for label, extra in [("with speed", []), ("positions only", ["--no-speed", "--no-course"])]:
    errors = []
    for seed in (1, 2, 3):
        fixes = steady_run(seed, extra)
        steps = [b["true_path"] - a["true_path"] for a, b in zip(fixes, fixes[1:])]
        finish = fixes[max(i for i, d in enumerate(steps) if d >= 0.999 * max(steps))]["t"]
        with librunway.Session() as s:
            s.start(fixes[0]["t"])
            times, paths = [], []
            for f in fixes:
                s.push(engine_input(f))
                times.append(f["t"]); paths.append(f["true_path"])
                if f["t"] - fixes[0]["t"] < 15 or f["t"] > finish:
                    continue
                truth = trailing_true_speed(times, paths, f)
                v = s.snapshot()["ground_speed_mps"]
                if truth is not None and truth > 0:
                    errors.append(abs(truth / v - 1) if v else 1.0)   # |pace - true pace| / true pace
    errors.sort()
    print(f"{label}: current pace error median {100*errors[len(errors)//2]:.1f}%, p90 {100*errors[len(errors)*9//10]:.1f}%, worst {100*errors[-1]:.1f}% ({len(errors)} samples, 3 runs)")
# The start, positions only against Doppler (README, `target_pace`): on the same steady runs, the
# median pace error by time since the start (positive: the pace reads slow), and when a target
# band of 5:00 +-0:15 min/km around the runner's true pace first calls SINK RATE.
BANDS = [(10, 20), (20, 30), (30, 60), (60, 120)]
for label, extra in [("with speed", []), ("positions only", ["--no-speed", "--no-course"])]:
    by_band, sink = {b: [] for b in BANDS}, []
    for seed in (1, 2, 3):
        fixes = steady_run(seed, extra)
        t0 = fixes[0]["t"]
        with librunway.Session({"target_pace": {"min": 4.75, "max": 5.25}}) as s, s.events(kinds="alert", capacity=65536) as alerts:
            s.start(t0)
            times, paths = [], []
            for f in fixes:
                since = f["t"] - t0
                if since >= BANDS[-1][1]:
                    break
                s.push(engine_input(f))
                times.append(f["t"]); paths.append(f["true_path"])
                truth = trailing_true_speed(times, paths, f)
                band = next((b for b in BANDS if b[0] <= since < b[1]), None)
                if truth is None or band is None:
                    continue
                v = s.snapshot()["ground_speed_mps"]
                by_band[band].append(truth / v - 1 if v else 1.0)
            slow = [a["t"] - t0 for a in alerts if a["code"] == "GPWS_PACE_SLOW"]
        sink.append(f"{slow[0]:.0f} s" if slow else "none")
    med = lambda xs: sorted(xs)[len(xs) // 2]
    errors = ", ".join(f"{a}-{b} s {100 * med(by_band[(a, b)]):+.1f}%" for a, b in BANDS)
    print(f"{label}: median pace error after the start {errors}; SINK RATE at {', '.join(sink)} (seeds 1-3)")
