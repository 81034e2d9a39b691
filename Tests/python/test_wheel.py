"""The Python package as a user installs it: the wheel of `make wheel` in a fresh venv, and
`pip install ./bindings/python` from the checkout, both with no RUNWAY_LIBRARY, no PYTHONPATH
and away from the checkout (so no build/ folder can be found).

The wheel is built by scripts/build-wheel.sh (what `make wheel` runs) from build/librunway.so
into a temporary folder; nothing is downloaded (pip --no-index / --no-build-isolation)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIBRARY = Path(os.environ.get("RUNWAY_LIBRARY") or REPO / "build" / "librunway.so")
SAMPLE = REPO / "examples" / "data" / "city_run.gpx"

pytestmark = pytest.mark.skipif(not LIBRARY.exists(), reason=f"{LIBRARY} not built")

#: What the installed library may load from the system: glibc's libraries, libstdc++ and
#: libgcc_s. Everything else (libcjson, libsqlite3, libexpat) must be inside the wheel.
SYSTEM = re.compile(r"^(linux-vdso\.so\.1|ld-linux-x86-64\.so\.2|/lib64/ld-linux-x86-64\.so\.2|"
                    r"lib(c|m|dl|rt|pthread|mvec|util|resolv|anl|nsl)\.so\.\d+|"
                    r"libstdc\+\+\.so\.6|libgcc_s\.so\.1)$")


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("RUNWAY_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH", "VIRTUAL_ENV")}
    return env


def ldd(path: Path) -> list[tuple[str, str]]:
    out = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=True).stdout
    deps = []
    for line in out.splitlines():
        parts = line.strip().split()
        if not parts:
            continue
        name = parts[0]
        where = parts[2] if len(parts) > 2 and parts[1] == "=>" else ""
        deps.append((name, where))
    return deps


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if shutil.which("ldd") is None:
        pytest.skip("no ldd")
    out = tmp_path_factory.mktemp("dist")
    p = subprocess.run([str(REPO / "scripts" / "build-wheel.sh"), str(out)], capture_output=True,
                       text=True, timeout=300, env={**clean_env(), "RUNWAY_LIBRARY": str(LIBRARY),
                                                    "PYTHON": sys.executable})
    assert p.returncode == 0, p.stderr
    [whl] = out.glob("librunway-*.whl")
    return whl


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv with only the wheel installed; returns its bin folder."""
    root = tmp_path_factory.mktemp("venv")
    venv.create(root, with_pip=True, symlinks=True)
    p = subprocess.run([str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index",
                        "--no-deps", str(wheel)], capture_output=True, text=True, timeout=300,
                       env=clean_env())
    assert p.returncode == 0, p.stderr
    return root / "bin"


#: Lists the installed package's modules as documentation, test and IDE tools do
#: (pkgutil.walk_packages) and imports each one; prints what it found as JSON.
WALK = """
import importlib, json, pkgutil, sys
import librunway
names, failed = [], {}
for m in pkgutil.walk_packages(librunway.__path__, "librunway."):
    names.append(m.name)
    try:
        importlib.import_module(m.name)
    except (Exception, SystemExit) as e:     # SystemExit: a module that runs a command
        failed[m.name] = f"{type(e).__name__}: {e}"
print(json.dumps({"package": librunway.__path__[0], "names": names, "failed": failed,
                  "library": librunway.library_path()}))
"""


def walk_and_import(python: str, cwd: Path, env: dict[str, str]) -> dict:
    p = subprocess.run([python, "-c", WALK], cwd=cwd, capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_every_module_the_installed_package_lists_imports_and_the_library_is_its_own(installed,
                                                                                    tmp_path):
    """The library file inside the package is not a module: pkgutil (pdoc, Sphinx autosummary,
    IDE indexers walk packages with it) lists only modules that import, and the session loads
    the copy installed with the package, not the checkout's."""
    walked = walk_and_import(str(installed / "python"), tmp_path, clean_env())
    site = next((installed.parent / "lib").glob("python3*/site-packages"))
    assert Path(walked["package"]) == site / "librunway", walked
    assert "librunway.session" in walked["names"] and "librunway.cli" in walked["names"], walked
    assert walked["failed"] == {}, walked
    library = Path(walked["library"])
    assert library.is_relative_to(site / "librunway") and not library.is_relative_to(REPO), walked
    code = ("import librunway\ns = librunway.Session()\nprint(librunway.library_path())\n"
            "s.close()")
    p = subprocess.run([str(installed / "python"), "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, env=clean_env(), timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(library)


def test_the_wheel_is_platform_tagged_manylinux(wheel):
    m = re.fullmatch(r"librunway-[0-9.]+-py3-none-(manylinux_2_\d+_x86_64)\.whl", wheel.name)
    assert m, wheel.name
    # The tag is the one auditwheel finds the wheel (and the libraries grafted into it) consistent with.
    p = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(wheel)], capture_output=True, text=True)
    shown = p.stdout + p.stderr
    assert f'following platform tag: "{m.group(1)}"' in " ".join(shown.split()), shown


def test_the_installed_library_needs_only_the_system_base_and_what_the_wheel_holds(installed):
    site = next((installed.parent / "lib").glob("python3*/site-packages"))
    lib = site / "librunway" / "_native" / "librunway.so"
    deps = ldd(lib)
    assert deps and not [d for d in deps if "not found" in d[1]], deps
    vendored = [n for n, where in deps if where and Path(where).resolve().is_relative_to(site)]
    assert {re.sub(r"-[0-9a-f]{8}\.so.*", "", n) for n in vendored} == {"libcjson", "libsqlite3", "libexpat"}
    others = [n for n, where in deps if n not in vendored]
    assert all(SYSTEM.match(n) for n in others), others


def test_the_console_script_summarises_a_fit_a_gpx_and_a_tcx(installed, tmp_path):
    env = clean_env()
    # The FIT and TCX: the sample's own exports, written by the installed command.
    for fmt in ("fit", "tcx"):
        p = subprocess.run([str(installed / "librunway"), "export", str(SAMPLE), "--to", fmt],
                           cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
        assert p.returncode == 0, p.stderr
    files = [SAMPLE, tmp_path / "city_run.fit", tmp_path / "city_run.tcx"]
    p = subprocess.run([str(installed / "librunway"), "summary", *map(str, files)], cwd=tmp_path,
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    rows = [line.split() for line in p.stdout.splitlines()[2:]]
    assert [r[0] for r in rows] == ["city_run.gpx", "city_run.fit", "city_run.tcx"]
    # The 5.00 km sample reads 5.00 km; each file's row is the installed library's own analyse()
    # of that file (the exports hold the 755 points the engine kept of 1628, without Doppler in
    # the TCX: how close they replay to the sample is the accuracy tests' business, not the CLI's).
    km = [float(r[2]) for r in rows]
    assert 4.9 < km[0] < 5.1, km
    code = ("import sys, librunway\nfor p in sys.argv[1:]:\n"
            "    print(f\"{librunway.analyse(p).summary['distance_m'] / 1000:.2f}\")")
    own = subprocess.run([str(installed / "python"), "-c", code, *map(str, files)], cwd=tmp_path,
                         capture_output=True, text=True, env=env, timeout=120)
    assert own.returncode == 0, own.stderr
    assert km == [float(x) for x in own.stdout.split()], (km, own.stdout)
    where = subprocess.run([str(installed / "python"), "-m", "librunway", "--version"],
                           cwd=tmp_path, capture_output=True, text=True, env=env, timeout=60)
    assert where.returncode == 0 and where.stdout.startswith("librunway ")
    code = "import librunway; print(librunway.library_path())"
    path = subprocess.run([str(installed / "python"), "-c", code], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=60).stdout.strip()
    assert Path(path).is_relative_to(installed.parent)            # the wheel's own copy


def test_pip_install_of_the_checkout_ships_the_built_library(tmp_path):
    target = tmp_path / "site"
    p = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                        "--no-build-isolation", "--target", str(target),
                        str(REPO / "bindings" / "python")],
                       capture_output=True, text=True, timeout=300, env=clean_env())
    assert p.returncode == 0, p.stderr
    shipped = target / "librunway" / "_native" / "librunway.so"
    assert shipped.read_bytes() == (REPO / "build" / "librunway.so").read_bytes()
    assert (target / "bin" / "librunway").exists()                # the console script
    code = "import librunway; print(librunway.library_path(), librunway.version())"
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60, env={**clean_env(), "PYTHONPATH": str(target)})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split()[0] == str(shipped)
    walked = walk_and_import(sys.executable, tmp_path, {**clean_env(), "PYTHONPATH": str(target)})
    assert walked["failed"] == {}, walked
    assert walked["library"] == str(shipped), walked


def test_pip_install_of_a_checkout_without_a_build_runs_make_lib(tmp_path):
    """A checkout whose build/ is empty: setup.py runs `make lib` there (here a Makefile whose
    lib target copies the library, standing in for the Swift build) and ships its result."""
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "bindings" / "python", repo / "bindings" / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__",
                                                  "librunway.so"))
    (repo / "Package.swift").write_text("// stands for the Swift package\n")
    (repo / "Makefile").write_text(f"lib:\n\tmkdir -p build && cp {LIBRARY} build/librunway.so"
                                   " && echo made > build/made-by-make\n")
    target = tmp_path / "site"
    p = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                        "--no-build-isolation", "--target", str(target),
                        str(repo / "bindings" / "python")],
                       capture_output=True, text=True, timeout=300, env=clean_env())
    assert p.returncode == 0, p.stderr
    assert (repo / "build" / "made-by-make").exists()                 # make lib ran
    assert (target / "librunway" / "_native" / "librunway.so").read_bytes() == LIBRARY.read_bytes()
