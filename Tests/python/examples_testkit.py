"""What the example tests share (test_examples.py, test_replay_outputs.py,
test_readme_and_docs.py): the repository's paths, the sample run, running examples/python/replay.py,
and the skips without the library or ../shared/tracks."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "examples" / "data" / "gen_city_run.py"
SAMPLE = REPO / "examples" / "data" / "city_run.gpx"
REPLAY = REPO / "examples" / "python" / "replay.py"
LIBRARY = Path(os.environ.get("RUNWAY_LIBRARY") or REPO / "build" / "librunway.so")
TRACKS = REPO.parent / "shared" / "tracks"

GPX_NS = "{http://www.topografix.com/GPX/1/1}"
TPX_NS = "{http://www.garmin.com/xmlschemas/TrackPointExtension/v2}"

# The committed sample, as gen_city_run.py makes it with its default seed.
SAMPLE_POINTS = 1628          # one a second
SAMPLE_DURATION_S = 1627

needs_library = pytest.mark.skipif(not LIBRARY.exists(), reason=f"{LIBRARY} not built")
needs_tracks = pytest.mark.skipif(not (TRACKS / "fixes").is_dir(),
                                  reason=f"{TRACKS} absent")


def run_replay(*args: str, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, RUNWAY_LIBRARY=str(LIBRARY),
               PYTHONPATH=str(REPO / "bindings" / "python"))
    return subprocess.run([sys.executable, str(REPLAY), *args], env=env, timeout=timeout,
                          capture_output=True, text=True, **kwargs)


def summary_distance_m(stdout: str) -> float:
    match = re.search(r"^  distance +[0-9.]+ km \(([0-9.]+) m\)$", stdout, re.M)
    assert match, f"no distance in the summary:\n{stdout}"
    return float(match.group(1))


def haversine_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(h))


def sample_points() -> list[dict]:
    root = ET.parse(SAMPLE).getroot()
    points = []
    for trkpt in root.iter(f"{GPX_NS}trkpt"):
        points.append({
            "lat": float(trkpt.get("lat")), "lon": float(trkpt.get("lon")),
            "ele": float(trkpt.findtext(f"{GPX_NS}ele")),
            "t": datetime.fromisoformat(trkpt.findtext(f"{GPX_NS}time")).timestamp(),
            "hr": int(trkpt.findtext(f".//{TPX_NS}hr")),
            "cad": int(trkpt.findtext(f".//{TPX_NS}cad")),
        })
    return points


def sample_true_distance_m() -> float:
    desc = ET.parse(SAMPLE).getroot().findtext(f"{GPX_NS}metadata/{GPX_NS}desc")
    match = re.search(r"true distance: ([0-9.]+) m", desc or "")
    assert match, f"no true distance in <metadata><desc>: {desc!r}"
    return float(match.group(1))


def runway_package():
    """The Python package of this tree, on the library the replays use."""
    os.environ.setdefault("RUNWAY_LIBRARY", str(LIBRARY))
    sys.path.insert(0, str(REPO / "bindings" / "python"))
    import librunway

    return librunway


def import_available() -> bool:
    if not LIBRARY.exists():
        return False
    return runway_package().import_available()
