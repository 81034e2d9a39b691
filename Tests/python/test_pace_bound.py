"""The bound behind docs/accuracy.md's positions-only pace row (benchmarks/pace_bound.py) and the
simulator option it uses (runway-sim --pace-variation).

The estimator's weights are checked against what makes it a slope at all (blind to a constant
offset, exact on a straight line), its spread against the closed form for two fixes and against
the noise model sampled, the chance outside the band against sampled speeds; docs/accuracy.md's figures
against the script's own. The simulator tool is built by `make lib`
(`swift build -c release`); its tests are skipped, saying so, when it is absent.
"""

from __future__ import annotations

import importlib.util
import json
import math
import random
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SIM = REPO / ".build" / "release" / "runway-sim"

spec = importlib.util.spec_from_file_location("pace_bound", REPO / "benchmarks" / "pace_bound.py")
pace_bound = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pace_bound)

needs_sim = pytest.mark.skipif(not SIM.exists(), reason=f"{SIM} not built (make lib builds it)")


@pytest.mark.parametrize("w", [1, 5, 10, 60])
def test_the_weights_estimate_a_slope_without_bias(w):
    weights, _ = pace_bound.slope_weights(w)
    assert len(weights) == w + 1
    assert abs(sum(weights)) < 1e-9                                     # an offset changes nothing
    assert abs(sum(k * x for k, x in enumerate(weights)) - 1) < 1e-9    # y = k gives slope 1


def test_two_fixes_give_the_closed_form_spread():
    # With two fixes the slope is their difference: var = 2 sigma^2 (1 - e^(-1/tau)) + 2 white^2.
    _, sd = pace_bound.slope_weights(1)
    b = pace_bound
    assert sd == pytest.approx(math.sqrt(2 * b.SIGMA ** 2 * (1 - math.exp(-1 / b.TAU)) + 2 * b.WHITE ** 2), rel=1e-12)


def test_a_longer_window_never_spreads_more():
    sds = [pace_bound.slope_weights(w)[1] for w in (5, 10, 20, 40, 80)]
    assert sds == sorted(sds, reverse=True)


def test_the_chance_outside_the_band_is_what_sampling_finds():
    # Draw speeds with the Gaussian error, turn each into a pace, and count those off by more
    # than 5%: the share must match the closed form (the band is asymmetric in speed).
    assert pace_bound.chance_outside(1e-6) == pytest.approx(0.0, abs=1e-12)
    rng = random.Random(7)
    n = 40_000
    for sd, share in ((0.1, 0.05), (0.2, 0.05), (1.0, 0.3)):
        true_pace = 1 / pace_bound.SPEED
        off = sum(abs(1 / (pace_bound.SPEED + rng.gauss(0, sd)) / true_pace - 1) > share for _ in range(n))
        p = pace_bound.chance_outside(sd, share)
        assert abs(off / n - p) < 4 * math.sqrt(p * (1 - p) / n), f"sd {sd}, {share:.0%}: sampled {off / n:.4f}, formula {p:.4f}"


@pytest.mark.parametrize("w", [5, 10, 30])
def test_the_spread_is_what_the_noise_model_gives_when_sampled(w):
    # Generate the receiver error itself (a Gauss-Markov process started in its stationary state
    # plus white noise, one value a second), apply the weights, and measure their spread.
    b = pace_bound
    weights, sd = b.slope_weights(w)
    phi = math.exp(-1 / b.TAU)
    rng = random.Random(w)
    n = 20_000
    total = 0.0
    for _ in range(n):
        gm = rng.gauss(0, b.SIGMA)
        slope = 0.0
        for k, x in enumerate(weights):
            if k:
                gm = phi * gm + rng.gauss(0, b.SIGMA * math.sqrt(1 - phi * phi))
            slope += x * (gm + rng.gauss(0, b.WHITE))
        total += slope * slope
    sampled = math.sqrt(total / n)
    # The sampled sd of n Gaussian draws is within 4 standard errors (sd / sqrt(2n)).
    assert abs(sampled - sd) < 4 * sd / math.sqrt(2 * n), f"W = {w}: sampled {sampled:.4f}, formula {sd:.4f}"


def test_the_accuracy_page_quotes_the_spreads_the_script_computes():
    page = (REPO / "docs" / "accuracy.md").read_text()
    text = " ".join(page.split())         # the paragraph is wrapped: compare words
    quoted = re.search(r"spread is ([\d.]+)% of the pace for W = 10 s, ([\d.]+)% for 15 s, ([\d.]+)% for 20 s and ([\d.]+)% for 60 s", text)
    assert quoted, "docs/accuracy.md's pace paragraph changed: update this test with it"
    for w, text in zip((10, 15, 20, 60), quoted.groups()):
        share = 100 * pace_bound.slope_weights(w)[1] / pace_bound.SPEED
        assert round(share, 1) == float(text), f"W = {w} s: docs/accuracy.md {text}%, script {share:.2f}%"


def sim(*args):
    return subprocess.run([str(SIM), *args], capture_output=True, text=True)


@needs_sim
def test_sim_pace_variation_zero_is_a_steady_run():
    def top_speed(*extra):
        out = sim("--seed", "2", "--truth", "--no-speed", *extra)
        assert out.returncode == 0, out.stderr
        d = [json.loads(line)["true_d"] for line in out.stdout.splitlines()]
        return max(b - a for a, b in zip(d, d[1:]))
    steady = 1000 / 300   # the default 5:00 min/km
    # Corners only slow the runner: never faster than the steady speed without variation...
    assert top_speed("--pace-variation", "0") <= steady * 1.001
    # ...while the default variation (3%) takes it above.
    assert top_speed() > steady * 1.005


@needs_sim
@pytest.mark.parametrize("value", ["-0.1", "0.31", "x", "nan"])
def test_sim_refuses_a_pace_variation_outside_its_range(value):
    out = sim("--pace-variation", value)
    assert out.returncode == 2
    assert "--pace-variation" in out.stderr
    assert out.stdout == ""


@needs_sim
def test_the_bound_script_runs_on_the_simulated_run():
    out = subprocess.run(["python3", str(REPO / "benchmarks" / "pace_bound.py")], capture_output=True, text=True, check=True).stdout
    rows = re.findall(r"^\s+(\d+) \|\s+([\d.]+)% \|\s+([\d.]+)% \|\s+([\d.]+)%$", out, re.M)
    assert [int(r[0]) for r in rows] == [10, 15, 20, 30, 60, 120]
    # Short windows carry the drift, long ones lag the corners: no window has every sample within 5%.
    assert min(float(r[3]) for r in rows) > 5
