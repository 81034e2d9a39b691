"""PFD display strings, computed by the library's formatters.

These are the same strings a ``flight`` event carries in its ``"pfd"`` object.
Every function takes a number (``None``, NaN or ±inf mean "unknown") and
returns a ``str`` (the tapes: a ``list[str]``). They are pure and thread-safe.

>>> format_pace(4 + 29 / 60)
'4:29'
>>> format_pace_tape(4 + 29 / 60)
['4:00', '4:15', '4:30', '4:45', '5:00']
"""

from __future__ import annotations

import math

from . import _lib

__all__ = [
    "format_pace",
    "format_pace_tape",
    "format_direction",
    "format_heading_tape",
    "format_time",
    "format_distance",
    "format_altitude",
]


def _number(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _call(name: str, value: float | None) -> str:
    return _lib.format_with(getattr(_lib.lib(), name), _number(value))


def format_pace(min_per_km: float | None) -> str:
    """Pace as ``"m:ss"`` per km, rounded to the nearest second
    (``4.4833`` → ``"4:29"``); ``"--:--"`` for unknown, infinite or <= 0."""
    return _call("runway_format_pace", min_per_km)


def format_pace_tape(min_per_km: float | None) -> list[str]:
    """The pace tape: the pace rounded to the nearest 15 s with two ticks on
    either side (4'29" → ``["4:00", "4:15", "4:30", "4:45", "5:00"]``);
    ``[]`` when the pace is unknown."""
    return _call("runway_format_pace_tape", min_per_km).split()


def format_direction(heading_deg: float | None) -> str:
    """The compass point (``"N"``, ``"NE"``, ... ``"NW"``) of 45° sectors
    centred on north (108.19° → ``"E"``); ``"--"`` when unknown."""
    return _call("runway_format_direction", heading_deg)


def format_heading_tape(heading_deg: float | None) -> list[str]:
    """The heading tape: the heading rounded to 90° with its neighbours at
    ±90°, as N/E/S/W (0° → ``["W", "N", "E"]``); ``[]`` when unknown."""
    return _call("runway_format_heading_tape", heading_deg).split()


def format_time(elapsed_s: float | None) -> str:
    """Elapsed time as ``"HH:MM:SS"`` of whole seconds, rounded down
    (3725.9 → ``"01:02:05"``); ``"--:--:--"`` when unknown."""
    return _call("runway_format_time", elapsed_s)


def format_distance(distance_m: float | None) -> str:
    """Distance in km with two decimals (5030 m → ``"5.03"``)."""
    return _call("runway_format_distance", distance_m)


def format_altitude(altitude_m: float | None) -> str:
    """Altitude in whole metres (``"123"``); ``"--"`` when unknown."""
    return _call("runway_format_altitude", altitude_m)
