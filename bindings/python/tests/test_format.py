"""The PFD formatters, through the library."""

from __future__ import annotations

import math

import pytest

import librunway
from librunway import _lib

UNKNOWN = [math.nan, math.inf, -math.inf, None]


def test_pace_is_minutes_and_seconds_rounded_to_the_second():
    assert librunway.format_pace(4 + 29 / 60) == "4:29"
    assert librunway.format_pace(4 + 29.4 / 60) == "4:29"
    assert librunway.format_pace(4 + 29.6 / 60) == "4:30"
    assert librunway.format_pace(5 + 59.7 / 60) == "6:00"
    assert librunway.format_pace(12.5) == "12:30"


@pytest.mark.parametrize("pace", UNKNOWN + [0.0, -1.0, -4.5])
def test_unknown_or_impossible_pace_is_dashes(pace):
    assert librunway.format_pace(pace) == "--:--"


def test_pace_tape_is_rounded_to_15_s_with_two_ticks_either_side():
    assert librunway.format_pace_tape(4 + 29 / 60) == ["4:00", "4:15", "4:30", "4:45", "5:00"]
    assert librunway.format_pace_tape(5.0) == ["4:30", "4:45", "5:00", "5:15", "5:30"]
    assert librunway.format_pace_tape(math.nan) == []


def test_direction_is_one_of_eight_compass_points():
    assert librunway.format_direction(108.19) == "E"
    assert librunway.format_direction(0) == "N"
    assert librunway.format_direction(359.9) == "N"
    assert librunway.format_direction(22.4) == "N"
    assert librunway.format_direction(22.6) == "NE"
    assert librunway.format_direction(225) == "SW"
    assert librunway.format_direction(math.nan) == "--"


def test_heading_tape_is_the_rounded_heading_and_its_neighbours():
    assert librunway.format_heading_tape(0) == ["W", "N", "E"]
    assert librunway.format_heading_tape(108.19) == ["N", "E", "S"]
    assert librunway.format_heading_tape(200) == ["E", "S", "W"]


def test_time_is_whole_elapsed_seconds():
    assert librunway.format_time(3725.9) == "01:02:05"
    assert librunway.format_time(0) == "00:00:00"
    assert librunway.format_time(59.999) == "00:00:59"
    assert librunway.format_time(math.nan) == "--:--:--"


def test_distance_is_km_with_two_decimals():
    assert librunway.format_distance(5030) == "5.03"
    assert librunway.format_distance(0) == "0.00"
    assert librunway.format_distance(42195) == "42.20"


def test_altitude_is_whole_metres():
    assert librunway.format_altitude(123.4) == "123"
    assert librunway.format_altitude(math.nan) == "--"


def test_a_short_buffer_is_grown_to_the_full_string():
    L = _lib.lib()
    for name, value in [("runway_format_pace_tape", 4.5), ("runway_format_time", 3725.9),
                        ("runway_format_distance", 123456789.0)]:
        fn = getattr(L, name)
        assert _lib.format_with(fn, value, initial_cap=1) == _lib.format_with(fn, value)
        assert fn(value, None, 0) == len(_lib.format_with(fn, value))


def test_versions():
    assert librunway.abi_version() == 1
    assert librunway.version() and librunway.version().split(".")[0] == "0"
