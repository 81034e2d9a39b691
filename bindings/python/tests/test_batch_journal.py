"""``librunway batch --out FILE`` journals its rows to FILE.partial as tasks finish, and a batch
cut short goes on from there (librunway/batch_journal.py); the archive and the cluster are
batch_testkit.py's."""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import pytest

from batch_testkit import archive, client, pytestmark  # noqa: F401
from librunway import batch, batch_cli


def _folder(archive: Path, tmp_path: Path) -> Path:
    """A copy of the archive's recordings that a test may change."""
    folder = tmp_path / "runs"
    shutil.copytree(archive / "generated", folder)
    shutil.copytree(archive / "broken", folder / "broken")
    return folder


def _run(folder: Path, client, out: Path, *extra: str) -> int:
    return batch.main([str(folder), "--scheduler", client.scheduler.address, "--out", str(out),
                       *extra])


def _cells(rows: list[dict]) -> list[dict]:
    return [{k: "" if v is None else str(v) for k, v in r.items()} for r in rows]


def _read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _journal(out: Path) -> tuple[str, list[dict]]:
    header, *lines = Path(f"{out}.partial").read_text(encoding="utf-8").splitlines()
    return header, [json.loads(line) for line in lines]


def _write_journal(out: Path, header: str, entries: list[dict], tail: str = "") -> None:
    Path(f"{out}.partial").write_text(
        "".join(line + "\n" for line in [header] + [json.dumps(e) for e in entries]) + tail,
        encoding="utf-8")


def _with_a_victim(archive: Path, tmp_path: Path) -> tuple[Path, Path, list[dict], str]:
    """A folder to change, the table's path, the rows of its recordings, and the absolute path
    of one analysed without an error."""
    folder = _folder(archive, tmp_path)
    expected = batch.analyse(folder)
    victim = next(os.path.abspath(r["file"]) for r in expected
                  if r["distance_m"] and not r["error"])
    return folder, tmp_path / "figures.csv", expected, victim


def _cut_short(folder: Path, client, out: Path, monkeypatch) -> list[dict]:
    """Runs the batch until its last step, the table's write, fails (a full disk): the
    journal holds every row. Returns the journal's entries."""
    def full_disk(rows, path):
        Path(path).write_text("half a table")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(batch_cli, "write_csv", full_disk)
    with pytest.raises(OSError):
        _run(folder, client, out)
    monkeypatch.undo()
    assert not out.exists() and not Path(f"{out}.tmp").exists()   # no half-written table
    return _journal(out)[1]


def test_a_batch_cut_short_goes_on_from_its_journal(archive, client, tmp_path, monkeypatch,
                                                    capsys):
    folder = _folder(archive, tmp_path)
    out = tmp_path / "figures.csv"
    expected = batch.analyse(folder)
    entries = _cut_short(folder, client, out, monkeypatch)
    assert sorted(e["path"] for e in entries) == sorted(os.path.abspath(r["file"]) for r in expected)
    by_path = {os.path.abspath(r["file"]): r for r in expected}
    assert all(e["row"] == by_path[e["path"]] for e in entries)   # exactly the rows

    # What the journal holds is taken as it is: a row marked here shows it was not recomputed.
    # A recording changed since its row was written, and one whose row is missing, are
    # analysed again; a last line cut off (the write a crash interrupted) is left out.
    ok = [e for e in entries if e["row"]["distance_m"] and not e["row"]["error"]]
    kept, changed, missing = ok[0], ok[1], ok[2]
    kept["row"]["distance_m"] = 12345.0
    changed["row"]["distance_m"] = 999.0
    t = os.stat(changed["path"]).st_mtime_ns + 10**9
    os.utime(changed["path"], ns=(t, t))
    header, _ = _journal(out)
    _write_journal(out, header, [e for e in entries if e is not missing], tail='{"path": "/x", "st')
    capsys.readouterr()
    assert _run(folder, client, out) == 0
    err = capsys.readouterr().err
    n = len(expected)
    assert f"resuming from {out}.partial: {n - 2} of {n} recordings already done" in err
    assert f"; {n - 2} from {out}.partial" in err
    want = [dict(r) for r in expected]
    for r in want:
        if os.path.abspath(r["file"]) == kept["path"]:
            r["distance_m"] = 12345.0
    assert _read_csv(out) == _cells(want)
    assert not Path(f"{out}.partial").exists()                  # removed once the table is written


def test_an_interrupted_batch_keeps_the_tasks_done(archive, client, tmp_path, monkeypatch, capsys):
    folder = _folder(archive, tmp_path)
    out = tmp_path / "figures.csv"
    real = batch._run_on

    def interrupted(client, items, config, progress, salvage=False, on_rows=None):
        def once(indices, rows):
            on_rows(indices, rows)
            raise KeyboardInterrupt          # Ctrl-C after the first task is journaled
        return real(client, items, config, progress, salvage, on_rows=once)

    monkeypatch.setattr(batch, "_run_on", interrupted)
    assert _run(folder, client, out) == 130
    assert "interrupted; the rows done are kept in" in capsys.readouterr().err
    monkeypatch.undo()
    _, entries = _journal(out)
    expected = batch.analyse(folder)
    assert 0 < len(entries) < len(expected)
    assert _run(folder, client, out) == 0
    assert f"{len(entries)} of {len(expected)} recordings already done" in capsys.readouterr().err
    assert _read_csv(out) == _cells(expected)


@pytest.mark.parametrize("how", ["damaged line", "another config", "another library",
                                 "--no-resume", "not a journal"])
def test_a_journal_that_does_not_fit_is_not_used(archive, client, tmp_path, monkeypatch, capsys,
                                                 how):
    folder = _folder(archive, tmp_path)
    out = tmp_path / "figures.csv"
    entries = _cut_short(folder, client, out, monkeypatch)
    header, _ = _journal(out)
    for e in entries:
        e["row"]["distance_m"] = 12345.0                        # would show if it were used
    extra: list[str] = []
    if how == "damaged line":
        _write_journal(out, header, entries[:2] + entries[3:])
        text = Path(f"{out}.partial").read_text().splitlines()
        text[3] = text[3][:-5] + "}"
        Path(f"{out}.partial").write_text("\n".join(text) + "\n")
        said = "is damaged at line 4: starting over"
    elif how == "another config":
        _write_journal(out, header, entries)
        extra = ["--config", '{"hr_max": 185}']
        said = "was written with another config: starting over"
    elif how == "another library":
        h = json.loads(header)
        h["library"]["version"] = "0.0.1"
        _write_journal(out, json.dumps(h), entries)
        said = "was written with another library: starting over"
    elif how == "--no-resume":
        _write_journal(out, header, entries)
        extra = ["--no-resume"]
        said = None
    else:
        Path(f"{out}.partial").write_text("name,distance\nx,1\n")
        said = "is not a librunway.batch journal: starting over"
    capsys.readouterr()
    assert _run(folder, client, out, *extra) == 0
    err = capsys.readouterr().err
    assert "resuming" not in err
    if said:
        assert f"{out}.partial {said}" in err
    config = json.loads(extra[1]) if extra[:1] == ["--config"] else None
    assert _read_csv(out) == _cells(batch.analyse(folder, config=config))
    assert not Path(f"{out}.partial").exists()


def test_a_recording_changed_while_it_is_analysed_is_analysed_again(archive, client, tmp_path,
                                                                     monkeypatch, capsys):
    # Its row was made from what the worker read; the journal must not vouch for what the file
    # became meanwhile, so the row carries the stamp the file had as the batch began.
    folder, out, expected, victim = _with_a_victim(archive, tmp_path)
    real = batch._run_on

    def touched_meanwhile(client, items, config, progress, salvage=False, on_rows=None):
        t = os.stat(victim).st_mtime_ns + 10**9           # saved again while the batch runs
        os.utime(victim, ns=(t, t))
        return real(client, items, config, progress, salvage, on_rows=on_rows)

    monkeypatch.setattr(batch, "_run_on", touched_meanwhile)
    _cut_short(folder, client, out, monkeypatch)
    capsys.readouterr()
    assert _run(folder, client, out) == 0
    n = len(expected)
    assert f"{n - 1} of {n} recordings already done" in capsys.readouterr().err
    assert _read_csv(out) == _cells(expected)


def test_a_client_without_the_library_journals_the_cluster_s_rows(archive, client, tmp_path):
    """``--scheduler`` runs the files on the cluster's workers: the machine that gives the
    command needs no librunway of its own (``_check_config`` passes over its absence: "a remote
    cluster's workers have it"), with or without ``--out``: the journal's header names the
    library the workers load (``workers_library``), whose rows it keeps."""
    import subprocess
    import sys

    from conftest import PYTHON_DIR

    folder = _folder(archive, tmp_path)
    out = tmp_path / "figures.csv"
    env = {**os.environ, "RUNWAY_LIBRARY": str(tmp_path / "no-such" / "librunway.so"),
           "PYTHONPATH": str(PYTHON_DIR)}
    p = subprocess.run([sys.executable, "-m", "librunway.batch", str(folder), "--scheduler",
                        client.scheduler.address, "--out", str(out)],
                       env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in p.stderr, p.stderr[-800:]
    assert p.returncode == 0, p.stderr[-800:]
    assert _read_csv(out) == _cells(batch.analyse(folder))


def test_a_worker_s_failure_is_not_journaled_and_the_next_run_tries_the_file_again(
        archive, client, tmp_path, monkeypatch, capsys):
    # A task that raises (a worker that died, a bug) is not the file's answer, unlike an error the
    # file itself causes (the broken recordings' rows, which are journaled and reused).
    folder, out, expected, victim = _with_a_victim(archive, tmp_path)
    real = batch._analyse_chunk

    def dies_on_the_victim(items, config, salvage=False):
        if any(path == victim for path, _ in items):
            raise RuntimeError("worker lost")
        return real(items, config, salvage)

    monkeypatch.setattr(batch, "_analyse_chunk", dies_on_the_victim)
    entries = _cut_short(folder, client, out, monkeypatch)        # (undoes the patch too)
    paths = [e["path"] for e in entries]
    assert victim not in paths and len(paths) == len(expected) - 1
    assert any(e["row"]["error"] for e in entries)              # the files' own errors are kept
    # A journal that holds a worker's failure (an older librunway's) does not pass it on either.
    header, _ = _journal(out)
    failed = dict.fromkeys(batch.COLUMNS)
    failed.update(file=victim, error="worker failed on this file: RuntimeError: worker lost")
    _write_journal(out, header, entries + [{"path": victim, "stamp": [os.stat(victim).st_size,
                                            os.stat(victim).st_mtime_ns], "row": failed}])
    capsys.readouterr()
    assert _run(folder, client, out) == 0
    n = len(expected)
    assert f"{n - 1} of {n} recordings already done" in capsys.readouterr().err
    assert _read_csv(out) == _cells(expected)                   # the victim's real row
