"""The ``librunway`` command (also ``python -m librunway``).

::

    librunway summary FILE...                  a table: one row per recording
    librunway splits FILE [--every M]          its laps (1 km by default)
    librunway export FILE --to gpx|tcx|fit|geojson|csv [-o OUT]
    librunway replay FILE [--speed N]          the live terminal PFD
    librunway plot FILE [-o run.png]           a picture: map by pace, profiles by distance
    librunway batch DIR... [--out figures.csv|figures.parquet]   Dask, with a progress bar

Every FILE is a GPX, TCX or FIT recording, replayed with the profile it names (a cycling
file as a ride). Errors are one line on stderr (``librunway summary: run.fit: ...``) and a
non-zero exit status: 1 when a file or the library fails, 2 for a usage error, 130 when
interrupted. ``--help`` on each command lists its options.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any, Callable, Optional

from ._args import ArgumentParser
from .errors import LibraryError, RunwayError

__all__ = ["main"]

PROG = "librunway"

# The laps --every may ask for: the session config's "auto_lap_m" range (besides 0, off).
AUTO_LAP_MIN_M, AUTO_LAP_MAX_M = 10.0, 1_000_000.0


class _Failed(Exception):
    """A one-line error for the command's stderr (exit status 1)."""


class _Usage(_Failed):
    """A bad option value: a usage error, as argparse's own (exit status 2)."""


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _clock(seconds: Any) -> str:
    if not _finite(seconds):
        return "--"
    h, rem = divmod(round(seconds), 3600)
    return f"{h}:{rem // 60:02d}:{rem % 60:02d}"


def _pace(minutes: Any) -> str:
    if not _finite(minutes) or minutes <= 0 or minutes >= 100:
        return "--"
    m, s = divmod(round(minutes * 60), 60)
    return f"{m}:{s:02d}"


def _num(v: Any, fmt: str = ".0f") -> str:
    return format(v, fmt) if _finite(v) else "--"


def _table(header: list[str], rows: list[list[str]], right: set[int]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def _config(text: Optional[str]) -> Optional[dict]:
    if text is None:
        return None
    try:
        config = json.loads(text)
    except json.JSONDecodeError as e:
        raise _Usage(f"--config is not JSON: {e.msg}") from None
    if not isinstance(config, dict):
        raise _Usage("--config must be a JSON object")
    return config


def _mismatch_warning(summary: Any) -> Optional[str]:
    """A flight's profile mismatch (``summary["profile_mismatch"]``: fixes refused as too fast
    for its profile, agreeing at a faster one's speed) as a warning, or None without one."""
    m = summary.get("profile_mismatch") if isinstance(summary, dict) else None
    if not isinstance(m, dict) or not isinstance(m.get("suggested"), str):
        return None
    suggested, agreeing = m["suggested"], m.get("refused")
    speed = (summary.get("filtered") or {}).get("speed") if isinstance(
        summary.get("filtered"), dict) else None
    refused = speed if isinstance(speed, int) else agreeing
    return (f"warning: {refused} fixes refused as too fast for a {summary.get('activity')}"
            f"{f', {agreeing} of them at a {suggested} speed' if agreeing != refused else ''}: "
            f"is it a {suggested}? (--config '{{\"activity\":\"{suggested}\"}}')")


def _warn(command: str, path: str, f: Any) -> None:
    warning = _mismatch_warning(f.summary)
    if warning is not None:
        print(f"{PROG} {command}: {path}: {warning}", file=sys.stderr)


def _analyse(path: str, config: Optional[dict], salvage: bool = False) -> Any:
    from .analysis import analyse

    try:
        return analyse(path, config, salvage=salvage)
    except RunwayError as e:
        message = str(e)
        raise _Failed(message if message.startswith(path) else f"{path}: {message}") from None


# ---- commands -------------------------------------------------------------------------------

def _shown(name: str) -> str:
    """A file name for the table on stdout: one that is not UTF-8 (``os.fsdecode`` gives its
    bytes as surrogates, which a UTF-8 locale's stdout refuses) with those bytes as ``\\xNN``
    escapes (``caf\\xe9.fit``)."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def cmd_summary(args: argparse.Namespace) -> int:
    config = _config(args.config)
    header = ["file", "activity", "km", "time", "moving", "pace", "km/h", "gain m", "avg HR",
              "max HR", "laps"]
    rows, failures, warned = [], [], []
    for path in args.files:
        try:
            f = _analyse(path, config, args.salvage)
        except _Failed as e:
            failures.append(str(e))
            continue
        warned.append((path, f))
        s = f.summary
        rows.append([_shown(os.path.basename(path)), f.activity or "--",
                     _num(s.get("distance_m") / 1000 if _finite(s.get("distance_m")) else None,
                          ".2f"),
                     _clock(s.get("elapsed_s")), _clock(s.get("moving_s")),
                     _pace(s.get("avg_pace_min_per_km")),
                     _num(s["avg_speed_mps"] * 3.6 if _finite(s.get("avg_speed_mps")) else None,
                          ".1f"),
                     _num(s.get("gain_m")), _num(s.get("avg_hr_bpm")), _num(s.get("max_hr_bpm")),
                     str(len(f.laps))])
    if rows:
        print(_table(header, rows, right=set(range(2, len(header)))))
    for path, f in warned:
        _warn("summary", path, f)
    for message in failures:
        print(f"{PROG} summary: {message}", file=sys.stderr)
    return 1 if failures else 0


def cmd_splits(args: argparse.Namespace) -> int:
    config = dict(_config(args.config) or {})
    if args.every is not None:
        if not (AUTO_LAP_MIN_M <= args.every <= AUTO_LAP_MAX_M):   # (NaN fails too)
            raise _Usage(f"--every must be {AUTO_LAP_MIN_M:.0f} to {AUTO_LAP_MAX_M:.0f} metres "
                         f"(not {args.every!r})")
        config["auto_lap_m"] = args.every
    f = _analyse(args.file, config, args.salvage)
    _warn("splits", args.file, f)
    rows = []
    at = 0.0
    for lap in f.laps:
        d = lap.get("distance_m")
        at += d if _finite(d) else 0.0
        rows.append([str(lap.get("index")), lap.get("trigger") or "", _num(d, ".0f"),
                     _clock(lap.get("elapsed_s")), _pace(lap.get("pace_min_per_km")),
                     _num(lap.get("avg_hr_bpm")), _num(lap.get("gain_m")),
                     _num(lap.get("loss_m")), f"{at / 1000:.2f}"])
    print(_table(["lap", "trigger", "m", "time", "pace", "avg HR", "gain m", "loss m",
                  "total km"], rows, right={0, 2, 3, 4, 5, 6, 7, 8}))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    f = _analyse(args.file, _config(args.config), args.salvage)
    _warn("export", args.file, f)
    data = f.export(args.to)
    if args.output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    out = args.output or os.path.splitext(os.path.basename(args.file))[0] + "." + args.to
    if os.path.exists(out) and os.path.samefile(out, args.file):
        raise _Failed(f"{out}: is the input; name another with -o")
    try:
        with open(out, "wb") as fh:
            fh.write(data)
    except OSError as e:
        raise _Failed(f"{out}: {e.strerror or e}") from None
    print(f"wrote {out} ({args.to}, {len(data)} bytes)")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    f = _analyse(args.file, _config(args.config), args.salvage)
    _warn("plot", args.file, f)
    out = args.output or os.path.splitext(os.path.basename(args.file))[0] + ".png"
    try:
        f.plot(out, title=args.title)
    except ImportError as e:
        raise _Failed(str(e)) from None
    except (OSError, ValueError) as e:
        raise _Failed(f"{out}: {getattr(e, 'strerror', None) or e}") from None
    print(f"wrote {out}")
    return 0


def cmd_replay(argv: list[str]) -> int:
    from .replay import main as replay_main
    return replay_main(argv)


def cmd_batch(argv: list[str]) -> int:
    from .batch import main as batch_main
    return batch_main(argv, prog=f"{PROG} batch")


# ---- parser ---------------------------------------------------------------------------------

_FORWARDED: dict[str, tuple[Callable[[list[str]], int], str]] = {
    "replay": (cmd_replay, "replay a recording with a live terminal PFD (--speed N)"),
    "batch": (cmd_batch, "figures of every recording under DIR, on Dask (--out FILE.csv|.parquet)"),
}


def _parser() -> ArgumentParser:
    p = ArgumentParser(prog=PROG, description="librunway's command line: figures, laps, "
                       "exports, live replays and pictures of GPX, TCX and FIT recordings.",
                       epilog="Each FILE is replayed with the profile its file names "
                              "(cycling: ride). `librunway COMMAND --help` for a command's "
                              "options.")
    from . import __version__
    p.add_argument("--version", action="version", version=f"librunway {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    sub.required = True

    def common(q: ArgumentParser) -> None:
        q.add_argument("--config", metavar="JSON",
                       help='session config, e.g. \'{"hr_max": 185}\' ("activity" overrides '
                            "the file's)")
        q.add_argument("--salvage", action="store_true",
                       help="read what a damaged (truncated) FIT, GPX or TCX file holds before the damage "
                            "instead of refusing it")

    q = sub.add_parser("summary", help="a table of figures, one row per recording",
                       description="Distance, time, moving time, pace, speed, gain, heart rate "
                                   "and laps of each recording, one row each.")
    q.add_argument("files", nargs="+", metavar="FILE")
    common(q)
    q.set_defaults(run=cmd_summary)

    q = sub.add_parser("splits", help="a recording's laps (a FIT or TCX file's own, else every "
                                      "1 km; --every M: a lap every M metres instead)",
                       description="The laps (splits) of a recording: distance, time, pace, "
                                   "heart rate, gain and loss of each.")
    q.add_argument("file", metavar="FILE")
    q.add_argument("--every", type=float, metavar="M",
                   help="a lap every M metres, 10 to 1000000 (the session's auto_lap_m; default "
                        "1000, none for a FIT or TCX file, whose own laps are its laps unless --every "
                        "is given)")
    common(q)
    q.set_defaults(run=cmd_splits)

    q = sub.add_parser("export", help="write the flight as GPX, TCX, FIT, GeoJSON or CSV",
                       description="Replay a recording and write the engine's flight (its "
                                   "filtered route and figures) in another format.")
    q.add_argument("file", metavar="FILE")
    q.add_argument("--to", required=True, choices=("gpx", "tcx", "fit", "geojson", "csv"))
    q.add_argument("-o", "--output", metavar="OUT",
                   help="the file to write (default: FILE's name with the new extension, here; "
                        "'-' = stdout)")
    common(q)
    q.set_defaults(run=cmd_export)

    q = sub.add_parser("plot", help="draw the run: route coloured by pace, profiles by distance",
                       description="A picture of the flight: the route coloured by pace, and "
                                   "elevation, pace and heart rate over distance with the laps "
                                   "marked (PNG, SVG or PDF by the name; needs matplotlib).")
    q.add_argument("file", metavar="FILE")
    q.add_argument("-o", "--output", metavar="OUT",
                   help="the picture to write (default: FILE's name as .png, here)")
    q.add_argument("--title", help="the picture's title (default: name, profile, figures)")
    common(q)
    q.set_defaults(run=cmd_plot)

    for name, (_, text) in _FORWARDED.items():   # their own parsers: listed here for --help
        sub.add_parser(name, help=text, add_help=False)
    return p


def main(argv: Optional[list[str]] = None) -> int:
    """Run the command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        first = next((a for a in argv if not a.startswith("-")), None)
        if first in _FORWARDED and argv and argv[0] == first:
            return _FORWARDED[first][0](argv[1:])
        args = _parser().parse_args(argv)
        return args.run(args)
    except _Usage as e:
        command = getattr(locals().get("args"), "command", None)
        print(f"{PROG}{' ' + command if command else ''}: {e} (--help: usage)", file=sys.stderr)
        return 2
    except _Failed as e:
        command = getattr(locals().get("args"), "command", None)
        print(f"{PROG}{' ' + command if command else ''}: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1
    except (RunwayError, LibraryError, OSError, ImportError, ValueError) as e:
        command = getattr(locals().get("args"), "command", None)
        text = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"{PROG}{' ' + command if command else ''}: {text}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
