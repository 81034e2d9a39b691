#!/usr/bin/env python3
"""The accuracy figures in the README's "Measured" table, from simulated runs with known truth.

Needs the release library and the simulator tool:
    make lib && swift build -c release --product runway-sim
    RUNWAY_LIBRARY=build/librunway.so python3 benchmarks/accuracy_figures.py
Each figure is also asserted by a Swift test (Tests/RunwayCoreTests/AccuracyTests.swift); this
script prints the measured values for the table.
"""
import json, os, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bindings", "python"))
import runway
SIM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".build", "release", "runway-sim")
def run(args, config=None, upto=None):
    p = subprocess.run([SIM] + args, capture_output=True, text=True, check=True)
    truth = json.loads(p.stderr.strip().splitlines()[-1])
    lines = p.stdout.splitlines()
    if upto: lines = lines[:upto]
    with runway.Session(config) as s:
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
