"""Every failure surfaces as the RunwayError subclass of its status, with the
library's message, and leaves the session unchanged."""

from __future__ import annotations

import json
import queue
import sys
import threading
from ctypes import byref, c_uint64, c_void_p

import pytest

import librunway
from conftest import WAIT_S
from librunway import _lib
from librunway.errors import error_for_status
from runway_testkit import T0, fix

GOOD = fix(0, T0)


def specific(err: librunway.RunwayError) -> str:
    """The error's message, checked to be the library's specific text rather
    than empty or the fixed per-status description."""
    assert err.message
    assert err.message != librunway.status_string(err.status)
    assert str(err) == err.message
    return err.message


@pytest.mark.parametrize("status, cls", [
    (1, librunway.ArgumentError), (2, librunway.JSONError), (3, librunway.InputError),
    (4, librunway.StateError), (5, librunway.NotFoundError), (6, librunway.StoreError),
    (7, librunway.InternalError), (8, librunway.LimitError),
])
def test_each_status_has_its_exception_class(status, cls):
    err = error_for_status(status, "boom")
    assert type(err) is cls and isinstance(err, librunway.RunwayError)
    assert err.status == status and err.message == "boom"
    assert librunway.status_string(status)
    assert type(error_for_status(99, "x")) is librunway.RunwayError


# -- ArgumentError (1) ----------------------------------------------------------

def test_an_unknown_config_key_is_an_argument_error():
    with pytest.raises(librunway.ArgumentError) as err:
        librunway.Session({"distance_filter": 5})  # a typo of distance_filter_m
    assert err.value.status == 1
    assert "distance_filter" in specific(err.value)


@pytest.mark.parametrize("options", [
    {"kinds": ["flight", "weather"]},
    {"kinds": ["phase", 7]},
    {"policy": "sometimes"},
    {"capacity": 0},
    {"capacity": 2.5},
])
def test_bad_subscription_options_are_an_argument_error(session, options):
    with pytest.raises(librunway.ArgumentError) as err:
        session.events(**options)
    specific(err.value)
    with pytest.raises(librunway.ArgumentError):
        session.subscribe(lambda ev: None, **options)


def test_an_unknown_subscription_option_is_an_argument_error(session):
    out = c_uint64()
    with pytest.raises(librunway.ArgumentError) as err:
        _lib.lib().runway_subscribe(session, b'{"capacty":10}', _lib.EVENT_FN(), None,
                                    byref(out))
    specific(err.value)


def test_polling_a_callback_subscription_is_an_argument_error(session):
    sub = session.subscribe(lambda ev: None)
    with pytest.raises(librunway.ArgumentError) as err:
        librunway.PollSubscription.poll(sub)
    specific(err.value)


# -- JSONError (2) ----------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "not json",
    "[1,2]",
    '"a string"',
    '{"lat":52,"lon":4,"t":1',
    b'{"lat":52,"lon":4,"t":1700000000,"name":"\xff\xfe"}',  # invalid UTF-8
    b'{"lat":52,"lon":4,"t":1700000000,"name":"\xc3"}',      # truncated sequence
])
def test_what_is_not_a_json_object_is_a_json_error(session, text):
    with pytest.raises(librunway.JSONError) as err:
        session.push(text)
    assert err.value.status == 2
    specific(err.value)


@pytest.mark.parametrize("config", ["[]", "not json", {"distance_filter_m": "five"},
                                    {"distance_filter_m": -1}, {"clock": "sundial"}])
def test_a_bad_config_is_an_argument_error(config):
    with pytest.raises(librunway.ArgumentError) as err:
        librunway.Session(config)
    specific(err.value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), object()])
def test_a_config_python_cannot_write_as_json_is_an_argument_error(tmp_path, value):
    # A config is an argument, not an input (runway.h): NaN, ±inf or an object json cannot
    # write is an ArgumentError wherever a config goes, as it is for analyse().
    with pytest.raises(librunway.ArgumentError):
        librunway.Session({"auto_lap_m": value})
    with pytest.raises(librunway.ArgumentError):
        librunway.recover(tmp_path / "runway.db", "some-flight", {"auto_lap_m": value})


@pytest.mark.parametrize("capacity", [float("nan"), float("inf")])
def test_a_non_finite_subscription_capacity_is_an_argument_error(session, capacity):
    with pytest.raises(librunway.ArgumentError):
        session.events(capacity=capacity)
    with pytest.raises(librunway.ArgumentError):
        session.subscribe(lambda ev: None, capacity=capacity)


# -- InputError (3) ---------------------------------------------------------------

@pytest.mark.parametrize("bad", [
    {"lon": 4.0, "t": T0},                       # missing lat
    {"lat": 52.0, "t": T0},                      # missing lon
    {"lat": 52.0, "lon": 4.0},                   # missing t (replay clock)
    {"lat": 91.0, "lon": 4.0, "t": T0},          # out of range
    {"lat": 52.0, "lon": 180.5, "t": T0},
    {"lat": "52", "lon": 4.0, "t": T0},          # ill-typed
    '{"lat":1e999,"lon":4.0,"t":1700000000}',    # non-finite
    '{"lat":52.0,"lon":4.0,"t":1700000000,"speed":-1e999}',
    {"type": "hr", "bpm": 301, "t": T0},         # bpm 0..300
    {"type": "hr", "bpm": -5, "t": T0},
    {"type": "cadence", "spm": 401, "t": T0},    # spm 0..400
    {"type": "hr", "t": T0},                     # a sample without its value
    {"type": "weather", "t": T0},                # an unknown input type
    {"lat": 52.0, "lon": 4.0, "t": -2147483647.8},  # a 1901 placeholder time
])
def test_invalid_inputs_are_input_errors_and_change_nothing(session, bad):
    session.start(T0 - 10)
    session.push(fix(0, T0 - 10))
    before = session.snapshot()
    with pytest.raises(librunway.InputError) as err:
        session.push(bad)
    assert err.value.status == 3
    specific(err.value)
    after = session.snapshot()
    before.pop("seq"), after.pop("seq")
    assert after == before


def test_time_going_backwards_is_an_input_error(session):
    session.push(fix(0, T0))
    with pytest.raises(librunway.InputError) as err:
        session.push(fix(1, T0 - 1))
    specific(err.value)
    session.push(fix(1, T0))  # equal times are allowed
    with pytest.raises(librunway.InputError):
        session.start(T0 - 5)  # a phase change before the latest input


def test_nan_for_a_required_field_is_an_input_error(session):
    # NaN is unknown, as in the C struct: lat may not be unknown
    with pytest.raises(librunway.InputError, match="lat"):
        session.push({"lat": float("nan"), "lon": 4.0, "t": T0})


# -- StateError (4) ---------------------------------------------------------------

def test_phase_changes_out_of_order_are_state_errors(session):
    with pytest.raises(librunway.StateError) as err:
        session.pause(T0)
    assert err.value.status == 4
    specific(err.value)
    with pytest.raises(librunway.StateError):
        session.resume(T0)
    with pytest.raises(librunway.StateError):
        session.stop(T0)
    session.start(T0)
    with pytest.raises(librunway.StateError):
        session.start(T0 + 0.5)   # a second start at another time
    before = session.snapshot()
    session.start(T0)             # at the flight's own start time: already true, nothing changes
    assert session.snapshot() == before
    with pytest.raises(librunway.StateError):
        session.resume(T0)
    session.stop(T0 + 1)
    with pytest.raises(librunway.StateError) as err:
        session.start(T0 + 2)  # a session is one flight
    specific(err.value)
    assert session.snapshot()["phase"] == "touchdown"


# -- NotFoundError (5) --------------------------------------------------------------

def test_an_unknown_subscription_id_is_not_found(session):
    L = _lib.lib()
    with pytest.raises(librunway.NotFoundError) as err:
        L.runway_unsubscribe(session, 987654321)
    assert err.value.status == 5
    specific(err.value)
    with pytest.raises(librunway.NotFoundError):
        L.runway_poll(session, 987654321, byref(c_void_p()))


# -- LimitError (8) ------------------------------------------------------------------

MAX_INPUT_BYTES = 1 << 20


def padded_fix(i: int, size: int) -> str:
    """Fix i of testkit's line as JSON text of exactly ``size`` bytes."""
    head = json.dumps(fix(i, T0 + i))[:-1] + ', "pad": "'
    return head + "x" * (size - len(head) - 2) + '"}'


def test_an_input_over_one_mebibyte_is_a_limit_error_and_changes_nothing(session):
    session.push(padded_fix(0, MAX_INPUT_BYTES))
    before = session.snapshot()
    with pytest.raises(librunway.LimitError) as err:
        session.push(padded_fix(1, MAX_INPUT_BYTES + 1))
    assert err.value.status == 8
    assert "RUNWAY_MAX_INPUT_BYTES" in specific(err.value)
    assert session.snapshot() == before
    accepted, rejected = session.push_many([padded_fix(1, MAX_INPUT_BYTES + 1), fix(2, T0 + 2)])
    assert (accepted, rejected) == (1, 1)


def test_nesting_past_64_levels_is_a_limit_error(session):
    def nested(depth: int) -> str:
        return json.dumps(fix(0, T0))[:-1] + ', "x": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"
    session.push(nested(64))
    with pytest.raises(librunway.LimitError) as err:
        session.push(nested(65))
    assert "RUNWAY_MAX_JSON_DEPTH" in specific(err.value)


def test_subscriber_and_capacity_limits(session):
    with pytest.raises(librunway.LimitError) as err:
        session.events(capacity=65537)
    assert "RUNWAY_MAX_QUEUE_CAPACITY" in specific(err.value)
    subs = [session.events(capacity=65536) for _ in range(256)]
    with pytest.raises(librunway.LimitError) as err:
        session.events()
    assert "RUNWAY_MAX_SUBSCRIBERS" in specific(err.value)
    with pytest.raises(librunway.LimitError):
        session.subscribe(lambda ev: None)
    subs.pop().cancel()
    session.events().cancel()


def test_a_full_route_refuses_a_fix_that_adds_a_point_and_changes_nothing():
    with pytest.raises(librunway.LimitError):
        librunway.Session({"max_route_points": 1_000_001})
    with librunway.Session({"filters": "off", "distance_filter_m": 5, "max_route_points": 10}) as s:
        s.start(T0)
        for i in range(10):
            s.push(fix(i, T0 + i))
        before, summary = s.snapshot(), s.summary()
        assert before["points"] == 10
        with pytest.raises(librunway.LimitError) as err:
            s.push(fix(10, T0 + 10))
        assert "max_route_points" in specific(err.value)
        assert s.snapshot() == before and s.summary() == summary
        s.push({"type": "hr", "bpm": 140, "t": T0 + 11})   # samples still go in
        s.stop(T0 + 12)
        assert s.summary()["points"] == 10


def test_a_flight_with_all_but_its_final_lap_refuses_a_manual_lap():
    # Fixes 1 km apart every 100 s with 10 m auto laps: 100 laps a fix, until 49 999.
    with librunway.Session({"filters": "off", "auto_lap_m": 10}) as s:
        s.start(T0)
        s.push_many([{"t": T0 + i * 100, "lat": 52 + i * 0.009, "lon": 4} for i in range(505)])
        before = s.snapshot()
        assert before["lap"] == 50_000   # the lap in progress is the final one
        with pytest.raises(librunway.LimitError) as err:
            s.lap()
        assert "RUNWAY_MAX_LAPS" in specific(err.value)
        assert s.snapshot() == before
        assert any("auto laps stopped" in line["message"] for line in s.log())
        s.stop()
        laps = s.summary()["laps"]
        assert len(laps) == 50_000 and laps[-1]["trigger"] == "final"


# -- last error is per thread -------------------------------------------------------

def test_the_message_belongs_to_the_failing_thread(session):
    errors = queue.Queue()

    def fail_state():
        try:
            session.stop(T0)
        except librunway.RunwayError as e:
            errors.put(e)

    th = threading.Thread(target=fail_state)
    th.start()
    th.join(WAIT_S)
    with pytest.raises(librunway.JSONError) as err:
        session.push("not json")
    other = errors.get(timeout=WAIT_S)
    assert isinstance(other, librunway.StateError)
    assert err.value.message != other.message


# -- CallbackError --------------------------------------------------------------------

class Boom(Exception):
    pass


def test_an_exception_in_a_callback_is_raised_at_the_next_call():
    ran = threading.Event()

    def bad(ev):
        ran.set()
        raise Boom("bad callback")

    s = librunway.Session()
    s.start(T0)
    sub = s.subscribe(bad, kinds=["flight"])
    s.push(fix(0, T0))
    assert ran.wait(WAIT_S)
    sub.cancel()  # returns once the callback has finished: the error is stored
    with pytest.raises(librunway.CallbackError) as err:
        s.snapshot()
    assert isinstance(err.value.__cause__, Boom)
    assert err.value.exception is err.value.__cause__
    assert err.value.subscription_id == sub.id
    assert "bad callback" in err.value.message
    assert isinstance(err.value, librunway.RunwayError)
    s.snapshot()  # reported once
    s.close()


def test_a_callback_error_not_yet_reported_is_raised_by_close():
    ran = threading.Event()

    def bad(ev):
        ran.set()
        raise Boom("late")

    s = librunway.Session()
    s.start(T0)
    s.subscribe(bad, kinds=["flight"])
    s.push(fix(0, T0))
    assert ran.wait(WAIT_S)
    with pytest.raises(librunway.CallbackError) as err:
        s.close()
    assert isinstance(err.value.__cause__, Boom)
    assert s.closed
    s.close()


def test_a_failing_callback_keeps_receiving_events():
    seen, gate = queue.Queue(), threading.Event()

    def flaky(ev):
        seen.put(ev["t"])
        gate.wait(WAIT_S)  # hold the first failure back until all fixes are in
        raise Boom(f"failed at {ev['t']}")

    s = librunway.Session()
    s.start(T0)
    sub = s.subscribe(flaky, kinds=["flight"], policy="queue")
    for i in range(3):
        s.push(fix(i, T0 + 4 * i))
    gate.set()
    times = [seen.get(timeout=WAIT_S) for _ in range(3)]
    assert times == [T0, T0 + 4, T0 + 8]
    sub.cancel()
    with pytest.raises(librunway.CallbackError) as err:
        s.push(fix(3, T0 + 12))
    assert err.value.__cause__.args == (f"failed at {times[0]}",)  # the first one
    assert err.value.suppressed == 2
    s.push(fix(3, T0 + 12))  # the failed call did nothing: push again
    s.close()


# ---- what to install for an optional feature ------------------------------------------------

@pytest.mark.parametrize("module, blocked, get", [
    ("librunway.analysis_flight", "pandas", lambda m: m._pandas()),
    ("librunway.plot", "matplotlib", lambda m: m._matplotlib()),
])
def test_a_missing_extra_names_a_command_that_works(monkeypatch, module, blocked, get):
    # librunway is not on PyPI: the hint is the package itself, or the extra by this
    # checkout's path (the tests run the package from bindings/python).
    import importlib

    from conftest import PYTHON_DIR

    monkeypatch.setitem(sys.modules, blocked, None)     # import fails as if not installed
    with pytest.raises(ImportError) as info:
        get(importlib.import_module(module))
    message = str(info.value)
    assert f"pip install {blocked}" in message, message
    assert "'librunway[" not in message, message
    assert f"pip install '{PYTHON_DIR}[" in message, message


def test_batch_without_dask_names_a_command_that_works(monkeypatch, capsys, tmp_path):
    from conftest import PYTHON_DIR
    from librunway.batch_cli import main

    monkeypatch.setitem(sys.modules, "distributed", None)
    assert main([str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "pip install dask distributed" in err and "'librunway[" not in err, err
    assert f"pip install '{PYTHON_DIR}[batch]'" in err, err
