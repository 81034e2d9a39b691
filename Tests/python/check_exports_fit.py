"""The FIT reader of check_exports.py (Garmin's FIT SDK); check_exports.py re-exports every name
here."""

from __future__ import annotations

import warnings

from check_exports_common import require, whole_watts

FIT_SPORT = {"run": "running", "ride": "cycling", "walk": "walking"}


def check_fit(data: bytes, expect: dict | None = None) -> dict:
    from garmin_fit_sdk import Decoder, Stream

    expect = expect or {}
    require(len(data) >= 16 and data[0] == 14 and data[8:12] == b".FIT", "not a FIT file with a 14-byte header")
    data_size = int.from_bytes(data[4:8], "little")
    require(14 + data_size + 2 == len(data), f"data size {data_size} does not match the {len(data)}-byte file")
    require(Decoder(Stream.from_byte_array(bytearray(data))).is_fit(), "the SDK says it is not FIT")
    require(Decoder(Stream.from_byte_array(bytearray(data))).check_integrity(), "the SDK's integrity check fails (CRC)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages, errors = Decoder(Stream.from_byte_array(bytearray(data))).read()
    require(errors == [], f"the SDK reports errors: {errors}")
    require(not caught, f"the SDK warns: {[str(w.message) for w in caught]}")
    for name in ("file_id_mesgs", "device_info_mesgs", "event_mesgs", "record_mesgs", "lap_mesgs",
                 "session_mesgs", "activity_mesgs"):
        require(name in messages or (name == "record_mesgs" and expect.get("points") == 0), f"no {name}")
    file_id = messages["file_id_mesgs"][0]
    require(file_id.get("type") == "activity", f"file_id type {file_id.get('type')}")
    events = messages["event_mesgs"]
    require(events[0].get("event") == "timer" and events[0].get("event_type") == "start", "no timer start event first")
    require(events[-1].get("event") == "timer" and events[-1].get("event_type") == "stop_all",
            "no timer stop_all event last")
    records = messages.get("record_mesgs", [])
    # A record without a position is a speed sensor's (where it measured the flight): its sample's
    # speed and the flight's distance; the others are the route's points.
    sensed = [r for r in records if r.get("position_lat") is None and r.get("position_long") is None]
    records_all, records = records, [r for r in records if not (r.get("position_lat") is None and r.get("position_long") is None)]
    laps = messages["lap_mesgs"]
    sessions = messages["session_mesgs"]
    # The timer as Garmin's tools derive it: the sum of the start -> stop_all intervals of the
    # timer events (whole seconds: each interval's ends are rounded down, < 1 s off per leg).
    timer_events = [(e.get("event_type"), e.get("timestamp")) for e in events if e.get("event") == "timer"]
    kinds = [k for k, _ in timer_events]
    require(kinds == ["start", "stop_all"] * (len(kinds) // 2), f"timer events are not start/stop_all pairs: {kinds}")
    stamps = [t for _, t in timer_events]
    timed = all(t is not None for t in stamps)   # a flight that never started has no times
    derived = sum((b - a).total_seconds() for a, b in zip(stamps[::2], stamps[1::2])) if timed else None
    timer = sessions[0].get("total_timer_time") if sessions else None
    if timer is not None and derived is not None:
        require(abs(derived - timer) < max(1, len(kinds) // 2),
                f"the timer events give {derived} s, the session's total_timer_time is {timer} s")
        moving, elapsed = sessions[0].get("total_moving_time"), sessions[0].get("total_elapsed_time")
        require(moving is None or moving <= timer + 1e-3, f"total_moving_time {moving} > total_timer_time {timer}")
        require(elapsed is None or timer <= elapsed + 1e-3, f"total_timer_time {timer} > total_elapsed_time {elapsed}")
    activity = messages["activity_mesgs"]
    require(len(sessions) == 1, f"{len(sessions)} sessions")
    require(len(activity) == 1 and activity[0].get("num_sessions") == 1, "activity: num_sessions is not 1")
    session = sessions[0]
    if "points" in expect:
        require(len(records) == expect["points"], f"{len(records)} records, expected {expect['points']}")
    if "power_w" in expect:
        got = [r.get("power") for r in records]
        require(got == expect["power_w"], f"FIT record power {got[:5]}..., expected {expect['power_w'][:5]}...")
    if "laps" in expect:
        require(len(laps) == expect["laps"], f"{len(laps)} laps, expected {expect['laps']}")
    require(session.get("num_laps") == len(laps), f"session num_laps {session.get('num_laps')} for {len(laps)} laps")
    if "lap_power" in expect:
        # Each lap's power is the engine's for the lap (the summary's laps), in whole watts.
        got = [[lap.get("avg_power"), lap.get("max_power"), lap.get("normalized_power")] for lap in laps]
        want = [[whole_watts(w) for w in p] for p in expect["lap_power"]]
        require(got == want, f"FIT lap avg/max/normalized power {got[:3]}..., the summary's laps {want[:3]}...")
    total = session.get("total_distance")
    require(total is not None, "session without total_distance")
    if "distance_m" in expect:
        require(abs(total - expect["distance_m"]) <= 0.01 + 1e-9,
                f"session total_distance {total} m, the flight is {expect['distance_m']:.3f} m")
    lap_total = sum(lap.get("total_distance") or 0 for lap in laps)
    require(abs(lap_total - total) <= 0.01 * len(laps) + 0.011, f"laps add up to {lap_total} m, session {total} m")
    if "activity" in expect:
        require(session.get("sport") == FIT_SPORT[expect["activity"]], f"session sport {session.get('sport')}")
    require(not sensed or expect.get("sensor_distance_m", 0.0) > 0 or "sensor_distance_m" not in expect,
            f"{len(sensed)} records without a position, and no speed sample measured the flight")
    require(all(r.get("speed") is not None and r.get("distance") is not None for r in sensed),
            "a record without a position has no speed or distance")
    stamps = [r["timestamp"] for r in records_all]
    require(all(a <= b for a, b in zip(stamps, stamps[1:])), "record timestamps go backwards")
    semis = 180.0 / 2 ** 31
    path = [(r["position_lat"] * semis, r["position_long"] * semis) for r in records
            if r.get("position_lat") is not None and r.get("position_long") is not None]
    require(len(path) == len(records), "a record with half a position")
    if expect.get("hr"):
        require(any(r.get("heart_rate") is not None for r in records_all), "no record heart rate")
    elif expect.get("hr") is False:
        require(all(r.get("heart_rate") is None for r in records_all), "record heart rate in a flight without it")
    distances = [r.get("distance") for r in records_all if r.get("distance") is not None]
    require(all(a <= b + 1e-9 for a, b in zip(distances, distances[1:])), "record distance goes backwards")
    return {"records": len(records), "sensed_records": len(sensed), "laps": len(laps), "session_total_distance_m": total,
            "session_total_timer_time_s": session.get("total_timer_time"), "sport": session.get("sport"),
            "profile_version": Decoder(Stream.from_byte_array(bytearray(data))).read_file_header(True)
            .get_dict()["profile_version"]}
