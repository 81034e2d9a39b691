"""The README's Python example runs and prints what the README shows under it.

The example is the README's first ```python block that imports librunway and is followed by
"prints" and a ```text block. It subscribes a callback (on a library thread) and prints from
the main thread only, so its output is the same on every run: it is run five times."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIBRARY = Path(os.environ.get("RUNWAY_LIBRARY") or REPO / "build" / "librunway.so")

EXAMPLE = re.compile(r"```python\n(?P<code>(?:(?!```).)*?import librunway(?:(?!```).)*?)```\n"
                     r"prints:?\n```text\n(?P<out>.*?)```", re.S)


def readme_example() -> tuple[str, str]:
    match = EXAMPLE.search((REPO / "README.md").read_text(encoding="utf-8"))
    assert match, "README.md: no ```python example (import librunway) followed by prints/```text"
    return match.group("code"), match.group("out")


@pytest.mark.skipif(not LIBRARY.exists(), reason=f"{LIBRARY} not built")
def test_the_readme_python_example_prints_what_the_readme_shows(tmp_path):
    code, shown = readme_example()
    script = tmp_path / "example.py"
    script.write_text(code)
    env = {**os.environ, "RUNWAY_LIBRARY": str(LIBRARY),
           "PYTHONPATH": str(REPO / "bindings" / "python")}
    for _ in range(5):
        p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert p.stdout == shown
