"""The callback examples of docs/python.md ("Callbacks and threads") print what the page says,
on every run: the callback collects, the main thread prints; a session's close delivers what a
subscription's cancel would drop."""

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
def test_the_callback_examples_print_what_the_page_says(tmp_path):
    page = (REPO / "docs" / "python.md").read_text()
    section = page[page.index("## Callbacks and threads"):]
    section = section[:section.find("\n## ", 1) if "\n## " in section[1:] else len(section)]
    examples = re.findall(r"```python\n(.*?)```\n\nprints `([^`]*)`", section, re.S)
    # the collecting callback, and one ended by the session's close (no wait needed)
    assert len(examples) == 2, "docs/python.md: 'Callbacks and threads' has not its 2 examples"
    env = {**os.environ, "RUNWAY_LIBRARY": str(LIBRARY),
           "PYTHONPATH": str(REPO / "bindings" / "python")}
    for code, output in examples:
        (tmp_path / "example.py").write_text(code)
        for _ in range(5):
            p = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=60)
            assert p.returncode == 0, p.stderr
            assert p.stdout == output + "\n"


def test_the_page_says_leaving_a_subscribe_block_may_drop_the_last_events():
    page = (REPO / "docs" / "python.md").read_text()
    section = page[page.index("## Callbacks and threads"):]
    assert "`cancel()` drops what is still queued" in section
    assert "delivers every event\nalready queued" in section
