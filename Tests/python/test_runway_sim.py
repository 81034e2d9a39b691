"""The simulator tool's receiver-error option (runway-sim --position-error), which the accuracy
figures' clean loops use (benchmarks/accuracy_figures.py, `wide:`). Skipped, saying so, when the
tool is absent (`make lib` builds it)."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

SIM = Path(__file__).resolve().parents[2] / ".build" / "release" / "runway-sim"
needs_sim = pytest.mark.skipif(not SIM.exists(), reason=f"{SIM} not built (make lib builds it)")


def sim(*args):
    return subprocess.run([str(SIM), *args], capture_output=True, text=True)


def offsets_m(*extra):
    out = sim("--seed", "3", "--laps", "0.2", "--truth", *extra)
    assert out.returncode == 0, out.stderr
    fixes = [json.loads(line) for line in out.stdout.splitlines()]
    return [math.hypot((f["lat"] - f["true_lat"]) * 111_000,
                       (f["lon"] - f["true_lon"]) * 111_000 * math.cos(math.radians(f["true_lat"]))) for f in fixes]


@needs_sim
def test_a_clean_receiver_reports_the_true_positions():
    assert max(offsets_m("--position-error", "0:60:0")) < 1e-6


@needs_sim
def test_the_error_follows_the_sigmas_given():
    default = offsets_m()
    white = offsets_m("--position-error", "0:60:2")
    rms = lambda xs: math.sqrt(sum(x * x for x in xs) / len(xs))
    # Per axis 2 m white: the offset's rms is 2·√2 ≈ 2.8 m; the default (4 m Gauss–Markov plus
    # 0.7 m white) is larger.
    assert 2.3 < rms(white) < 3.4
    assert rms(default) > rms(white)


@needs_sim
@pytest.mark.parametrize("value", ["4:60", "-1:60:0", "4:0:0", "4:60:x", "nan:60:0"])
def test_a_malformed_position_error_is_refused(value):
    out = sim("--position-error", value)
    assert out.returncode == 2
    assert "--position-error" in out.stderr
    assert out.stdout == ""
