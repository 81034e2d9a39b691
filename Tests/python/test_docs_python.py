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


def test_the_lap_rows_docstring_names_every_trigger_events_md_names():
    """Flight.lap_rows lists the triggers a split can carry as docs/events.md does (it named only
    auto, manual and final, not a recording's device triggers)."""
    import ast

    page = (REPO / "docs" / "events.md").read_text()
    split = page[page.index("- `split`: a lap ended. `trigger` is"):]
    split = split[:split.index("([formats.md]")]
    # the session's triggers ("`auto`, `manual` or `final` (the rest ..."), then the device's
    # ("... what ended it on the device: `manual`, `time`, ...")
    session = split.split("`trigger` is", 1)[1].split("(", 1)[0]
    device = split.split("on the device:", 1)[1]
    names = re.findall(r"`([a-z_]+)`", session + device)
    assert {"auto", "final", "position_lap", "heart_rate"} <= set(names), names
    source = (REPO / "bindings" / "python" / "librunway" / "analysis_flight.py").read_text()
    flight = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ClassDef) and n.name == "Flight")
    lap_rows = next(n for n in flight.body if isinstance(n, ast.FunctionDef) and n.name == "lap_rows")
    doc = ast.get_docstring(lap_rows) or ""
    assert [n for n in names if f"``{n}``" not in doc] == []
