"""Laps through librunway.Session: auto-laps by distance, manual laps (Session.lap),
the split events and the summary's list of laps."""

from __future__ import annotations

import pytest

import librunway
from runway_testkit import LAT0, LON0, T0, meridian_arc_m

RUN_SPEED = 3.5  # m/s
N_FIXES = 715    # 1 Hz for 714 s: about 2.5 km


def _lat_at(k: int) -> float:
    """The latitude RUN_SPEED * k metres north of LAT0 (on the WGS84 meridian)."""
    per_deg = meridian_arc_m(LAT0, LAT0 + 0.01) / 0.01
    return LAT0 + k * RUN_SPEED / per_deg


def _run_fix(k: int) -> dict:
    """Fix k of a steady run due north at 1 Hz, with Doppler speed and course."""
    return {"t": T0 + k, "lat": round(_lat_at(k), 7), "lon": LON0, "alt": 10.0,
            "speed": RUN_SPEED, "course": 0.0, "h_acc": 4.0, "v_acc": 6.0, "hr": 150}


def test_auto_laps_split_every_kilometre_and_the_summary_ends_with_the_final_lap():
    with librunway.Session({"auto_lap_m": 1000}) as s:
        with s.events(kinds=["split"], capacity=64) as splits:
            s.start(T0)
            for k in range(N_FIXES):
                s.push(_run_fix(k))
            during = list(splits)
            s.stop(T0 + N_FIXES - 1)
            at_stop = list(splits)
        summary = s.summary()

    total = summary["distance_m"]
    assert 2450 < total < 2550, total
    assert [e["kind"] for e in during] == ["split", "split"]
    laps = [e["lap"] for e in during]
    assert [lap["index"] for lap in laps] == [1, 2]
    assert [lap["trigger"] for lap in laps] == ["auto", "auto"]
    for e, lap in zip(during, laps):
        assert lap["distance_m"] == pytest.approx(1000.0, abs=1e-6)   # cut exactly at the boundary
        # Cut at the boundary by interpolation: 1000 m at 3.5 m/s.
        assert lap["elapsed_s"] == pytest.approx(1000 / RUN_SPEED, abs=1.0)
        assert lap["end_t"] - lap["start_t"] == pytest.approx(lap["elapsed_s"])
        assert lap["pace_min_per_km"] == pytest.approx(
            (lap["elapsed_s"] / 60) / (lap["distance_m"] / 1000))
        assert lap["avg_hr_bpm"] == pytest.approx(150.0)
        assert e["t"] == lap["end_t"]
    assert laps[0]["start_t"] == T0
    assert laps[1]["start_t"] == laps[0]["end_t"]
    assert during[0]["seq"] < during[1]["seq"]

    # Stopping closes the partial lap: a third split, and the summary lists all three.
    assert [e["lap"]["trigger"] for e in at_stop] == ["final"]
    assert summary["laps"][:2] == laps
    final = summary["laps"][-1]
    assert len(summary["laps"]) == 3
    assert final == at_stop[0]["lap"]
    assert final["index"] == 3 and final["trigger"] == "final"
    assert final["start_t"] == laps[1]["end_t"]
    assert final["end_t"] == summary["end_t"] == T0 + N_FIXES - 1
    assert sum(lap["distance_m"] for lap in summary["laps"]) == pytest.approx(total, abs=1e-6)
    assert sum(lap["elapsed_s"] for lap in summary["laps"]) == pytest.approx(summary["elapsed_s"])


def test_a_manual_lap_mid_run_splits_with_trigger_manual():
    with librunway.Session({"auto_lap_m": 1000}) as s:
        with s.events(kinds=["split"], capacity=64) as splits:
            s.start(T0)
            for k in range(101):
                s.push(_run_fix(k))
            s.lap()  # now: the latest input's time, T0 + 100
            manual = list(splits)
            snap = s.snapshot()
            for k in range(101, 201):
                s.push(_run_fix(k))
            s.lap(T0 + 200)
            second = list(splits)
            s.stop()
        summary = s.summary()

    assert len(manual) == 1
    lap = manual[0]["lap"]
    assert lap["index"] == 1 and lap["trigger"] == "manual"
    assert lap["start_t"] == T0 and lap["end_t"] == T0 + 100 == manual[0]["t"]
    assert lap["elapsed_s"] == pytest.approx(100.0)
    assert lap["distance_m"] == pytest.approx(100 * RUN_SPEED, rel=0.01)
    # The snapshot has moved on to lap 2, which has run nothing yet.
    assert snap["lap"] == 2
    assert snap["lap_distance_m"] == pytest.approx(0.0, abs=1e-9)
    assert snap["lap_elapsed_s"] == pytest.approx(0.0, abs=1e-9)

    assert [(e["lap"]["index"], e["lap"]["trigger"]) for e in second] == [(2, "manual")]
    assert second[0]["lap"]["start_t"] == T0 + 100
    assert [(x["index"], x["trigger"]) for x in summary["laps"]] == [(1, "manual"), (2, "manual")]


def test_a_manual_lap_is_refused_outside_cruise_and_holding():
    with librunway.Session() as s:
        s.push(_run_fix(0))
        with pytest.raises(librunway.StateError) as err:
            s.lap(T0)  # before start
        assert err.value.status == 4 and err.value.message
        s.start(T0)
        s.push(_run_fix(1))
        s.push(_run_fix(2))
        s.pause(T0 + 2)
        s.lap(T0 + 3)  # holding: allowed
        with pytest.raises(librunway.StateError):
            s.lap(T0 + 3)  # nothing since the last lap
        with pytest.raises(librunway.InputError):
            s.lap(T0 + 1)  # before the latest input
        s.stop(T0 + 4)
        with pytest.raises(librunway.StateError):
            s.lap(T0 + 5)  # after stop
        summary = s.summary()
    assert [x["trigger"] for x in summary["laps"]] == ["manual"]
