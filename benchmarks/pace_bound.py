#!/usr/bin/env python3
"""How well can current pace be known from positions alone? The bound behind the
"current pace, positions only" row of docs/accuracy.md.

The receiver model of issue #4 (and of RunwaySim): per axis, a first-order Gauss-Markov error
(sigma 4 m, tau 60 s) plus 0.7 m white noise, one fix a second. For a runner moving at constant
speed in a straight line, the best any linear unbiased estimator can do with the last W seconds
of positions is generalised least squares with the exact noise covariance (Gauss-Markov
theorem); its variance is [(A' S^-1 A)^-1] for the slope. Part 1 prints that standard deviation
as a share of the speed at 5:00 min/km, and the chance that one sample is off by more than 5%.
A curved path, cross-track error, or not knowing the noise model can only make it worse.

Part 2 measures the same estimator on the simulated steady run the accuracy test uses (seed 2,
no pace variation, slowed only by corners), fed the true distance plus the simulator's own
error projected on the direction of travel (again easier than the real 2-D problem): short
windows carry the drift, long windows lag every change of pace (the start, each corner).

Needs the simulator tool (swift build -c release --product runway-sim); pure Python, no packages.
    python3 benchmarks/pace_bound.py
"""
import json, math, os, subprocess

SIGMA, TAU, WHITE = 4.0, 60.0, 0.7
SPEED = 1000 / 300          # 5:00 min/km
SIM = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".build", "release", "runway-sim")


def solve(m, b):
    """m x = b for a small symmetric positive definite m (Cholesky); b is a list of columns."""
    n = len(m)
    l = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = m[i][j] - sum(l[i][k] * l[j][k] for k in range(j))
            l[i][j] = math.sqrt(s) if i == j else s / l[j][j]
    out = []
    for col in b:
        y = [0.0] * n
        for i in range(n):
            y[i] = (col[i] - sum(l[i][k] * y[k] for k in range(i))) / l[i][i]
        x = [0.0] * n
        for i in reversed(range(n)):
            x[i] = (y[i] - sum(l[k][i] * x[k] for k in range(i + 1, n))) / l[i][i]
        out.append(x)
    return out


def slope_weights(w):
    """GLS weights over w+1 fixes one second apart: slope = sum(weights[k] * y[k]); its sd."""
    n = w + 1
    s = [[SIGMA ** 2 * math.exp(-abs(i - j) / TAU) + (WHITE ** 2 if i == j else 0.0) for j in range(n)] for i in range(n)]
    ones, ks = [1.0] * n, [float(k) for k in range(n)]
    si1, sik = solve(s, [ones, ks])                     # S^-1 A, column by column
    a = [[sum(si1), sum(sik)], [sum(sik), sum(k * x for k, x in zip(ks, sik))]]   # A' S^-1 A
    det = a[0][0] * a[1][1] - a[0][1] * a[1][0]
    inv10, inv11 = -a[1][0] / det, a[0][0] / det          # second row of its inverse
    weights = [inv10 * p + inv11 * q for p, q in zip(si1, sik)]
    return weights, math.sqrt(inv11)


def chance_outside(sd, share=0.05):
    """P(|pace error| > share) for a Gaussian speed error of sd (m/s) at SPEED."""
    lo, hi = SPEED / (1 + share), SPEED / (1 - share)   # the speeds whose pace is within share
    cdf = lambda x: 0.5 * (1 + math.erf((x - SPEED) / (sd * math.sqrt(2))))
    return 1 - (cdf(hi) - cdf(lo))


def along_track_run(seed=2):
    """(true path distance, along-track receiver error) a second, from the simulator."""
    out = subprocess.run([SIM, "--seed", str(seed), "--pace-variation", "0", "--no-speed", "--no-course", "--truth"],
                         capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    r, c = 6371008.8, math.cos(math.radians(rows[0]["true_lat"]))
    xy = [(math.radians(f["true_lon"]) * r * c, math.radians(f["true_lat"]) * r) for f in rows]
    d, e = [], []
    for i, f in enumerate(rows):
        a, b = xy[max(i - 1, 0)], xy[min(i + 1, len(xy) - 1)]
        dx, dy = b[0] - a[0], b[1] - a[1]
        n = math.hypot(dx, dy) or 1.0
        ex = math.radians(f["lon"] - f["true_lon"]) * r * c
        ey = math.radians(f["lat"] - f["true_lat"]) * r
        d.append(f["true_path"])
        e.append((ex * dx + ey * dy) / n)
    return d, e


def main():
    windows = [10, 15, 20, 30, 60, 120]
    weights = {}
    print("1. Best linear unbiased speed from the last W s of positions (straight line, constant speed)")
    print("   W (s) | sd of speed | share of 5:00 min/km pace | P(one sample off by > 5%)")
    for w in windows:
        weights[w], sd = slope_weights(w)
        print(f"   {w:5d} | {sd:6.3f} m/s  | {100 * sd / SPEED:5.1f}%                    | {100 * chance_outside(sd):4.0f}%")
    if not os.path.exists(SIM):
        print("\n(part 2 needs the simulator: swift build -c release --product runway-sim)")
        return
    d, e = along_track_run()
    print("\n2. The same estimator on the test's steady simulated run (seed 2), along-track error only;")
    print("   samples 15 s into the run on, the truth is the distance over the trailing 10 s (as the test)")
    print("   W (s) | median | p90   | worst")
    for w in windows:
        errors = []
        for i in range(max(15, w), len(d)):
            truth = (d[i] - d[i - 10]) / 10
            if truth <= 0:
                continue
            est = sum(k * (d[i - w + j] + e[i - w + j]) for j, k in enumerate(weights[w]))
            errors.append(abs(truth / est - 1) if est > 0 else 1.0)   # |pace - true pace| / true pace
        errors.sort()
        print(f"   {w:5d} | {100 * errors[len(errors) // 2]:5.1f}% | {100 * errors[len(errors) * 9 // 10]:4.1f}% | {100 * errors[-1]:5.1f}%")


if __name__ == "__main__":
    main()
