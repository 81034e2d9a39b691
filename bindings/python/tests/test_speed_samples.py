"""Speed samples ({"type":"speed","speed":S,"t":T}: a wheel sensor, a foot pod, a treadmill)
through the C ABI: they measure a flight with no fix (indoors), the summary says how much of the
distance they measured, bad ones are refused with InputError, and they measure where positions
are silent (before the first fix, and once no fix came for three of the receiver's intervals, at
most gap_s), nothing while fixes come."""

from __future__ import annotations

import pytest

import librunway

T0 = 1700000000.0


def test_an_indoor_flight_is_measured_by_its_speed_samples():
    with librunway.Session({"auto_pause": False, "auto_lap_m": 1000}) as s:
        s.start(T0)
        # 10 minutes at 3 m/s, then a minute standing on the treadmill, then 5 more at 3.5 m/s.
        speeds = [3.0] * 600 + [0.0] * 60 + [3.5] * 300
        s.push_many({"type": "speed", "speed": v, "t": T0 + k + 1} for k, v in enumerate(speeds))
        s.stop()
        summary = s.summary()
    assert summary["distance_m"] == pytest.approx(600 * 3.0 + 300 * 3.5)
    assert summary["sensor_distance_m"] == summary["distance_m"]
    assert summary["moving_s"] == pytest.approx(900) and summary["elapsed_s"] == pytest.approx(960)
    assert len(summary["laps"]) == 3 and summary["points"] == 0


def test_bad_speed_samples_are_refused_and_change_nothing():
    with librunway.Session() as s:
        s.start(T0)
        for bad in ({"type": "speed", "t": T0 + 1}, {"type": "speed", "speed": -1, "t": T0 + 1},
                    {"type": "speed", "speed": 101, "t": T0 + 1}):
            with pytest.raises(librunway.InputError):
                s.push(bad)
        s.push({"type": "speed", "speed": 3, "t": T0 + 1})
        assert s.snapshot()["distance_m"] == pytest.approx(3)


def test_speed_samples_measure_where_positions_are_silent():
    """Before the first fix, and from the last fix once none has come for three of the receiver's
    intervals (3 s here); while fixes come, samples that read 10 % fast change nothing."""
    north = 3 / 111_250   # degrees a second at 3 m/s
    with librunway.Session({"auto_pause": False, "gap_s": 30}) as s:
        s.start(T0)
        for k in range(1, 31):
            s.push({"type": "speed", "speed": 3, "t": T0 + k})
        for k in range(31, 91):
            s.push({"lat": 52.0 + north * (k - 31), "lon": 4.0, "t": T0 + k, "speed": 3, "h_acc": 4})
            s.push({"type": "speed", "speed": 3.3, "t": T0 + k})
        assert s.snapshot()["distance_m"] < 90 + 60 * 3.1
        for k in range(91, 151):
            s.push({"type": "speed", "speed": 3, "t": T0 + k})
        s.stop()
        summary = s.summary()
    assert summary["sensor_distance_m"] == pytest.approx(90 + 60 * 3)
    assert summary["distance_m"] == pytest.approx(90 + 59 * 3 + 60 * 3, rel=0.005)
    assert summary["moving_s"] == pytest.approx(150, abs=1)


def test_a_wheel_sensor_carries_the_snapshot_through_a_gps_loss():
    """1 Hz fixes, then none (a tunnel), the wheel sensor on throughout: after three of the
    receiver's intervals the sensor measures the flight, and the snapshot's distance and speed_mps
    are its own, second by second."""
    north = 8 / 111_250   # degrees a second at 8 m/s
    with librunway.Session({"activity": "ride", "auto_pause": False}) as s:
        s.start(T0)
        for k in range(0, 61):
            s.push({"lat": 52.0 + north * k, "lon": 4.0, "t": T0 + k, "speed": 8, "h_acc": 4})
            if k > 0:
                s.push({"type": "speed", "speed": 8, "t": T0 + k + 0.5})
        at_last_fix = s.snapshot()["distance_m"]
        shown = []
        for k in range(61, 81):
            s.push({"type": "speed", "speed": 8.5, "t": T0 + k + 0.5})
            shown.append(s.snapshot())
    assert all(snap["distance_m"] == at_last_fix for snap in shown[:2])
    assert shown[2]["distance_m"] == pytest.approx(at_last_fix + 8 * 0.5 + 8.5 * 3)
    for before, after in zip(shown[2:], shown[3:]):
        assert after["distance_m"] - before["distance_m"] == pytest.approx(8.5)
        assert after["speed_mps"] == 8.5 and after["ground_speed_mps"] is not None
    assert shown[-1]["ground_speed_mps"] == pytest.approx(8.5)
