"""A whole run driven through librunway.Session: phases, snapshot, summary,
determinism, batch input, and a real recorded track."""

from __future__ import annotations

import json

import pytest

import librunway
from conftest import TRACKS
from runway_testkit import LAT0, LON0, SPEED, STEP_DEG, T0, drive_run, fix, meridian_arc_m

REL = 1e-4  # distance on the WGS84 ellipsoid: 0.01 % (a sphere is up to 0.56 % off)


def test_a_whole_run_goes_through_every_phase_and_counts_only_cruise():
    # Raw accumulation ("filters": "off"): distance is the WGS84 geodesic sum between fixes,
    # so it can be checked against the meridian arc.
    with librunway.Session({"filters": "off"}) as s:
        with s.events(kinds=["phase"]) as phases:
            r = drive_run(s)
            seen = [(e["from"], e["to"], e["t"]) for e in phases]
    assert seen == [
        ("preflight", "cruise", T0),
        ("cruise", "holding", T0 + 40),
        ("holding", "cruise", T0 + 60),
        ("cruise", "touchdown", T0 + 100),
    ]

    first_leg = meridian_arc_m(LAT0, LAT0 + 10 * STEP_DEG)
    snap = r["at_pause"]
    assert snap["phase"] == "cruise"
    assert snap["distance_m"] == pytest.approx(first_leg, rel=REL)
    assert snap["elapsed_s"] == pytest.approx(40.0)
    assert snap["fixes"] == 11 and snap["points"] == 11

    # Holding: the position follows the fixes, distance and elapsed time do not.
    for held, lat in zip(r["held"], [52.0011, 52.0012, 52.0011, 52.0010]):
        assert held["phase"] == "holding"
        assert held["lat"] == pytest.approx(lat, abs=1e-9)
        assert held["distance_m"] == snap["distance_m"]
        assert held["elapsed_s"] == pytest.approx(40.0)

    total = meridian_arc_m(LAT0, LAT0 + 20 * STEP_DEG)
    last = r["before_stop"]
    assert last["distance_m"] == pytest.approx(total, rel=REL)
    assert last["elapsed_s"] == pytest.approx(80.0)
    assert r["after_stop"]["phase"] == "touchdown"


def test_snapshot_carries_the_live_flight_data():
    with librunway.Session() as s:
        s.start(T0)
        for i in range(5):
            s.push(fix(i, T0 + 4 * i))
        s.push({"type": "hr", "bpm": 148, "t": T0 + 16})
        snap = s.snapshot()
        # A heart-rate sample older than 5 s counts as absent.
        s.push(fix(5, T0 + 22))
        stale = s.snapshot()
    assert snap["kind"] == "flight"
    assert isinstance(snap["seq"], int) and snap["seq"] > 0
    assert snap["t"] == T0 + 16
    assert snap["lat"] == pytest.approx(LAT0 + 4 * STEP_DEG, abs=1e-9)
    assert snap["lon"] == pytest.approx(LON0, abs=1e-9)
    assert snap["speed_mps"] == pytest.approx(SPEED)  # the device's raw (Doppler) speed
    # Every fix carries the same Doppler speed: the ground speed across the window is that speed,
    # and the current pace comes from the ground speed.
    assert snap["ground_speed_mps"] == pytest.approx(SPEED)
    assert snap["pace_min_per_km"] == pytest.approx(1 / (snap["ground_speed_mps"] * 60 / 1000))
    assert snap["avg_pace_min_per_km"] == pytest.approx(
        (snap["elapsed_s"] / 60) / (snap["distance_m"] / 1000))
    # Altitude is smoothed over ~10 s, so it stays within the altitudes seen (10..14 m).
    assert 10.0 <= snap["altitude_m"] < 14.0  # smoothed (exponential, ~10 s): lags the newest 14 m
    assert snap["heading_deg"] == pytest.approx(0.0)
    assert snap["hr_bpm"] == 148
    assert snap["cadence_spm"] is None
    assert snap["filtered"] == 0
    pfd = snap["pfd"]
    assert pfd["pace"] == librunway.format_pace(snap["pace_min_per_km"]) == "5:57"
    assert pfd["pace_tape"] == ["5:30", "5:45", "6:00", "6:15", "6:30"]
    assert pfd["direction"] == "N"
    assert pfd["heading_tape"] == ["W", "N", "E"]
    assert pfd["time"] == "00:00:16"
    assert pfd["distance"] == librunway.format_distance(snap["distance_m"]) == "0.04"
    assert pfd["altitude"] == str(round(snap["altitude_m"]))
    assert pfd["hr"] == "148"
    assert pfd["avg_pace"] == "AVG " + librunway.format_pace(snap["avg_pace_min_per_km"])

    assert stale["t"] == T0 + 22
    assert stale["hr_bpm"] is None and stale["pfd"]["hr"] == "--"


def test_summary_is_the_flight_record_with_the_route():
    with librunway.Session() as s:
        r = drive_run(s)
    summary, last = r["summary"], r["before_stop"]
    assert summary["kind"] == "summary"
    assert summary["phase"] == "touchdown"
    assert summary["end_reason"] == "stopped"
    assert summary["start_t"] == T0
    assert summary["end_t"] == T0 + 100
    assert summary["elapsed_s"] == pytest.approx(80.0)
    assert summary["distance_m"] == pytest.approx(last["distance_m"], rel=1e-12)
    assert summary["avg_pace_min_per_km"] == pytest.approx(
        (80.0 / 60) / (summary["distance_m"] / 1000))
    assert summary["max_speed_mps"] == pytest.approx(SPEED)
    # Heart rate and cadence are time-weighted over cruise, each sample holding at most 5 s:
    # every cruise fix carries 148 bpm and 172 spm, so cruise is covered except the 4 s after
    # resume (the last sample, at the pause, is 20 s old by then): 40 + 36 s.
    assert summary["avg_hr_bpm"] == pytest.approx(148.0)
    assert summary["max_hr_bpm"] == pytest.approx(148.0)
    assert summary["hr_zone_s"] == pytest.approx([0, 0, 0, 76.0, 0, 0])  # 148/190 = 78%: zone 3
    assert summary["avg_cadence_spm"] == pytest.approx(172.0)
    assert summary["max_cadence_spm"] == pytest.approx(172.0)
    assert summary["fixes"] == 25

    # Every cruise fix is in the route, in order, as [lat, lon, alt, t]
    # (coordinates stored to 1e-7 degrees, altitude as a float).
    cruise = [fix(i, T0 + 4 * i) for i in range(11)] + \
             [fix(i, T0 + 60 + 4 * (i - 10)) for i in range(11, 21)]
    route = summary["route"]
    assert all(len(p) == 4 for p in route)
    assert [p[3] for p in route] == sorted(p[3] for p in route)
    by_t = {p[3]: p for p in route}
    for f in cruise:
        p = by_t.get(f["t"])
        assert p is not None, f"cruise fix at t={f['t']} missing from the route"
        assert p[0] == pytest.approx(f["lat"], abs=1.5e-7)
        assert p[1] == pytest.approx(f["lon"], abs=1.5e-7)
        assert p[2] == pytest.approx(f["alt"], abs=1e-3)
    assert summary["points"] == len(route) >= len(cruise)


def _replay() -> tuple[dict, list[dict]]:
    with librunway.Session() as s:
        with s.events(policy="queue", capacity=4096) as sub:
            drive_run(s)
            events = list(sub)
        return s.summary(), events


def test_a_replay_is_deterministic():
    summary1, events1 = _replay()
    summary2, events2 = _replay()
    assert summary1 == summary2
    assert events1 == events2
    assert len(events1) > 30


def test_push_many_counts_good_and_bad_lines_and_keeps_the_good():
    good = [fix(i, T0 + i) for i in range(6)]
    lines = [good[0], json.dumps(good[1]) + "\n", good[2], "not json", good[3],
             {"lon": 4.0, "t": T0 + 3.5}, "", good[4], json.dumps(good[5]).encode()]
    with librunway.Session() as s:
        assert s.push_many(lines, batch=4) == (6, 2)
        assert s.snapshot()["fixes"] == 6

        with pytest.raises(librunway.InputError) as err:
            s.push_many([fix(9, T0 + 9), {"lat": 91, "lon": 4, "t": T0 + 10}, fix(10, T0 + 11)],
                        strict=True)
        assert (err.value.accepted, err.value.rejected) == (2, 1)
        assert err.value.index == 1
        assert err.value.message
        assert s.snapshot()["fixes"] == 8


def test_phase_times_default_to_the_input_times():
    with librunway.Session() as s:
        with s.events(kinds=["phase"]) as phases:
            s.start()  # before any input: the run starts at the next input's time
            s.push(fix(0, T0 + 5))
            s.push(fix(1, T0 + 9))
            s.pause()  # at the latest input's time
            s.resume(T0 + 20)
            s.stop()
            events = list(phases)
        summary = s.summary()
    assert summary["start_t"] == T0 + 5
    assert summary["end_t"] == T0 + 20
    assert summary["elapsed_s"] == pytest.approx(4.0)
    assert [e["t"] for e in events[1:]] == [T0 + 9, T0 + 20, T0 + 20]


def test_push_fix_struct_is_the_same_as_json():
    with librunway.Session() as a, librunway.Session() as b:
        for s in (a, b):
            s.start(T0)
        for i in range(5):
            f = fix(i, T0 + 4 * i)
            a.push(f)
            b.push_fix(f["lat"], f["lon"], t=f["t"], alt=f["alt"], speed=f["speed"],
                       course=f["course"], h_acc=f["h_acc"], v_acc=f["v_acc"])
        a.stop()
        b.stop()
        assert a.summary() == b.summary()


def test_log_is_a_list_of_log_events():
    with librunway.Session() as s:
        s.start(T0)
        s.push(fix(0, T0))
        # Worse than required_accuracy_m (50): each fix is filtered (the push still succeeds)
        # with an info line, and 10 s of it raise a reduced-accuracy warning.
        for k in range(1, 12):
            s.push(fix(0, T0 + k, h_acc=80.0))
        snap = s.snapshot()
        log = s.log()
    assert snap["filtered"] == 11 and snap["accuracy"] == "reduced"
    assert isinstance(log, list) and log
    assert all(e["kind"] == "log" for e in log)
    assert [e["seq"] for e in log] == sorted(e["seq"] for e in log)
    assert any(e["level"] == "info" and "filtered" in e["message"] and "accuracy" in e["message"]
               for e in log)
    warnings = [e for e in log if e["level"] == "warning"]
    assert len(warnings) == 1 and "accuracy" in warnings[0]["message"]
    assert warnings[0]["t"] == T0 + 11  # 10 s after the first bad fix


def test_a_misspelt_input_key_is_taken_and_warned_of_once():
    # "heartrate" is no key of librunway's (a fix's heart rate is "hr"): the fix is taken as
    # without it, and the log says so once, however often the key comes.
    with librunway.Session() as plain, librunway.Session() as typo:
        for s in (plain, typo):
            s.start(T0)
        for k in range(5):
            plain.push(fix(k, T0 + k))
            typo.push(fix(k, T0 + k, heartrate=150))
        typo.push_many([fix(k, T0 + k, heartrate=150, lng=LON0) for k in range(5, 10)])
        plain.push_many([fix(k, T0 + k) for k in range(5, 10)])
        for s in (plain, typo):
            s.stop()
        assert typo.summary() == plain.summary()
        warnings = [e["message"] for e in typo.log() if e["level"] == "warning"]
        assert warnings == ['input key "heartrate" is not one the library reads (type fix): ignored',
                            'input key "lng" is not one the library reads (type fix): ignored']
        assert not [e for e in plain.log() if e["level"] == "warning"]


def test_closed_session_refuses_calls_and_closes_twice():
    s = librunway.Session()
    s.close()
    s.close()
    assert s.closed
    with pytest.raises(librunway.StateError):
        s.snapshot()
    with pytest.raises(librunway.StateError):
        s.push(fix(0, T0))


# -- a real recording ---------------------------------------------------------

FENIX = "fitparse__activity-small-fenix2-run.fit"


def _reference(name: str) -> dict:
    for line in (TRACKS / "reference.jsonl").read_text().splitlines():
        ref = json.loads(line)
        if ref["file"] == name:
            return ref
    raise LookupError(name)


@pytest.mark.skipif(not (TRACKS / "fixes" / f"{FENIX}.jsonl").exists(),
                    reason="real tracks (../shared/tracks) not present")
def test_replaying_a_real_run_matches_the_geodesic_reference():
    ref = _reference(FENIX)
    lines = (TRACKS / "fixes" / f"{FENIX}.jsonl").read_text().splitlines()
    first_t = json.loads(lines[0])["t"]
    last_t = json.loads(lines[-1])["t"]
    # Raw accumulation: every fix kept, distance the WGS84 geodesic sum over them.
    with librunway.Session({"filters": "off"}) as s:
        s.start(first_t)
        assert s.push_many(lines) == (len(lines), 0)
        s.stop()
        summary = s.summary()
    assert summary["fixes"] == len(lines) == ref["n_points_with_time"]
    assert summary["points"] == len(lines)
    assert summary["distance_m"] == pytest.approx(
        ref["geodesic_wgs84"]["distance_2d_fixes_m"], rel=REL)
    assert summary["start_t"] == first_t and summary["end_t"] == last_t
    assert summary["elapsed_s"] == pytest.approx(last_t - first_t)
    assert len(summary["route"]) == len(lines)


MOJSTROVKA = "gpxpy__Mojstrovka.gpx"


@pytest.mark.skipif(not (TRACKS / "fixes" / f"{MOJSTROVKA}.jsonl").exists(),
                    reason="real tracks (../shared/tracks) not present")
def test_a_track_whose_time_goes_backwards_is_rejected_line_by_line():
    lines = (TRACKS / "fixes" / f"{MOJSTROVKA}.jsonl").read_text().splitlines()
    with librunway.Session() as s:
        with pytest.raises(librunway.InputError) as err:
            s.push_many(lines, strict=True)
    assert err.value.rejected >= 1
    assert err.value.accepted + err.value.rejected == len(lines)


# -- clocks -------------------------------------------------------------------

def test_live_clock_takes_the_time_from_the_wall_clock():
    import time

    with librunway.Session({"clock": "live"}) as s:
        before = time.time()
        s.push({"lat": 52.0, "lon": 4.0})  # no "t": now
        snap = s.snapshot()
    assert before - 1 <= snap["t"] <= time.time() + 1
    with librunway.Session() as replay, pytest.raises(librunway.InputError):
        replay.push({"lat": 52.0, "lon": 4.0})  # the replay clock needs "t"


def test_tick_advances_elapsed_time_in_cruise():
    with librunway.Session() as s:
        with s.events(kinds=["tick"]) as ticks:
            s.tick(T0 - 1)  # preflight: the clock moves, nothing is counted
            s.start(T0)
            s.push(fix(0, T0))
            s.tick(T0 + 7)
            assert s.snapshot()["elapsed_s"] == pytest.approx(7.0)
            events = list(ticks)
    assert [e["t"] for e in events] == [T0 + 7]
    assert events[0]["elapsed_s"] == pytest.approx(7.0)
    assert events[0]["pfd"]["time"] == "00:00:07"


# -- threads ------------------------------------------------------------------

def test_pushes_from_many_threads_are_all_processed():
    import threading

    n_threads, per_thread = 4, 100
    with librunway.Session() as s:
        s.start(T0)
        s.push(fix(0, T0))
        with s.events(kinds=["flight"], policy="queue", capacity=4096) as flights:
            go = threading.Barrier(n_threads)
            errors = []

            def worker(k):
                go.wait()
                try:
                    for i in range(per_thread):
                        s.push({"type": "hr", "bpm": 100 + k, "t": T0})  # equal times are fine
                        if i % 10 == 0:
                            s.snapshot()
                except BaseException as e:  # noqa: BLE001 - reported below
                    errors.append(e)

            threads = [threading.Thread(target=worker, args=(k,)) for k in range(n_threads)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert errors == []
            events = list(flights)
    assert len(events) == n_threads * per_thread
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


def test_closing_while_another_thread_pushes_stops_it_cleanly():
    import threading

    s = librunway.Session()
    s.start(T0)
    pushing = threading.Event()
    outcome = []

    def pusher():
        i = 0
        try:
            while True:
                s.push(fix(i % 50, T0 + i))
                i += 1
                pushing.set()
        except librunway.StateError as e:
            outcome.append(e)
        except BaseException as e:  # noqa: BLE001 - reported below
            outcome.append(e)

    th = threading.Thread(target=pusher)
    th.start()
    assert pushing.wait(10)
    s.close()
    th.join(10)
    assert not th.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], librunway.StateError)
    assert "closed" in outcome[0].message


# ---- unknown values and times in a dict (a pandas row) --------------------------------------

OPTIONAL_FIX_FIELDS = ("alt", "speed", "course", "h_acc", "v_acc")


def _flight(rows) -> dict:
    with librunway.Session() as s:
        s.start(T0)
        assert s.push_many(rows) == (len(rows), 0)
        s.stop()
        summary = s.summary()
    summary.pop("route", None)
    return summary


@pytest.mark.parametrize("unknown", [float("nan"), None], ids=["nan", "none"])
@pytest.mark.parametrize("field", OPTIONAL_FIX_FIELDS)
def test_nan_or_none_in_a_dict_is_unknown_as_in_the_c_struct(field, unknown):
    # Every third fix lacks the field: given as NaN or None it is the flight of the key left out.
    with_unknowns = [fix(i, T0 + 4 * i, **({field: unknown} if i % 3 == 0 else {}))
                     for i in range(30)]
    left_out = [{k: v for k, v in row.items() if not (k == field and i % 3 == 0)}
                for i, row in enumerate(with_unknowns)]
    assert _flight(with_unknowns) == _flight(left_out)
    with librunway.Session() as s:                 # push() as push_many()
        s.start(T0)
        s.push(with_unknowns[0])


@pytest.mark.parametrize("value", [float("inf"), float("-inf")])
def test_an_infinity_in_a_dict_is_still_refused_naming_the_key(session, value):
    session.start(T0)
    with pytest.raises(librunway.InputError, match="'speed'"):
        session.push(fix(0, T0, speed=value))
    assert session.push_many([fix(0, T0, speed=value), fix(1, T0 + 4)]) == (1, 1)


def test_nan_for_a_sample_value_is_unknown_so_refused(session):
    # a sample's value may not be unknown (the library needs it): refused as if left out
    session.start(T0)
    with pytest.raises(librunway.InputError, match="bpm"):
        session.push({"type": "hr", "bpm": float("nan"), "t": T0})


def test_a_timezone_aware_datetime_is_unix_seconds(session):
    import datetime
    utc = datetime.timezone.utc
    when = datetime.datetime.fromtimestamp(T0, utc)
    session.start(when)
    session.push(fix(0, when))
    session.push(fix(1, datetime.datetime.fromtimestamp(T0 + 4, datetime.timezone(
        datetime.timedelta(hours=2)))))                    # any zone: the same instant
    session.stop(when + datetime.timedelta(seconds=4))
    summary = session.summary()
    assert (summary["start_t"], summary["end_t"]) == (T0, T0 + 4)


def test_a_naive_datetime_is_an_input_error_saying_why(session):
    import datetime
    session.start(T0)
    naive = datetime.datetime(2023, 11, 14, 22, 13, 24)
    with pytest.raises(librunway.InputError, match="'t' is a naive datetime"):
        session.push(fix(0, naive))
    with pytest.raises(librunway.InputError, match="naive datetime"):
        session.stop(naive)
    with pytest.raises(librunway.InputError, match="'x': a set"):
        session.push(fix(0, T0, x={1}))


def test_pandas_rows_push_as_they_are():
    pd = pytest.importorskip("pandas", reason="pip install pandas (install-deps does)")
    frame = pd.DataFrame([fix(i, T0 + 4 * i) for i in range(20)])
    frame.loc[frame.index % 4 == 1, "alt"] = float("nan")     # a receiver without altitude
    frame["time"] = pd.to_datetime(frame["t"], unit="s", utc=True)
    rows = frame.drop(columns="t").rename(columns={"time": "t"}).to_dict("records")
    expected = [{k: v for k, v in fix(i, T0 + 4 * i).items() if not (k == "alt" and i % 4 == 1)}
                for i in range(20)]
    assert _flight(rows) == _flight(expected)


def test_pandas_na_and_numpy_integers_in_a_row_push_as_their_values():
    # Values as a frame's typed columns hand them out (an Int64 column's missing value is pandas.NA,
    # an int64 column's values numpy integers): NA is unknown as NaN is; an integer is its value.
    pd = pytest.importorskip("pandas", reason="pip install pandas (install-deps does)")
    np = pytest.importorskip("numpy")
    rows = [dict(fix(i, np.int64(T0 + 4 * i)), hr=np.int64(140) if i % 3 else pd.NA) for i in range(20)]
    expected = [dict(fix(i, T0 + 4 * i), **({"hr": 140} if i % 3 else {})) for i in range(20)]
    assert _flight(rows) == _flight(expected)
