"""``librunway batch DIR...``: the command line of :mod:`librunway.batch`, which re-exports
:func:`main` (``librunway batch``, ``python -m librunway batch`` and ``python -m librunway.batch``
run it).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Optional

from .batch_find import find_recordings
from .batch_journal import Journal, workers_library
from .batch_table import _pyarrow, write_csv, write_parquet
from .errors import LibraryError, RunwayError, _install_hint

def _parser(prog: str = "librunway batch") -> argparse.ArgumentParser:
    from ._args import ArgumentParser

    p = ArgumentParser(
        prog=prog,
        description="Figures for every GPX/TCX/FIT recording under DIR (recursively), one row per "
                    "recording, computed on a Dask cluster: a local one (--workers) or an "
                    "existing one (--scheduler).")
    p.add_argument("paths", nargs="+", metavar="DIR",
                   help="a directory (searched recursively), a recording, or a quoted glob")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="connect to this Dask scheduler (e.g. tcp://host:8786) instead of starting "
                        "a local cluster; its workers need this package and RUNWAY_LIBRARY")
    p.add_argument("--workers", type=int, metavar="N",
                   help="worker processes of the local cluster (default: one per core)")
    p.add_argument("--out", metavar="FILE",
                   help="write the table to FILE.csv or FILE.parquet (needs pyarrow); "
                        "default: CSV on stdout")
    p.add_argument("--config", metavar="JSON",
                   help='session config for every recording, e.g. \'{"hr_max": 185}\'')
    p.add_argument("--salvage", action="store_true",
                   help="read what a damaged (truncated) FIT, GPX or TCX file holds before the damage "
                        "instead of making it an error row")
    p.add_argument("--resume", action=argparse.BooleanOptionalAction, default=True,
                   help="with --out FILE: take the rows FILE.partial holds from an earlier run "
                        "of the same batch that was cut short (the default), or start over "
                        "(--no-resume)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr while the cluster works (default: when stderr "
                        "is a terminal)")
    return p


def main(argv: Optional[list[str]] = None, prog: str = "librunway batch") -> int:
    """``librunway batch DIR... [--scheduler ADDRESS] [--workers N]
    [--out figures.csv|.parquet] [--config JSON] [--salvage] [--no-resume] [--progress]``.
    Returns the exit status: 0 when the table was written (rows with errors included), 2 on a
    usage error, 1 when nothing was found, dask is missing or the library fails (one line on
    stderr), 130 when interrupted (Ctrl-C). With ``--out FILE`` the rows done are journaled
    to ``FILE.partial`` as tasks finish (:mod:`librunway.batch_journal`): a batch cut short
    goes on from there when run again."""
    # Imported here, not at the top: librunway.batch imports this module for its main.
    from .batch import _check_config, _run_on, local_cluster

    p = _parser(prog)
    args = p.parse_args(argv)
    if args.scheduler and args.workers is not None:
        p.error("--workers sizes the local cluster: not with --scheduler")
    if args.workers is not None and args.workers < 1:
        p.error("--workers must be at least 1")
    kind = "csv"
    if args.out:
        kind = os.path.splitext(args.out)[1].lower().lstrip(".")
        if kind not in ("csv", "parquet"):
            p.error(f"--out {args.out}: the name must end in .csv or .parquet")
        if kind == "parquet":
            try:
                _pyarrow()
            except ImportError as e:
                p.error(str(e))
    try:
        config = _check_config(args.config)
    except (ValueError, TypeError, RunwayError) as e:
        p.error(f"--config: {e}")
    try:
        import distributed
    except ImportError:
        print(f"{prog}: needs dask and distributed: "
              + _install_hint("batch", "dask distributed"), file=sys.stderr)
        return 1
    try:
        items = [(os.path.abspath(f), f) for f in find_recordings(args.paths)]
    except FileNotFoundError as e:
        p.error(f"{e.filename}: no such file or directory")
    if not items:
        print(f"{prog}: no .gpx, .tcx or .fit files in {' '.join(args.paths)}", file=sys.stderr)
        return 1

    journal: Optional[Journal] = None
    done: dict[int, dict] = {}
    todo: list[int] = []

    def keep(indices: list[int], rows: list[dict]) -> None:
        if journal is not None:
            journal.add([(items[todo[k]][0], row) for k, row in zip(indices, rows)])

    t_open = time.perf_counter()
    cluster = None
    if args.scheduler:
        client = distributed.Client(args.scheduler)
    else:
        cluster = local_cluster(args.workers)
        client = distributed.Client(cluster, set_as_default=False)
    try:
        t0 = time.perf_counter()
        if args.out:   # the journal's rows are the workers': their library, not this machine's
            journal = Journal(args.out, config, args.salvage, workers_library(client))
            done, note = journal.resume(items, reuse=args.resume)
            if note:
                print(f"{prog}: {note}", file=sys.stderr)
        todo = [j for j in range(len(items)) if j not in done]
        workers = len(client.nthreads())
        show = sys.stderr.isatty() if args.progress is None else args.progress
        computed = _run_on(client, [items[j] for j in todo], config, progress=show and bool(todo),
                           salvage=args.salvage, on_rows=keep) if todo else []
        took = time.perf_counter() - t0
    except LibraryError as e:
        print(f"{prog}: {e}".splitlines()[0], file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        if journal is not None:
            print(f"\n{prog}: interrupted; the rows done are kept in {journal.path}: the same "
                  "command goes on from there", file=sys.stderr)
        return 130
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
        if journal is not None:
            journal.close(remove=False)

    for j, row in zip(todo, computed):
        done[j] = row
    rows = [done[j] for j in range(len(items))]
    if not args.out:
        write_csv(rows, sys.stdout)
        sys.stdout.flush()
    else:
        tmp = f"{args.out}.tmp"
        try:
            (write_parquet if kind == "parquet" else write_csv)(rows, tmp)
            os.replace(tmp, args.out)      # never a half-written table
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        journal.close(remove=True)
    failed = sum(1 for r in rows if r["error"])
    some = f"{workers} worker{'s' if workers != 1 else ''}"
    where = (f"{some} at {args.scheduler}" if args.scheduler else
             f"a local cluster of {some}, started in {t0 - t_open:.1f} s")
    reused = len(items) - len(todo)
    print(f"{prog}: {len(rows)} file{'s' if len(rows) != 1 else ''}, {failed} failed, "
          f"{len(todo) / max(took, 1e-9):.1f} recordings/s ({took:.2f} s on {where})"
          f"{f'; {reused} from {journal.path}' if reused and journal else ''}"
          f"{' -> ' + args.out if args.out else ''}", file=sys.stderr)
    return 0
