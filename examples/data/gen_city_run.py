#!/usr/bin/env python3
"""Generate examples/data/city_run.gpx: a synthetic, realistic 5 km city loop run.

The sample that `make demo` replays through librunway. Standard library only and
deterministic: the same seed gives a byte-identical file (tests check that).

What the file holds (GPX 1.1 with Garmin TrackPointExtension v2):
  - one track point per second (ISO 8601 UTC timestamps), starting
    2024-05-19T07:30:00Z, from standing start to the finish on the start line;
  - the route: one lap of a closed polygon of streets (15 corners) in the
    centre of Amsterdam around lat 52.370, lon 4.890, scaled to 5000 m;
  - pace ~4:45-5:30 min/km: a base speed with slow random variation
    (Ornstein-Uhlenbeck), slower uphill, easing off through corners, with a
    standing start;
  - one stop of 70-110 s at a crossing (about 55 % into the lap): the runner
    brakes to a standstill there, the true position stays put and only the GPS
    error moves;
  - elevation: gentle periodic hills (about 0-25 m) along the lap, plus a
    slowly drifting GPS altitude error;
  - heart rate (gpxtpx:hr) following effort with first-order lag: from ~120 bpm
    at the start to ~160 at the end (speed, grade and cardiac drift), dropping
    during the stop;
  - cadence (gpxtpx:cad) as Garmin devices write it for a run: strides of one
    foot a minute, half the steps (82-90 while running, lower when accelerating,
    0 when stopped); librunway's import doubles it into steps per minute
    (165-180);
  - GPS error per axis (east, north): a first-order Gauss-Markov process
    (sigma 3 m, tau 30 s) plus 0.5 m white noise, as a receiver's error
    wanders slowly rather than jumping each second.

The true (noise-free) distance, the WGS84 geodesic summed between consecutive
true positions, is written into <metadata><desc> as "true distance: N m", so a
demo can compare the engine's distance (from noisy fixes) with the truth.

Usage:
    python3 examples/data/gen_city_run.py                 # writes city_run.gpx beside this script
    python3 examples/data/gen_city_run.py -o /tmp/run.gpx --seed 7
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from datetime import datetime, timedelta, timezone

SEED = 20240519
START = datetime(2024, 5, 19, 7, 30, 0, tzinfo=timezone.utc)

# Reference point (Amsterdam, near Dam square) and the loop's corners in metres
# east/north of it: streets and canal-side roads with corners, roughly the
# shape of a lap through the canal belt. Scaled so the lap is LAP_M long.
ORIGIN_LAT, ORIGIN_LON = 52.3700, 4.8900
LAP_M = 5000.0
CORNERS_EN = [
    (0, 0), (380, -40), (700, -10), (720, 260), (980, 300), (1010, 620),
    (760, 880), (420, 900), (400, 1120), (40, 1140), (-220, 980),
    (-420, 700), (-300, 420), (-380, 180), (-160, 40),
]
STOP_CORNER = 8              # the crossing where the runner waits
STOP_S = (70, 110)           # stop duration range, seconds

# Running model.
BASE_SPEED = 1000.0 / (5.05 * 60.0)          # 5:03 min/km
SPEED_MIN = 1000.0 / (5.5 * 60.0)            # 5:30 min/km
SPEED_MAX = 1000.0 / (4.75 * 60.0)           # 4:45 min/km
ACCEL = 0.6                                  # m/s^2, pulling away
BRAKE = 0.8                                  # m/s^2, stopping at the crossing

# GPS error model.
GM_SIGMA_M, GM_TAU_S, WHITE_M = 3.0, 30.0, 0.5
ALT_SIGMA_M, ALT_TAU_S = 1.5, 60.0

# WGS84.
WGS84_A = 6378137.0
WGS84_F = 1 / 298.257223563
WGS84_B = WGS84_A * (1 - WGS84_F)
WGS84_E2 = WGS84_F * (2 - WGS84_F)


def to_lat_lon(east: float, north: float) -> tuple[float, float]:
    """Metres east/north of the origin to degrees, with the ellipsoid's radii of curvature."""
    phi0 = math.radians(ORIGIN_LAT)
    w = 1 - WGS84_E2 * math.sin(phi0) ** 2
    meridional = WGS84_A * (1 - WGS84_E2) / w ** 1.5
    lat = ORIGIN_LAT + math.degrees(north / meridional)
    phi = math.radians(lat)
    prime_vertical = WGS84_A / math.sqrt(1 - WGS84_E2 * math.sin(phi) ** 2)
    lon = ORIGIN_LON + math.degrees(east / (prime_vertical * math.cos(phi)))
    return lat, lon


def geodesic_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """WGS84 geodesic distance (Vincenty's inverse formula; points here are close)."""
    if lat1 == lat2 and lon1 == lon2:
        return 0.0
    f, a, b = WGS84_F, WGS84_A, WGS84_B
    big_l = math.radians(lon2 - lon1)
    u1 = math.atan((1 - f) * math.tan(math.radians(lat1)))
    u2 = math.atan((1 - f) * math.tan(math.radians(lat2)))
    sin_u1, cos_u1, sin_u2, cos_u2 = math.sin(u1), math.cos(u1), math.sin(u2), math.cos(u2)
    lam = big_l
    for _ in range(100):
        sin_lam, cos_lam = math.sin(lam), math.cos(lam)
        sin_sigma = math.hypot(cos_u2 * sin_lam, cos_u1 * sin_u2 - sin_u1 * cos_u2 * cos_lam)
        cos_sigma = sin_u1 * sin_u2 + cos_u1 * cos_u2 * cos_lam
        sigma = math.atan2(sin_sigma, cos_sigma)
        sin_alpha = cos_u1 * cos_u2 * sin_lam / sin_sigma
        cos2_alpha = 1 - sin_alpha ** 2
        cos_2sm = cos_sigma - 2 * sin_u1 * sin_u2 / cos2_alpha if cos2_alpha else 0.0
        c = f / 16 * cos2_alpha * (4 + f * (4 - 3 * cos2_alpha))
        lam_prev = lam
        lam = big_l + (1 - c) * f * sin_alpha * (
            sigma + c * sin_sigma * (cos_2sm + c * cos_sigma * (-1 + 2 * cos_2sm ** 2)))
        if abs(lam - lam_prev) < 1e-12:
            break
    u_sq = cos2_alpha * (a * a - b * b) / (b * b)
    k_a = 1 + u_sq / 16384 * (4096 + u_sq * (-768 + u_sq * (320 - 175 * u_sq)))
    k_b = u_sq / 1024 * (256 + u_sq * (-128 + u_sq * (74 - 47 * u_sq)))
    d_sigma = k_b * sin_sigma * (cos_2sm + k_b / 4 * (
        cos_sigma * (-1 + 2 * cos_2sm ** 2)
        - k_b / 6 * cos_2sm * (-3 + 4 * sin_sigma ** 2) * (-3 + 4 * cos_2sm ** 2)))
    return b * k_a * (sigma - d_sigma)


class Loop:
    """The closed polyline, addressed by arc length s in metres (0..length)."""

    def __init__(self, corners: list[tuple[float, float]], length: float):
        raw = [(float(e), float(n)) for e, n in corners]
        perimeter = sum(math.dist(raw[i], raw[(i + 1) % len(raw)]) for i in range(len(raw)))
        scale = length / perimeter
        self.points = [(e * scale, n * scale) for e, n in raw]
        self.points.append(self.points[0])
        self.starts = [0.0]
        for p, q in zip(self.points, self.points[1:]):
            self.starts.append(self.starts[-1] + math.dist(p, q))
        self.length = self.starts[-1]
        # Turning angle (degrees) at each corner, for easing off through it.
        self.turns = []
        n = len(raw)
        for i in range(n):
            p, c, q = self.points[i - 1 if i else n - 1], self.points[i], self.points[i + 1]
            h1 = math.atan2(c[1] - p[1], c[0] - p[0])
            h2 = math.atan2(q[1] - c[1], q[0] - c[0])
            self.turns.append(abs(math.degrees((h2 - h1 + math.pi) % (2 * math.pi) - math.pi)))

    def position(self, s: float) -> tuple[float, float]:
        s = min(max(s, 0.0), self.length)
        for i in range(len(self.starts) - 1):
            if s <= self.starts[i + 1]:
                seg = self.starts[i + 1] - self.starts[i]
                k = (s - self.starts[i]) / seg if seg else 0.0
                (e1, n1), (e2, n2) = self.points[i], self.points[i + 1]
                return e1 + k * (e2 - e1), n1 + k * (n2 - n1)
        return self.points[-1]

    def corner_factor(self, s: float) -> float:
        """Speed factor near corners: up to 12 % slower for a right angle, within 12 m."""
        factor = 1.0
        for start, turn in zip(self.starts, self.turns):
            for corner_s in (start, start + self.length):
                d = abs(s - corner_s)
                if d < 12.0:
                    factor = min(factor, 1 - 0.12 * min(turn, 120.0) / 90.0 * (1 - d / 12.0))
        return factor


def terrain_m(u: float) -> float:
    """Ground height at lap fraction u (periodic, so the loop closes): gentle hills."""
    tau = 2 * math.pi
    return (11.0 - 8.0 * math.cos(tau * u) + 4.0 * math.sin(tau * 3 * u + 0.5)
            + 2.0 * math.sin(tau * 7 * u + 1.3))


def grade(loop: Loop, s: float) -> float:
    ds = 5.0
    return (terrain_m((s + ds) / loop.length) - terrain_m((s - ds) / loop.length)) / (2 * ds)


def simulate(seed: int) -> tuple[list[dict], float, int]:
    """Run the model at 1 Hz. Returns the points, the true distance and the stop length."""
    rng = random.Random(seed)
    loop = Loop(CORNERS_EN, LAP_M)
    stop_at = loop.starts[STOP_CORNER]
    stop_len = rng.randint(*STOP_S)

    gm_a = math.exp(-1.0 / GM_TAU_S)
    gm_q = GM_SIGMA_M * math.sqrt(1 - gm_a * gm_a)
    alt_a = math.exp(-1.0 / ALT_TAU_S)
    alt_q = ALT_SIGMA_M * math.sqrt(1 - alt_a * alt_a)
    err_e, err_n = rng.gauss(0, GM_SIGMA_M), rng.gauss(0, GM_SIGMA_M)
    err_alt = rng.gauss(0, ALT_SIGMA_M)

    s, v, hr, ou = 0.0, 0.0, 120.0, 0.0
    stopped_left, stopped_done = 0, False
    running_s = 0
    points = []
    true_distance = 0.0
    prev_true = None
    k = 0
    while True:
        t = START + timedelta(seconds=k)
        true_e, true_n = loop.position(s)
        true_lat, true_lon = to_lat_lon(true_e, true_n)
        if prev_true is not None:
            true_distance += geodesic_m(*prev_true, true_lat, true_lon)
        prev_true = (true_lat, true_lon)

        lat, lon = to_lat_lon(true_e + err_e + rng.gauss(0, WHITE_M),
                              true_n + err_n + rng.gauss(0, WHITE_M))
        ele = terrain_m(s / loop.length) + err_alt
        if v < 0.2:
            cad = 0
        elif v < 2.6:
            cad = round(110 + 55 * v / 2.6 + rng.gauss(0, 2))
        else:
            cad = round(min(max(171 + 14 * (v - BASE_SPEED) + rng.gauss(0, 1.2), 165), 180))
        points.append({"time": t, "lat": lat, "lon": lon, "ele": ele,
                       "hr": round(hr + rng.gauss(0, 0.6)), "cad": cad,
                       "speed": v})  # true speed: for checking the model, not written
        if s >= loop.length:
            break

        # Advance one second: GPS error, pace, position, heart rate.
        err_e = gm_a * err_e + gm_q * rng.gauss(0, 1)
        err_n = gm_a * err_n + gm_q * rng.gauss(0, 1)
        err_alt = alt_a * err_alt + alt_q * rng.gauss(0, 1)
        ou += -ou / 90.0 + 0.035 * math.sqrt(2 / 90.0) * rng.gauss(0, 1)

        g = grade(loop, s)
        if stopped_left > 0:
            stopped_left -= 1
            target = 0.0
            v = 0.0
        else:
            target = BASE_SPEED * (1 + ou) * (1 - 2.0 * g)
            target = min(max(target, SPEED_MIN), SPEED_MAX) * loop.corner_factor(s)
            if not stopped_done and s < stop_at:
                # Braking to arrive at the crossing standing still.
                target = min(target, max(math.sqrt(2 * BRAKE * (stop_at - s)), 0.6))
            v_next = v + (target - v) / 3.0
            v_next = min(v_next, v + ACCEL)
            step = (v + v_next) / 2
            if not stopped_done and s + step >= stop_at:
                step, v_next = stop_at - s, 0.0
                stopped_left, stopped_done = stop_len, True
            s = min(s + step, loop.length)
            v = v_next
            running_s += 1

        if v < 0.2:
            hr_target, hr_tau = 105.0, 50.0
        else:
            hr_target = 140 + 30 * (v - BASE_SPEED) + 300 * g + 0.75 * running_s / 60
            hr_tau = 30.0 if hr_target > hr else 40.0
        hr += (hr_target - hr) / hr_tau
        k += 1
    return points, true_distance, stop_len


def render(points: list[dict], true_distance: float, stop_len: int, seed: int) -> str:
    def iso(t: datetime) -> str:
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")

    duration = (points[-1]["time"] - points[0]["time"]).total_seconds()
    desc = (f"Synthetic {LAP_M / 1000:.0f} km city loop run for librunway, generated by "
            f"examples/data/gen_city_run.py (seed {seed}). true distance: {true_distance:.1f} m; "
            f"duration {duration:.0f} s; {len(points)} points at 1 Hz; one {stop_len} s stop at "
            f"a crossing; GPS error: Gauss-Markov sigma {GM_SIGMA_M:g} m, tau {GM_TAU_S:g} s, "
            f"plus {WHITE_M:g} m white noise per axis.")
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<gpx version="1.1" creator="librunway gen_city_run.py"'
        ' xmlns="http://www.topografix.com/GPX/1/1"'
        ' xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2"'
        ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
        ' xsi:schemaLocation="http://www.topografix.com/GPX/1/1'
        ' http://www.topografix.com/GPX/1/1/gpx.xsd'
        ' http://www.garmin.com/xmlschemas/TrackPointExtension/v2'
        ' https://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd">',
        "  <metadata>",
        "    <name>City loop, Amsterdam (synthetic)</name>",
        f"    <desc>{desc}</desc>",
        f"    <time>{iso(points[0]['time'])}</time>",
        "  </metadata>",
        "  <trk>",
        "    <name>City loop 5 km</name>",
        "    <type>running</type>",
        "    <trkseg>",
    ]
    for p in points:
        out.append(
            f'      <trkpt lat="{p["lat"]:.7f}" lon="{p["lon"]:.7f}"><ele>{p["ele"]:.1f}</ele>'
            f'<time>{iso(p["time"])}</time><extensions><gpxtpx:TrackPointExtension>'
            f'<gpxtpx:hr>{p["hr"]}</gpxtpx:hr><gpxtpx:cad>{round(p["cad"] / 2)}</gpxtpx:cad>'
            f'</gpxtpx:TrackPointExtension></extensions></trkpt>')
    out += ["    </trkseg>", "  </trk>", "</gpx>", ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("-o", "--output", default=os.path.join(here, "city_run.gpx"),
                        help="where to write the GPX (default: city_run.gpx beside this script)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"random seed (default {SEED})")
    args = parser.parse_args(argv)

    points, true_distance, stop_len = simulate(args.seed)
    text = render(points, true_distance, stop_len, args.seed)
    with open(args.output, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    duration = (points[-1]["time"] - points[0]["time"]).total_seconds()
    print(f"wrote {args.output}: {len(points)} points, {duration:.0f} s, "
          f"true distance {true_distance:.1f} m, stop {stop_len} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
