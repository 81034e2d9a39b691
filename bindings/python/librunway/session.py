"""Sessions (one run each) and their event subscriptions."""

from __future__ import annotations

import atexit
import itertools
import json
import math
import re
import threading
import weakref
from ctypes import byref, c_size_t, c_uint64, c_void_p
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, Union

from . import _lib
from .errors import (ArgumentError, CallbackError, InputError, JSONError, NotFoundError,
                     RunwayError, StateError)

__all__ = ["Session", "Subscription", "PollSubscription", "Event", "JSONInput"]

#: An event or snapshot as decoded JSON: a dict with at least ``"kind"`` and ``"seq"``.
Event = dict
#: What an input may be: a dict (serialized with ``json.dumps``), a JSON ``str``, or raw
#: UTF-8 ``bytes`` (passed through unchecked).
JSONInput = Union[Mapping[str, Any], str, bytes]

_LINE_NUMBER = re.compile(r"\bline (\d+)\b")

# ---------------------------------------------------------------------------
# Which library callbacks is this thread running? (per thread: a stack of the
# keys of the sessions whose callback is on this thread's stack)

_tls = threading.local()


def _callback_stack() -> list[int]:
    stack = getattr(_tls, "stack", None)
    if stack is None:
        stack = _tls.stack = []
    return stack


def _in_any_callback() -> bool:
    return bool(getattr(_tls, "stack", None))


# ---------------------------------------------------------------------------
# Encoding inputs


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
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
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


def _options(kinds: str | Iterable[str] | None, policy: str | None,
             capacity: int | None) -> bytes | None:
    opts: dict[str, Any] = {}
    if kinds is not None:
        opts["kinds"] = [kinds] if isinstance(kinds, str) else list(kinds)
    if policy is not None:
        opts["policy"] = policy
    if capacity is not None:
        opts["capacity"] = capacity
    return _encode(opts, "options") if opts else None


# ---------------------------------------------------------------------------
# Finalization: sessions the host forgot to close


_open_sessions: "weakref.WeakSet[Session]" = weakref.WeakSet()
_reapers: set[threading.Thread] = set()
_reapers_lock = threading.Lock()


def _reap(handle: int, keep_alive: list[Any]) -> None:
    """Close a session handle on a thread of our own (see Session.__del__)."""
    try:
        _lib.lib().runway_session_close(handle)
    finally:
        keep_alive.clear()  # the callbacks can go now: none runs any more
        with _reapers_lock:
            _reapers.discard(threading.current_thread())


@atexit.register
def _close_all_at_exit() -> None:
    # Library threads must not call into an interpreter that is finalizing:
    # end every session (and so every callback) while Python still runs.
    for s in list(_open_sessions):
        try:
            s._close(raise_pending=False)
        except BaseException:
            pass
    with _reapers_lock:
        pending = list(_reapers)
    for t in pending:
        t.join(timeout=10)


# ---------------------------------------------------------------------------
# Callback trampoline


class _CallbackState:
    """What a C callback needs; deliberately holds no reference to the
    CFUNCTYPE object or the Subscription (no reference cycles through it)."""

    __slots__ = ("callback", "session_ref", "session_key", "sub_id", "__weakref__")

    def __init__(self, callback: Callable[[Event], Any], session: Session) -> None:
        self.callback = callback
        self.session_ref = weakref.ref(session)
        self.session_key = session._key
        self.sub_id = 0

    def __call__(self, event_json: bytes | None, _user: int | None) -> None:
        # Runs on a library thread. Nothing may escape into C.
        stack = _callback_stack()
        stack.append(self.session_key)
        try:
            event = json.loads(event_json) if event_json is not None else None
            self.callback(event)
        except BaseException as e:  # noqa: BLE001 - also KeyboardInterrupt, SystemExit
            try:
                session = self.session_ref()
                if session is not None:
                    session._record_callback_error(e, self.sub_id)
            except BaseException:
                pass
        finally:
            stack.pop()


# ---------------------------------------------------------------------------


class Session:
    """One run ("flight"): push GPS fixes in, read live data and a record out.

    A session starts in phase ``"preflight"``. Drive it with::

        start() -> "cruise"  <->  pause() -> "holding" / resume() -> "cruise"
        stop()  -> "touchdown"   (from cruise or holding; a session is one run)

    Any other transition raises :class:`StateError` and changes nothing.
    :meth:`lap` ends the current lap (in cruise or holding) with a ``split``
    event; with ``auto_lap_m`` the engine also laps by distance.

    Inputs (:meth:`push`, :meth:`push_many`, :meth:`push_fix`) are GPS fixes
    ``{"lat": 52.1, "lon": 4.3, "t": 1700000000.0, "alt": 3.5, "speed": 3.1,
    "course": 87.0, "h_acc": 4.0, "v_acc": 6.0}`` (``lat`` -90..90 and
    ``lon`` -180..180 required; ``t`` in unix seconds, 0 <= t < 1e11, required with
    the default replay clock; the rest optional: metres, m/s, degrees
    clockwise from north; a negative speed/course/accuracy or a ``null``
    means unknown; ``"hr"``/``"cadence"`` on a fix count as samples at its
    time) or sensor samples ``{"type": "hr", "bpm": 148, "t": ...}`` /
    ``{"type": "cadence", "spm": 172, "t": ...}``. Unknown keys are ignored;
    a non-finite number is invalid. Time may not go backwards (equal times
    are fine). Fixes before ``start()`` move the position but add no
    distance; fixes while holding add none either.

    Outputs: :meth:`snapshot` (live flight data), :meth:`summary` (the flight
    record and route), :meth:`log` (recent log lines), and events through
    :meth:`subscribe` (a callback) or :meth:`events` (polling).

    Times: every ``t`` parameter is unix seconds; ``None`` means "now" — with
    the replay clock the time of the latest input (before any input: of the
    next one), with the live clock the wall clock. A ``t`` before the latest
    input raises :class:`InputError`.

    Config (all keys optional; an unknown key raises :class:`ArgumentError`):

    ``clock``
        ``"replay"`` (default: times come from the inputs and a replay is
        deterministic) or ``"live"`` (``t`` may be omitted; a 1 Hz ticker
        emits ``tick`` events and advances elapsed time between fixes).
    ``distance_filter_m`` (5)
        a fix closer than this to the last kept point updates the live values
        but is not kept (0 keeps every fix).
    ``required_accuracy_m`` (50)
        a fix with a worse ``h_acc`` is filtered (the push still succeeds; the
        snapshot's ``filtered`` counts it and a log line says why); 10 s of
        it log a reduced-accuracy warning.
    ``pace_window_s`` (10)
        window of the current pace (distance over time: ``ground_speed_mps``).
    ``filters`` (``"on"``)
        ``"off"``: raw accumulation — every valid fix counts and distance is
        the sum of WGS84 geodesic distances between kept points
        (``distance_filter_m`` then defaults to 0).
    ``auto_lap_m`` (1000)
        a lap (``split`` event) every this many metres; 0 = off.
    ``store`` (none)
        a SQLite file path: the flight is journaled there (every accepted input,
        phase change and lap) and its record written at :meth:`stop`; after a
        crash, :func:`librunway.recover` continues it (see ``librunway.store``).
        A store that cannot be opened raises :class:`StoreError`.
    ``durability`` (``"every_fix"``)
        with a store: ``"every_fix"`` (each input is durable when its call
        returns) or ``"batched"`` (committed within about a second: faster).
    ``flight_id`` (made up)
        with a store: the flight's name, 1 to 128 visible characters (default:
        the UTC time and random hex, e.g. ``"20261129T180512Z-3fa9c2"``); an id
        already in the store raises :class:`StateError`. See :attr:`flight_id`.

    Also ``activity`` (``"run"``/``"walk"``/``"ride"``), ``gap_s``,
    ``jump_m``, ``count_gaps``, ``speed_cap_mps``, ``auto_pause``,
    ``hr_max``, ``elevation_hysteresis_m``, ``position_sigma_m``,
    ``target_pace``, ``hr_ceiling``, ``goal_m``, ``minimums_m``: see
    docs/inputs.md in the repository.

    Threads: every method may be called from any thread, concurrently.
    Subscription callbacks run on library threads; they may call any method
    of the session except :meth:`close`.

    Errors: failures raise :class:`RunwayError` subclasses (see
    ``librunway.errors``). An exception raised by one of your callbacks is kept
    and raised as :class:`CallbackError` by the next method call on this
    session made outside a callback (or by :meth:`close`).

    Lifetime: use ``with Session() as s:`` or call :meth:`close` (it may be
    called twice). Any call on a closed session raises :class:`StateError`.
    A session dropped without ``close()`` is closed when it is garbage
    collected.

    Example::

        with librunway.Session({"distance_filter_m": 0}) as s:
            s.start(1700000000.0)
            s.push({"t": 1700000000.0, "lat": 52.0, "lon": 4.0})
            s.push({"t": 1700000010.0, "lat": 52.0003, "lon": 4.0})
            s.stop()
            print(s.summary()["distance_m"])
    """

    _keys = itertools.count(1)

    def __init__(self, config: Mapping[str, Any] | str | bytes | None = None) -> None:
        """Open a session in phase ``"preflight"``.

        Args:
            config: ``None`` for the defaults, a dict, or a JSON object as
                ``str``/``bytes`` (keys: see the class docstring).

        Raises:
            ArgumentError: an unknown key, a bad value, or a ``config`` that
                is not a JSON object.
            LibraryError: librunway.so could not be loaded.
        """
        self._setup()
        L = _lib.lib()
        raw = None if config is None else _c_string(_encode(config, "config"), "config",
                                                     ArgumentError)
        out = c_void_p()
        L.runway_session_open(raw, byref(out))
        self._adopt(out, "runway_session_open")

    def _setup(self) -> None:
        self._handle: int | None = None
        self._key = next(Session._keys)
        self._cond = threading.Condition(threading.Lock())
        self._active_calls = 0
        self._closing = False
        self._subs: dict[int, Subscription] = {}
        self._retired: list[Any] = []  # callbacks cancelled from a callback thread
        self._pending: tuple[BaseException, int] | None = None
        self._suppressed = 0

    def _adopt(self, out: c_void_p, what: str) -> None:
        if not out.value:
            raise RunwayError(f"{what} returned no session", 7)
        self._handle = out.value
        _open_sessions.add(self)

    @classmethod
    def _from_handle(cls, out: c_void_p, what: str) -> Session:
        """A Session owning a handle the library just returned (runway_session_recover)."""
        self = cls.__new__(cls)
        self._setup()
        self._adopt(out, what)
        return self

    # -- plumbing ------------------------------------------------------------

    @property
    def _as_parameter_(self) -> c_void_p:
        """Lets raw ctypes calls (``librunway._lib.lib().runway_x(session, ...)``)
        take the session. Raises StateError once closed."""
        h = self._handle
        if h is None:
            raise StateError("session is closed")
        return c_void_p(h)

    def _acquire(self, raise_pending: bool = True) -> int:
        """Enter a library call: the handle stays valid until _release()."""
        err = None
        with self._cond:
            if self._handle is None or self._closing:
                raise StateError("session is closed")
            if raise_pending and self._pending is not None and not _in_any_callback():
                err = self._take_pending_locked()
            else:
                self._active_calls += 1
                return self._handle
        raise err

    def _release(self) -> None:
        with self._cond:
            self._active_calls -= 1
            if self._active_calls == 0:
                self._cond.notify_all()

    def _record_callback_error(self, exc: BaseException, sub_id: int) -> None:
        with self._cond:
            if self._pending is None:
                self._pending = (exc, sub_id)
            else:
                self._suppressed += 1

    def _take_pending_locked(self) -> CallbackError | None:
        if self._pending is None:
            return None
        exc, sub_id = self._pending
        suppressed = self._suppressed
        self._pending, self._suppressed = None, 0
        more = f" (and {suppressed} later callback exception(s))" if suppressed else ""
        err = CallbackError(
            f"callback of subscription {sub_id} raised {type(exc).__name__}: {exc}{more}",
            exc, sub_id, suppressed)
        err.__cause__ = exc
        return err

    def _call(self, name: str, *args: Any) -> Any:
        h = self._acquire()
        try:
            return getattr(_lib.lib(), name)(h, *args)
        finally:
            self._release()

    def _string_call(self, name: str) -> Any:
        out = c_void_p()
        self._call(name, byref(out))
        return json.loads(_lib.take_string(out))

    def _forget(self, sub: Subscription, retire: bool) -> None:
        with self._cond:
            self._subs.pop(sub.id, None)
            if retire and sub._thunk is not None:
                # Cancelled from a callback thread: that callback (maybe this
                # very one) may still be running; keep its code alive until
                # close() has waited for every callback.
                self._retired.append(sub._thunk)

    # -- lifetime --------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run (or started in another thread)."""
        return self._handle is None or self._closing

    def close(self) -> None:
        """Close the session: deliver to each callback subscription the events
        already queued for it (a ``latest`` one its newest snapshot), end all
        its subscriptions, wait until none of its callbacks is running, free it.

        Safe to call more than once, and from any thread except a callback of
        this session (that raises :class:`StateError`, and closes nothing).
        When it returns, no callback of this session runs any more.

        Raises:
            CallbackError: a callback raised an exception that no later call
                has reported yet (the session is closed all the same).
        """
        self._close(raise_pending=True)

    def _close(self, raise_pending: bool) -> None:
        with self._cond:
            if self._handle is None:
                return
            if self._key in getattr(_tls, "stack", ()):
                raise StateError("close() called from inside one of this session's "
                                 "callbacks; close it from another thread")
            if self._closing:  # another thread is closing it: wait for that
                while self._handle is not None:
                    self._cond.wait()
                return
            self._closing = True
            while self._active_calls:
                self._cond.wait()
            handle = self._handle
        try:
            _lib.lib().runway_session_close(handle)
        finally:
            with self._cond:
                self._handle = None
                subs = list(self._subs.values())
                self._subs.clear()
                self._retired.clear()
                err = self._take_pending_locked()
                self._cond.notify_all()
            for sub in subs:
                sub._ended()
            _open_sessions.discard(self)
        if raise_pending and err is not None:
            raise err

    def __enter__(self) -> Session:
        """``with Session(...) as s:`` closes the session at the end."""
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        """Close the session. A pending :class:`CallbackError` is raised
        only if the block itself raised nothing (never replacing an
        exception in flight)."""
        self._close(raise_pending=exc_type is None)

    def __del__(self) -> None:
        """Close a session that was garbage collected without close().

        Never raises and never waits on a library thread: if the last
        reference dies inside a callback, a helper thread closes it."""
        try:
            handle = self._handle
            if handle is None or self._closing:
                return
            if not _in_any_callback():
                self._close(raise_pending=False)
                return
            self._handle = None
            keep = [sub._thunk for sub in self._subs.values()] + list(self._retired)
            for sub in self._subs.values():
                sub._ended()  # the thunks live on in `keep` until the close is done
            t = threading.Thread(target=_reap, args=(handle, keep),
                                 name="runway-session-close", daemon=True)
            with _reapers_lock:
                _reapers.add(t)
            t.start()
        except BaseException:
            pass

    def __repr__(self) -> str:
        """``<librunway.Session open at 0x...>`` (or ``closed``)."""
        return f"<librunway.Session {'closed' if self.closed else 'open'} at {id(self):#x}>"

    # -- inputs ----------------------------------------------------------------

    def push(self, input: JSONInput) -> None:
        """Push one input: a GPS fix or a sensor sample (shapes: see the class
        docstring). Returns when it is processed: a snapshot read afterwards
        reflects it.

        Args:
            input: a dict (serialized compactly), or one JSON object as
                ``str`` or UTF-8 ``bytes``.

        Raises:
            JSONError: not JSON, not an object, invalid UTF-8.
            InputError: missing/ill-typed field, out of range (``lat`` 91),
                non-finite (``1e999``, or NaN/inf in a dict), time going
                backwards. A rejected input changes nothing.
            LimitError: over 1 MiB, nested deeper than 64 levels, or a fix
                that would add a point to a full route (``max_route_points``).
        """
        self._call("runway_push_json", _c_string(_encode(input), "input"))

    def push_fix(self, lat: float, lon: float, *, t: float | None = None,
                 alt: float | None = None, speed: float | None = None,
                 course: float | None = None, h_acc: float | None = None,
                 v_acc: float | None = None) -> None:
        """Push one GPS fix without JSON (the fast path); same rules as
        :meth:`push`. ``None`` means unknown (``t=None``: "now", allowed only
        with the live clock). Units: degrees, unix seconds, metres, m/s."""
        fix = _lib.runway_fix(_time(t), float(lat), float(lon), _time(alt), _time(speed),
                              _time(course), _time(h_acc), _time(v_acc))
        self._call("runway_push_fix", byref(fix))

    def push_many(self, inputs: Iterable[JSONInput], *, batch: int = 1000,
                  strict: bool = False) -> tuple[int, int]:
        """Push many inputs, ``batch`` at a time, as JSON Lines.

        Every input is processed, good or bad; a rejected one changes nothing
        and does not stop the others. Strings may end with a newline (lines
        read from a ``.jsonl`` file work as they are); blank ones are skipped
        and counted in neither total.

        Args:
            inputs: dicts, JSON ``str`` or ``bytes`` (one object each).
            batch: inputs per library call (>= 1).
            strict: if true, raise after everything was pushed when any input
                was rejected.

        Returns:
            ``(accepted, rejected)`` counts.

        Raises:
            RunwayError: only with ``strict=True`` and a rejected input: the
                first rejected input's error (e.g. :class:`JSONError`), with
                extra attributes ``accepted``, ``rejected`` (the totals) and
                ``index`` (position of that input in ``inputs``, or None if
                unknown). Errors that are not about an input (a closed
                session) are raised whatever ``strict`` says.
        """
        if batch < 1:
            raise ValueError("batch must be >= 1")
        accepted = rejected = 0
        first: RunwayError | None = None
        first_index: int | None = None
        lines: list[bytes] = []
        indices: list[int] = []

        def flush() -> None:
            nonlocal accepted, rejected, first, first_index
            if not lines:
                return
            buf = b"\n".join(lines)
            acc, rej = c_size_t(0), c_size_t(0)
            try:
                self._call("runway_push_jsonl", buf, len(buf), byref(acc), byref(rej))
            except RunwayError as e:
                if rej.value == 0:
                    raise
                if first is None:
                    first = e
                    m = _LINE_NUMBER.search(e.message)
                    if m and 1 <= int(m.group(1)) <= len(indices):
                        first_index = indices[int(m.group(1)) - 1]
            finally:
                accepted += acc.value
                rejected += rej.value
                lines.clear()
                indices.clear()

        for i, item in enumerate(inputs):
            try:
                line = _encode(item)
            except InputError as e:  # NaN/inf in a dict: rejected like any bad line
                rejected += 1
                if first is None:
                    first, first_index = e, i
                continue
            line = line.rstrip(b"\r\n")
            if not line.strip():
                continue
            if b"\n" in line:
                # A multi-line JSON text is one input: push it on its own.
                flush()
                try:
                    self.push(line)
                    accepted += 1
                except (JSONError, InputError) as e:
                    rejected += 1
                    if first is None:
                        first, first_index = e, i
                continue
            lines.append(line)
            indices.append(i)
            if len(lines) >= batch:
                flush()
        flush()
        if strict and first is not None:
            first.accepted = accepted  # type: ignore[attr-defined]
            first.rejected = rejected  # type: ignore[attr-defined]
            first.index = first_index  # type: ignore[attr-defined]
            raise first
        return accepted, rejected

    def tick(self, t: float | None = None) -> None:
        """Advance the session's clock to ``t`` without a fix (``None`` = now).
        In cruise this advances elapsed time and emits a ``tick`` event. Call
        it from your own 1 Hz timer with the replay clock; the live clock
        ticks by itself."""
        self._call("runway_tick", _time(t))

    # -- flight phases -----------------------------------------------------------

    def start(self, t: float | None = None) -> None:
        """``preflight`` → ``cruise``: the run starts at ``t`` (None = now).
        Raises StateError in any other phase."""
        self._call("runway_start", _time(t))

    def pause(self, t: float | None = None) -> None:
        """``cruise`` → ``holding``: elapsed time and distance stop counting.
        Raises StateError in any other phase."""
        self._call("runway_pause", _time(t))

    def resume(self, t: float | None = None) -> None:
        """``holding`` → ``cruise``. Raises StateError in any other phase."""
        self._call("runway_resume", _time(t))

    def stop(self, t: float | None = None) -> None:
        """``cruise`` or ``holding`` → ``touchdown``: the run ends and the
        summary is complete: a push after it raises StateError, a tick does
        nothing. Raises StateError in any other phase (a session is one run:
        it cannot start again)."""
        self._call("runway_stop", _time(t))

    def lap(self, t: float | None = None) -> None:
        """A manual lap at ``t`` (None = now): ends the current lap and emits
        a ``"split"`` event (``{"kind": "split", "seq", "t", "lap": {"index",
        "trigger": "manual", "start_t", "end_t", "distance_m", "elapsed_s",
        "pace_min_per_km", "avg_hr_bpm", "gain_m", "loss_m"}}``); the lap also
        joins the summary's ``laps``. Auto-laps (config ``auto_lap_m``) keep
        their boundaries at multiples of that distance from the start. Asked
        for while a gap's distance waits for its confirming fix (between the
        fix after a gap and the next), the split comes with that fix, timed ``t``.

        Raises StateError outside ``cruise`` and ``holding``, or when nothing
        (no time, no distance) has passed since the last lap; InputError for
        a ``t`` before the latest input."""
        self._call("runway_lap", _time(t))

    # -- outputs -------------------------------------------------------------------

    def snapshot(self) -> Event:
        """The latest flight data: the same dict a ``"flight"`` event carries.

        Keys include ``phase``, ``t``, ``lat``, ``lon``, ``distance_m``,
        ``elapsed_s`` (cruise time only), ``speed_mps`` (the device's raw
        speed), ``ground_speed_mps`` (distance over time across the pace
        window), ``pace_min_per_km`` (from ``ground_speed_mps``),
        ``avg_pace_min_per_km``, ``altitude_m``, ``heading_deg``, ``hr_bpm``,
        ``cadence_spm``, ``points`` (kept fixes), ``fixes`` (all fixes),
        ``accuracy``, ``seq`` (of the latest event) and ``pfd`` (display
        strings: ``pace``, ``pace_tape``, ``direction``, ``heading_tape``,
        ``time``, ``distance``, ``altitude``, ``avg_pace``, ``hr``,
        ``cadence``). Unknown values are ``None``.
        """
        return self._string_call("runway_snapshot_json")

    def summary(self) -> dict:
        """The flight record so far (complete after :meth:`stop`).

        Keys: ``phase``, ``end_reason``, ``start_t``, ``end_t``,
        ``elapsed_s``, ``distance_m``, ``avg_pace_min_per_km``,
        ``avg_speed_mps``, ``max_speed_mps``, ``avg_hr_bpm``, ``max_hr_bpm``,
        ``avg_cadence_spm``, ``fixes``, ``points``, ``laps``, ``flight_id`` (with a
        store) and ``route``: a list of ``[lat, lon, alt_or_None, t]`` for every kept fix.
        """
        return self._string_call("runway_summary_json")

    @property
    def flight_id(self) -> str | None:
        """The id of the flight this session journals to its store (config ``"store"``;
        named by config ``"flight_id"`` or else made up at open, e.g.
        ``"20261129T180512Z-3fa9c2"``), or ``None`` for a session without a store.
        The summary carries it too, as ``"flight_id"``."""
        out = c_void_p()
        self._call("runway_session_flight_id", byref(out))
        return _lib.take_string(out) or None

    def export(self, format: str) -> bytes:
        """The flight as it is now, as a file in ``format``:

        ``"gpx"``
            GPX 1.1 with Garmin TrackPointExtension v2 (heart rate, cadence); one
            ``<trkseg>`` per timer leg (a break where the flight paused, none at a GPS gap).
        ``"tcx"``
            Training Center XML with laps; one ``<Track>`` per timer leg in each.
        ``"fit"``
            a FIT activity file (binary: it contains NUL bytes).
        ``"geojson"``
            a GeoJSON Feature: the route as LineString or MultiLineString, the summary as
            properties.
        ``"csv"``
            one row per route point, with a header row.

        A flight still in the air is exported with its lap in progress. Text formats are
        UTF-8: ``session.export("gpx").decode()``; write any of them with
        ``Path("run.fit").write_bytes(session.export("fit"))``.

        Raises:
            ArgumentError: an unknown format (names are lower case).
        """
        fmt = _c_string(str(format).encode("utf-8"), "format", ArgumentError)
        out, length = c_void_p(), c_size_t(0)
        self._call("runway_export", fmt, byref(out), byref(length))
        return _lib.take_bytes(out, length)

    def log(self) -> list[Event]:
        """The last 20 log lines, oldest first, as ``"log"`` events
        (``{"kind": "log", "seq", "t", "level", "message"}``)."""
        return self._string_call("runway_log_json")

    # -- subscriptions ---------------------------------------------------------

    def subscribe(self, callback: Callable[[Event], Any], *,
                  kinds: str | Sequence[str] | None = None, policy: str | None = None,
                  capacity: int | None = None) -> Subscription:
        """Call ``callback(event)`` for each event from now on (no replay:
        read :meth:`snapshot` for the current state).

        The callback runs on a thread the library owns (one per callback
        subscription), never concurrently with itself. It receives the event
        as a dict with at least ``"kind"`` and ``"seq"`` (a per-session
        increasing number). Kinds: ``"flight"`` (a snapshot, as
        :meth:`snapshot`), ``"phase"`` (``from``, ``to``, ``t``), ``"tick"``,
        ``"log"`` (``level``, ``message``), ``"split"``, ``"alert"``, and
        ``"overflow"`` (``dropped``: events lost to a full queue; sent to
        every subscription whatever its kinds).

        The callback may call any method of this session (snapshot, push,
        cancel itself or another subscription) except :meth:`close`. If it
        raises, the exception is kept and raised as :class:`CallbackError`
        by the next call on the session from a host thread; delivery goes on.

        Args:
            callback: called with one event dict.
            kinds: event kinds to receive (default: all).
            policy: ``"latest"`` (default: ``flight`` and ``tick`` events
                coalesce to the newest, other events are queued) or
                ``"queue"`` (every event, in order).
            capacity: queue length, 1..65536 (default 1024). When full, newer
                events are dropped and an ``"overflow"`` event reports them.

        Returns:
            A :class:`Subscription`; cancel it (or use it in ``with``) to
            stop. It stays active until cancelled or the session is closed,
            even if you drop the object.

        Raises:
            ArgumentError: an unknown kind, policy or a capacity below 1.
            LimitError: a capacity above 65536, or the session already has
                256 subscriptions.
        """
        if not callable(callback):
            raise TypeError("callback must be callable")
        state = _CallbackState(callback, self)
        thunk = _lib.EVENT_FN(state)
        return self._subscribe(_options(kinds, policy, capacity), thunk, state,
                               Subscription)

    def events(self, *, kinds: str | Sequence[str] | None = None, policy: str = "queue",
               capacity: int | None = None) -> PollSubscription:
        """Subscribe for polling: events from now on wait in a queue until
        you take them with :meth:`PollSubscription.poll` or iterate.

        Args:
            kinds: event kinds to receive (default: all; see :meth:`subscribe`).
            policy: ``"queue"`` (default here: every event in order) or
                ``"latest"`` (``flight``/``tick`` coalesce to the newest).
            capacity: queue length, 1..65536 (default 1024).

        Example::

            with s.events(kinds=["phase"]) as sub:
                s.start(); s.stop()
                for ev in sub:          # the events waiting now
                    print(ev["to"])

        Raises:
            ArgumentError: an unknown kind, policy or a capacity below 1.
            LimitError: a capacity above 65536, or the session already has
                256 subscriptions.
        """
        return self._subscribe(_options(kinds, policy, capacity), _lib.EVENT_FN(), None,
                               PollSubscription)

    def _subscribe(self, options: bytes | None, thunk: Any, state: _CallbackState | None,
                   cls: type[Subscription]) -> Any:
        out = c_uint64(0)
        h = self._acquire()
        try:
            _lib.lib().runway_subscribe(h, options, thunk, None, byref(out))
            sub = cls(self, out.value, thunk if state is not None else None)
            if state is not None:
                state.sub_id = out.value
            with self._cond:
                self._subs[sub.id] = sub
            return sub
        finally:
            self._release()


class Subscription:
    """A callback subscription, returned by :meth:`Session.subscribe`.

    ``id`` is the library's subscription id; ``active`` is true until the
    subscription is cancelled or its session closed. Use it as a context
    manager to cancel on exit::

        with s.subscribe(print, kinds=["phase"]) as sub:
            s.start()
        # cancelled here

    A subscription does not keep its session alive.
    """

    def __init__(self, session: Session, sub_id: int, thunk: Any) -> None:
        """Created by :meth:`Session.subscribe` / :meth:`Session.events`."""
        self._session_ref = weakref.ref(session)
        self._id = sub_id
        self._thunk = thunk  # the C callback: alive exactly as long as the subscription
        self._active = True
        self._lock = threading.Lock()

    @property
    def id(self) -> int:
        """The subscription id (never 0)."""
        return self._id

    @property
    def active(self) -> bool:
        """True until :meth:`cancel` returned or the session was closed."""
        return self._active

    def cancel(self) -> None:
        """End the subscription. Harmless to call again, or after the session
        was closed.

        From a host thread it returns when the callback is not running and
        will never run again. From inside a callback (this subscription's or
        another's) it does not wait: the callback in progress finishes and no
        later one starts.
        """
        session = self._session_ref()
        if session is None or not self._active:
            return
        try:
            h = session._acquire(raise_pending=False)
        except StateError:
            return  # closed or closing: close() ends every subscription
        try:
            _lib.lib().runway_unsubscribe(h, self._id)
        except NotFoundError:
            # Already ended (a concurrent cancel got there first). Only the
            # call that ended it may release the callback.
            self._active = False
            return
        finally:
            session._release()
        self._active = False
        session._forget(self, retire=_in_any_callback())
        self._thunk = None

    def _ended(self) -> None:
        """The session was closed (after it waited for every callback)."""
        self._active = False
        self._thunk = None

    def __enter__(self) -> Subscription:
        """``with s.subscribe(...) as sub:`` cancels it at the end."""
        return self

    def __exit__(self, *exc: Any) -> None:
        """Cancel the subscription (harmless if already ended)."""
        self.cancel()

    def __repr__(self) -> str:
        """``<librunway.Subscription id=1 active>`` (or ``ended``)."""
        state = "active" if self._active else "ended"
        return f"<runway.{type(self).__name__} id={self._id} {state}>"


class PollSubscription(Subscription):
    """A poll subscription, returned by :meth:`Session.events`.

    Events wait in the subscription's queue until you take them:
    :meth:`poll` returns the next one or ``None``; iterating yields the events
    waiting now and stops when none is waiting (it never blocks; iterate
    again later for newer ones). ``cancel()`` and ``with`` work as for
    :class:`Subscription`.
    """

    def poll(self) -> Event | None:
        """Take the next waiting event as a dict, or ``None`` if none is
        waiting. Never blocks.

        Raises:
            NotFoundError: the subscription was cancelled.
            StateError: the session is closed.
            CallbackError: a callback of the session raised (see
                :meth:`Session.subscribe`).
        """
        session = self._session_ref()
        if session is None:
            raise StateError("session is closed")
        out = c_void_p()
        session._call("runway_poll", c_uint64(self._id), byref(out))
        if not out.value:
            return None
        return json.loads(_lib.take_string(out))

    def __iter__(self) -> Iterator[Event]:
        """Yield the events waiting now, oldest first; stop when none is
        waiting (never blocks)."""
        while True:
            event = self.poll()
            if event is None:
                return
            yield event
