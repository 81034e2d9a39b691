"""Figures for whole archives of recordings, in parallel on Dask.

Each recording (``.gpx``, ``.tcx``, ``.fit``) is analysed in one library call
(:func:`librunway.analyse_recording`, ``runway_analyse``: the file read straight
into a flight of its own, started at its first input (or by a FIT file's start
line: its timer started before its first record), stopped at the latest time it
saw; with an older library, :func:`librunway.import_recording` and a
:class:`librunway.Session`) —
with the activity profile the file names (FIT sport, TCX ``Sport``, GPX
``<type>``; ``run`` when it names none). The result is one row per recording::

    from distributed import Client
    from librunway.batch import analyse, local_cluster

    if __name__ == "__main__":          # Dask starts workers by spawning: guard the script
        with local_cluster(2) as cluster, Client(cluster) as client:
            rows = analyse("archive/", client=client)   # or a glob: "archive/**/*.fit"
        print(rows[0]["distance_m"], rows[0]["error"])

``Client("tcp://host:8786")`` uses an existing cluster instead; without a
client (and none current) :func:`analyse` works through the files in this
process.

The command line does the same and writes a table::

    librunway batch archive/ more/ --workers 2 --out figures.csv    # a local cluster
    librunway batch /data/runs --scheduler tcp://host:8786 --out figures.parquet

(``python -m librunway batch`` and ``python -m librunway.batch`` are the same command.) A
progress bar on stderr shows the files done while the cluster works (on a terminal, or with
``--progress``). With ``--out FILE`` the rows are journaled to ``FILE.partial`` as tasks
finish, and a batch cut short goes on from there when the same command runs again
(:mod:`librunway.batch_journal`; ``--no-resume`` starts over). A row whose ``error`` begins
``worker failed on this file:`` (the worker died, or the task raised something that is not the
file's fault) is not journaled: the next run tries that file again.

Rows (:data:`COLUMNS`, in that order): ``file`` (the path as found), ``format``,
``sport`` (as the file names it, lower case, or ``None``), ``activity`` (the
profile used: ``run``, ``walk`` or ``ride``), ``start`` (ISO 8601 UTC),
``distance_m``, ``elapsed_s``, ``moving_s``, ``avg_pace_min_per_km``,
``avg_speed_mps``, ``max_speed_mps``, ``gain_m``, ``loss_m``, ``segments``
(recorded stretches: a pause starts a new one), ``laps``, ``avg_hr_bpm``,
``max_hr_bpm``, ``avg_power_w``, ``max_power_w`` (when the engine reports power),
``fixes`` (fixes the engine saw), ``filtered`` (fixes its filters set aside:
accuracy, null island, speed, repeated time), ``untimed`` (points of the file
with a position but no time, skipped by the import), ``rejected`` (inputs the
engine refused), ``suggested_activity`` and ``mismatch_refused`` (a profile
mismatch, the summary's ``profile_mismatch``: the faster profile the fixes refused
as too fast agree with, e.g. ``ride`` for a ride analysed as a run, and how many
agree; ``None`` without one), ``device_distance_m`` and ``device_ascent_m`` (the totals the
file itself stores, FIT session or TCX laps; ``None`` when it has none) and
``error``. Figures are rounded to what the measurement supports (:data:`DECIMALS`:
0.1 m, 0.1 s, 0.01 m/s, 0.001 min/km, 0.1 bpm, 0.1 W; maxima of whole units as
recorded). ``untimed`` and the device columns come from the import report
(``None`` with a library whose import writes none).
A file that cannot be analysed — truncated, not a recording, no timed points,
no input accepted, not a regular file (a named pipe, a device), larger than the
import's 64 MiB (these two refused unread) — is a row whose ``error`` says why
(``"InputError: ..."``) and whose figures are ``None``; it never fails the job. So is
a folder that cannot be listed, given or met while searching (a glob's too).

Dask (``dask``, ``distributed``) is an optional extra:
``pip install './bindings/python[batch]'``. ``import librunway`` never imports it,
and neither does this module until a cluster is used. Workers read the files
themselves (the paths must resolve on every worker: one machine, or a shared
filesystem) and load librunway like any other process: workers of
:func:`local_cluster` get ``RUNWAY_LIBRARY`` set to the library this process
loaded; workers of a remote cluster need the package installed and
``RUNWAY_LIBRARY`` set (or ``librunway.so`` shipped inside the package).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Optional

from . import _lib
# What this module does is the Dask part below; the rest is re-exported from the modules it was
# split into, so that every name importable from librunway.batch still is.
from .batch_cli import _parser, main
from .batch_find import EXTENSIONS, PathLike, _is_recording_name, _scan, find_recordings
from .batch_rows import (COLUMNS, DECIMALS, WORKER_FAILED, RecordingError, _analyse_by_lines,
                         _analyse_one, _iso_utc, _rounded, analyse_file)
from .batch_table import _INT_COLUMNS, _STR_COLUMNS, _pyarrow, write_csv, write_parquet
from .errors import InputError, LibraryError, RunwayError
from .recording import (_read_recording_file, _start_replay, analyse_available, analyse_recording,
                        import_recording, split_report)
from .session import Session
from .session_encoding import _config_dict
from .sport import (_FIT_SPORT_FIELDS, _FIT_SPORTS, _RIDE_WORDS, _WALK_WORDS, _Found, _fit_sport,
                    _fit_sport_name, _xml_sport, activity_for, sniff_sport)

__all__ = ["analyse", "analyse_file", "find_recordings", "local_cluster", "sniff_sport",
           "activity_for", "write_csv", "write_parquet", "main", "COLUMNS", "EXTENSIONS"]

#: Session config keys a batch refuses: a replay needs the replay clock, and
#: thousands of concurrent sessions must not journal into one store.
_REFUSED_CONFIG = {"clock": "recordings are replayed (replay clock) only",
                   "store": "a batch does not journal flights to a store"}

#: Input bytes per task (about), and tasks per worker thread at least: recordings are
#: small (milliseconds each), so one task per file would be mostly scheduling overhead;
#: tasks of many files (a tenth of a second or so) keep that small while balancing the load.
CHUNK_BYTES = 2 << 20
CHUNKS_PER_THREAD = 4


def _analyse_chunk(items: list[tuple[str, str]], config: Optional[dict],
                   salvage: bool = False) -> list[dict]:
    """The task a worker runs: rows of (path, name) items, in order."""
    return [analyse_file(path, config, name=name, salvage=salvage) for path, name in items]


# ---- many recordings --------------------------------------------------------------------------

def _check_config(config: Optional[Mapping[str, Any] | str]) -> Optional[dict]:
    if config is None:
        return None
    config = _config_dict(config)   # a dict or a JSON object as text, as Session takes it
    for key, why in _REFUSED_CONFIG.items():
        if key in config and not (key == "clock" and config[key] == "replay"):
            raise ValueError(f"config {key!r}: {why}")
    try:                            # the library judges the rest; once here, not per file
        Session(config).close()
    except LibraryError:
        pass                        # none here (a remote cluster's workers have it)
    return config


def _default_client() -> Any:
    """The Dask client this process made current (Client(...) does), else None."""
    if "distributed" not in sys.modules:
        return None
    from distributed import default_client
    try:
        return default_client()
    except ValueError:
        return None


def _chunks(items: list[tuple[str, str]], threads: int) -> list[list[int]]:
    """Indices of consecutive items cut into tasks of about equal input bytes: at
    least CHUNKS_PER_THREAD tasks per worker thread, at most about CHUNK_BYTES a
    task, and a multiple of the threads in number (so that no thread is left with
    one more task than the others at the end); never more tasks than files."""
    sizes = []
    for path, _ in items:
        try:
            sizes.append(max(1, os.path.getsize(path)))
        except OSError:
            sizes.append(1)
    if not sizes:
        return []
    threads = max(1, threads)
    total = sum(sizes)
    n = max(CHUNKS_PER_THREAD * threads, -(-total // CHUNK_BYTES))
    n = min(len(sizes), -(-n // threads) * threads)
    bound = total / n
    chunks: list[list[int]] = []
    current: list[int] = []
    held = 0
    for j, size in enumerate(sizes):
        current.append(j)
        held += size
        if held >= bound * (len(chunks) + 1) and len(chunks) < n - 1:
            chunks.append(current)
            current = []
    if current:
        chunks.append(current)
    return chunks


def _run_on(client: Any, items: list[tuple[str, str]], config: Optional[dict],
            progress: bool, salvage: bool = False,
            on_rows: Optional[Callable[[list[int], list[dict]], None]] = None) -> list[dict]:
    """Rows of (path, name) `items`, in order, computed by `client`'s workers
    (``client.map`` of tasks of files). ``on_rows(indices, rows)`` is called with each
    task's rows as soon as it is done (and with each row a retry finds)."""
    rows: list[Optional[dict]] = [None] * len(items)
    chunks = _chunks(items, sum(client.nthreads().values()))
    key = "runway-batch"
    while chunks:
        futures = client.map(_analyse_chunk, [[items[j] for j in c] for c in chunks],
                             config=config, salvage=salvage, key=key, pure=False)

        def done(finished: list[int]) -> None:
            for i in finished:
                if futures[i].status == "finished":
                    got = futures[i].result()
                    for j, row in zip(chunks[i], got):
                        rows[j] = row
                    if on_rows is not None:
                        on_rows(chunks[i], got)

        if progress:   # a bar on stderr, until every task is done
            _progress_bar(futures, [len(c) for c in chunks], len(items), on_done=done)
            progress = False
        else:
            _wait_each(futures, done)
        retry: list[list[int]] = []
        for chunk, future in zip(chunks, futures):
            if future.status == "finished":
                continue
            if future.status != "error":          # cancelled: the cluster went away
                raise RuntimeError(f"librunway.batch: a task was {future.status} (cluster lost?)")
            if isinstance(future.exception(), LibraryError):
                raise future.exception()          # a worker without librunway: not the file's fault
            if len(chunk) > 1:                    # a worker died (or a bug): find the file alone
                retry += [[j] for j in chunk]
            else:
                rows[chunk[0]] = _failed_row(items[chunk[0]], future.exception())
                if on_rows is not None:
                    on_rows(chunk, [rows[chunk[0]]])
        chunks, key = retry, "runway-batch-single"
        del futures
    return rows  # type: ignore[return-value]


def _wait_each(futures: list[Any], on_done: Callable[[list[int]], None],
               poll_s: float = 0.05) -> None:
    """Returns when every future is done, calling ``on_done(indices)`` each time some are
    (polled: distributed.as_completed needs a default client)."""
    pending = list(range(len(futures)))
    while pending:
        time.sleep(poll_s)
        finished = [i for i in pending if futures[i].done()]
        if finished:
            gone = set(finished)
            pending = [i for i in pending if i not in gone]
            on_done(finished)


def _progress_bar(futures: list[Any], sizes: list[int], total: int, out: Any = None,
                  width: int = 30,
                  on_done: Optional[Callable[[list[int]], None]] = None) -> None:
    """Draw ``[#####-----]  120/840 files  14%`` on ``out`` (stderr) as tasks finish (a task
    of ``sizes[i]`` files counts them all at once), then end the line; ``on_done`` as
    :func:`_wait_each`'s."""
    out = out or sys.stderr
    done = 0

    def draw() -> None:
        filled = round(width * done / total) if total else width
        out.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {done:>{len(str(total))}}/{total} "
                  f"files {100 * done // max(total, 1):3d}%")
        out.flush()

    def advance(finished: list[int]) -> None:
        nonlocal done
        if on_done is not None:
            on_done(finished)
        done += sum(sizes[i] for i in finished)
        draw()

    draw()
    _wait_each(futures, advance)
    out.write("\n")
    out.flush()


def _failed_row(item: tuple[str, str], exc: BaseException) -> dict:
    row = dict.fromkeys(COLUMNS)
    row["file"] = item[1]
    row["format"] = EXTENSIONS.get(os.path.splitext(item[0])[1].lower())
    row["error"] = f"{WORKER_FAILED}{type(exc).__name__}: {exc}"
    return row


def analyse(paths_or_glob: PathLike | Iterable[PathLike],
            config: Optional[Mapping[str, Any] | str] = None, client: Any = None, *,
            progress: bool = False, salvage: bool = False) -> list[dict]:
    """Figures for every recording found, one row each (see the module's doc).

    Args:
        paths_or_glob: a directory (searched recursively), a file, a glob
            (``"runs/**/*.fit"``), or a list of them (:func:`find_recordings`).
        config: a session config for every recording (keys in
            docs/inputs.md), e.g. ``{"hr_max": 185}``, or a JSON object as text; its
            ``activity``, if any, overrides the files' sports. ``clock`` and ``store`` are
            refused.
        client: a ``distributed.Client``: tasks of files run on its workers
            (``client.map`` + ``client.gather``). ``None``: the Dask client
            this process made current, if any; else every file is analysed
            here, one after another.
        progress: show Dask's progress bar (``distributed.progress``) while
            the cluster works.
        salvage: read what a damaged file holds before the damage (a
            truncated file's records or points before the cut) instead of making
            it an error row (as :func:`librunway.analyse`'s ``salvage``).

    Returns:
        The rows in the order the files were found; the same figures
        whichever cluster (or none) computed them.

    Raises:
        librunway.RecordingNotFoundError: a path (not a glob) does not exist (a
            ``FileNotFoundError`` and an ``InputError``, as :func:`librunway.analyse` raises).
        librunway.ArgumentError: ``config`` is not a valid session config.
        ValueError: ``config`` names ``clock`` (other than ``"replay"``) or ``store``.
        librunway.LibraryError: no usable librunway (here or on a worker).
    """
    config = _check_config(config)
    items = [(os.path.abspath(p), p) for p in find_recordings(paths_or_glob)]
    if client is None:
        client = _default_client()
    if client is None:
        return [analyse_file(path, config, name=name, salvage=salvage) for path, name in items]
    return _run_on(client, items, config, progress, salvage)


def local_cluster(n_workers: Optional[int] = None, **kwargs: Any) -> Any:
    """A ``distributed.LocalCluster`` for :func:`analyse`: ``n_workers``
    processes (default: one per core) of one thread each, whose
    ``RUNWAY_LIBRARY`` is the library this process loaded (workers inherit
    the rest of the environment and ``sys.path``), without the workers'
    statistical profiler (it samples every thread every 10 ms, for the
    dashboard: about 5% of a worker here). ``kwargs`` go to
    ``LocalCluster``. Close it (or use ``with``) when done."""
    import dask
    from distributed import LocalCluster

    opts: dict[str, Any] = dict(n_workers=n_workers or os.cpu_count() or 1,
                                threads_per_worker=1, processes=True,
                                dashboard_address=":0",
                                env={_lib.LIBRARY_ENV: _lib.path()})
    opts.update(kwargs)
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        return LocalCluster(**opts)


if __name__ == "__main__":
    # Run the functions of the imported module librunway.batch, not of this __main__ copy: Dask
    # pickles functions by module and name, and workers import librunway.batch.
    from librunway.batch import main as _main
    sys.exit(_main(prog="python -m librunway.batch"))
