"""Test setup: import the package from this source tree (it need not be
installed), find the library (RUNWAY_LIBRARY, else <repo>/build), and turn a
hang into a failure with a traceback instead of a stuck CI job."""

from __future__ import annotations

import faulthandler
import os
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]  # bindings/python
REPO = PYTHON_DIR.parents[1]
sys.path.insert(0, str(PYTHON_DIR))

#: Real GPS recordings (not in the repository); tests using them skip without.
TRACKS = REPO.parent / "shared" / "tracks"

#: Seconds a single test may take before the run is aborted with tracebacks.
HANG_TIMEOUT_S = float(os.environ.get("RUNWAY_TEST_HANG_TIMEOUT", "60"))

#: Timeout for waiting on a callback (generous: CI machines are slow).
WAIT_S = 10.0


@pytest.fixture(autouse=True)
def _abort_on_hang():
    faulthandler.dump_traceback_later(HANG_TIMEOUT_S, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def session():
    import librunway

    s = librunway.Session()
    yield s
    s.close()
