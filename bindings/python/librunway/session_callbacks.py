"""Library callbacks into Python: which sessions' callbacks this thread is running, and the
trampoline a C callback calls.

Part of :mod:`librunway.session`, which re-exports every name here.
"""

from __future__ import annotations

import json
import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable

from .session_encoding import Event

if TYPE_CHECKING:
    from .session import Session

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
