#!/usr/bin/env python3
"""The accuracy figures of docs/accuracy.md ("Measured"), from simulated runs with known truth and
the real recordings of ../shared/tracks.

Needs the release library and the simulator tool:
    make lib && swift build -c release --product runway-sim
    RUNWAY_LIBRARY=build/librunway.so python3 benchmarks/accuracy_figures.py
Each figure's bound is asserted by a Swift test (Tests/RunwayCoreTests/AccuracyTests.swift, and
Tests/RunwayTests/RealTrackTests.swift for the recordings); this script prints the measured values
for the table.
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
# Issue #19's standing receiver (Doppler |N(0, 0.2 m/s)| per axis, course noise), 10 minutes, each
# profile, the tuning seeds (StandingStillTests asserts < 5 m and < 10 s on the held-back ones too).
for label, extra in [("with speed", []), ("positions only", ["--no-speed", "--no-course"])]:
    figures = []
    for activity in ("run", "walk", "ride"):
        st = []; mv = []
        for seed in (1, 2, 3):
            sm, _ = run(["--seed", str(seed), "--motion", activity, "--laps", "0", "--stand-before", "600",
                         "--standing-doppler", "0.2", "--course-when-slow"] + extra, {"activity": activity})
            st.append(sm["distance_m"]); mv.append(sm["moving_s"])
        figures.append(f"{activity} {max(st):.1f} m, {max(mv):.0f} s")
    print(f"{label}: 10 min standing, honest receiver, max: " + "; ".join(figures))
# Doppler scale check (docs/accuracy.md, "The track filter and distance"): speed x 0.93 over the
# tuning and held-back trials (SimTrials), against the truth; and whether correct Doppler is kept.
TRIALS = [(1, "52.37", "4.89"), (2, "52.37", "4.89"), (3, "52.37", "4.89"), (1701, "1.29", "103.85"),
          (2903, "-33.92", "18.42"), (4417, "64.15", "-21.94"), (5581, "-16.50", "179.99"), (7219, "40.71", "-74.01")]
scaled, kept = [], 0
for seed, lat, lon in TRIALS:
    sm, tr = run(["--seed", str(seed), "--lat", lat, "--lon", lon, "--doppler-scale", "0.93"])
    scaled.append((err(sm["distance_m"], tr["truth_distance_m"]), sm["doppler_check"] is not None))
    ok, _ = run(["--seed", str(seed), "--lat", lat, "--lon", lon])
    kept += ok["doppler_check"] is None
print(f"Doppler x 0.93, 8 trials: distance {min(e for e, _ in scaled):+.2f}% ... {max(e for e, _ in scaled):+.2f}%, "
      f"positions preferred on {sum(p for _, p in scaled)}; correct Doppler kept on {kept} of 8")
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
# The start, positions only against Doppler (docs/accuracy.md, "Pace"): on the same steady runs, the
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
# The real recordings of ../shared/tracks, replayed as RealTrackFilteredTests replays them (default
# filters, the profile of the file's sport, start at the first fix, stop at the last): runs'
# distance against the distance the watch stored, rides' moving time against the device's timer
# over the span of the fixes (the timer's time before the first or after the last fix is time
# no moving time can see).
TRACKS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "shared", "tracks")
def timer_within_fixes(total, events, complete, first_fix, last_fix, session_end):
    running, lead, tail = None, 0.0, 0.0
    for kind, t in events:
        if running is not None and kind.startswith("stop"):
            lead += max(0, min(t, first_fix) - min(running, first_fix))
            tail += max(0, max(t, last_fix) - max(running, last_fix))
            running = None
        elif kind == "start" and running is None:
            running = t
    if not events or events[-1][1] < first_fix:
        return None
    if not complete or running is not None:
        if session_end is None or session_end - last_fix > 1:
            return None
        tail = max(0, session_end - last_fix)
    return total - lead - tail
if os.path.isdir(os.path.join(TRACKS, "fixes")):
    raw_off, refused = [], []
    for line in open(os.path.join(TRACKS, "reference.jsonl")):
        ref = json.loads(line)
        sessions = (ref.get("device") or {}).get("sessions") or [{}]
        first = sessions[0] if isinstance(sessions[0], dict) else {}
        sport = first.get("sport")
        with open(os.path.join(TRACKS, "fixes", ref["file"] + ".jsonl")) as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        # Filters off against the reference's geodesic (GeographicLib) sum over the same fixes.
        with librunway.Session({"filters": "off"}) as s:
            s.start()
            accepted, _ = s.push_many(lines)
            s.stop()
            raw = s.summary()["distance_m"]
        if accepted:
            raw_off.append(abs(raw - ref["geodesic_wgs84"]["distance_2d_fixes_m"]))
        else:
            refused.append(ref["file"])
        if sport not in ("running", "cycling"):
            continue
        with librunway.Session({"activity": "ride" if sport == "cycling" else "run"}) as s:
            s.start()
            s.push_many(lines)
            s.stop()
            sm = s.summary()
        if sport == "running" and first.get("total_distance_m"):
            device = first["total_distance_m"]
            print(f"{ref['file']}: {sm['distance_m']:.1f} m against the watch's {device:.1f} m ({err(sm['distance_m'], device):+.2f}%)")
        # The same fixes without their speed, course and accuracy (a GPX track of them), at the
        # default position noise and at 1 m: against the device's own distance.
        if first.get("total_distance_m") and len(lines) > 100:
            bare = [json.dumps({k: v for k, v in json.loads(l).items() if k not in ("speed", "course", "h_acc")}) for l in lines]
            figures = []
            for sigma in (3, 1):
                with librunway.Session({"activity": "ride" if sport == "cycling" else "run", "position_sigma_m": sigma}) as s:
                    s.start(); s.push_many(bare); s.stop()
                    figures.append(f"position_sigma_m {sigma}: {err(s.summary()['distance_m'], first['total_distance_m']):+.2f}%")
            print(f"{ref['file']}: positions only against the device's distance: " + ", ".join(figures))
        events = ref["device"].get("timer_events") or []
        complete = all(isinstance(t, (int, float)) for _, t in events)
        timer = first.get("total_timer_time_s")
        end = first["start_t"] + first["total_elapsed_time_s"] if first.get("start_t") is not None and first.get("total_elapsed_time_s") is not None else None
        within = timer_within_fixes(timer, [(k, t) for k, t in events if isinstance(t, (int, float))], complete,
                                    ref["start_t"], ref["end_t"], end) if timer is not None else None
        if sport == "cycling" and ref.get("n_segments", 0) > 1 and within is not None:
            print(f"{ref['file']}: moving {sm['moving_s']:.0f} s against the timer's {within:.0f} s over the fixes ({err(sm['moving_s'], within):+.1f}%)")
    # The cross-country-ski TCX, imported with its own sport, against its device's distance; the
    # ride sample-activity.fit pushed as a run (profile mismatch) and with its own sport.
    from librunway import recording
    def imported(name, config=None):
        lines, report = recording.split_report(recording.import_recording(open(os.path.join(TRACKS, name), "rb").read(), name.rsplit(".", 1)[1]))
        cfg = dict(config or {})
        if report and report.get("activity"): cfg.setdefault("activity", report["activity"])
        with librunway.Session(cfg) as s:
            recording._start_replay(s, lines); s.push_many(lines); s.stop()
            return s.summary(), report
    if recording.import_available():
        ski, report = imported("tcxreader__cross-country-skiing_activity_1.tcx")
        device = (report.get("device") or {}).get("distance_m")
        print(f"cross-country ski: {ski['distance_m']:.1f} m against the device's {device:.1f} m ({err(ski['distance_m'], device):+.2f}%), doppler_check {ski['doppler_check']}")
        as_run, _ = imported("fitparse__sample-activity.fit", {"activity": "run"})
        own, _ = imported("fitparse__sample-activity.fit")
        print(f"sample-activity.fit pushed as a run: profile_mismatch {as_run['profile_mismatch']} of {as_run['filtered']['speed']} refused for speed; with its sport: {own['profile_mismatch']}")
    print(f"real recordings, filters off: {len(raw_off)} against the geodesic sum over their fixes, worst {1000 * max(raw_off):.3f} mm; refused whole: {', '.join(refused)}")
# Elevation gain (docs/accuracy.md, "Elevation"): the 5.5 km loop with 30 m hills (sine,
# ramp, stepped), over the tuning seeds (1-3, Amsterdam) and the held-back trials of
# Sources/RunwaySim/SimTrials.swift, as Tests/RunwayCoreTests/ElevationAccuracyTests.swift replays
# them; then the four barometric FIT recordings against the device's total_ascent and
# total_descent, imported and replayed with the sport and altitude source the import report names.
TRIALS = [(1, "52.37", "4.89"), (2, "52.37", "4.89"), (3, "52.37", "4.89"), (1701, "1.29", "103.85"),
          (2903, "-33.92", "18.42"), (4417, "64.15", "-21.94"), (5581, "-16.50", "179.99"), (7219, "40.71", "-74.01")]
for label, extra, laps in [("clean on fixes (v_acc 0)", ["--altitude-error", "clean", "--v-acc"], "1"),
                           ("clean barometer", ["--altitude-error", "clean", "--barometer"], "1"),
                           ("barometric error", ["--altitude-error", "barometric", "--barometer"], "1"),
                           ("GPS-like error, 3 laps", ["--altitude-error", "gps"], "3")]:
    tune, held = [], []
    for seed, lat, lon in TRIALS:
        for shape in ("sine", "ramp", "stepped"):
            sm, tr = run(["--seed", str(seed), "--lat", lat, "--lon", lon, "--hills", shape, "--hill-m", "15",
                          "--laps", laps] + extra)
            (tune if seed <= 3 else held).append(err(sm["gain_m"], tr["gain_m"]))
    print(f"gain, {label}: tuning worst {max(map(abs, tune)):.1f}% mean {sum(tune) / len(tune):+.1f}%; "
          f"held back worst {max(map(abs, held)):.1f}% mean {sum(held) / len(held):+.1f}%")
if os.path.isdir(os.path.join(TRACKS, "fixes")) and librunway.import_available():
    from librunway.recording import split_report
    for name in ("fitparse__2013-02-06-12-11-14.fit", "fitparse__2015-10-13-08-43-15.fit",
                 "fitparse__activity-small-fenix2-run.fit", "fitparse__sample-activity.fit",
                 "fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit"):
        lines, report = split_report(librunway.import_recording(open(os.path.join(TRACKS, name), "rb").read(), "fit"))
        config = {"activity": report.get("activity") or "run", "fix_altitude": report.get("altitude_source") or "gps"}
        with librunway.Session(config) as s:
            s.start()
            s.push_many(lines)
            s.stop()
            gain, loss = s.summary()["gain_m"], s.summary()["loss_m"]
        device, down = report["device"]["ascent_m"], report["device"]["descent_m"]
        print(f"{name}: gain {gain:.1f} m against the device's total_ascent {device:.0f} m ({err(gain, device):+.1f}%), "
              f"loss {loss:.1f} m against its total_descent {down:.0f} m ({err(loss, down):+.1f}%)")
# Beyond the suites' trials: 60 other seeds a case (1000-1059, round five places), none looked at
# while choosing a mechanism's settings, so the figures below show the spread a test's eight
# trials can hide. Each line: mean, standard deviation, worst, and how many runs miss the target.
WIDE = [(seed, *[("52.37", "4.89"), ("1.29", "103.85"), ("-33.92", "18.42"), ("64.15", "-21.94"),
                 ("40.71", "-74.01")][seed % 5]) for seed in range(1000, 1060)]
def spread(xs):
    m = sum(xs) / len(xs)
    return m, (sum((x - m) ** 2 for x in xs) / len(xs)) ** 0.5
# The GPS-like gain (3 laps) and the barometric gain (1 lap, as its test) on the 60 wide seeds and
# two more sets of 60 (100-159, 2000-2059, the same five places): a ramp's bias shows in how many
# GPS-like runs miss 15%, a barometer's drift (1 m/sqrt(h)) in the few that miss 5%. Each case:
# its label, the simulator's arguments, the half window of the floor's averaging (below), the bound.
# The barometric case also runs on three more sets (3000-3059, 4000-4059, 6000-6059), first
# looked at once its mechanism (ClimbCounter's stretches) had been chosen on the first three.
GAIN_SEED_SETS = (range(1000, 1060), range(100, 160), range(2000, 2060))
FRESH_SEED_SETS = (range(3000, 3060), range(4000, 4060), range(6000, 6060))
GAIN_CASES = [("GPS-like error, 3 laps", ["--laps", "3", "--altitude-error", "gps"], 150, 15, GAIN_SEED_SETS),
              ("barometric error, 1 lap", ["--laps", "1", "--altitude-error", "barometric", "--barometer"], 30, 5,
               GAIN_SEED_SETS + FRESH_SEED_SETS)]
for label, extra, _, bound, seed_sets in GAIN_CASES:
    for seeds in seed_sets:
        places = [(seed, *WIDE[seed % 5][1:]) for seed in seeds]
        for shape in ("sine", "ramp", "stepped"):
            es = [err(*(lambda r: (r[0]["gain_m"], r[1]["gain_m"]))(run(["--seed", str(s), "--lat", la, "--lon", lo, "--hills", shape,
                  "--hill-m", "15"] + extra))) for s, la, lo in places]
            m, sd = spread(es)
            print(f"wide: gain, {label}, {shape}, seeds {seeds.start}-{seeds.stop - 1}: mean {m:+.1f}% sd {sd:.1f}, "
                  f"worst {max(es, key=abs):+.1f}%, {sum(abs(e) > bound for e in es)} beyond {bound}%")
# The floor under the gain's spread: on the same 540 runs, an estimator that knew the
# terrain (the simulator's true_alt) and read every turn of it from the altitude error averaged
# around it (a whole plateau or valley when longer; half as long at the start and the end, which
# have one side), as the engine's mean does, but without its flattening or choice of the highest
# mean. Its error is the sum of those averaged errors; its spread is the least the engine's could
# have with that averaging. GPS-like: 300 s, as the engine's window for GPS altitude. Barometric:
# 60 s, the longest the engine's barometric window gets; its error is mostly the drift, which no
# averaging removes (the altimeter's samples carry the error, the fixes at the same times the truth).
def oracle_error(seed, lat, lon, shape, extra, half):
    p = subprocess.run([SIM, "--seed", str(seed), "--lat", lat, "--lon", lon, "--hills", shape, "--hill-m", "15",
                        "--truth"] + extra, capture_output=True, text=True, check=True)
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    measured = {r["t"]: r["alt"] for r in lines if r.get("type") == "altimeter"}
    rows = [r for r in lines if "true_alt" in r]
    t = [r["t"] for r in rows]; z = [r["true_alt"] for r in rows]
    e = [(measured[r["t"]] if measured else r["alt"]) - r["true_alt"] for r in rows]
    def mean_error(lo, hi): return sum(x for x, ti in zip(e, t) if lo <= ti <= hi) / sum(1 for ti in t if lo <= ti <= hi)
    # Runs of the terrain going one way: (+1 up / -1 down, first index, last index).
    runs = []
    for i in range(1, len(z)):
        d = (z[i] > z[i - 1] + 1e-9) - (z[i] < z[i - 1] - 1e-9)
        if d == 0: continue
        if runs and runs[-1][0] == d: runs[-1][2] = i
        else: runs.append([d, i - 1, i])
    total = -mean_error(t[0], t[0] + half) if runs[0][0] > 0 else 0.0             # the start, as a valley
    for a, b in zip(runs, runs[1:]):            # a turn: the extreme lies from a's end to b's start
        lo, hi = t[a[2]], t[b[1]]
        c = (lo + hi) / 2
        total += a[0] * mean_error(min(lo, c - half), max(hi, c + half))
    if runs[-1][0] > 0: total += mean_error(t[-1] - half, t[-1])                       # the end, as a top
    truth = json.loads(p.stderr.strip().splitlines()[-1])["gain_m"]
    return err(truth + total, truth)
sets = ", ".join(f"{s.start}-{s.stop - 1}" for s in GAIN_SEED_SETS)
for label, extra, half, bound, _ in GAIN_CASES:
    for shape in ("sine", "ramp", "stepped"):
        es = [oracle_error(s, *WIDE[s % 5][1:], shape, extra, half) for seeds in GAIN_SEED_SETS for s in seeds]
        m, sd = spread(es)
        print(f"wide: gain, {label}, {shape}, seeds {sets}, an estimator that knew the terrain "
              f"(the floor): mean {m:+.1f}% sd {sd:.1f}, worst {max(es, key=abs):+.1f}%, {sum(abs(e) > bound for e in es)} of {len(es)} beyond {bound}%")
flat = []
for s, la, lo in WIDE:
    sm, _ = run(["--seed", str(s), "--lat", la, "--lon", lo, "--hill-m", "0", "--laps", "3", "--altitude-error", "gps"])
    flat.append(max(sm["gain_m"], sm["loss_m"]))
flat.sort()
print(f"wide: flat loop, GPS-like error, 82 min, 60 seeds: the larger of gain and loss mean {sum(flat) / len(flat):.1f} m, "
      f"median {flat[30]:.1f} m, 90th percentile {flat[54]:.1f} m, worst {flat[-1]:.1f} m")
# The clean loops, and the same loops on the simulator's receiver, at the default position noise
# and said to be lower (`position_sigma_m`, docs/accuracy.md, "Position noise"): what following
# the positions gains when they are clean and costs when they are not.
for sigma in (3, 1, 0.3):
    for error in ("0:60:0", "4:60:0.7"):
        for motion in ("walk", "run", "ride"):
            es = [err(*(lambda r: (r[0]["distance_m"], r[1]["truth_distance_m"]))(run(["--seed", str(s), "--lat", la, "--lon", lo,
                  "--motion", motion, "--position-error", error, "--no-speed", "--no-course", "--no-accuracy"],
                  {"activity": motion, "position_sigma_m": sigma}))) for s, la, lo in WIDE]
            m, sd = spread(es)
            print(f"wide: {'clean loop' if error == '0:60:0' else 'loop, position error ' + error}, positions only, "
                  f"position_sigma_m {sigma}, {motion}, 60 seeds: mean {m:+.3f}% sd {sd:.3f}, worst {max(es, key=abs):+.3f}%, "
                  f"{sum(abs(e) > 0.05 for e in es)} beyond 0.05%")
# Where a clean loop's metres go: one street corner on a clean track without Doppler (300 m
# north, an arc of radius r, 300 m on), against the path's length at the last fix. The
# constant-velocity filter assumes 3 m of position noise and little acceleration, so it cuts a
# corner sharper than its model.
import math
def corner(v, r, turn_deg, activity, straight=300.0):
    th = math.radians(turn_deg); arc = r * th; n = int((2 * straight + arc) / v)
    lines = []
    for k in range(n + 1):
        s = k * v
        if s <= straight: x, y = 0.0, s
        elif s <= straight + arc: a = (s - straight) / r; x, y = r - r * math.cos(a), straight + r * math.sin(a)
        else: u = s - straight - arc; x, y = r - r * math.cos(th) + u * math.sin(th), straight + r * math.sin(th) + u * math.cos(th)
        lines.append(json.dumps({"t": 1.7e9 + k, "lat": 52 + y / 111250.0, "lon": 4 + x / (111320 * math.cos(math.radians(52)))}))
    with librunway.Session({"activity": activity}) as s:
        s.start(); s.push_many(lines); s.stop()
        return s.summary()["distance_m"] - n * v
for v, activity in ((1.5, "walk"), (3.3, "run"), (7.5, "ride")):
    print(f"one corner, clean, positions only, {activity} {v} m/s: " + "; ".join(
        f"r {r} m: " + ", ".join(f"{t} deg {corner(v, r, t, activity):+.1f} m" for t in (45, 90, 120)) for r in (4, 10, 30)))
# Standing 10 minutes with issue #19's receiver (Doppler noise 0.2 m/s an axis) and noisier ones, on the
# 60 wide seeds, with Doppler: how far the standing figure holds (docs/accuracy.md, "Measured").
for sd in ("0.2", "0.3", "0.35", "0.45"):
    figures = []
    for activity in ("run", "walk", "ride"):
        st = []
        for s, la, lo in WIDE:
            sm, _ = run(["--seed", str(s), "--lat", la, "--lon", lo, "--motion", activity, "--laps", "0", "--stand-before", "600",
                         "--standing-doppler", sd, "--course-when-slow"], {"activity": activity}, upto=600)
            st.append((sm["distance_m"], sm["moving_s"]))
        figures.append(f"{activity} worst {max(d for d, _ in st):.1f} m, {max(m for _, m in st):.0f} s, "
                       f"{sum(d >= 5 or m >= 10 for d, m in st)} of 60 over 5 m or 10 s")
    print(f"wide: standing 10 min, Doppler noise {sd} m/s an axis: " + "; ".join(figures))
# Distance over receivers the filter was not tuned on: 30 wide seeds (1000-1029) for each position
# error (Gauss-Markov sigma:tau:white), with Doppler and from positions only.
for noise in ("4:60:0.7", "6:120:1", "2:30:1.5", "8:300:0.5"):
    for label, extra in (("with speed", []), ("positions only", ["--no-speed", "--no-course"])):
        es = [err(*(lambda r: (r[0]["distance_m"], r[1]["truth_distance_m"]))(run(["--seed", str(s), "--lat", la, "--lon", lo,
              "--position-error", noise] + extra))) for s, la, lo in WIDE[:30]]
        print(f"wide: distance, position error {noise}, {label}, 30 seeds: {min(es):+.2f}% ... {max(es):+.2f}%, mean {sum(es) / len(es):+.2f}%")
# A 2-minute stop mid-run (at 2 km) with the standing Doppler noisier than the issue's: how much
# the stop changes the total, against the same run without it, on 30 wide seeds.
for sd in ("0.2", "0.35", "0.45"):
    changes, extra_moving = [], []
    for s, la, lo in WIDE[:30]:
        base = ["--seed", str(s), "--lat", la, "--lon", lo, "--standing-doppler", sd, "--course-when-slow"]
        a, _ = run(base); b, _ = run(base + ["--stop", "2000:120"])
        changes.append(100 * abs(b["distance_m"] - a["distance_m"]) / a["distance_m"])
        extra_moving.append(b["moving_s"] - a["moving_s"])
    print(f"wide: 2-min stop, standing Doppler noise {sd} m/s an axis, 30 seeds: total changes at most {max(changes):.2f}% "
          f"({sum(c > 0.5 for c in changes)} over 0.5%), moving time at most {max(extra_moving):.0f} s more")
