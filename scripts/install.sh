#!/usr/bin/env bash
# scripts/install.sh — installs build/librunway.so for C, C++ and CMake hosts (`make install`).
#
#   PREFIX=/usr/local [DESTDIR=] [RPATH=auto|yes|no] scripts/install.sh
#   scripts/install.sh --uninstalled-pc        (prints build/pkgconfig/runway-uninstalled.pc)
#
# Installs, under $DESTDIR$PREFIX:
#   include/runway.h
#   lib/librunway.so.MAJOR.MINOR            stripped; SONAME librunway.so.MAJOR
#   lib/librunway.so.MAJOR -> librunway.so.MAJOR.MINOR, lib/librunway.so -> librunway.so.MAJOR
#   lib/debug/.build-id/xx/yyyy.debug       its debug info (objcopy --only-keep-debug), which
#                                           the .so names by build id and by gnu-debuglink
#   lib/pkgconfig/runway.pc                 pkg-config --cflags --libs runway
#   lib/cmake/runway/runwayConfig.cmake     find_package(runway) -> the target runway::runway
#   lib/cmake/runway/runwayConfigVersion.cmake
# RPATH=auto (the default) writes -Wl,-rpath,${libdir} into runway.pc's Libs unless PREFIX is
# /usr or /usr/local (the loader's own paths), so a program built with pkg-config against a
# private prefix runs without LD_LIBRARY_PATH. The CMake target needs none: CMake writes the
# rpath of an imported library's folder itself. Installing to /usr or /usr/local as root (no
# DESTDIR) runs ldconfig.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
header="$root/include/runway.h"
part() { sed -n "s/^#define RUNWAY_VERSION_$1  *\([0-9][0-9]*\).*/\1/p" "$header"; }
major="$(part MAJOR)"; minor="$(part MINOR)"; patch="$(part PATCH)"
version="$major.$minor.$patch"
soname="librunway.so.$major"
realname="librunway.so.$major.$minor"

# pc NAME PREFIX LIBDIR INCLUDEDIR RPATH(yes|no)
pc() {
  local rpath=""
  [[ "$5" == yes ]] && rpath=' -Wl,-rpath,${libdir}'
  cat <<EOF
# pkg-config file of librunway (scripts/install.sh writes it).
prefix=$2
libdir=$3
includedir=$4

Name: runway
Description: librunway, a run-tracking engine with a C ABI (include/runway.h)
Version: $version
Libs: -L\${libdir}$rpath -lrunway
Cflags: -I\${includedir}
EOF
}

if [[ "${1:-}" == --uninstalled-pc ]]; then
  pc runway "$root" "$root/build" "$root/include" yes
  exit 0
fi
# It takes its settings from the environment, no arguments: an argument it does not know
# (--help, --prefix=DIR) must not install to the default /usr/local.
case "${1:-}" in
  "") ;;
  -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "install.sh: unknown argument '$1': nothing installed (settings come from the" \
       "environment: PREFIX=/opt/runway [DESTDIR=stage] [RPATH=auto|yes|no] scripts/install.sh;" \
       "or make install PREFIX=...; --help)" >&2
     exit 2 ;;
esac

prefix="${PREFIX:-/usr/local}"
prefix="${prefix%/}"
[[ "$prefix" == /* ]] || { echo "install.sh: PREFIX must be an absolute path (got '$prefix')" >&2; exit 1; }
dest="${DESTDIR:-}"
lib="$root/build/librunway.so"
[[ -f "$lib" ]] || { echo "install.sh: $lib not found (run make lib)" >&2; exit 1; }
built_soname="$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
if [[ "$built_soname" != "$soname" ]]; then
  echo "install.sh: $lib has SONAME '$built_soname', want '$soname' (rebuild with make lib)" >&2
  exit 1
fi
case "${RPATH:-auto}" in
  yes|no) rpath="$RPATH" ;;
  auto) if [[ "$prefix" == /usr || "$prefix" == /usr/local ]]; then rpath=no; else rpath=yes; fi ;;
  *) echo "install.sh: RPATH must be auto, yes or no" >&2; exit 1 ;;
esac

libdir="$prefix/lib"
inc="$dest$prefix/include"
out="$dest$libdir"
install -d "$inc" "$out/pkgconfig" "$out/cmake/runway"
install -m 644 "$header" "$inc/runway.h"

# The library: debug info apart, then stripped with a link to it (build id and gnu-debuglink).
build_id="$(readelf -n "$lib" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')"
[[ ${#build_id} -ge 4 ]] || { echo "install.sh: $lib has no build id" >&2; exit 1; }
debug_rel="debug/.build-id/${build_id:0:2}/${build_id:2}.debug"
install -d "$(dirname "$out/$debug_rel")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
objcopy --only-keep-debug "$lib" "$work/${build_id:2}.debug"
objcopy --strip-unneeded --add-gnu-debuglink="$work/${build_id:2}.debug" "$lib" "$work/$realname"
install -m 644 "$work/${build_id:2}.debug" "$out/$debug_rel"
install -m 755 "$work/$realname" "$out/$realname"
ln -sfn "$realname" "$out/$soname"
ln -sfn "$soname" "$out/librunway.so"

pc runway "$prefix" "$libdir" "$prefix/include" "$rpath" >"$out/pkgconfig/runway.pc"
chmod 644 "$out/pkgconfig/runway.pc"

cat >"$out/cmake/runway/runwayConfig.cmake" <<EOF
# CMake package of librunway (scripts/install.sh writes it):
#   find_package(runway $major.$minor REQUIRED)
#   target_link_libraries(app PRIVATE runway::runway)
# The prefix is found from this file's place (PREFIX/lib/cmake/runway), so a moved or DESTDIR
# tree works as it is.
get_filename_component(_runway_prefix "\${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET runway::runway)
  add_library(runway::runway SHARED IMPORTED)
  set_target_properties(runway::runway PROPERTIES
    IMPORTED_LOCATION "\${_runway_prefix}/lib/$realname"
    IMPORTED_SONAME "$soname"
    INTERFACE_INCLUDE_DIRECTORIES "\${_runway_prefix}/include")
endif()
set(runway_INCLUDE_DIRS "\${_runway_prefix}/include")
set(runway_LIBRARIES runway::runway)
unset(_runway_prefix)
EOF
cat >"$out/cmake/runway/runwayConfigVersion.cmake" <<EOF
# librunway $version: compatible with a request of the same major version and no newer.
set(PACKAGE_VERSION "$version")
if(PACKAGE_FIND_VERSION_MAJOR STREQUAL "$major" AND NOT PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
else()
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
endif()
if(NOT CMAKE_SIZEOF_VOID_P STREQUAL "8")
  set(PACKAGE_VERSION "\${PACKAGE_VERSION} (64-bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
endif()
EOF
chmod 644 "$out/cmake/runway/"*.cmake

if [[ -z "$dest" && "$rpath" == no && "$(id -u)" == 0 ]] && command -v ldconfig >/dev/null; then
  ldconfig
fi
echo "installed librunway $version in $dest$prefix ($realname, SONAME $soname; debug info in lib/$debug_rel)"
