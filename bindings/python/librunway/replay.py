"""``librunway replay FILE``: replay a recorded run through librunway with a live terminal PFD.

Reads a GPX, TCX or FIT file, which librunway itself turns into inputs
(librunway.import_recording, as librunway.analyse and ``librunway summary`` read
it: the same points, a GPX or TCX file's segment breaks and a FIT file's timer
stops replayed as pauses, and the same refusals; a library without it says so
and the replay exits 1), or a JSON Lines file (one librunway fix a line, as in
/work/shared/tracks/fixes/*.jsonl; a line's "hr" becomes a heart-rate sample and
"cad"/"cadence" a cadence sample; lines with a "type" are passed on as samples).
A GPX description's "true distance: N m" (a simulated run's) is printed beside
the engine's distance.

The session uses the profile the file names (its import report's ``activity``: a
cycling FIT or TCX is replayed as a ride, walking or hiking as a walk; else the
default, run) unless --config sets "activity"; the summary says which.

Each point is pushed into a librunway.Session with the replay clock: the flight
starts at the first point's time (or at a first start line's: a FIT file's timer
started before its first record) and stops at the last's, and between points
the command sleeps according to the timestamps divided by --speed (--speed 60:
a minute of run per second; --speed 0: as fast as possible). A subscription to
flight and phase events (policy "latest") drives the display: on a terminal
one status block redrawn in place with ANSI escapes, otherwise one plain line
per update; at most 10 updates per second either way. Phase changes print as
lines ("phase: preflight -> cruise"). At the end the flight summary is printed.

--store PATH journals the flight to a librunway store (SQLite; the file and
its folder are created if missing): the end says "stored flight <id> in <PATH>", and the flight can be
listed, read, exported or deleted later with librunway.flights(PATH) and friends.
--export gpx,fit (any of gpx, tcx, fit, geojson, csv) writes the flight in those
formats to --out-dir (default ./runway-out) as <flight id>.<format> with a
store, else <input name>.<format>, and prints each path.

Exit status: 0 after a replay (inputs the engine rejects, such as a time going
backwards, are reported and skipped), 2 when the file cannot be read or parsed,
the config is invalid or the library fails, 130 when interrupted. Errors are one
line on stderr, starting "librunway replay: ".

Examples:
    librunway replay examples/data/city_run.gpx --speed 120
    python -m librunway replay run.fit --speed 0 --store runs.db --export gpx,fit --out-dir out
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import time
from dataclasses import dataclass, field

import librunway
from ._args import ArgumentParser
from .cli import _mismatch_warning
# Reading the file and drawing the display are in modules of their own; every name this module
# had is re-exported.
from .analysis import _add_file_settings as add_file_settings
from .recording import split_report
from .replay_display import _ANSI, MIN_REDRAW_INTERVAL_S, Display, _fit, _tape
from .replay_input import (IMPORTED_FORMATS, InputFileError, Point, Track, _is_number,
                           _load_track, _local, _true_distance, file_settings, gpx_true_distance,
                           load_imported, load_jsonl, load_track)

PROG = "librunway replay"
PHASE_WAIT_S = 5.0              # how long to wait for the final phase event
MAX_REJECTS_SHOWN = 5
DEFAULT_OUT_DIR = "runway-out"
EXPORT_FORMATS = ("gpx", "tcx", "fit", "geojson", "csv")


def _nan(value) -> float:
    return float(value) if _is_number(value) else math.nan


def print_summary(summary: dict, track: Track, rejected: int, out,
                  chosen: bool = False, fix_altitude: str | None = None) -> None:
    distance = summary.get("distance_m")
    lines = ["", "flight summary"]
    if summary.get("activity"):
        why = ("--config" if chosen else "named by the file" if track.activity else "default")
        lines.append(f"  profile       {summary['activity']} ({why})")
    if _is_number(distance):
        lines.append(f"  distance      {librunway.format_distance(distance)} km ({distance:.1f} m)")
    else:
        lines.append("  distance      --")
    if track.true_distance_m is not None and _is_number(distance) and track.true_distance_m > 0:
        off = (distance / track.true_distance_m - 1) * 100
        lines.append(f"  true distance {librunway.format_distance(track.true_distance_m)} km "
                     f"({track.true_distance_m:.1f} m, from the file; engine {off:+.1f}%)")
    lines.append(f"  flight time   {librunway.format_time(_nan(summary.get('elapsed_s')))}")
    avg_pace = librunway.format_pace(_nan(summary.get("avg_pace_min_per_km")))
    lines.append(f"  average pace  {avg_pace} /km")
    gain, loss = summary.get("gain_m"), summary.get("loss_m")
    if _is_number(gain) and _is_number(loss):
        source = f" ({fix_altitude} altitude)" if fix_altitude else ""
        lines.append(f"  climb         +{gain:.1f} m, -{loss:.1f} m{source}")
    avg_hr, max_hr = summary.get("avg_hr_bpm"), summary.get("max_hr_bpm")
    if _is_number(avg_hr) or _is_number(max_hr):
        lines.append("  heart rate    avg "
                     + (f"{avg_hr:.0f}" if _is_number(avg_hr) else "--") + " bpm, max "
                     + (f"{max_hr:.0f}" if _is_number(max_hr) else "--") + " bpm")
    avg_cad = summary.get("avg_cadence_spm")
    if _is_number(avg_cad):
        lines.append(f"  cadence       avg {avg_cad:.0f} spm")
    kept = summary.get("points")
    # (a recording's lap lines, its device's laps, are replayed too, but are no points)
    replayed = sum(1 for p in track.points
                   if p.fix is not None or any(x.get("type") not in ("lap", "device_lap") for x in p.samples))
    lines.append(f"  points        {replayed} replayed"
                 + (f", {kept} kept on the route" if _is_number(kept) else "")
                 + f", {rejected} rejected")
    out.write("\n".join(lines) + "\n")
    out.flush()


@dataclass
class Outputs:
    """Where the flight goes besides the screen: a store, export files."""
    name: str                               # the input's name, for exports without a store
    store: str | None = None
    formats: list[str] = field(default_factory=list)
    out_dir: str = DEFAULT_OUT_DIR


def _file_name(text: str) -> str:
    """A flight id or input name made safe as a file name."""
    safe = re.sub(r"[^A-Za-z0-9._+-]", "_", text).lstrip(".")
    return safe or "flight"


def save_outputs(session, outputs: Outputs, out) -> None:
    """After the flight: say where it is stored and write its exports."""
    flight_id = session.flight_id
    lines = []
    if flight_id is not None:
        lines.append(f"stored flight {flight_id} in {outputs.store}")
    if outputs.formats:
        os.makedirs(outputs.out_dir, exist_ok=True)
        base = _file_name(flight_id or outputs.name)
        for fmt in outputs.formats:
            path = os.path.join(outputs.out_dir, f"{base}.{fmt}")
            data = session.export(fmt)
            with open(path, "wb") as f:
                f.write(data)
            lines.append(f"exported {fmt} ({len(data)} bytes) to {path}")
    if lines:
        out.write("\n" + "\n".join(lines) + "\n")
        out.flush()


def replay(track: Track, config, speed: float, out, outputs: Outputs | None = None, *,
           path: str | None = None) -> int:
    """Replay ``track`` into a session with ``config``; ``path`` (the file) names it in warnings."""
    points = track.points
    display = Display(out, len(points), tty=out.isatty())
    rejected = 0
    latest_t = points[0].t

    def push(session, item: dict, where: str) -> bool:
        nonlocal rejected
        try:
            session.push(item)
            return True
        except librunway.RunwayError as exc:
            rejected += 1
            if rejected <= MAX_REJECTS_SHOWN:
                display.note(f"{PROG}: {where} rejected: {exc}", error=True)
            elif rejected == MAX_REJECTS_SHOWN + 1:
                display.note(f"{PROG}: further rejections not shown", error=True)
            return False

    with librunway.Session(config) as session:
        subscription = session.subscribe(display.on_event, kinds=["flight", "phase"],
                                         policy="latest")
        display.start()
        final = None
        interrupted = False
        try:
            # At the first point's time: a first start line's is then already true when pushed.
            session.start(points[0].t)
            wall0 = time.monotonic()
            try:
                for index, point in enumerate(points, 1):
                    if speed > 0:
                        delay = wall0 + (point.t - points[0].t) / speed - time.monotonic()
                        if delay > 0:
                            time.sleep(delay)
                    accepted = True
                    if point.fix is not None:
                        accepted = push(session, point.fix, f"point {index}")
                    if accepted:
                        latest_t = max(latest_t, point.t)
                        for sample in point.samples:
                            push(session, sample, f"point {index} {sample.get('type')} sample")
                    display.done = index
            except KeyboardInterrupt:
                interrupted = True
            # Stop at the last point's time (the latest accepted one if the last was rejected).
            session.stop(latest_t)
            # The phase event comes on the library's thread: let it reach the screen.
            display.touchdown.wait(PHASE_WAIT_S)
            subscription.cancel()
            final = session.snapshot()
        finally:
            display.close(final)
        summary = session.summary()
        # A ride replayed as a run (its fixes refused as too fast): say so, where errors go.
        warning = _mismatch_warning(summary)
        if warning is not None:
            print(f"{PROG}: {path + ': ' if path else ''}{warning}", file=sys.stderr)
        print_summary(summary, track, rejected, out,
                      chosen=bool(config) and "activity" in config and
                      config.get("activity") != track.activity,
                      fix_altitude=(config or {}).get("fix_altitude"))
        if outputs is not None:
            save_outputs(session, outputs, out)
    return 130 if interrupted else 0


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the replay command (``librunway replay``); ``prog`` names it in its messages."""
    global PROG
    if prog is not None:
        PROG = prog
    parser = ArgumentParser(
        prog=PROG,
        description="Replay a GPX, JSON Lines, FIT or TCX run through librunway with a live "
                    "terminal PFD; optionally store the flight and export it.")
    parser.add_argument("path", help="a .gpx file, a .jsonl file of fixes, or a .fit or .tcx "
                                     "file (read by librunway)")
    parser.add_argument("--speed", type=float, default=60.0,
                        help="run seconds replayed per wall second (default 60; 0 = as fast "
                             "as possible)")
    parser.add_argument("--config", metavar="JSON",
                        help='session config, e.g. \'{"distance_filter_m": 0}\'')
    parser.add_argument("--salvage", action="store_true",
                        help="read what a damaged (truncated) FIT, GPX or TCX file holds before the damage "
                             "instead of refusing it")
    parser.add_argument("--store", metavar="PATH",
                        help="journal the flight to this librunway store (SQLite; it and its "
                             "folder are created if missing) and print its flight id")
    parser.add_argument("--export", metavar="FORMAT[,FORMAT...]",
                        help=f"write the flight as any of {', '.join(EXPORT_FORMATS)} "
                             "(comma-separated) to --out-dir")
    parser.add_argument("--out-dir", metavar="DIR", default=DEFAULT_OUT_DIR,
                        help=f"folder for --export files (default ./{DEFAULT_OUT_DIR}); named "
                             "<flight id>.<format> with --store, else <input name>.<format>")
    args = parser.parse_args(argv)
    if not args.speed >= 0 or math.isinf(args.speed):
        parser.error("--speed must be a finite number >= 0")
    formats: list[str] = []
    if args.export is not None:
        for fmt in (f.strip().lower() for f in args.export.split(",")):
            if fmt not in EXPORT_FORMATS:
                parser.error(f"--export: unknown format {fmt!r} "
                             f"(expected any of {', '.join(EXPORT_FORMATS)})")
            if fmt not in formats:
                formats.append(fmt)
    name = os.path.basename(args.path)
    for ext in (".jsonl", ".ndjson", ".json", ".gpx", ".fit", ".tcx"):
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
            break
    outputs = Outputs(name=name, store=args.store, formats=formats, out_dir=args.out_dir)

    config = None
    if args.config is not None:
        try:
            config = json.loads(args.config)
        except json.JSONDecodeError as exc:
            print(f"{PROG}: --config is not JSON: {exc.msg}", file=sys.stderr)
            return 2
        if not isinstance(config, dict):
            print(f"{PROG}: --config must be a JSON object", file=sys.stderr)
            return 2
    if args.store is not None:
        if config is not None and "store" in config:
            print(f"{PROG}: give the store either with --store or in --config, not both",
                  file=sys.stderr)
            return 2
        config = dict(config or {}, store=args.store)
        try:
            os.makedirs(os.path.dirname(args.store) or ".", exist_ok=True)
        except OSError as exc:
            print(f"{PROG}: --store {args.store}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    elif config is not None and isinstance(config.get("store"), str):
        outputs.store = config["store"]

    try:
        track = load_track(args.path, args.salvage)
    except InputFileError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    # What the file names, where --config is silent: the library's rule, as librunway.analyse
    # applies it (librunway.replay_config).
    try:
        config = track.config(config)
    except librunway.RunwayError as exc:
        print(f"{PROG}: --config: {exc}", file=sys.stderr)
        return 2
    if track.skipped_untimed:
        print(f"{PROG}: {track.skipped_untimed} track points without a time skipped",
              file=sys.stderr)

    try:
        return replay(track, config, args.speed, sys.stdout, outputs, path=args.path)
    except librunway.RunwayError as exc:
        # Named after the file, as the other commands' errors are (a time the session refuses).
        message = str(exc)
        where = "" if message.startswith(args.path) else f"{args.path}: "
        print(f"{PROG}: {where}{message}", file=sys.stderr)
        return 1
    except OSError as exc:              # the library could not be loaded, an export not written
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
