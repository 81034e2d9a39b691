"""The route as packed numbers: runway_analyse_route (librunway.analyse_recording(...,
route="points"), librunway.analyse) against the JSON route of runway_analyse, and the lazy
RoutePoints sequence that holds it."""
from __future__ import annotations

import copy
import json
import math
import pickle
import re
from ctypes import byref, c_size_t, c_void_p, sizeof

import pytest

import librunway
from librunway import RoutePoints, _lib
from conftest import TRACKS  # noqa: E402

SHARED = sorted(p for p in TRACKS.glob("*") if p.suffix in (".gpx", ".tcx", ".fit")) if TRACKS.is_dir() else []

# 20 points 11-25 m apart; every fifth has no <ele> (a route point with an unknown altitude).
GPX = (b'<?xml version="1.0"?><gpx version="1.1"><trk><trkseg>'
       + b"".join(f'<trkpt lat="52.{k:04d}" lon="4.{2 * k:04d}">'
                  f'{"" if k % 5 == 2 else f"<ele>{k}.25</ele>"}'
                  f'<time>2024-05-01T10:00:{3 * k:02d}Z</time></trkpt>'.encode() for k in range(20))
       + b"</trkseg></trk></gpx>")

needs_route = pytest.mark.skipif(not librunway.analyse_route_available(),
                                 reason="the loaded librunway has no runway_analyse_route")


@needs_route
def test_points_are_the_json_routes_values_and_the_rest_is_the_same():
    json_result = librunway.analyse_recording(GPX, "gpx")
    points_result = librunway.analyse_recording(GPX, "gpx", route="points")
    want = json_result["summary"].pop("route")
    got = points_result["summary"].pop("route")
    assert isinstance(got, RoutePoints) and not isinstance(want, RoutePoints)
    assert points_result == json_result          # everything but the route, member for member
    assert len(got) == len(want) == json_result["summary"]["points"] == 20
    assert got.tolist() == want                  # the same doubles, None for unknown altitude
    assert [p[2] for p in got].count(None) == 4 and got[2][2] is None and got[1][2] == 1.25
    assert got == want and want == got


@needs_route
@pytest.mark.skipif(not SHARED, reason="../shared/tracks is not here")
@pytest.mark.parametrize("path", SHARED, ids=lambda p: p.name)
def test_points_match_the_json_route_on_real_recordings(path):
    data = path.read_bytes()
    try:
        want = librunway.analyse_recording(data)["summary"]["route"]
    except librunway.InputError as e:        # the 1901 placeholder times: the same refusal
        with pytest.raises(librunway.InputError, match=re.escape(str(e))):
            librunway.analyse_recording(data, route="points")
        return
    got = librunway.analyse_recording(data, route="points")["summary"]["route"]
    assert len(got) == len(want) and got.tolist() == want


@needs_route
def test_the_c_call_fills_structs_and_false_route_gives_none():
    L = _lib.lib()
    out, n, points, count = c_void_p(), c_size_t(0), c_void_p(), c_size_t(0)
    L.runway_analyse_route(b'{"format":"gpx"}', GPX, len(GPX), byref(out), byref(n),
                           byref(points), byref(count))
    summary = json.loads(_lib.take_bytes(out, n))["summary"]
    assert "route" not in summary and summary["segment_starts"] == [0]
    assert count.value == summary["points"] == 20 and sizeof(_lib.runway_route_point) == 32
    first = _lib.runway_route_point.from_address(points.value)
    assert (first.lat, first.lon, first.alt, first.t) == (52.0, 4.0, 0.25, 1714557600.0)
    third = _lib.runway_route_point.from_address(points.value + 2 * 32)
    assert math.isnan(third.alt)
    _lib.take_route(points, count)               # frees it
    L.runway_analyse_route(b'{"route":false}', GPX, len(GPX), byref(out), byref(n),
                           byref(points), byref(count))
    assert points.value is None and count.value == 0
    assert "segment_starts" not in json.loads(_lib.take_bytes(out, n))["summary"]


@needs_route
def test_bad_arguments_are_refused_with_their_status():
    L = _lib.lib()
    out, points, count = c_void_p(), c_void_p(), c_size_t(0)
    with pytest.raises(librunway.ArgumentError, match="^route_out is NULL$"):
        L.runway_analyse_route(None, GPX, len(GPX), byref(out), None, None, byref(count))
    with pytest.raises(librunway.ArgumentError, match="^route_len is NULL$"):
        L.runway_analyse_route(None, GPX, len(GPX), byref(out), None, byref(points), None)
    with pytest.raises(librunway.InputError, match="no timed points"):
        L.runway_analyse_route(None, b'<gpx><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>',
                               63, byref(out), None, byref(points), byref(count))
    assert out.value is None and points.value is None
    with pytest.raises(librunway.ArgumentError, match="route must be"):
        librunway.analyse_recording(GPX, route="structs")


def test_analyse_gives_a_flight_whose_route_is_the_summarys():
    flight = librunway.analyse(GPX)
    want = librunway.analyse_recording(GPX, "gpx")["summary"]["route"]
    assert flight.route == want and flight.summary["route"] is flight.route
    if librunway.analyse_route_available():
        assert isinstance(flight.route, RoutePoints)
    assert [r["lat"] for r in flight.route_rows()] == [p[0] for p in want]
    assert "20 route points" in repr(flight)


def test_route_points_behave_as_the_list_they_stand_for():
    want = [[52.0, 4.0, 1.5, 1714557600.0], [52.0001, 4.0002, None, 1714557605.0],
            [52.0002, 4.0004, -3.0, 1714557610.0]]
    r = RoutePoints.from_points(want)
    assert len(r) == 3 and r == want and list(r) == want and r.tolist() == want
    assert r[0] == want[0] and r[-1] == want[-1] and r[1][2] is None
    assert r[1:] == want[1:] and r[::-1] == want[::-1] and r[5:] == []
    with pytest.raises(IndexError):
        r[3]
    with pytest.raises(IndexError):
        r[-4]
    with pytest.raises(TypeError):
        r["0"]
    assert r != want[:2] and r != [[0.0, 0.0, None, 0.0]] * 3 and r != "route"
    assert want[1] in r and r.index(want[2]) == 2
    r[0][0] = 0.0                                   # an item is a fresh list: the route keeps its value
    assert r[0][0] == 52.0
    assert json.loads(json.dumps(list(r))) == want
    assert pickle.loads(pickle.dumps(r)) == r and copy.deepcopy(r) == r
    a = r.array
    assert a.shape == (3, 4) and a.readonly and a[2, 2] == -3.0 and math.isnan(a[1, 2])
    assert RoutePoints() == [] and len(RoutePoints().array) == 0 and not RoutePoints()
    with pytest.raises(ValueError, match="32-byte points"):
        RoutePoints(b"\0" * 33)
    with pytest.raises(TypeError):
        hash(r)
