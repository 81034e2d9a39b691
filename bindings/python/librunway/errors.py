"""Exceptions raised by the librunway package.

Every failed library call raises a :class:`RunwayError` subclass chosen by the
status the C function returned; the exception carries that status (``.status``)
and the library's message for the failure (``.message``, read with
``runway_last_error()`` on the calling thread right after the call).

=====  ===================  =========================================================
status exception            meaning
=====  ===================  =========================================================
1      :class:`ArgumentError`  bad config or subscription options, a NULL argument
2      :class:`JSONError`      not JSON, not a JSON object, invalid UTF-8
3      :class:`InputError`     well-formed but invalid input: a missing or ill-typed
                               field, out of range, non-finite, time going backwards
4      :class:`StateError`     not allowed in the session's current phase (also: the
                               session is closed; a stored flight already finished,
                               or a flight_id already in the store)
5      :class:`NotFoundError`  unknown or already-ended subscription, unknown stored flight
6      :class:`StoreError`     the flight store cannot be opened, read or written
7      :class:`InternalError`  a bug in the library
8      :class:`LimitError`     a documented limit was reached: input bytes, nesting
                               depth, subscribers, queue capacity, route points
=====  ===================  =========================================================

:class:`CallbackError` is not a library status: it re-raises, on the host's
thread, an exception that one of your subscription callbacks raised.
"""

from __future__ import annotations

import os

__all__ = [
    "RunwayError",
    "ArgumentError",
    "JSONError",
    "InputError",
    "RecordingNotFoundError",
    "StateError",
    "NotFoundError",
    "StoreError",
    "InternalError",
    "LimitError",
    "CallbackError",
    "LibraryError",
    "error_for_status",
]


class RunwayError(Exception):
    """A librunway call failed.

    Attributes:
        status: the C status code (``runway_status``), e.g. 3 for an input error.
        message: the library's human-readable message for this failure.

    Decide what to do from the exception class (or ``status``), never from the
    message text: messages are for people and may change.
    """

    #: The status this class stands for (``None`` on the base class).
    STATUS: int | None = None

    def __init__(self, message: str, status: int | None = None) -> None:
        if status is None:
            status = self.STATUS if self.STATUS is not None else -1
        super().__init__(message)
        self.status: int = status
        self.message: str = message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, message={self.message!r})"


class ArgumentError(RunwayError):
    """Status 1: a bad argument — an unknown config key, bad subscription
    options (unknown key or kind, bad policy or capacity), a NULL pointer, or
    polling a callback subscription."""

    STATUS = 1


class JSONError(RunwayError):
    """Status 2: the input is not JSON, not a JSON object, or not valid UTF-8."""

    STATUS = 2


class InputError(RunwayError):
    """Status 3: well-formed but invalid input — a missing or ill-typed field,
    a value out of range (``lat`` 91), a non-finite number (``1e999``), time
    going backwards."""

    STATUS = 3


class RecordingNotFoundError(InputError, FileNotFoundError):
    """A recording's path does not exist: raised by :func:`librunway.analyse` and by
    :func:`librunway.batch.analyse` (and :func:`librunway.batch.find_recordings`) alike.

    Both an :class:`InputError` (status 3: what ``analyse`` raises for any file it cannot
    read) and a :class:`FileNotFoundError` (``errno`` ENOENT, ``filename`` the path as
    given), so ``except InputError`` and ``except FileNotFoundError`` (or ``OSError``)
    each catch it, whichever call raised it."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: No such file or directory")
        self.errno = 2
        self.strerror = "No such file or directory"
        self.filename = path


class StateError(RunwayError):
    """Status 4: the call is not allowed in the session's current flight phase
    (``pause()`` before ``start()``, ``start()`` after ``stop()``), or in the
    stored flight's state (recovering or finishing a finished flight, opening a
    session with a ``flight_id`` the store already has).

    The Python layer also raises it for any call on a closed session, and for
    ``Session.close()`` called from inside one of that session's callbacks."""

    STATUS = 4


class NotFoundError(RunwayError):
    """Status 5: unknown or already-ended subscription, or no flight with that
    id in the store."""

    STATUS = 5


class StoreError(RunwayError):
    """Status 6: the flight store failed: it cannot be opened (a directory, a
    missing folder), it is not a librunway store (another program's database,
    random bytes, a newer schema), or a read or write failed (a full disk)."""

    STATUS = 6


class InternalError(RunwayError):
    """Status 7: the library hit an internal error (a bug: please report it)."""

    STATUS = 7


class LimitError(RunwayError):
    """Status 8: a documented limit of runway.h was reached, and the call
    changed nothing: an input (a fix, a config, options, one JSON Lines line)
    over 1 MiB (``RUNWAY_MAX_INPUT_BYTES``) or nested deeper than 64 levels
    (``RUNWAY_MAX_JSON_DEPTH``); a 257th subscription on a session
    (``RUNWAY_MAX_SUBSCRIBERS``); a queue ``capacity`` above 65536
    (``RUNWAY_MAX_QUEUE_CAPACITY``); a config ``max_route_points`` above
    1000000 (``RUNWAY_MAX_ROUTE_POINTS``); a fix that would add a point to
    a full route (fixes that add none are still accepted); or a manual lap on
    a flight with 49 999 laps (``RUNWAY_MAX_LAPS`` is 50 000, the final lap
    included). The message names the limit and the value."""

    STATUS = 8


class CallbackError(RunwayError):
    """A subscription callback raised an exception.

    Callbacks run on library threads, where an exception has nowhere to go.
    The package catches it (it never reaches the C library), keeps the first
    one, and raises it wrapped in ``CallbackError`` at the next call on the
    session made from a host thread (any thread that is not running a
    callback), or from ``Session.close()``. The call that raises it does
    nothing else (retry it); ``close()`` closes all the same. The original
    exception is ``__cause__`` and ``.exception``; ``.subscription_id``
    names the subscription and ``.suppressed`` counts later callback
    exceptions that were dropped while this one waited.

    ``status`` is -1: this is not a library status.
    """

    STATUS = -1

    def __init__(self, message: str, exception: BaseException | None = None,
                 subscription_id: int = 0, suppressed: int = 0) -> None:
        super().__init__(message, -1)
        self.exception: BaseException | None = exception
        self.subscription_id: int = subscription_id
        self.suppressed: int = suppressed


class LibraryError(OSError):
    """librunway.so could not be found or loaded, or it is incompatible (its
    ABI version is not the one this package was written for). The message
    lists every place that was tried."""


_BY_STATUS: dict[int, type[RunwayError]] = {
    cls.STATUS: cls  # type: ignore[misc]
    for cls in (ArgumentError, JSONError, InputError, StateError,
                NotFoundError, StoreError, InternalError, LimitError)
}


def error_for_status(status: int, message: str) -> RunwayError:
    """Return (not raise) the exception for a non-zero C status: the subclass
    for a known status, else a plain :class:`RunwayError`."""
    cls = _BY_STATUS.get(status, RunwayError)
    return cls(message, status)


def _install_hint(extra: str, packages: str) -> str:
    """The command that installs what an optional feature needs: ``pip install PACKAGES``, and,
    when this package runs from a checkout (``bindings/python``), the extra by the checkout's
    path: librunway is not on PyPI (``pip install 'librunway[EXTRA]'`` would not find it)."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    hint = f"pip install {packages}"
    if os.path.isfile(os.path.join(here, "pyproject.toml")):
        hint += f" (or, from this checkout: pip install '{here}[{extra}]')"
    return hint
