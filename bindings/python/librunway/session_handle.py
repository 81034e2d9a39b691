"""A session's library handle: calls made safe from any thread and from callbacks, close,
and closing the sessions the host forgot (garbage collection, interpreter exit).

:class:`librunway.Session` is built on :class:`_SessionHandle`; :mod:`librunway.session`
re-exports every name here.
"""

from __future__ import annotations

import atexit
import itertools
import json
import threading
import weakref
from ctypes import byref, c_void_p
from typing import TYPE_CHECKING, Any

from . import _lib
from .errors import CallbackError, RunwayError, StateError
from .session_callbacks import _in_any_callback, _tls

if TYPE_CHECKING:
    from .session import Session
    from .subscription import Subscription

#: The StateError of a call on a closed session: most often summary() or export() after the
#: ``with`` block, whose end closed it.
SESSION_CLOSED = ("session is closed: read its summary, snapshot or export before close() "
                  "(inside its with block); a new flight needs a new Session")

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


class _SessionHandle:
    """The library handle a :class:`librunway.Session` owns: every call holds it, so
    :meth:`close` waits for the calls in progress and for every callback before it frees it."""

    _keys = itertools.count(1)

    def _setup(self) -> None:
        self._handle: int | None = None
        self._key = next(_SessionHandle._keys)
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
            raise StateError(SESSION_CLOSED)
        return c_void_p(h)

    def _acquire(self, raise_pending: bool = True) -> int:
        """Enter a library call: the handle stays valid until _release()."""
        err = None
        with self._cond:
            if self._handle is None or self._closing:
                raise StateError(SESSION_CLOSED)
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
