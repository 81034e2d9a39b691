"""Writing a batch's rows as a table: CSV, or Parquet with pyarrow.

Part of :mod:`librunway.batch`, which re-exports :func:`write_csv` and :func:`write_parquet`.
"""

from __future__ import annotations

import csv
import os
from typing import Any

from .batch_find import PathLike
from .batch_rows import COLUMNS

def write_csv(rows: list[dict], out: Any) -> None:
    """Rows as CSV (header :data:`COLUMNS`; ``None`` is an empty cell; floats
    written exactly, as ``repr``). ``out`` is a path or a text file. A path is written
    as UTF-8, a file name that is not UTF-8 as its own bytes (``os.fsencode``), as
    ``sys.stdout`` writes it."""
    if isinstance(out, (str, os.PathLike)):
        with open(out, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
            write_csv(rows, f)
        return
    w = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)


_INT_COLUMNS = {"segments", "laps", "fixes", "filtered", "untimed", "rejected",
                "mismatch_refused"}
_STR_COLUMNS = {"file", "format", "sport", "activity", "start", "suggested_activity",
                "error"}


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError as e:
        raise ImportError("writing Parquet needs pyarrow, which is not installed: "
                          "pip install pyarrow (or write CSV: --out figures.csv)") from e
    return pyarrow


def write_parquet(rows: list[dict], path: PathLike) -> None:
    """Rows as a Parquet file (needs ``pyarrow``: ImportError saying so
    without it). Strings, float64 figures, int64 counts; ``None`` is null."""
    pa = _pyarrow()
    schema = pa.schema([(c, pa.string() if c in _STR_COLUMNS else
                         pa.int64() if c in _INT_COLUMNS else pa.float64()) for c in COLUMNS])
    table = pa.Table.from_pylist([{c: r.get(c) for c in COLUMNS} for r in rows], schema=schema)
    pa.parquet.write_table(table, os.fspath(path))
