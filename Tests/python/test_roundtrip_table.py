"""docs/export-import.md's round-trip table is what the library does now.

benchmarks/roundtrip_table.py analyses every recording in ../shared/tracks, exports it as GPX, TCX
and FIT, analyses each export again and prints the table; the docs must carry exactly that table
(a change to the import, the exports or the engine that moves a figure fails here until the docs
say so).
"""
import importlib.util
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TRACKS = os.path.join(os.path.dirname(ROOT), "shared", "tracks")
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

pytestmark = pytest.mark.skipif(not os.path.isdir(TRACKS), reason="../shared/tracks is not here")


def script():
    spec = importlib.util.spec_from_file_location("roundtrip_table", os.path.join(ROOT, "benchmarks", "roundtrip_table.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_round_trip_table_is_the_one_the_library_gives():
    table = script().table(TRACKS)
    assert len(table) == 2 + 14, "the 14 readable recordings of ../shared/tracks"
    docs = open(os.path.join(ROOT, "docs", "export-import.md"), encoding="utf-8").read()
    lines = docs.splitlines()
    assert table[0] in lines, "docs/export-import.md has no round-trip table"
    start = lines.index(table[0])
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    assert lines[start:end] == table, "docs/export-import.md's table differs: run benchmarks/roundtrip_table.py"
