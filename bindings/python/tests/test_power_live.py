"""A bike computer's power on the live screen: the snapshot's 10 s power and the lap so far,
and the power alerts of ``target_power`` (GPWS_POWER_LOW / GPWS_POWER_HIGH)."""

from __future__ import annotations

import pytest

import librunway
from runway_testkit import LAT0, LON0, T0


def ride(s: librunway.Session, seconds: range, watts) -> None:
    """A fix (8 m/s due north) and a power sample each second; ``watts(i)`` None: no sample."""
    for i in seconds:
        t = T0 + i
        s.push({"t": t, "lat": LAT0 + i * 8 / 111_250, "lon": LON0, "speed": 8.0, "h_acc": 4})
        w = watts(i)
        if w is not None:
            s.push({"type": "power", "watts": w, "t": t})


def test_the_snapshot_has_the_10_s_power_and_the_lap_so_far():
    with librunway.Session({"activity": "ride", "auto_pause": False}) as s:
        s.start(T0)
        before = s.snapshot()
        for key in ("power_10s_w", "lap_avg_power_w", "lap_max_power_w", "lap_normalized_power_w"):
            assert key in before and before[key] is None
        ride(s, range(0, 60), lambda i: 250)
        ride(s, range(60, 65), lambda i: 150)
        snap = s.snapshot()
        # 4 s after the step (each sample held until the next): 6 s at 250 W, 4 s at 150 W.
        assert snap["power_10s_w"] == pytest.approx(210)
        assert snap["power_w"] == 150
        assert snap["lap_max_power_w"] == 250
        with s.events(kinds=["split"]) as sub:
            s.lap(T0 + 64)
            split = [e["lap"] for e in sub]
        assert len(split) == 1
        for key in ("avg_power_w", "max_power_w", "normalized_power_w"):
            assert split[0][key] == snap["lap_" + key]
        after = s.snapshot()
        assert after["lap"] == 2 and after["lap_avg_power_w"] is None


def test_target_power_fires_once_per_excursion():
    with librunway.Session({"activity": "ride", "auto_pause": False,
                            "target_power": {"min": 200, "max": 300}}) as s:
        with s.events(kinds=["alert"]) as sub:
            s.start(T0)
            ride(s, range(0, 30), lambda i: 250)
            ride(s, range(30, 60), lambda i: 0)          # coasting: low power
            ride(s, range(60, 70), lambda i: 250)
            ride(s, range(70, 100), lambda i: None)      # a dropout: nothing
            ride(s, range(100, 120), lambda i: 400)
            alerts = list(sub)
    assert [a["code"] for a in alerts] == ["GPWS_POWER_LOW", "GPWS_POWER_HIGH"]
    low, high = alerts
    assert set(low["values"]) == {"held_s", "power_w", "target_min_w"}
    assert (low["values"]["held_s"], low["values"]["target_min_w"]) == (5, 200)
    assert low["values"]["power_w"] == 0 and low["t"] == T0 + 35
    assert high["values"] == {"held_s": 5, "power_w": 400, "target_max_w": 300}
    assert high["t"] == T0 + 105
    assert "OVERTORQUE" in high["message"]


@pytest.mark.parametrize("band", [{"min": 300, "max": 200}, {"min": -5, "max": 200}, {"min": 100},
                                  {"min": 100, "max": 200, "avg": 150}, [100, 200]])
def test_a_bad_target_power_is_refused(band):
    with pytest.raises(librunway.ArgumentError, match="target_power"):
        librunway.Session({"target_power": band})
