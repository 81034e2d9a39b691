"""The one-call path (runway_analyse via librunway.analyse_recording) against the separate
calls it replaces, and analyse()/Flight built on it."""
from __future__ import annotations

import json

import pytest

import librunway
from conftest import TRACKS  # noqa: E402

SHARED = sorted(p for p in TRACKS.glob("*") if p.suffix in (".gpx", ".tcx", ".fit")) if TRACKS.is_dir() else []

GPX = (b'<?xml version="1.0"?><gpx version="1.1"><trk><type>cycling</type><trkseg>'
       + b"".join(f'<trkpt lat="52.{k:04d}" lon="4.{2 * k:04d}"><ele>{k}</ele>'
                  f'<time>2024-05-01T10:00:{2 * k:02d}Z</time></trkpt>'.encode() for k in range(20))
       + b"</trkseg></trk></gpx>")


def separate_calls(data: bytes, fmt: str, config=None) -> tuple[dict, dict, int]:
    lines, report = librunway.split_report(librunway.import_recording(data, fmt))
    # What the file says where the config is silent (0 auto_lap_m: its laps come as lap lines).
    cfg = librunway.replay_config(report, config)
    with librunway.Session(cfg) as s:
        s.start(json.loads(lines[0])["t"])   # a start line's (a FIT timer's) is then already true
        rejected = s.push_many(lines)[1]
        s.stop()
        return s.summary(), report, rejected


@pytest.mark.skipif(not SHARED, reason="../shared/tracks is not here")
@pytest.mark.parametrize("path", SHARED, ids=lambda p: p.name)
def test_one_call_gives_the_separate_calls_summary_and_report(path):
    data = path.read_bytes()
    fmt = path.suffix[1:]
    try:
        summary, report, rejected = separate_calls(data, fmt)
    except librunway.InputError as e:        # the 1901 placeholder times: start refuses them
        with pytest.raises(librunway.InputError) as one:
            librunway.analyse_recording(data)
        assert str(one.value) == str(e)
        return
    result = librunway.analyse_recording(data)   # format by the first bytes
    assert result["summary"] == summary
    assert result["report"] == report
    assert result["rejected"] == rejected
    assert result["accepted"] + result["rejected"] == result["inputs"] == report["inputs"]
    flight = librunway.analyse(path)
    assert flight.summary == summary and flight.report == report and flight.rejected == rejected


def test_the_config_is_applied_and_its_activity_wins():
    result = librunway.analyse_recording(GPX, "gpx", {"hr_max": 180}, route=False)
    assert result["summary"]["activity"] == "ride" and result["summary"]["hr_max_setting"] == 180
    assert "route" not in result["summary"]
    walk = librunway.analyse_recording(GPX, config={"activity": "walk"})
    assert walk["summary"]["activity"] == "walk"
    assert walk["summary"] == separate_calls(GPX, "gpx", {"activity": "walk"})[0]


def test_a_config_as_text_is_taken_as_session_takes_it():
    """A config as JSON text (str or bytes) is the dict's config, and what is not a JSON object
    is an ArgumentError, as Session(config) gives (before: dict() raised ValueError)."""
    want = librunway.analyse_recording(GPX, config={"hr_max": 180}, route=False)
    assert librunway.analyse_recording(GPX, config='{"hr_max": 180}', route=False) == want
    assert librunway.analyse_recording(GPX, config=b'{"hr_max": 180}', route=False) == want
    for bad in ('not json', '[1]', '"ride"', 5, [("hr_max", 185)], '{"hr_max":185}\0'):
        with pytest.raises(librunway.ArgumentError):
            librunway.Session(bad)
        with pytest.raises(librunway.ArgumentError):
            librunway.analyse_recording(GPX, config=bad, route=False)


def test_bad_options_and_files_are_refused():
    with pytest.raises(librunway.ArgumentError, match="unknown format"):
        librunway.analyse_recording(GPX, "kml")
    with pytest.raises(librunway.ArgumentError, match="store"):
        librunway.analyse_recording(GPX, config={"store": "/tmp/x.db"})
    with pytest.raises(librunway.ArgumentError):
        librunway.analyse_recording(GPX, config={"hr_max": "high"})
    with pytest.raises(librunway.InputError, match="by its first bytes"):
        librunway.analyse_recording(b"hello")
    with pytest.raises(librunway.InputError, match="^no timed points$"):
        librunway.analyse_recording(b'<gpx><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>')
    with pytest.raises(librunway.InputError, match="the recording: no timed points"):
        librunway.analyse(b'<gpx><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>')


def test_a_flights_events_and_snapshots_are_replayed_when_asked_for():
    flight = librunway.analyse(GPX)
    assert flight._events is None                      # not computed by analyse()
    phases = [e["to"] for e in flight.events if e["kind"] == "phase"]
    assert phases == ["cruise", "touchdown"]
    assert len(flight.snapshots) == 20
    assert flight.snapshots[-1]["distance_m"] == pytest.approx(flight.summary["distance_m"])
    assert len(flight.route_rows()) == len(flight.route)
    assert flight.export("gpx").startswith(b"<?xml")


# ---- salvage: a truncated FIT file ------------------------------------------------------------

def truncated_fit() -> bytes:
    """The sample run as FIT, cut in the middle of its records."""
    from conftest import REPO
    whole = librunway.analyse(REPO / "examples" / "data" / "city_run.gpx").export("fit")
    return whole[:len(whole) // 2]


def test_a_truncated_fit_is_refused_saying_that_salvage_exists():
    data = truncated_fit()
    for call in (lambda: librunway.analyse(data, format="fit"),
                 lambda: librunway.analyse_recording(data, "fit"),
                 lambda: librunway.import_recording(data, "fit")):
        with pytest.raises(librunway.InputError, match=r"^truncated FIT file: .*salvage=True"):
            call()
    # other damage is not what the hint is for: no word of salvage
    with pytest.raises(librunway.InputError) as info:
        librunway.analyse(b"\x0e\x10" + b"\0" * 30, format="fit")
    assert "salvage" not in str(info.value)


def test_analyse_salvages_a_truncated_fit_as_analyse_recording_does():
    data = truncated_fit()
    flight = librunway.analyse(data, format="fit", salvage=True)
    one_call = librunway.analyse_recording(data, "fit", salvage=True, route=False)
    assert flight.summary["distance_m"] == one_call["summary"]["distance_m"] > 1000
    assert any("salvage" in w for w in flight.report["warnings"]), flight.report
    # the replays made later (events, exports) read the file with salvage too
    assert flight.events and flight.export("gpx").startswith(b"<?xml")
    lines = librunway.import_recording(data, "fit", salvage=True)
    assert lines == librunway.import_recording(data, "fit;salvage")
    assert len(lines) - 1 == flight.inputs


@pytest.mark.parametrize("fmt", ["gpx", "tcx"])
def test_analyse_salvages_a_gpx_or_tcx_cut_short(fmt):
    from conftest import REPO
    whole = librunway.analyse(REPO / "examples" / "data" / "city_run.gpx").export(fmt)
    data = whole[:len(whole) * 2 // 3]
    # The refusal says that salvage reads the file, in Python's words, as a truncated FIT's does.
    hint = ("; salvage keeps the points read before the break: salvage=True in Python, "
            "--salvage on the command line")
    for refuse in (lambda: librunway.analyse(data, format=fmt),
                   lambda: librunway.import_recording(data, fmt)):
        with pytest.raises(librunway.InputError, match=f"^not a well-formed {fmt.upper()} file") as e:
            refuse()
        assert str(e.value).endswith(hint), str(e.value)
    full = librunway.analyse(whole, format=fmt).summary["distance_m"]
    flight = librunway.analyse(data, format=fmt, salvage=True)
    assert 0.3 * full < flight.summary["distance_m"] < 0.9 * full, (flight.summary["distance_m"], full)
    assert flight.report["warnings"][0].startswith(f"not a well-formed {fmt.upper()} file")
    assert flight.report["warnings"][0].endswith("read before it (salvage)")
    one_call = librunway.analyse_recording(data, fmt, salvage=True, route=False)["summary"]
    assert (one_call["distance_m"], one_call["moving_s"]) == (flight.summary["distance_m"], flight.summary["moving_s"])


def test_batch_rows_salvage_a_truncated_fit(tmp_path):
    from librunway import batch
    path = tmp_path / "cut.fit"
    path.write_bytes(truncated_fit())
    strict = batch.analyse_file(path)
    assert strict["error"].startswith("InputError: truncated FIT file") and "salvage" in strict["error"]
    row = batch.analyse_file(path, salvage=True)
    assert row["error"] is None and row["distance_m"] > 1000, row
    assert batch.analyse(path, salvage=True)[0]["distance_m"] == row["distance_m"]


def test_replay_config_is_the_librarys_rule():
    report = {"type": "import_report", "activity": "ride", "altitude_source": "barometric",
              "auto_lap_m": 0}
    assert librunway.replay_config(report) == {"activity": "ride", "fix_altitude": "barometric",
                                               "auto_lap_m": 0}
    got = librunway.replay_config(json.dumps(report), {"auto_lap_m": 500, "fix_altitude": "gps"})
    assert list(got.items()) == [("activity", "ride"), ("auto_lap_m", 500), ("fix_altitude", "gps")]
    # null is no value of a config key: refused as the session refuses it, not kept to fail there.
    for key in ("activity", "fix_altitude", "auto_lap_m"):
        with pytest.raises(librunway.ArgumentError) as refused:
            librunway.replay_config(report, {"hr_max": 185, key: None})
        with pytest.raises(librunway.ArgumentError) as opened:
            librunway.Session({"hr_max": 185, key: None})
        assert str(refused.value) == str(opened.value), key
    silent = {"type": "import_report", "activity": None, "altitude_source": None, "auto_lap_m": None}
    assert librunway.replay_config(silent) == {} and librunway.replay_config(silent, {"a": 1}) == {"a": 1}
    with pytest.raises(librunway.InputError, match="not an import report"):
        librunway.replay_config({"type": "fix", "activity": "ride"})
    with pytest.raises(librunway.InputError, match="activity"):
        librunway.replay_config({"type": "import_report", "activity": "swim"})
    with pytest.raises(librunway.JSONError):
        librunway.replay_config("not json")
    with pytest.raises(librunway.ArgumentError):
        librunway.replay_config(report, {"hr_max": float("nan")})


def test_replay_config_takes_a_config_as_session_does():
    """A config as text (str or bytes) is the dict's config, and what is not a JSON object is
    the library's ArgumentError, as Session(config) gives: no ValueError from dict()."""
    report = {"type": "import_report", "activity": "ride", "altitude_source": None,
              "auto_lap_m": 0}
    expected = {"activity": "ride", "auto_lap_m": 0, "hr_max": 185}
    assert librunway.replay_config(report, '{"hr_max":185}') == expected
    assert librunway.replay_config(json.dumps(report).encode(), b'{"hr_max":185}') == expected
    for bad in ('not json', '[1]', '"ride"', 5, [("hr_max", 185)], "{\"hr_max\":185}\0"):
        with pytest.raises(librunway.ArgumentError) as refused:
            librunway.replay_config(report, bad)
        with pytest.raises(librunway.ArgumentError) as opened:
            librunway.Session(bad)
        assert type(refused.value) is type(opened.value), bad
    with pytest.raises(librunway.JSONError):
        librunway.replay_config({"type": "import_report", "x": float("nan")})
    with pytest.raises(librunway.JSONError):
        librunway.replay_config(b"[1]")


@pytest.mark.skipif(not SHARED, reason="../shared/tracks is not here")
def test_the_fallback_for_an_older_library_adds_what_the_library_adds(monkeypatch):
    """analyse() with a library without runway_replay_config adds the same settings, in order."""
    from librunway import analysis as analysis_module
    checked = 0
    for path in SHARED:
        data = path.read_bytes()
        try:
            report = librunway.split_report(librunway.import_recording(data, path.suffix[1:]))[1]
        except librunway.InputError:
            continue
        for config in ({}, {"activity": "walk", "hr_max": 180}, {"auto_lap_m": 500}):
            library = dict(config)
            analysis_module._add_file_settings(library, report, data, path.suffix[1:])
            with monkeypatch.context() as m:
                m.setattr(analysis_module, "replay_config_available", lambda: False)
                fallback = dict(config)
                analysis_module._add_file_settings(fallback, report, data, path.suffix[1:])
            assert list(library.items()) == list(fallback.items()), path.name
        checked += 1
    assert checked >= 10


def test_a_config_as_text_is_judged_as_session_judges_it():
    """A text config is taken as Session takes it: a byte order mark before it is skipped;
    ``"null"`` (no config is None) and a key named twice are refused, as Session refuses them
    (Python's json alone read "null" as no config and kept the last of two keys)."""
    want = librunway.analyse_recording(GPX, config={"hr_max": 180}, route=False)
    for good in ('\ufeff{"hr_max": 180}', b'\xef\xbb\xbf{"hr_max": 180}'):
        librunway.Session(good).close()
        assert librunway.analyse_recording(GPX, config=good, route=False) == want, good
    for bad in ('null', b'null', '{"hr_max": 185, "hr_max": 180}'):
        with pytest.raises(librunway.ArgumentError):
            librunway.Session(bad)
        with pytest.raises(librunway.ArgumentError):
            librunway.analyse_recording(GPX, config=bad, route=False)


def test_replay_config_judges_the_config_it_gives_back_as_session_would():
    """With nothing added, runway_replay_config gives the config back as written: a byte order
    mark before it came back too (json.loads raised JSONDecodeError), and a key named twice,
    which the session opened with it refuses, became a dict with the last value."""
    report = '{"type":"import_report"}'
    for good in ('\ufeff{"hr_max": 180}', b'\xef\xbb\xbf{"hr_max": 180}'):
        assert librunway.replay_config(report, good) == {"hr_max": 180}, good
    for bad in ('{"hr_max": 185, "hr_max": 180}', '{"zones": {"a": 1, "a": 2}}'):
        with pytest.raises(librunway.ArgumentError, match="duplicate key"):
            librunway.replay_config(report, bad)
