"""librunway.batch's command line (``librunway batch``, ``python -m librunway.batch``) and its
table writers; the archive and the cluster are batch_testkit.py's."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import librunway
from batch_testkit import archive, client, pytestmark  # noqa: F401
from conftest import PYTHON_DIR
from librunway import batch


# ---- command line -----------------------------------------------------------------------------

def _read_csv(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == batch.COLUMNS
        return list(reader)


def _as_csv_cells(row: dict) -> dict:
    return {k: "" if v is None else str(v) for k, v in row.items()}


def test_command_line_writes_the_table(archive, tmp_path):
    folder = archive / "generated"
    out = tmp_path / "figures.csv"
    env = {**os.environ, "RUNWAY_LIBRARY": librunway.library_path(),
           "PYTHONPATH": os.pathsep.join([str(PYTHON_DIR), os.environ.get("PYTHONPATH", "")])}
    p = subprocess.run([sys.executable, "-m", "librunway.batch", str(folder), str(archive / "broken"),
                        "--workers", "2", "--out", str(out)],
                       capture_output=True, text=True, env=env, timeout=50)
    assert p.returncode == 0, p.stderr
    rows = _read_csv(out)
    expected = batch.analyse([folder, archive / "broken"])
    assert rows == [_as_csv_cells(r) for r in expected]       # floats written exactly (repr)
    failed = sum(1 for r in expected if r["error"])
    assert f"librunway.batch: {len(expected)} files, {failed} failed, " in p.stderr
    assert "recordings/s" in p.stderr and "2 workers" in p.stderr


def test_command_line_on_an_existing_scheduler(archive, client, tmp_path, capsys):
    out = tmp_path / "figures.csv"
    status = batch.main([str(archive / "generated"), "--scheduler", client.scheduler.address,
                         "--out", str(out)])
    assert status == 0
    assert _read_csv(out) == [_as_csv_cells(r) for r in batch.analyse(archive / "generated")]
    assert f"2 workers at {client.scheduler.address}" in capsys.readouterr().err


def test_command_line_draws_a_progress_bar_on_stderr_of_a_terminal(archive, client, capsys,
                                                                   monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    status = batch.main([str(archive / "generated"), "--scheduler", client.scheduler.address])
    assert status == 0
    captured = capsys.readouterr()
    frames = captured.err.split("\r")[1:]                 # each redraw starts with \r
    assert frames[0] == "[" + "-" * 30 + "] 0/6 files   0%"
    assert frames[-1].startswith("[" + "#" * 30 + "] 6/6 files 100%\n")
    done = [int(f.split("] ")[1].split("/")[0]) for f in frames]
    assert done == sorted(done)                            # (how often it moves: the next test)
    assert "librunway batch: 6 files, 0 failed, " in frames[-1]   # then the summary line
    assert captured.out.startswith(",".join(batch.COLUMNS) + "\r\n") or \
        captured.out.startswith(",".join(batch.COLUMNS) + "\n")
    assert "files" not in captured.out.split("\n", 1)[1] and "#" not in captured.out  # CSV only


class _Task:
    """A stand-in for a Dask future that is done after its polls run out."""
    def __init__(self, polls: int):
        self.polls = polls

    def done(self) -> bool:
        self.polls -= 1
        return self.polls < 0


def test_the_progress_bar_moves_as_each_task_finishes():
    out = io.StringIO()
    # Three tasks of 1, 2 and 3 files, finishing at the 1st, 3rd and 5th poll.
    batch._progress_bar([_Task(0), _Task(2), _Task(4)], [1, 2, 3], 6, out=out, width=6)
    frames = out.getvalue().split("\r")[1:]
    assert frames == ["[------] 0/6 files   0%", "[#-----] 1/6 files  16%",
                      "[###---] 3/6 files  50%", "[######] 6/6 files 100%\n"]


def test_progress_bar_follows_the_flag_not_the_terminal(archive, client, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert batch.main([str(archive / "generated"), "--scheduler", client.scheduler.address,
                       "--no-progress"]) == 0
    assert "\r" not in capsys.readouterr().err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert batch.main([str(archive / "generated"), "--scheduler", client.scheduler.address]) == 0
    assert "\r" not in capsys.readouterr().err
    assert batch.main([str(archive / "generated"), "--scheduler", client.scheduler.address,
                       "--progress"]) == 0
    assert "6/6 files 100%" in capsys.readouterr().err


def test_parquet_needs_pyarrow_and_says_so(archive, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pyarrow", None)     # import pyarrow -> ImportError
    with pytest.raises(SystemExit) as e:
        batch.main([str(archive / "generated"), "--out", str(tmp_path / "f.parquet")])
    assert e.value.code == 2
    assert "writing Parquet needs pyarrow" in capsys.readouterr().err
    assert not (tmp_path / "f.parquet").exists()


def test_parquet_holds_the_rows(archive, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (Parquet is optional)")
    rows = batch.analyse(archive / "broken") + batch.analyse(archive / "generated")
    batch.write_parquet(rows, tmp_path / "f.parquet")
    assert pq.read_table(tmp_path / "f.parquet").to_pylist() == rows


def test_command_line_usage_errors(archive, tmp_path, capsys):
    for argv in ([str(archive), "--out", str(tmp_path / "f.xlsx")],
                 [str(archive), "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
                 [str(archive), "--workers", "0"],
                 [str(tmp_path / "missing")],
                 [str(archive), "--config", '{"clock": "live"}']):
        with pytest.raises(SystemExit) as e:
            batch.main(argv)
        assert e.value.code == 2, argv
    assert not list(tmp_path.iterdir())


def test_a_file_name_that_is_not_utf8_is_written_as_escapes(tmp_path):
    """A recording whose name is not UTF-8 (a Latin-1 folder) is a row like any other; the
    table is UTF-8 with the name's other bytes as \\xNN escapes, in a file, on a stdout whose
    error handler is strict (a UTF-8 locale's) and in Parquet. Before, writing the table raised
    UnicodeEncodeError after the whole batch had run, leaving a CSV cut at that row (with a
    strict stdout too) and no Parquet file. The row itself keeps the name os.fsdecode gave."""
    name = os.fsdecode(b"/runs/caf\xe9.fit")
    rows = [{c: None for c in batch.COLUMNS}, {c: None for c in batch.COLUMNS}]
    rows[0].update(file=name, format="fit", distance_m=1000.0)
    rows[1].update(file="/runs/ok.fit", format="fit", distance_m=2000.0)
    out = tmp_path / "figures.csv"
    batch.write_csv(rows, out)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    assert lines[1].startswith("/runs/caf\\xe9.fit,fit,") and lines[2].startswith("/runs/ok.fit,")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", newline="")
    batch.write_csv(rows, stdout)
    stdout.flush()
    assert stdout.buffer.getvalue() == out.read_bytes()
    assert rows[0]["file"] == name
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (Parquet is optional)")
    batch.write_parquet(rows, tmp_path / "f.parquet")
    assert pq.read_table(tmp_path / "f.parquet").column("file").to_pylist() == [
        "/runs/caf\\xe9.fit", "/runs/ok.fit"]
