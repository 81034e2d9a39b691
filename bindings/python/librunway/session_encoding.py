"""What a session hands the library: inputs, configs and options as UTF-8 JSON, and times.

Part of :mod:`librunway.session`, which re-exports every name here (``Event`` and ``JSONInput``
are public there and in :mod:`librunway`).
"""

from __future__ import annotations

import json
import math
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
        text = _ENCODER.encode(value)
    except (TypeError, ValueError) as e:
        if argument is not None:
            raise ArgumentError(f"{argument} is not JSON: {e}") from e
        if isinstance(e, TypeError):
            raise
        # NaN or ±inf: the library rejects non-finite numbers
        raise InputError(f"non-finite number in input ({e}); omit unknown values") from e
    return text.encode("utf-8", "surrogatepass")


def _c_string(data: bytes, what: str, error: type[RunwayError] = JSONError) -> bytes:
    # A C string ends at the first NUL: refuse rather than truncate silently.
    if b"\0" in data:
        raise error(f"{what} contains a NUL byte")
    return data


def _time(t: float | None) -> float:
    return math.nan if t is None else float(t)
