"""The mistakes a first hour with the package makes, each refused with an exception that says
what to do (or, for a ``Path`` where the store functions already take one, simply taken)."""
from __future__ import annotations

import datetime

import pytest

import librunway
from librunway import batch

T0 = 1_700_000_000

GPX = (b'<?xml version="1.0"?><gpx version="1.1"><trk><type>cycling</type><trkseg>'
       + b"".join(f'<trkpt lat="52.{k:04d}" lon="4.{2 * k:04d}"><ele>{k}</ele>'
                  f'<time>2024-05-01T10:00:{2 * k:02d}Z</time></trkpt>'.encode() for k in range(20))
       + b"</trkseg></trk></gpx>")


def fix(i: int) -> dict:
    return {"t": T0 + i, "lat": 52.0 + i * 0.00003, "lon": 4.0, "speed": 3.3}


@pytest.mark.parametrize("one", [fix(1), '{"t":1700000001,"lat":52.0,"lon":4.0}',
                                 b'{"t":1700000001,"lat":52.0,"lon":4.0}',
                                 '{"t":1700000001,"lat":52,"lon":4}\n{"t":1700000002,"lat":52,"lon":4}'],
                         ids=["dict", "str", "bytes", "jsonl-text"])
def test_push_many_of_one_input_is_a_type_error_and_changes_nothing(session, one):
    """One dict (its keys) or one JSON text (its characters) iterate, and each piece was pushed
    and rejected: push_many returned (0, n) and the input was silently lost."""
    session.start(T0)
    session.push(fix(0))
    before = session.snapshot()
    with pytest.raises(TypeError, match=r"push\(\) takes one input"):
        session.push_many(one)
    after = session.snapshot()
    assert after["seq"] == before["seq"] and after["distance_m"] == before["distance_m"]
    assert session.push_many([fix(1)]) == (1, 0)          # an iterable of them still works


def test_analyse_takes_a_config_as_session_takes_it():
    """analyse(..., config) took only a mapping: JSON text, as Session and analyse_recording
    take it, raised ValueError from dict() ("dictionary update sequence element #0 ...")."""
    want = librunway.analyse(GPX, {"activity": "walk", "hr_max": 180}).summary
    assert librunway.analyse(GPX, '{"activity": "walk", "hr_max": 180}').summary == want
    assert librunway.analyse(GPX, b'{"activity": "walk", "hr_max": 180}').summary == want
    for bad in ("activity=ride", "[1]", ["activity"], 5):
        with pytest.raises(librunway.ArgumentError, match="config"):
            librunway.analyse(GPX, bad)


def test_batch_config_text_that_is_not_json_is_an_argument_error(tmp_path):
    """batch.analyse's config text went through json.loads: a JSONDecodeError, not the
    ArgumentError its docstring names."""
    (tmp_path / "ride.gpx").write_bytes(GPX)
    rows = batch.analyse(tmp_path, config='{"activity": "walk"}')
    assert [r["activity"] for r in rows] == ["walk"]
    for bad in ("activity=walk", "[1]", ["activity"]):
        with pytest.raises(librunway.ArgumentError, match="config"):
            batch.analyse(tmp_path, config=bad)


def test_a_path_where_the_contents_go_says_so(tmp_path):
    """import_recording and analyse_recording take the file's contents; a path given there was
    read as a malformed file ("not well-formed (invalid token)") or refused as "data must be
    bytes or str"."""
    path = tmp_path / "ride.gpx"
    path.write_bytes(GPX)
    calls = [lambda d: librunway.import_recording(d, "gpx"),
             lambda d: librunway.analyse_recording(d, "gpx")]
    for call in calls:
        for text in (str(path), "missing/run.fit", "RUN.TCX"):
            with pytest.raises(librunway.InputError, match=r"not its path.*read_bytes"):
                call(text)
        with pytest.raises(TypeError, match=r"not its path.*read_bytes"):
            call(path)
        assert call(GPX.decode())                     # the contents as text still work
    with pytest.raises(librunway.InputError, match="well-formed GPX"):
        librunway.import_recording("nothing like a recording", "gpx")   # not a path: the import's


def test_a_path_in_a_config_is_its_text(tmp_path):
    """{"store": Path(...)} was "config is not JSON: Object of type PosixPath is not JSON
    serializable", while flights(), recover() and the rest take a Path."""
    store = tmp_path / "runs.db"
    with librunway.Session({"store": store}) as s:
        s.start(T0)
        s.push_many(fix(i) for i in range(5))
        s.stop()
        flight_id = s.flight_id
    assert [f["flight_id"] for f in librunway.flights(store)] == [flight_id]
    with pytest.raises(librunway.ArgumentError, match="not JSON"):
        librunway.Session({"store": object()})        # what is no path stays refused


def test_a_call_after_the_with_block_says_when_to_read_the_flight():
    """The end of ``with Session() as s:`` closes it: s.summary() after the block was "session
    is closed", with no word of where the summary could have been read."""
    with librunway.Session() as s:
        sub = s.events(kinds=["phase"])
        s.start(T0)
        s.push(fix(0))
        s.stop()
    for call in (s.summary, lambda: s.export("gpx"), lambda: s.push(fix(1)), sub.poll):
        with pytest.raises(librunway.StateError, match=r"closed: read its summary.*before close"):
            call()


def test_a_time_that_is_no_number_is_an_input_error_saying_what_a_time_is(session):
    """start("2023-11-14T22:13:20Z") or lap(date(...)) raised float()'s ValueError or TypeError
    ("could not convert string to float"), not the InputError a naive datetime gets."""
    import datetime

    for bad in ("2023-11-14T22:13:20Z", datetime.date(2023, 11, 14), [T0]):
        with pytest.raises(librunway.InputError, match="not unix seconds"):
            session.start(bad)
    assert session.snapshot()["phase"] == "preflight"
    session.start(T0)
    session.push(fix(0))
    session.push(fix(20))
    with pytest.raises(librunway.InputError, match="not unix seconds"):
        session.lap("now")


def test_push_fix_names_the_value_that_is_no_number(session):
    """push_fix took its numbers with float(): "could not convert string to float: 'x'", a
    ValueError naming no field (and TypeError for lat=None, which a dict's push refuses as
    missing)."""
    session.start(T0)
    for field in ("lat", "lon", "alt", "speed", "h_acc"):
        args = {"lat": 52.0, "lon": 4.0, "t": T0, field: "x"}
        lat, lon = args.pop("lat"), args.pop("lon")
        with pytest.raises(librunway.InputError, match=rf"^{field} 'x' is not a number"):
            session.push_fix(lat, lon, **args)
    with pytest.raises(librunway.InputError, match="not unix seconds"):
        session.push_fix(52.0, 4.0, t="x")
    with pytest.raises(librunway.InputError, match=r"^lat 'x' is not a number$"):   # required: no "None: unknown"
        session.push_fix("x", 4.0, t=T0)
    with pytest.raises(librunway.InputError, match=r"^alt 1000.*… is not a number"):   # too large for a float
        session.push_fix(52.0, 4.0, t=T0, alt=10 ** 400)
    with pytest.raises(librunway.InputError, match=r"^alt datetime.* is not a number"):   # not read as unix seconds
        session.push_fix(52.0, 4.0, t=T0, alt=datetime.datetime.now(datetime.timezone.utc))
    with pytest.raises(librunway.InputError, match="lat and lon"):
        session.push_fix(None, 4.0, t=T0)
    assert session.snapshot()["fixes"] == 0
    session.push_fix(52.0, 4.0, t=T0, alt=None)
    assert session.snapshot()["fixes"] == 1
