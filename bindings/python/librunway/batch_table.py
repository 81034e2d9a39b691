"""Writing a batch's rows as a table: CSV, or Parquet with pyarrow.

Part of :mod:`librunway.batch`, which re-exports :func:`write_csv` and :func:`write_parquet`.
"""

from __future__ import annotations

import csv
import os
from typing import Any

from .batch_find import PathLike
from .batch_rows import COLUMNS

def _text(value: Any) -> Any:
    """A string cell as valid UTF-8: a file name that is not UTF-8 (``os.fsdecode`` gives its
    bytes as surrogates) with those bytes as ``\\xNN`` escapes, e.g. ``caf\\xe9.fit``, as
    Python shows them; other values as they are."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return value


def _table_rows(rows: list[dict]) -> list[dict]:
    return [{c: _text(r.get(c)) if c in _STR_COLUMNS else r.get(c) for c in COLUMNS}
            for r in rows]


def write_csv(rows: list[dict], out: Any) -> None:
    """Rows as CSV (header :data:`COLUMNS`; ``None`` is an empty cell; floats
    written exactly, as ``repr``). ``out`` is a path or a text file. The text is UTF-8
    whatever the stream's error handler: the bytes of a file name that is not UTF-8 are
    written as ``\\xNN`` escapes (``caf\\xe9.fit``)."""
    if isinstance(out, (str, os.PathLike)):
        with open(out, "w", newline="", encoding="utf-8") as f:
            write_csv(rows, f)
        return
    w = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="ignore")
    w.writeheader()
    w.writerows(_table_rows(rows))


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
    without it). Strings, float64 figures, int64 counts; ``None`` is null. A file name that
    is not UTF-8 is written as :func:`write_csv` writes it (``caf\\xe9.fit``)."""
    pa = _pyarrow()
    schema = pa.schema([(c, pa.string() if c in _STR_COLUMNS else
                         pa.int64() if c in _INT_COLUMNS else pa.float64()) for c in COLUMNS])
    table = pa.Table.from_pylist(_table_rows(rows), schema=schema)
    pa.parquet.write_table(table, os.fspath(path))
