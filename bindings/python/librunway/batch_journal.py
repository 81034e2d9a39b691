"""The journal of a batch written to a file: ``FILE.partial`` beside ``--out FILE``.

Part of :mod:`librunway.batch`'s command line. While the cluster works, each task's rows are
appended to the journal (one JSON line a recording, flushed and synced when the task is done),
so that a batch cut short (Ctrl-C, the cluster lost, the machine down) keeps what it did: the
same command again analyses only the recordings the journal lacks, and writes the whole table.
The table itself is written once, at the end, to a temporary file renamed over ``FILE``: a
``FILE`` is never half written. The journal is removed once the table is.

A row is taken from the journal only when everything that made it is the same: the recording's
absolute path, size and modification time, and the batch's config, salvage flag and library
(its version, and the loaded file's size and modification time, as the cluster's workers
load it). A recording's size and time
are those it had as the batch began, before any worker read it: a recording changed while it
was being analysed is analysed again by the next run. Otherwise the journal is set
aside and the batch starts over, and a line on stderr says why. A journal line that cannot be
read is damage: the journal is not trusted, the batch starts over; only a last line cut off
without its newline (the write a crash interrupted) is dropped quietly.

Only a file's own answer is journaled: its figures, or the error the file itself caused (not a
recording, damaged, no timed point: the same file gives it again). A row whose file got no
answer (:func:`librunway.batch_rows.worker_failed`: the worker running it died, or the task
raised something that is not the file's fault) is left out, and not reused from a journal
that holds one (an older librunway's): the next run tries that file again.
"""

from __future__ import annotations

import json
import os
from typing import Any, Optional

from .batch_rows import COLUMNS, worker_failed

SUFFIX = ".partial"
_MAGIC = "librunway.batch journal"


def _stamp(path: str) -> Optional[list[int]]:
    """[size, mtime_ns] of a file, or None when it cannot be read (never reused then)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


class Journal:
    """The rows done so far of a batch whose table goes to ``out``."""

    def __init__(self, out: str, config: Optional[dict], salvage: bool, library: dict):
        self.path = os.fspath(out) + SUFFIX
        self.header = {"journal": _MAGIC, "version": 1, "library": library,
                       "config": config, "salvage": bool(salvage)}
        self._file: Any = None
        self._stamps: dict[str, Optional[list[int]]] = {}

    def resume(self, items: list[tuple[str, str]],
               reuse: bool = True) -> tuple[dict[int, dict], str]:
        """Rows of `items` (by index) that the journal holds, and a line saying what was
        done with it ("" when there was none). The journal is rewritten to hold those
        rows only (none when not `reuse`: the batch starts over), ready for more. Each
        recording's stamp is taken now, before any of them is analysed, and is the one
        its row is journaled with."""
        self._stamps = {path: _stamp(path) for path, _ in items}
        done: dict[int, dict] = {}
        note = ""
        if not reuse:
            self._rewrite([])
            return done, note
        try:
            with open(self.path, "rb") as f:
                text = f.read()
        except FileNotFoundError:
            text = None
        except OSError as e:
            note = f"cannot read {self.path} ({e.strerror}): starting over"
            text = None
        if text is not None:
            entries, why = self._read(text)
            if why:
                note = f"{self.path} {why}: starting over"
            else:
                where = {path: j for j, (path, _) in enumerate(items)}   # paths listed once
                for entry in entries:
                    j = where.get(entry["path"])
                    stamp = self._stamps.get(entry["path"])
                    if (j is not None and stamp is not None and entry["stamp"] == stamp
                            and not worker_failed(entry["row"])):
                        row = dict(entry["row"])
                        row["file"] = items[j][1]           # the name as found this time
                        done[j] = row
                note = (f"resuming from {self.path}: {len(done)} of {len(items)} "
                        f"recording{'s' if len(items) != 1 else ''} already done")
        self._rewrite([(items[j][0], row) for j, row in sorted(done.items())])
        return done, note

    def _read(self, text: bytes) -> tuple[list[dict], str]:
        """The journal's entries, or why it is not to be trusted."""
        # The last piece is "" after the final newline, or a line cut off without one (the
        # write a crash interrupted): left out either way.
        lines = text.split(b"\n")[:-1]
        if not lines:
            return [], "is empty"
        try:
            header = json.loads(lines[0])
        except ValueError:
            return [], "is not a librunway.batch journal"
        if not isinstance(header, dict) or header.get("journal") != _MAGIC:
            return [], "is not a librunway.batch journal"
        for key, what in (("library", "another library"), ("config", "another config"),
                          ("salvage", "another --salvage"), ("version", "another version")):
            if header.get(key) != self.header[key]:
                return [], f"was written with {what}"
        entries = []
        for n, line in enumerate(lines[1:], start=2):
            try:
                entry = json.loads(line)
                ok = (isinstance(entry, dict) and isinstance(entry.get("path"), str)
                      and isinstance(entry.get("row"), dict)
                      and set(entry["row"]) == set(COLUMNS)
                      and (entry.get("stamp") is None or isinstance(entry.get("stamp"), list)))
            except ValueError:
                ok = False
            if not ok:
                return [], f"is damaged at line {n}"
            entries.append(entry)
        return entries, ""

    def _rewrite(self, rows: list[tuple[str, dict]]) -> None:
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(json.dumps(self.header) + "\n")
            for path, row in rows:
                f.write(self._line(path, row))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        self._file = open(self.path, "a", encoding="utf-8", errors="surrogateescape")

    def _line(self, path: str, row: dict) -> str:
        # The stamp the batch began with (a path it was not given: none, never reused).
        return json.dumps({"path": path, "stamp": self._stamps.get(path), "row": row}) + "\n"

    def add(self, pairs: list[tuple[str, dict]]) -> None:
        """Appends (absolute path, row) pairs and syncs them to disk; a worker's failure (not
        the file's answer) is left out, so that the next run tries the file again."""
        for path, row in pairs:
            if not worker_failed(row):
                self._file.write(self._line(path, row))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self, remove: bool) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        if remove:
            try:
                os.remove(self.path)
            except FileNotFoundError:
                pass


def library_identity() -> dict:
    """What identifies the library this process loaded (run on each worker by
    :func:`workers_library`)."""
    from . import _lib, version

    path = _lib.path()
    return {"version": version(), "file": _stamp(path) if path else None}


def workers_library(client: Any) -> Any:
    """What identifies the library that `client`'s workers load, for :class:`Journal`: the rows
    are theirs, and the machine that gives the command may have no library at all (a remote
    cluster). One identity when every worker loads the same file, else the list of them.
    Raises the workers' LibraryError when one has none."""
    seen = client.run(library_identity)            # {worker address: identity}
    distinct = sorted({json.dumps(v, sort_keys=True) for v in seen.values()})
    ids = [json.loads(s) for s in distinct]
    return ids[0] if len(ids) == 1 else ids
