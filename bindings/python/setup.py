"""Puts librunway.so inside the package when it is built, and tags the wheel for this platform.

The library goes to ``librunway/_native/librunway.so``: a folder with no ``__init__.py``, so
nothing that lists a package's modules (``pkgutil.walk_packages`` and the documentation, test
and IDE tools built on it) takes the ``.so`` for an extension module of the package.

``pip install ./bindings/python`` (from a checkout) runs this: the library is taken from
``$RUNWAY_LIBRARY`` when set, else from ``librunway/_native/librunway.so`` if one was copied
there, else from the checkout's ``build/librunway.so``; when there is none, ``make lib`` builds
it first (a Swift toolchain is needed then). The wheel carries a binary, so it is tagged
``py3-none-<platform>`` (``linux_x86_64`` here), never ``py3-none-any``; ``make wheel`` then
makes it a manylinux wheel with auditwheel. Everything else is in pyproject.toml.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:                                     # setuptools >= 70.1 has its own
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:                      # older: the wheel package's
    from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
NAME = "librunway.so"
BUNDLED = os.path.join("librunway", "_native", NAME)   # inside the package (librunway/_lib.py)
ENV = "RUNWAY_LIBRARY"


def find_library() -> str:
    """The librunway.so to ship, building it in the checkout when there is none."""
    explicit = os.environ.get(ENV)
    if explicit:
        if not os.path.isfile(explicit):
            sys.exit(f"librunway: {ENV}={explicit}: no such file")
        return explicit
    copied = os.path.join(HERE, BUNDLED)
    if os.path.isfile(copied):
        return copied
    built = os.path.join(REPO, "build", NAME)
    if not os.path.isfile(built):
        if not os.path.isfile(os.path.join(REPO, "Package.swift")):
            sys.exit(f"librunway: no {NAME} to ship: set {ENV} to one, or build from a "
                     "librunway checkout (bindings/python inside it)")
        print(f"librunway: {built} missing: running make lib in {REPO}", file=sys.stderr)
        subprocess.run(["make", "-C", REPO, "lib"], check=True)
    return built


class BuildPyWithLibrary(build_py):
    def run(self) -> None:
        # pip builds in the source tree: a build/lib left by an earlier build would ship
        # modules since deleted from the package.
        shutil.rmtree(os.path.join(self.build_lib, "librunway"), ignore_errors=True)
        super().run()
        source = find_library()
        target = os.path.join(self.build_lib, BUNDLED)
        if os.path.abspath(source) != os.path.abspath(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
            os.chmod(target, 0o755)
        print(f"librunway: shipping {source}", file=sys.stderr)


class BinaryDistribution(Distribution):
    """A binary inside: installed to platlib, and the wheel is a platform wheel."""

    def has_ext_modules(self) -> bool:
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self) -> tuple[str, str, str]:
        _, _, plat = super().get_tag()
        return "py3", "none", plat       # ctypes: any Python 3, no ABI of CPython's


setup(distclass=BinaryDistribution, cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel})
