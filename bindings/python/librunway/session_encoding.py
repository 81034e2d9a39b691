"""What a session hands the library: inputs, configs and options as UTF-8 JSON, and times.

Part of :mod:`librunway.session`, which re-exports every name here (``Event`` and ``JSONInput``
are public there and in :mod:`librunway`).
"""

from __future__ import annotations

import datetime
import json
import math
import os
from typing import Any, Mapping, Union

from .errors import ArgumentError, InputError, JSONError, RunwayError

#: An event or snapshot as decoded JSON: a dict with at least ``"kind"`` and ``"seq"``.
Event = dict
#: What an input may be: a dict (serialized with ``json.dumps``), a JSON ``str``, or raw
#: UTF-8 ``bytes`` (passed through unchecked).
JSONInput = Union[Mapping[str, Any], str, bytes]

# ---------------------------------------------------------------------------
# Encoding inputs


# What json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False) writes, with
# the encoder made once: json.dumps builds a new JSONEncoder on every call with such arguments
# (about 2 us of a dict's 4-6 us in push_many). An encoder keeps no state between calls.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _path_text(value: Any) -> str:
    """A ``pathlib.Path`` (any ``os.PathLike`` naming a ``str``) in a config or options object
    as its text, so that ``{"store": Path("runs.db")}`` works as the store functions take a
    ``Path``; anything else JSON cannot write stays the TypeError json.dumps gives."""
    if isinstance(value, os.PathLike):
        path = os.fspath(value)
        if isinstance(path, str):
            return path
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_ARGUMENT_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False,
                                     allow_nan=False, default=_path_text)


def _encode(value: JSONInput | Any, argument: str | None = None) -> bytes:
    """An input as UTF-8 JSON bytes; the library judges what it means.

    ``argument`` names a config or options object: it is an argument, not an input
    (runway.h), so what cannot be its JSON (NaN, ±inf, an object json cannot write)
    is an ArgumentError, as the library's own verdict on a bad value is."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        # surrogatepass: a lone surrogate becomes invalid UTF-8, which the
        # library reports as a JSONError, like any other invalid UTF-8.
        return value.encode("utf-8", "surrogatepass")
    try:
        text = (_ENCODER if argument is None else _ARGUMENT_ENCODER).encode(value)
    except (TypeError, ValueError) as e:
        if argument is not None:
            raise ArgumentError(f"{argument} is not JSON: {e}") from e
        if not isinstance(value, Mapping):
            if isinstance(e, TypeError):
                raise
            raise InputError(f"non-finite number in input ({e})") from e
        # A dict (a pandas row): its unknowns and times as the library takes them (only here,
        # after the fast path failed: most inputs never pay for the look).
        try:
            text = _ENCODER.encode(_input_values(value))
        except (TypeError, ValueError) as e2:   # a NaN or ±inf nested below the top level
            raise InputError(f"input is not JSON: {e2}") from e2
    return text.encode("utf-8", "surrogatepass")


def _input_values(value: Mapping[str, Any]) -> dict[str, Any]:
    """An input dict's values as the C struct takes them: NaN (also pandas' NaT) and None
    are unknown (JSON null, as an absent key: the library then judges whether the field may
    be unknown, as it does a NaN in ``runway_fix``); a timezone-aware ``datetime`` is its unix
    seconds. Raises InputError for ±inf, a naive ``datetime`` and a value JSON cannot hold,
    naming the key."""
    out: dict[str, Any] = {}
    for key, v in value.items():
        if isinstance(v, float):
            if math.isnan(v):
                v = None
            elif math.isinf(v):
                raise InputError(f"{key!r} is {v}: not a finite number (NaN or None for unknown)")
        elif isinstance(v, datetime.datetime):
            v = _unix_seconds(v, repr(key))
        elif isinstance(v, (str, bool, int)) or v is None:
            pass
        elif _missing(v):                   # pandas.NA, numpy's NaT and NaN-likes
            v = None
        elif hasattr(v, "__index__"):       # numpy integers (an integer column of a frame)
            v = int(v.__index__())
        out[key] = v
    try:
        _ENCODER.encode(out)
    except TypeError:
        for key, v in out.items():
            try:
                _ENCODER.encode(v)
            except (TypeError, ValueError):
                raise InputError(f"{key!r}: a {type(v).__name__} is not an input value "
                                 "(numbers, strings, None; a datetime with its timezone)") from None
    return out


def _missing(v: Any) -> bool:
    """Whether ``v`` is a missing value: unequal to itself (NaN, NaT), or pandas.NA, whose
    comparison is itself NA and has no truth value."""
    try:
        return bool(v != v)                 # noqa: PLR0124
    except TypeError:                       # pandas.NA
        return True
    except ValueError:                      # an array: no value of its own, refused by the encoder
        return False


def _unix_seconds(when: datetime.datetime, what: str) -> float | None:
    """A timezone-aware datetime as unix seconds (pandas' NaT: None, unknown); InputError for a
    naive one, whose zone is unknown."""
    if when != when:                        # noqa: PLR0124 - pandas.NaT
        return None
    if when.tzinfo is None or when.utcoffset() is None:
        raise InputError(f"{what} is a naive datetime ({when}): give one with its timezone "
                         "(datetime(..., tzinfo=timezone.utc)) or unix seconds")
    return when.timestamp()


def _c_string(data: bytes, what: str, error: type[RunwayError] = JSONError) -> bytes:
    # A C string ends at the first NUL: refuse rather than truncate silently.
    if b"\0" in data:
        raise error(f"{what} contains a NUL byte")
    return data


def _time(t: float | datetime.datetime | None) -> float:
    """A time argument: unix seconds, a timezone-aware datetime, or None (NaN: "now")."""
    if isinstance(t, datetime.datetime):
        seconds = _unix_seconds(t, "the time")
        return math.nan if seconds is None else seconds
    if t is None:
        return math.nan
    return _float(t, "the time", "unix seconds (a number) or a timezone-aware datetime")


def _number(value: float | None, what: str, *, required: bool = False) -> float:
    """``push_fix``'s ``what`` (``"alt"``...): a number, or None (NaN: unknown; a ``required``
    one, ``lat`` or ``lon``, the library then refuses as missing). A datetime is no number."""
    if value is None:
        return math.nan
    if isinstance(value, datetime.datetime):
        raise InputError(f"{what} {value!r} is not a number")
    return _float(value, what, "a number" if required else "a number (None: unknown)")


def _float(value: Any, what: str, want: str) -> float:
    """``float(value)``, or an InputError naming ``what`` and saying it is not ``want``: float()'s
    own messages ("could not convert string to float", OverflowError) name no field."""
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:39] + "…"
        raise InputError(f"{what} {shown} is not {want}") from None


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json_type(value: Any) -> str:
    """The library's name for a JSON value's type (``JSONInput.typeName``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _config_dict(config: Any, what: str = "config") -> dict[str, Any]:
    """A config argument as a dict, taken as :class:`Session` takes one: ``None`` (the
    defaults), a mapping, or a JSON object as text; anything else is an ArgumentError
    that says what a config is (not the ValueError ``dict()`` gives)."""
    if config is None:
        return {}
    if isinstance(config, (str, bytes, bytearray)):
        return _config_object(config, what)
    if isinstance(config, Mapping):
        return dict(config)
    raise ArgumentError(f"{what}: expected a dict or a JSON object as text "
                        f"(e.g. {{\"activity\": \"ride\"}}), not {type(config).__name__}")


def _many_inputs(inputs: Any) -> None:
    """Refuses, for ``push_many``, what iterates but is one input: a dict (its keys) or a
    JSON text (its characters) would each be pushed as inputs and all rejected."""
    if isinstance(inputs, (str, bytes, bytearray, Mapping)):
        what = "dict" if isinstance(inputs, Mapping) else type(inputs).__name__
        raise TypeError(f"push_many() takes an iterable of inputs (dicts, or JSON objects as "
                        f"str or bytes), not one {what}: push() takes one input; JSON Lines "
                        f"text goes as push_many(text.splitlines())")


def _config_object(text: str | bytes | bytearray, what: str = "config") -> dict[str, Any]:
    """A config given as JSON text, judged as ``runway_session_open`` judges it, for the calls
    that hand the library a dict: a byte order mark before it is skipped, a key named twice
    (at any depth), ``NaN`` or ``Infinity`` and anything but an object (``null`` too: no
    config is ``None``, not the text ``null``) are an ArgumentError with the library's words."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ArgumentError(f"{what}: not valid UTF-8 (byte {e.start})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_not_json)
    except _DuplicateKey as e:
        raise ArgumentError(f'{what}: duplicate key "{e.key}"') from None
    except ValueError as e:
        raise ArgumentError(f"{what}: not valid JSON ({e})") from None
    if not isinstance(value, dict):
        raise ArgumentError(f"{what}: expected a JSON object, got {_json_type(value)}")
    return value
