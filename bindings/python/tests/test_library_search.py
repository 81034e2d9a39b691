"""Where the package finds librunway.so, in order: load_library(path) or $RUNWAY_LIBRARY,
_native/ inside the package, the checkout's build/ folder, the system loader. Each case runs in a
fresh interpreter on a copy of the package laid out as that case needs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import librunway
from conftest import PYTHON_DIR

LIB = Path(librunway.library_path())


def layout(root: Path, inside: bool = False, build: bool = False) -> Path:
    """A copy of the package at root/repo/bindings/python/librunway (no librunway.so inside
    unless `inside`: then at _native/librunway.so, where the wheel has it), and
    root/repo/build/librunway.so when `build`; returns the folder to put on sys.path."""
    python = root / "repo" / "bindings" / "python"
    shutil.copytree(PYTHON_DIR / "librunway", python / "librunway",
                    ignore=shutil.ignore_patterns("__pycache__", "_native", "librunway.so"))
    if inside:
        (python / "librunway" / "_native").mkdir()
        shutil.copyfile(LIB, python / "librunway" / "_native" / "librunway.so")
    if build:
        (root / "repo" / "build").mkdir()
        shutil.copyfile(LIB, root / "repo" / "build" / "librunway.so")
    return python


def where(path: Path, code: str = "print(librunway.library_path())", **env: str):
    e = {k: v for k, v in os.environ.items() if k not in ("RUNWAY_LIBRARY", "PYTHONPATH")}
    e.update(env, PYTHONPATH=str(path))
    return subprocess.run([sys.executable, "-c", "import librunway; " + code], env=e,
                          capture_output=True, text=True, timeout=60, cwd=path.parent)


def test_inside_the_package_comes_before_the_build_folder(tmp_path):
    path = layout(tmp_path, inside=True, build=True)
    p = where(path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(path / "librunway" / "_native" / "librunway.so")


def test_a_checkout_finds_its_build_folder(tmp_path):
    path = layout(tmp_path, build=True)
    p = where(path)
    assert p.stdout.strip() == str(tmp_path / "repo" / "build" / "librunway.so"), p.stderr


def test_the_environment_variable_comes_first_and_must_load(tmp_path):
    path = layout(tmp_path, inside=True, build=True)
    other = tmp_path / "elsewhere.so"
    shutil.copyfile(LIB, other)
    assert where(path, RUNWAY_LIBRARY=str(other)).stdout.strip() == str(other)
    p = where(path, "librunway.version()", RUNWAY_LIBRARY=str(tmp_path / "missing.so"))
    assert p.returncode != 0 and "RUNWAY_LIBRARY=" in p.stderr and "no such file" in p.stderr


def test_load_library_is_explicit_and_one_per_process(tmp_path):
    path = layout(tmp_path, inside=True)
    other = tmp_path / "mine.so"
    shutil.copyfile(LIB, other)
    code = (f"print(librunway.load_library({str(other)!r})); print(librunway.library_path()); "
            f"librunway.load_library({str(other)!r}); "
            f"librunway.load_library({str(path / 'librunway' / '_native' / 'librunway.so')!r})")
    p = where(path, code)
    assert p.stdout.split() == [str(other)] * 2
    assert p.returncode != 0 and "already loaded from" in p.stderr
    p = where(path, f"librunway.load_library({str(tmp_path / 'nope.so')!r})")
    assert p.returncode != 0 and "no such file" in p.stderr
    bad = tmp_path / "bad.so"
    bad.write_bytes(b"not a shared library")
    p = where(path, f"librunway.load_library({str(bad)!r})")
    assert p.returncode != 0 and "LibraryError" in p.stderr and "could not be loaded" in p.stderr


def test_nothing_found_names_every_place_tried(tmp_path):
    path = layout(tmp_path)
    p = where(path, "librunway.version()")
    if p.returncode == 0:
        pytest.skip("a librunway.so is on the system loader's path")
    assert "librunway.so not found" in p.stderr
    assert "inside the package" in p.stderr and "repository build folder" in p.stderr
