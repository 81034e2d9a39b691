"""Shared inputs and reference numbers for the runway tests."""

from __future__ import annotations

import math

T0 = 1_700_000_000.0
LAT0, LON0 = 52.0, 4.0
STEP_DEG = 0.0001  # about 11.1 m of latitude: above the default 5 m distance filter
SPEED = 2.8        # m/s, carried by every synthetic fix

WGS84_A = 6378137.0
WGS84_F = 1 / 298.257223563
WGS84_E2 = WGS84_F * (2 - WGS84_F)


def meridian_arc_m(lat1: float, lat2: float, steps: int = 64) -> float:
    """Length of the WGS84 meridian between two latitudes (Simpson's rule on
    the meridional radius of curvature; exact to well under a millimetre over
    these spans). A geodesic along a meridian is the meridian itself."""
    a, b = math.radians(lat1), math.radians(lat2)
    h = (b - a) / steps

    def m(phi: float) -> float:
        return WGS84_A * (1 - WGS84_E2) / (1 - WGS84_E2 * math.sin(phi) ** 2) ** 1.5

    total = m(a) + m(b)
    for i in range(1, steps):
        total += (4 if i % 2 else 2) * m(a + i * h)
    return abs(total * h / 3)


def fix(i: float, t: float, **extra) -> dict:
    """A fix on the meridian LON0, i steps north of LAT0, heading north."""
    d = {"t": t, "lat": round(LAT0 + i * STEP_DEG, 7), "lon": LON0, "alt": 10.0 + i,
         "speed": SPEED, "course": 0.0, "h_acc": 4.0, "v_acc": 6.0}
    d.update(extra)
    return d


def drive_run(s) -> dict:
    """Drive one complete run with a pause through session ``s`` and return
    the numbers the tests check. Distance is gained only in cruise:
      cruise  T0..T0+40   fixes 0..10   (10 steps north)
      holding T0+40..+60  fixes go out to step 12 and back to 10: no distance
      cruise  T0+60..+100 fixes 11..20  (10 more steps)
    Every cruise fix carries hr 148 and cadence 172; samples of both follow at T0+100.
    """
    s.start(T0)
    for i in range(11):
        s.push(fix(i, T0 + 4 * i, hr=148, cadence=172))
    at_pause = s.snapshot()
    s.pause(T0 + 40)
    held = []
    for k, i in enumerate([11, 12, 11, 10]):
        s.push(fix(i, T0 + 44 + 4 * k))
        held.append(s.snapshot())
    s.resume(T0 + 60)
    for i in range(11, 21):
        s.push(fix(i, T0 + 60 + 4 * (i - 10), hr=148, cadence=172))
    s.push({"type": "hr", "bpm": 148, "t": T0 + 100})
    s.push({"type": "cadence", "spm": 172, "t": T0 + 100})
    before_stop = s.snapshot()
    s.stop(T0 + 100)
    return {"at_pause": at_pause, "held": held, "before_stop": before_stop,
            "after_stop": s.snapshot(), "summary": s.summary()}
