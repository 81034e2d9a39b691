"""A recording whose timer started before its first record: its import begins with a start line
({"type":"start","t":T}). Every replay of the lines in Python starts the flight at the first
line's time and pushes every line (as runway_analyse does): the start line at the flight's own
start time is already true, no line is rejected and the flight starts at T. The recording is the engine's own FIT export of a flight whose first fix came
2 min after its start."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import librunway
from conftest import PYTHON_DIR, REPO
from librunway import analysis as analysis_module
from librunway import batch_rows as batch_module     # where librunway.batch.analyse_file is
from librunway import analysis_flight as flight_module   # where librunway.analysis.Flight is

T0 = 1700000000.0
CONFIG = {"auto_pause": False}
pytestmark = pytest.mark.skipif(not librunway.import_available(),
                                reason="the loaded librunway has no runway_import")


@pytest.fixture(scope="module")
def late_fix() -> tuple[bytes, dict]:
    """A flight started at T0, its fixes (1 Hz, 3 m/s north) from T0 + 120 to T0 + 600, as FIT,
    and its summary."""
    with librunway.Session(CONFIG) as s:
        s.start(T0)
        for i in range(481):
            s.push({"t": T0 + 120 + i, "lat": 52.0 + i * 3.0 / 111_257.0, "lon": 4.0,
                    "speed": 3.0, "course": 0})
        s.stop()
        return s.export("fit"), s.summary()


def check(summary: dict, original: dict) -> None:
    assert summary["start_t"] == T0 and summary["end_t"] == T0 + 600
    assert summary["elapsed_s"] == original["elapsed_s"] == 600.0
    assert summary["distance_m"] == pytest.approx(original["distance_m"], rel=0.01)


def test_the_import_begins_with_a_start_line_that_starts_the_flight(late_fix):
    fit, original = late_fix
    lines, report = librunway.split_report(librunway.import_recording(fit, "fit"))
    assert json.loads(lines[0]) == {"type": "start", "t": T0}
    assert report["inputs"] == len(lines)
    # The pattern import_recording's docstring shows: start at the first line's time, push every
    # line (strictly: the start line at the flight's own start time is already true).
    with librunway.Session(CONFIG) as s:
        s.start(json.loads(lines[0])["t"])
        assert s.push_many(lines, strict=True) == (len(lines), 0)
        s.stop()
        check(s.summary(), original)
    # Pushed without starting, the start line starts the flight.
    with librunway.Session(CONFIG) as s:
        assert s.push_many(lines) == (len(lines), 0)
        s.stop()
        check(s.summary(), original)
    # Any other start after the start is still a state error.
    with librunway.Session(CONFIG) as s:
        s.start(T0 - 1)
        with pytest.raises(librunway.StateError):
            s.push(lines[0])
    one = librunway.analyse_recording(fit, "fit", CONFIG)
    assert one["rejected"] == 0
    check(one["summary"], original)


def test_analyse_without_runway_analyse_pushes_the_start_line(late_fix, monkeypatch):
    fit, original = late_fix
    monkeypatch.setattr(analysis_module, "analyse_available", lambda: False)
    flight = librunway.analyse(fit, CONFIG, format="fit")
    assert flight._events is not None                 # replayed by lines, not in one call
    assert flight.rejected == 0
    check(flight.summary, original)
    assert flight.summary == librunway.analyse_recording(fit, "fit", CONFIG)["summary"]


def test_a_flights_events_and_export_replay_the_start_line(late_fix, monkeypatch):
    fit, original = late_fix
    flight = librunway.analyse(fit, CONFIG, format="fit")
    assert [e["to"] for e in flight.events if e["kind"] == "phase"] == ["cruise", "touchdown"]
    assert not [e for e in flight.events if e["kind"] == "log" and e.get("level") != "info"]
    assert flight.snapshots[-1]["elapsed_s"] == 600.0
    # Flight.export replays the lines again: none is refused, and its file is the flight.
    pushed: list[tuple[int, int]] = []

    class Counting(librunway.Session):
        def push_many(self, *args, **kwargs):
            pushed.append(super().push_many(*args, **kwargs))
            return pushed[-1]

    monkeypatch.setattr(flight_module, "Session", Counting)
    again = flight.export("fit")
    assert pushed == [(flight.inputs, 0)]
    check(librunway.analyse_recording(again, "fit", CONFIG)["summary"], original)


def test_batch_without_runway_analyse_pushes_the_start_line(late_fix, tmp_path, monkeypatch):
    fit, original = late_fix
    path = tmp_path / "late.fit"
    path.write_bytes(fit)
    monkeypatch.setattr(batch_module, "analyse_available", lambda: False)
    row = batch_module.analyse_file(path, CONFIG)
    assert row["error"] is None and row["rejected"] == 0
    assert row["elapsed_s"] == original["elapsed_s"] == 600.0
    assert row["start"] == "2023-11-14T22:13:20.000Z"     # T0
    monkeypatch.undo()
    assert batch_module.analyse_file(path, CONFIG) == row


def test_the_replay_command_pushes_the_start_line(late_fix, tmp_path):
    fit, _ = late_fix
    path = tmp_path / "late.fit"
    path.write_bytes(fit)
    env = {**os.environ, "RUNWAY_LIBRARY": librunway.library_path(), "PYTHONPATH": str(PYTHON_DIR)}
    p = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "replay.py"), str(path),
                        "--speed", "0", "--config", json.dumps(CONFIG)],
                       env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "rejected" not in p.stderr, p.stderr
    assert "  flight time   00:10:00\n" in p.stdout, p.stdout
    assert ", 0 rejected\n" in p.stdout, p.stdout
