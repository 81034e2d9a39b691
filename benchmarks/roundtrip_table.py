"""The round-trip table of docs/export-import.md: every recording in ../shared/tracks analysed,
exported as GPX, TCX and FIT, and each export analysed again with the flight's activity.

Each cell: the re-analysed flight's distance, moving time and elevation gain against the flight's,
and its segments of the flight's ("the same" when a cell equals the GPX one). Prints the Markdown table;
Tests/python/test_roundtrip_table.py checks that the docs carry exactly this table.

    RUNWAY_LIBRARY=build/librunway.so PYTHONPATH=bindings/python python3 benchmarks/roundtrip_table.py
"""
import os
import sys

import librunway

HERE = os.path.dirname(os.path.abspath(__file__))
TRACKS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared", "tracks")
HEADER = ["| recording | GPX | TCX | FIT |", "|---|---|---|---|"]


def recordings(tracks: str = TRACKS) -> list[str]:
    names = sorted(n for n in os.listdir(tracks) if n.rsplit(".", 1)[-1] in ("gpx", "tcx", "fit"))
    return [n for n in names if "Mojstrovka" not in n]   # its 1901 times are refused, by design


def percent(again: float, flight: float) -> str:
    """`again` against `flight` in per cent ("—" when the flight's figure is 0: no ratio)."""
    if not flight:
        return "\u2014"
    s = f"{100 * (again / flight - 1):+.2f} %"
    return s.replace("-", "\u2212") if s not in ("+0.00 %", "-0.00 %") else "0.00 %"


def row(name: str, tracks: str = TRACKS) -> str:
    flight = librunway.analyse(os.path.join(tracks, name))
    s = flight.summary
    cells = []
    for fmt in ("gpx", "tcx", "fit"):
        again = librunway.analyse(flight.export(fmt), {"activity": s["activity"]}, format=fmt).summary
        cell = (f"{percent(again['distance_m'], s['distance_m'])}, "
                f"{percent(again['moving_s'], s['moving_s'])}, "
                f"{percent(again['gain_m'], s['gain_m'])}, "
                f"{again['segments']} of {s['segments']}")
        cells.append("the same" if cells and cell == cells[0] else cell)
    return f"| `{name}` | " + " | ".join(cells) + " |"


def table(tracks: str = TRACKS) -> list[str]:
    return HEADER + [row(n, tracks) for n in recordings(tracks)]


if __name__ == "__main__":
    sys.stdout.write("\n".join(table()) + "\n")
