"""The callback example of docs/python.md ("Callbacks and threads") prints what the page says,
on every run: the callback collects, the main thread prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIBRARY = Path(os.environ.get("RUNWAY_LIBRARY") or REPO / "build" / "librunway.so")


@pytest.mark.skipif(not LIBRARY.exists(), reason=f"{LIBRARY} not built")
def test_the_callback_example_prints_what_the_page_says(tmp_path):
    page = (REPO / "docs" / "python.md").read_text()
    section = page[page.index("## Callbacks and threads"):]
    match = re.search(r"```python\n(.*?)```\n\nprints `([^`]*)`", section, re.S)
    assert match, "docs/python.md: no example with its output under 'Callbacks and threads'"
    (tmp_path / "example.py").write_text(match.group(1))
    env = {**os.environ, "RUNWAY_LIBRARY": str(LIBRARY),
           "PYTHONPATH": str(REPO / "bindings" / "python")}
    for _ in range(5):
        p = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert p.stdout == match.group(2) + "\n"
