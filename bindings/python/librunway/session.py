"""Sessions (one run each) and their event subscriptions."""

from __future__ import annotations

import re
from ctypes import byref, c_size_t, c_void_p
from typing import Any, Iterable, Mapping

from . import _lib
from .errors import (ArgumentError, CallbackError, InputError, JSONError, NotFoundError,
                     RunwayError, StateError)
# The session's parts, each in a module of its own; every name this module had is re-exported.
from .session_callbacks import _CallbackState, _callback_stack, _in_any_callback, _tls
from .session_encoding import Event, JSONInput, _c_string, _encode, _many_inputs, _number, _time
from .session_handle import (_close_all_at_exit, _open_sessions, _reap, _reapers, _reapers_lock,
                             _SessionHandle)
from .subscription import PollSubscription, Subscription, _options, _SessionSubscriptions

__all__ = ["Session", "Subscription", "PollSubscription", "Event", "JSONInput"]

_LINE_NUMBER = re.compile(r"\bline (\d+)\b")


class Session(_SessionHandle, _SessionSubscriptions):
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
    ``{"type": "cadence", "spm": 172, "t": ...}``. Unknown keys are ignored
    (the first time a session takes each, at most 8 of them, :meth:`log`
    gets a warning naming it: a misspelt ``"heartrate"`` is not lost silently);
    a non-finite number is invalid. Time may not go backwards (equal times
    are fine). Fixes before ``start()`` move the position but add no
    distance; fixes while holding add none either.

    Outputs: :meth:`snapshot` (live flight data), :meth:`summary` (the flight
    record and route), :meth:`log` (recent log lines), and events through
    :meth:`subscribe` (a callback) or :meth:`events` (polling).

    Times: every ``t`` parameter is unix seconds; ``None`` means "now" — with
    the replay clock the latest time, an input's, a command's or a tick's (before
    any input: of the next one), with the live clock the wall clock. A ``t``
    before the latest input, command or lap raises :class:`InputError` (and
    for a command or a tick, before the latest tick too).

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
        phase change and lap, and every tick that moves the clock) and its
        record written at :meth:`stop`; after a crash,
        :func:`librunway.recover` continues it (see ``librunway.store``).
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
    ``target_pace``, ``target_power`` (``{"min": W, "max": W}``: alerts
    ``GPWS_POWER_LOW``/``GPWS_POWER_HIGH`` with values ``power_w``,
    ``target_min_w``/``target_max_w``, ``held_s``), ``hr_ceiling``,
    ``goal_m``, ``minimums_m``: see docs/inputs.md in the repository.

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
    def __init__(self, config: Mapping[str, Any] | str | bytes | None = None) -> None:
        """Open a session in phase ``"preflight"``.

        Args:
            config: ``None`` for the defaults, a dict, or a JSON object as
                ``str``/``bytes`` (keys: see the class docstring). A ``pathlib.Path``
                value (``{"store": Path("runs.db")}``) is its text.

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
    # -- inputs ----------------------------------------------------------------

    def push(self, input: JSONInput) -> None:
        """Push one input: a GPS fix or a sensor sample (shapes: see the class
        docstring). Returns when it is processed: a snapshot read afterwards
        reflects it.

        Args:
            input: a dict (serialized compactly; a NaN or ``None`` value is
                unknown, as the key left out, and a timezone-aware ``datetime``
                its unix seconds), or one JSON object as ``str`` or UTF-8
                ``bytes``.

        Raises:
            JSONError: not JSON, not an object, invalid UTF-8.
            InputError: missing/ill-typed field, out of range (``lat`` 91),
                non-finite (``1e999``, or ±inf in a dict), a naive ``datetime``,
                time going backwards. A rejected input changes nothing.
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
        fix = _lib.runway_fix(_time(t), _number(lat, "lat", required=True), _number(lon, "lon", required=True),
                              _number(alt, "alt"), _number(speed, "speed"), _number(course, "course"),
                              _number(h_acc, "h_acc"), _number(v_acc, "v_acc"))
        self._call("runway_push_fix", byref(fix))

    def push_many(self, inputs: Iterable[JSONInput], *, batch: int = 1000,
                  strict: bool = False) -> tuple[int, int]:
        """Push many inputs, ``batch`` at a time, as JSON Lines.

        Every input is processed, good or bad; a rejected one changes nothing
        and does not stop the others. Strings may end with a newline (lines
        read from a ``.jsonl`` file work as they are); blank ones are skipped
        and counted in neither total.

        Args:
            inputs: an iterable of dicts, JSON ``str`` or ``bytes`` (one object each); one
                dict, ``str`` or ``bytes`` alone is a TypeError (:meth:`push` takes one).
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
            TypeError: ``inputs`` is one dict, ``str`` or ``bytes``, not an iterable of them.
        """
        _many_inputs(inputs)
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
        their boundaries at multiples of that distance from the start. In
        cruise, a lap later than the latest fix (between fixes, or "now" under
        the live clock) waits for the next fix, as one does while a gap waits
        for its confirming fix, or while paused when the pause came after the
        leg's last fix (the next fix measures the stretch before the pause),
        or while steps before it are held (movement not yet confirmed, or
        slow steps while moving: until they are credited, or can no longer
        be: a quiet stretch, a pause or auto-pause, the stop, positions
        falling silent while speed samples measure on): the split comes then (or
        with the next command), timed ``t``, with its share of the step it
        falls in and of the held metres. Before
        any fix or speed sample (a heart-rate strap alone) it is cut at once.

        Raises StateError outside ``cruise`` and ``holding``, or when nothing
        (no time, no distance) has passed since the last lap; InputError for
        a ``t`` before the latest input."""
        self._call("runway_lap", _time(t))

    # -- outputs -------------------------------------------------------------------

    def snapshot(self) -> Event:
        """The latest flight data: the same dict a ``"flight"`` event carries.

        Keys include ``phase``, ``t``, ``lat``, ``lon``, ``distance_m``,
        ``elapsed_s`` (cruise time only), ``speed_mps`` (the device's raw
        speed: the fix's, or a speed sample's where one measures the flight,
        positions silent), ``ground_speed_mps`` (distance over time across the pace
        window), ``pace_min_per_km`` (from ``ground_speed_mps``),
        ``avg_pace_min_per_km``, ``altitude_m``, ``heading_deg``, ``hr_bpm``,
        ``cadence_spm``, ``power_w`` (the mean of the last 3 s of power samples),
        ``power_10s_w`` (the covered power of the last 10 s), ``avg_power_w``,
        ``max_power_w``, ``normalized_power_w`` (the flight's so far),
        ``lap_avg_power_w``, ``lap_max_power_w``, ``lap_normalized_power_w``
        (the current lap's so far: what its ``"split"`` gives if it ends at the
        latest input; a tick moves the clock, not the power figures),
        ``points`` (kept fixes), ``fixes`` (all fixes),
        ``accuracy``, ``last_fix_t`` (the time of the fix ``lat``/``lon``/
        ``speed_mps`` come from: once the clock is past it by more than the
        pace window, ``speed_mps`` is ``None`` and ``accuracy``
        ``"unknown"``, and so are the ground speed and pace unless a speed
        sample measured them since), ``seq`` (of the latest event) and ``pfd`` (display
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
