"""The flight store: a stored run is listed, read, exported and deleted; an unfinished flight
(its host closed the session without stop, as after a crash) is recovered with the same
figures and goes on; unreadable stores, unknown ids and finished flights are refused."""

from __future__ import annotations

import os

import pytest

import librunway
from runway_testkit import T0, fix

FORMATS = ("gpx", "tcx", "fit", "geojson", "csv")


def push_steps(s: librunway.Session, start: int, stop: int) -> None:
    """Fixes start..stop-1 of the walk north, 4 s apart."""
    for i in range(start, stop):
        s.push(fix(i, T0 + 4 * i, hr=150))


def reference(steps: int, stop: bool = False) -> dict:
    """The same inputs through a session without a store: what the stored flight must show."""
    with librunway.Session() as s:
        s.start(T0)
        push_steps(s, 0, steps)
        if stop:
            s.stop()
        return s.summary()


@pytest.fixture
def store(tmp_path) -> str:
    return str(tmp_path / "runs.db")


def test_a_session_without_a_store_has_no_flight_id(session):
    assert session.flight_id is None
    assert "flight_id" not in session.summary()      # the summary carries it only when stored


def test_a_stored_run_is_listed_finished_with_its_distance(store):
    with librunway.Session({"store": store}) as s:
        flight_id = s.flight_id
        assert flight_id                       # made up at open, e.g. 20261129T180512Z-3fa9c2
        s.start(T0)
        push_steps(s, 0, 20)
        s.stop()
        summary = s.summary()
    assert summary["flight_id"] == flight_id
    assert summary["distance_m"] > 150

    [listed] = librunway.flights(store)
    assert listed["flight_id"] == flight_id
    assert listed["finished"] is True
    assert listed["end_reason"] == summary["end_reason"]
    assert listed["distance_m"] == pytest.approx(summary["distance_m"], abs=1e-9)
    assert listed["elapsed_s"] == pytest.approx(summary["elapsed_s"], abs=1e-9)
    assert listed["start_t"] == T0 and listed["end_t"] == T0 + 4 * 19
    assert listed["activity"] == "run"
    # The journal reproduces the run exactly: same figures as without a store.
    assert summary["distance_m"] == pytest.approx(reference(20, stop=True)["distance_m"],
                                                  abs=1e-9)


def test_flight_returns_the_summary_with_the_route(store):
    with librunway.Session({"store": store, "flight_id": "morning-run"}) as s:
        assert s.flight_id == "morning-run"
        s.start(T0)
        push_steps(s, 0, 12)
        s.lap(T0 + 4 * 11)
        push_steps(s, 12, 20)
        s.stop()
        summary = s.summary()
    stored = librunway.flight(store, "morning-run")
    assert stored["flight_id"] == "morning-run"
    assert stored["phase"] == "touchdown"
    assert stored["distance_m"] == pytest.approx(summary["distance_m"], abs=1e-9)
    assert stored["route"] == summary["route"]
    assert len(stored["route"]) == 20
    assert [lap["distance_m"] for lap in stored["laps"]] == \
        pytest.approx([lap["distance_m"] for lap in summary["laps"]], abs=1e-9)
    assert stored["laps"][0]["trigger"] == "manual"


def test_export_flight_gives_the_bytes_the_session_exported(store):
    with librunway.Session({"store": store}) as s:
        s.start(T0)
        push_steps(s, 0, 20)
        s.stop()
        flight_id = s.flight_id
        live = {fmt: s.export(fmt) for fmt in FORMATS}
    for fmt in FORMATS:
        assert librunway.export_flight(store, flight_id, fmt) == live[fmt], fmt
    with pytest.raises(librunway.ArgumentError):
        librunway.export_flight(store, flight_id, "kml")
    with pytest.raises(librunway.NotFoundError):
        librunway.export_flight(store, "no-such-flight", "gpx")


def test_delete_removes_the_flight_and_only_it(store):
    for name in ("first", "second"):
        with librunway.Session({"store": store, "flight_id": name}) as s:
            s.start(T0)
            push_steps(s, 0, 5)
            s.stop()
    assert [f["flight_id"] for f in librunway.flights(store)] == ["first", "second"]
    librunway.delete_flight(store, "first")
    assert [f["flight_id"] for f in librunway.flights(store)] == ["second"]
    with pytest.raises(librunway.NotFoundError):
        librunway.flight(store, "first")
    with pytest.raises(librunway.NotFoundError):
        librunway.export_flight(store, "first", "gpx")
    with pytest.raises(librunway.NotFoundError):
        librunway.delete_flight(store, "first")   # already gone
    assert librunway.flight(store, "second")["route"]


def test_an_id_already_in_the_store_is_refused(store):
    with librunway.Session({"store": store, "flight_id": "twice"}):
        pass
    with pytest.raises(librunway.StateError, match="twice"):
        librunway.Session({"store": store, "flight_id": "twice"})


@pytest.mark.parametrize("bad_id", ["", "two words", "x" * 129])
def test_a_bad_flight_id_is_an_argument_error(store, bad_id):
    with pytest.raises(librunway.ArgumentError):
        librunway.Session({"store": store, "flight_id": bad_id})


def test_a_flight_closed_without_stop_is_unfinished_and_recovers_where_it_was(store):
    s = librunway.Session({"store": store})
    flight_id = s.flight_id
    s.start(T0)
    push_steps(s, 0, 12)
    before = s.summary()
    s.close()                                  # the host "dies": no stop

    [listed] = librunway.flights(store)
    assert listed["flight_id"] == flight_id and listed["finished"] is False
    assert listed["end_reason"] is None
    assert listed["distance_m"] == pytest.approx(before["distance_m"], abs=1e-9)

    with librunway.recover(store, flight_id) as r:
        assert isinstance(r, librunway.Session)
        assert r.flight_id == flight_id
        again = r.summary()
        assert again["phase"] == "cruise"
        assert again["distance_m"] == pytest.approx(before["distance_m"], abs=1e-9)
        assert again["elapsed_s"] == pytest.approx(before["elapsed_s"], abs=1e-9)
        assert again["route"] == before["route"]
        # It goes on: more inputs, journaled to the same flight.
        push_steps(r, 12, 20)
        with pytest.raises(librunway.InputError):
            r.push(fix(3, T0))                 # still the same flight: time may not go back
        r.stop()
        done = r.summary()
    expected = reference(20, stop=True)
    assert done["distance_m"] > before["distance_m"]
    assert done["distance_m"] == pytest.approx(expected["distance_m"], abs=1e-9)
    assert done["elapsed_s"] == pytest.approx(expected["elapsed_s"], abs=1e-9)

    [listed] = librunway.flights(store)
    assert listed["finished"] is True
    assert listed["distance_m"] == pytest.approx(expected["distance_m"], abs=1e-9)
    with pytest.raises(librunway.StateError, match=r"finished; read it with librunway\.flight\("):
        librunway.recover(store, flight_id)       # finished now: the message names the Python reader


def test_a_recovered_flight_keeps_its_phase_and_laps(store):
    s = librunway.Session({"store": store, "flight_id": "held"})
    s.start(T0)
    push_steps(s, 0, 8)
    s.lap(T0 + 28)
    push_steps(s, 8, 10)
    s.pause(T0 + 40)
    before = s.summary()
    s.close()
    with librunway.recover(store, "held") as r:
        after = r.summary()
        assert after["phase"] == "holding"
        assert len(after["laps"]) == len(before["laps"]) == 1
        assert after["laps"][0]["distance_m"] == pytest.approx(before["laps"][0]["distance_m"])
        with pytest.raises(librunway.StateError):
            r.pause()                          # already holding
        r.resume(T0 + 50)
        r.stop(T0 + 60)
    assert librunway.flight(store, "held")["phase"] == "touchdown"


def test_batched_durability_keeps_the_flight_once_the_session_is_closed(store):
    s = librunway.Session({"store": store, "durability": "batched", "flight_id": "batched"})
    s.start(T0)
    push_steps(s, 0, 15)
    distance = s.summary()["distance_m"]
    s.close()
    [listed] = librunway.flights(store)
    assert listed["finished"] is False
    assert listed["distance_m"] == pytest.approx(distance, abs=1e-9)
    with pytest.raises(librunway.ArgumentError):
        librunway.Session({"store": store, "durability": "sometimes"})


def test_finish_flight_lands_an_unfinished_flight_as_recovered(store):
    s = librunway.Session({"store": store, "flight_id": "abandoned"})
    s.start(T0)
    push_steps(s, 0, 10)
    distance = s.summary()["distance_m"]
    s.close()
    librunway.finish_flight(store, "abandoned")
    [listed] = librunway.flights(store)
    assert listed["finished"] is True and listed["end_reason"] == "recovered"
    assert listed["end_t"] == T0 + 4 * 9            # its last journaled time
    assert listed["distance_m"] == pytest.approx(distance, abs=1e-9)
    assert librunway.flight(store, "abandoned")["phase"] == "touchdown"
    with pytest.raises(librunway.StateError):
        librunway.finish_flight(store, "abandoned")
    with pytest.raises(librunway.StateError):
        librunway.recover(store, "abandoned")


def test_unknown_flight_ids_are_not_found(store):
    with librunway.Session({"store": store}):
        pass                                   # the store exists, with one flight
    for call in (lambda: librunway.recover(store, "nope"),
                 lambda: librunway.finish_flight(store, "nope"),
                 lambda: librunway.flight(store, "nope"),
                 lambda: librunway.delete_flight(store, "nope"),
                 lambda: librunway.export_flight(store, "nope", "gpx")):
        with pytest.raises(librunway.NotFoundError) as err:
            call()
        assert "nope" in err.value.message


def _directory(tmp_path) -> str:
    path = tmp_path / "a-folder.db"
    path.mkdir()
    return str(path)


def _random_bytes(tmp_path) -> str:
    path = tmp_path / "noise.db"
    path.write_bytes(os.urandom(8192))
    return str(path)


@pytest.mark.parametrize("make_store", [_directory, _random_bytes], ids=["directory", "noise"])
def test_a_store_that_is_not_a_store_is_a_store_error(tmp_path, make_store):
    path = make_store(tmp_path)
    before = os.path.isdir(path) or open(path, "rb").read()
    calls = {
        "open": lambda: librunway.Session({"store": path}),
        "recover": lambda: librunway.recover(path, "x"),
        "finish": lambda: librunway.finish_flight(path, "x"),
        "flights": lambda: librunway.flights(path),
        "flight": lambda: librunway.flight(path, "x"),
        "delete": lambda: librunway.delete_flight(path, "x"),
        "export": lambda: librunway.export_flight(path, "x", "gpx"),
    }
    for name, call in calls.items():
        with pytest.raises(librunway.StoreError) as err:
            call()
        assert err.value.status == 6, name
        assert err.value.message, name
    # Refused, not repaired or overwritten.
    assert (os.path.isdir(path) or open(path, "rb").read()) == before


def test_store_functions_take_path_objects(tmp_path):
    path = tmp_path / "runs.db"
    with librunway.Session({"store": str(path), "flight_id": "p"}) as s:
        s.start(T0)
        push_steps(s, 0, 3)
        s.stop()
    assert [f["flight_id"] for f in librunway.flights(path)] == ["p"]
    assert librunway.flight(path, "p")["flight_id"] == "p"
    with pytest.raises(librunway.ArgumentError):
        librunway.flights(str(path) + "\0x")     # a NUL cannot cross into C


@pytest.mark.parametrize("name", [":memory:", "file:runs.db", "file:runs.db?mode=memory", "file::memory:"])
def test_a_store_path_is_a_file_name_never_an_sqlite_uri(tmp_path, monkeypatch, name):
    """SQLite reads ":memory:" as an in-memory database and, where it is built to take URIs (as
    Debian's is), "file:..." as a URI. A store path is a file name like any other: the lease
    (`<path>.lock`) and the read functions take it so, and a host given ":memory:" would have
    a journal that is gone at the crash it is meant to survive."""
    monkeypatch.chdir(tmp_path)
    with librunway.Session({"store": name, "flight_id": "u"}) as s:
        s.start(T0)
        push_steps(s, 0, 3)
    assert os.path.isfile(tmp_path / name)
    assert sorted(os.listdir(tmp_path)) == sorted([name, name + ".lock"])
    listed = librunway.flights(name)
    assert [(f["flight_id"], f["finished"]) for f in listed] == [("u", False)]
    with librunway.recover(name, "u") as s:
        assert s.snapshot()["distance_m"] == reference(3)["distance_m"]


def test_a_store_path_like_an_absolute_uri_is_not_taken_for_that_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "elsewhere.db"
    with pytest.raises(librunway.StoreError, match="cannot open"):
        librunway.Session({"store": f"file:{target}", "flight_id": "u"})
    assert not target.exists()
