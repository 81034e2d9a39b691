"""The live display of ``librunway replay``: flight events drawn as a PFD block redrawn in
place on a terminal, or as plain lines, at most 10 times a second.

Part of :mod:`librunway.replay`, which re-exports every name here.
"""

from __future__ import annotations

import re
import shutil
import sys
import threading
import time

MIN_REDRAW_INTERVAL_S = 0.1     # at most 10 display updates per second of wall time


def _tape(values, centre: int) -> str:
    """A tape (list of strings, or a space-separated string) with its centre bracketed."""
    items = values.split() if isinstance(values, str) else list(values or [])
    if not items:
        return ""
    centre = min(centre, len(items) - 1)
    return " ".join(f"[{v}]" if i == centre else f" {v} " for i, v in enumerate(items)).rstrip()


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _fit(row: str, width: int) -> str:
    """The row as it is if it fits the terminal, else its plain text cut to the width
    (a wrapped row would break the cursor-up redraw)."""
    plain = _ANSI.sub("", row)
    return row if len(plain) <= width else plain[:width]


class Display:
    """Draws flight events as a PFD block (TTY) or plain lines, at most 10 times a second.

    on_event() runs on a library thread and only stores the event; a renderer
    thread of our own does the drawing, so the library thread never waits on
    the terminal and the newest state is always drawn in the end.
    """

    def __init__(self, out, total_points: int, tty: bool):
        self.out = out
        self.total = total_points
        self.tty = tty
        self.done = 0                     # points pushed so far (written by the replay loop)
        self.touchdown = threading.Event()
        self._cond = threading.Condition()
        self._lines: list[tuple[str, bool]] = []   # (text, to stderr)
        self._pending: dict | None = None
        self._closing = False
        self._block_height = 0
        self._last: dict | None = None
        self._started = False
        self._thread = threading.Thread(target=self._run, name="replay-display", daemon=True)

    # -- producers (any thread)

    def on_event(self, event: dict) -> None:
        kind = event.get("kind")
        with self._cond:
            if kind == "flight":
                self._pending = event
            elif kind == "phase":
                self._lines.append((f"phase: {event.get('from')} -> {event.get('to')}", False))
            elif kind == "overflow":
                self._lines.append((f"display: {event.get('dropped')} events dropped", True))
            else:
                return
            self._cond.notify()
        if kind == "phase" and event.get("to") == "touchdown":
            self.touchdown.set()

    def note(self, text: str, error: bool = False) -> None:
        with self._cond:
            self._lines.append((text, error))
            self._cond.notify()

    # -- lifecycle

    def start(self) -> None:
        if self.tty:
            self.out.write("\x1b[?25l")      # hide the cursor while redrawing
        self._thread.start()
        self._started = True

    def close(self, final_snapshot: dict | None) -> None:
        """Stop the renderer, then draw the final state (unthrottled) and leave the block."""
        if not self._started:
            return
        self._started = False
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join()
        self._emit([], final_snapshot)
        if self.tty:
            self.out.write("\x1b[?25h")
        self.out.flush()

    # -- renderer thread

    def _run(self) -> None:
        next_draw = 0.0
        while True:
            with self._cond:
                while not (self._lines or self._closing):
                    if self._pending is None:
                        self._cond.wait()
                        continue
                    wait = next_draw - time.monotonic()
                    if wait <= 0:
                        break
                    self._cond.wait(wait)
                lines, self._lines = self._lines, []
                flight = None
                if self._pending is not None and time.monotonic() >= next_draw:
                    flight, self._pending = self._pending, None
                closing = self._closing
            self._emit(lines, flight)
            if flight is not None:
                next_draw = time.monotonic() + MIN_REDRAW_INTERVAL_S
            if closing:
                return

    def _emit(self, lines: list[tuple[str, bool]], flight: dict | None) -> None:
        if flight is not None:
            self._last = flight
        if not lines and flight is None:
            return
        if self.tty and self._block_height:
            # Back to the top of the block and clear it: notes go above the new block.
            self.out.write(f"\x1b[{self._block_height}F\x1b[J")
            self._block_height = 0
        for text, error in lines:
            if error:
                self.out.flush()
                print(text, file=sys.stderr, flush=True)
            else:
                self.out.write(text + "\n")
        if self.tty and self._last is not None:
            width = max(shutil.get_terminal_size((80, 24)).columns - 1, 20)
            rows = [_fit(row, width) for row in self._block(self._last)]
            self.out.write("\n".join(rows) + "\n")
            self._block_height = len(rows)
        elif flight is not None:
            self.out.write(self._line(flight) + "\n")
        self.out.flush()

    # -- formatting

    @staticmethod
    def _fields(ev: dict) -> dict:
        pfd = ev.get("pfd") or {}
        return {
            "phase": ev.get("phase", "?"),
            "pace": pfd.get("pace", "--:--"),
            "pace_tape": pfd.get("pace_tape", []),
            "direction": pfd.get("direction", "--"),
            "heading_tape": pfd.get("heading_tape", []),
            "distance": pfd.get("distance", "--"),
            "time": pfd.get("time", "--:--:--"),
            "avg_pace": pfd.get("avg_pace", "AVG --:--"),
            "altitude": pfd.get("altitude", "--"),
            "hr": pfd.get("hr") if ev.get("hr_bpm") is not None else None,
            "cadence": pfd.get("cadence") if ev.get("cadence_spm") is not None else None,
        }

    def _progress(self, width: int) -> tuple[str, str]:
        done = min(self.done, self.total)
        filled = round(width * done / self.total) if self.total else width
        return "#" * filled + "-" * (width - filled), f"{done}/{self.total}"

    def _block(self, ev: dict) -> list[str]:
        f = self._fields(ev)
        bar, count = self._progress(40)
        sensors = ""
        if f["hr"] is not None:
            sensors += f"   HR {f['hr']} bpm"
        if f["cadence"] is not None:
            sensors += f"   CAD {f['cadence']} spm"
        return [
            f" PACE  \x1b[1m{f['pace']:>5}\x1b[0m /km   {_tape(f['pace_tape'], 2)}",
            f" HDG   \x1b[1m{f['direction']:>5}\x1b[0m       {_tape(f['heading_tape'], 1)}",
            f" DIST  \x1b[1m{f['distance']:>5}\x1b[0m km    TIME {f['time']}"
            f"   {f['avg_pace']} /km",
            f" ALT   {f['altitude']:>5} m{sensors}",
            f" [{bar}] {count} points  {f['phase']}",
        ]

    def _line(self, ev: dict) -> str:
        f = self._fields(ev)
        _, count = self._progress(0)
        pace_tape = " ".join(f["pace_tape"]) if not isinstance(f["pace_tape"], str) \
            else f["pace_tape"]
        heading_tape = " ".join(f["heading_tape"]) if not isinstance(f["heading_tape"], str) \
            else f["heading_tape"]
        text = (f"[{count}] {f['phase']}  dist {f['distance']} km  time {f['time']}  "
                f"pace {f['pace']}" + (f" ({pace_tape})" if pace_tape else "")
                + f"  {f['avg_pace'].lower()}  hdg {f['direction']}"
                + (f" ({heading_tape})" if heading_tape else "") + f"  alt {f['altitude']} m")
        if f["hr"] is not None:
            text += f"  hr {f['hr']}"
        if f["cadence"] is not None:
            text += f"  cad {f['cadence']}"
        return text
