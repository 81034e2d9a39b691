"""Reading recordings made elsewhere (GPX, TCX, FIT files) as librunway inputs."""

from __future__ import annotations

from ctypes import byref, c_size_t, c_void_p
from typing import Union

from . import _lib
from .errors import ArgumentError, LibraryError
from .session import _c_string

__all__ = ["import_recording", "import_available", "IMPORT_FORMATS"]

#: The formats :func:`import_recording` reads.
IMPORT_FORMATS = ("gpx", "tcx", "fit")

#: What :func:`import_recording` accepts as the file's contents.
RecordingData = Union[bytes, bytearray, memoryview, str]


def import_available() -> bool:
    """Whether the loaded librunway can import recordings (it exports
    ``runway_import``; libraries built before it was added do not)."""
    return _lib.has("runway_import")


def import_recording(data: RecordingData, format: str) -> list[str]:
    """Turn a recording into librunway inputs: one JSON object per line.

    Args:
        data: the whole file's contents (``Path(p).read_bytes()``); a ``str``
            is encoded as UTF-8 (fine for GPX and TCX, never for FIT).
        format: ``"gpx"``, ``"tcx"`` or ``"fit"`` (lower case).

    Returns:
        The inputs as a list of JSON Lines lines (``str``, without line
        ends): fixes (``{"t", "lat", "lon", ...}`` with ``hr``/``cadence``
        where the file has them) in recorded order, ready for
        :meth:`Session.push_many` (values are as recorded: pushing validates
        them; an empty list when the file has no timed points)::

            lines = librunway.import_recording(Path("run.fit").read_bytes(), "fit")
            with librunway.Session() as s:
                s.start(json.loads(lines[0])["t"])
                s.push_many(lines)
                s.stop()

        ``json.loads(line)`` gives a line as a dict.

    Raises:
        ArgumentError: an unknown format.
        InputError: the data is not a valid recording of that format (or
            larger than 64 MiB).
        LibraryError: the loaded librunway has no ``runway_import`` (see
            :func:`import_available`).
    """
    if not import_available():
        raise LibraryError(
            f"{_lib.path()} cannot import recordings: it has no runway_import "
            "(a librunway built before import was added; rebuild it)")
    if isinstance(data, str):
        raw = data.encode("utf-8", "surrogatepass")
    elif isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
    else:
        raise TypeError(f"data must be bytes or str, not {type(data).__name__}")
    fmt = _c_string(str(format).encode("utf-8"), "format", ArgumentError)
    out, length = c_void_p(), c_size_t(0)
    _lib.lib().runway_import(fmt, raw, len(raw), byref(out), byref(length))
    text = _lib.take_bytes(out, length).decode("utf-8")
    # Split on "\n" only: str.splitlines() would also split inside a string at U+2028.
    return [line.rstrip("\r") for line in text.split("\n") if line.strip()]
