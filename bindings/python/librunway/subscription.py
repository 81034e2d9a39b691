"""Event subscriptions: :class:`Subscription` (a callback) and :class:`PollSubscription`
(polling), and the :class:`librunway.Session` methods that make them (``subscribe``,
``events``).

:mod:`librunway.session` re-exports every name here.
"""

from __future__ import annotations

import json
import threading
import weakref
from ctypes import byref, c_uint64, c_void_p
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from . import _lib
from .errors import NotFoundError, StateError
from .session_callbacks import _CallbackState, _in_any_callback
from .session_encoding import Event, _encode
from .session_handle import SESSION_CLOSED

if TYPE_CHECKING:
    from .session import Session


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


class _SessionSubscriptions:
    """The subscription methods of :class:`librunway.Session` (a mixin: they use its handle)."""

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
        ``"log"`` (``level``, ``message``), ``"split"``, ``"alert"`` (``code``,
        ``message``, ``values``: e.g. ``GPWS_POWER_LOW`` with ``power_w``,
        ``target_min_w``, ``held_s``; docs/events.md lists the codes), and
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
            raise StateError(SESSION_CLOSED)
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
