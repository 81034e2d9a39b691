"""The one table of C signatures (librunway._lib.SIGNATURES) covers every function that
include/runway.h declares, with the right number of parameters, and nothing else but the
optional functions a library may still lack."""

from __future__ import annotations

import re

import pytest

from conftest import REPO
from librunway import _lib

HEADER = REPO / "include" / "runway.h"


def declared() -> dict[str, int]:
    """Function name -> parameter count, from the header's prototypes."""
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    found = {}
    for m in re.finditer(r"\b(runway_\w+)\s*\(([^;{]*?)\)\s*;", text):
        params = " ".join(m.group(2).split())
        found[m.group(1)] = 0 if params in ("", "void") else params.count(",") + 1
    return found


@pytest.mark.skipif(not HEADER.exists(), reason=f"{HEADER} absent")
def test_every_header_function_is_in_the_table_with_its_arity():
    header = declared()
    assert "runway_session_open" in header and "runway_flight_export" in header
    missing = sorted(set(header) - set(_lib.SIGNATURES))
    assert not missing, f"declare in librunway/_lib.py SIGNATURES: {missing}"
    extra = sorted(set(_lib.SIGNATURES) - set(header) - _lib.OPTIONAL)
    assert not extra, f"in SIGNATURES but not in runway.h: {extra}"
    for name, count in header.items():
        assert len(_lib.SIGNATURES[name][0]) == count, name


def test_only_optional_functions_may_be_missing_from_the_library():
    L = _lib.lib()
    for name in _lib.SIGNATURES:
        if name not in _lib.OPTIONAL:
            assert hasattr(L, name), name
        assert _lib.has(name) == hasattr(L, name)
