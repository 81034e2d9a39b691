#!/usr/bin/env bash
# Tests/install/run.sh — the installed layout (`make test-install`; needs `make lib`).
#   1. `make install PREFIX=<temp>`: the header, librunway.so.MAJOR.MINOR with its SONAME and
#      symlinks, stripped, its debug info found by build id and gnu-debuglink, runway.pc, the
#      CMake package; only runway_* exported; only system libraries needed
#   2. the README's C example built with `pkg-config --cflags --libs runway` alone, run with no
#      LD_LIBRARY_PATH and with build/ out of reach, prints what README.md shows
#   3. examples/c/runway_host built by its Makefile with pkg-config against the prefix, and run
#   4. a CMake consumer (find_package(runway), runway::runway) of the README example, when cmake
#      is installed (scripts/install-deps.sh installs it)
#   5. DESTDIR staging puts the same tree under DESTDIR, naming PREFIX inside
#   6. an argument scripts/install.sh does not take (--help, --prefix=DIR) installs nothing
set -euo pipefail
# (A pipe into `grep -q` would end early and, under pipefail, fail the writer with SIGPIPE: the
# checks below pipe into grep with its output discarded instead, so grep reads everything.)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
prefix="$work/prefix"
passed=0
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { passed=$((passed + 1)); }

major="$(sed -n 's/^#define RUNWAY_VERSION_MAJOR  *\([0-9]*\).*/\1/p' "$root/include/runway.h")"
minor="$(sed -n 's/^#define RUNWAY_VERSION_MINOR  *\([0-9]*\).*/\1/p' "$root/include/runway.h")"
version="$(sed -n 's/^#define RUNWAY_VERSION_STRING  *"\(.*\)".*/\1/p' "$root/include/runway.h")"
soname="librunway.so.$major"
real="librunway.so.$major.$minor"

echo "== make install PREFIX=$prefix"
make -s -C "$root" install PREFIX="$prefix" >"$work/install.log"
lib="$prefix/lib/$real"
[[ -f "$lib" && ! -L "$lib" ]] || fail "$lib is not a file"
[[ "$(readlink "$prefix/lib/$soname")" == "$real" ]] || fail "$soname does not link to $real"
[[ "$(readlink "$prefix/lib/librunway.so")" == "$soname" ]] || fail "librunway.so does not link to $soname"
cmp -s "$root/include/runway.h" "$prefix/include/runway.h" || fail "the installed runway.h differs"
ok

echo "== the installed library: SONAME, exports, stripped, system libraries only"
got="$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
[[ "$got" == "$soname" ]] || fail "SONAME '$got', want $soname"
nm -D --defined-only "$lib" | awk '{ print $NF }' | sort -u >"$work/exported"
gcc -E -P -x c "$root/include/runway.h" | grep -oE '\brunway_[a-z_0-9]+[[:space:]]*\(' \
  | sed -E 's/[[:space:]]*\($//' | grep -vxF runway_event_fn | sort -u >"$work/declared"
if ! cmp -s "$work/exported" "$work/declared"; then
  diff "$work/declared" "$work/exported" | head >&2
  fail "nm -D --defined-only is not exactly the header's functions"
fi
if readelf -S "$lib" | grep -E '\.debug_|\.symtab' >/dev/null; then fail "$lib is not stripped"; fi
bad="$(ldd "$lib" | grep -E 'libswift|libFoundation|libdispatch|libicu|not found' || true)"
[[ -z "$bad" ]] || fail "the installed library needs: $bad"
echo "   $(wc -l <"$work/exported") exports, SONAME $got, $(stat -c %s "$lib") bytes stripped (build/: $(stat -c %s "$root/build/librunway.so"))"
ok

echo "== its debug info: by build id, and the gnu-debuglink CRC"
id="$(readelf -n "$lib" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')"
[[ "$id" == "$(readelf -n "$root/build/librunway.so" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')" ]] \
  || fail "the installed library's build id is not the built one's"
debug="$prefix/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
[[ -f "$debug" ]] || fail "no debug file $debug"
readelf -S "$debug" | grep '\.debug_info' >/dev/null || fail "$debug has no .debug_info"
[[ "$(readelf -n "$debug" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')" == "$id" ]] || fail "$debug has another build id"
objcopy --dump-section .gnu_debuglink="$work/debuglink" "$lib" "$work/scratch.so"
python3 - "$work/debuglink" "$debug" <<'PY' || fail "gnu-debuglink does not name the debug file"
import os, struct, sys, zlib
link = open(sys.argv[1], "rb").read()
name = link[:link.index(b"\0")].decode()
crc, = struct.unpack("<I", link[-4:])
data = open(sys.argv[2], "rb").read()
assert name == os.path.basename(sys.argv[2]), (name, sys.argv[2])
assert crc == zlib.crc32(data), (hex(crc), hex(zlib.crc32(data)))
PY
ok

echo "== the README example built with pkg-config alone, run from elsewhere"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[[ "$(pkg-config --modversion runway)" == "$version" ]] || fail "pkg-config --modversion runway: $(pkg-config --modversion runway)"
python3 "$root/Tests/c/readme_example.py" source "$root/README.md" >"$work/run.c"
# shellcheck disable=SC2046  # pkg-config's words are separate arguments
cc -std=c99 -Wall -Wextra -Werror -o "$work/run" "$work/run.c" $(pkg-config --cflags --libs runway)
resolved="$(ldd "$work/run" | awk '$1 == "'"$soname"'" { print $3 }')"
[[ "$resolved" == "$prefix/lib/$soname" ]] || fail "the example loads $soname from '$resolved', not the prefix"
if readelf -d "$work/run" | grep -E 'R(UN)?PATH' | grep -F "$root" >/dev/null; then fail "the example's rpath names the checkout"; fi
# Run from / and from another folder: nothing relative to the checkout or the build helps it.
mkdir "$work/elsewhere" && cp "$work/run" "$work/elsewhere/run"
(cd /; "$work/elsewhere/run") >"$work/run.out"
python3 "$root/Tests/c/readme_example.py" check "$root/README.md" "$work/run.out"
ok

echo "== examples/c/runway_host with its Makefile, against the prefix"
cp -r "$root/examples/c" "$work/host"
rm -f "$work/host/runway_host"
make -s -C "$work/host" PKG_CONFIG_PATH="$PKG_CONFIG_PATH" runway_host >/dev/null
resolved="$(ldd "$work/host/runway_host" | awk '$1 == "'"$soname"'" { print $3 }')"
[[ "$resolved" == "$prefix/lib/$soname" ]] || fail "runway_host loads $soname from '$resolved'"
python3 - "$work/in.jsonl" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(60):  # 60 fixes 2 s apart due north at 3 m/s (6.0 m a step)
        f.write('{"t":%d,"lat":%.7f,"lon":4.0,"speed":3.0,"course":0}\n' % (1700000000 + 2 * i, 52.0 + i * 6.0 / 111257.0))
PY
"$work/host/runway_host" -e 1000 -o "$work/host.json" "$work/in.jsonl" >"$work/host.out"
python3 - "$work/host.json" <<'PY' || fail "runway_host's summary"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["phase"] == "touchdown" and s["fixes"] == 60, s
assert abs(s["distance_m"] - 59 * 6.0) < 0.01 * 59 * 6.0, s["distance_m"]
PY
ok

if command -v cmake >/dev/null; then
  echo "== a CMake consumer: find_package(runway) and runway::runway"
  cmake -S "$here/cmake" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLE="$work/run.c" >"$work/cmake.log" \
    || { cat "$work/cmake.log" >&2; fail "cmake configure"; }
  cmake --build "$work/cmake" >>"$work/cmake.log" || { cat "$work/cmake.log" >&2; fail "cmake build"; }
  resolved="$(ldd "$work/cmake/readme_example" | awk '$1 == "'"$soname"'" { print $3 }')"
  [[ "$resolved" == "$prefix/lib/$soname" ]] || fail "the CMake build loads $soname from '$resolved'"
  "$work/cmake/readme_example" >"$work/cmake.out"
  python3 "$root/Tests/c/readme_example.py" check "$root/README.md" "$work/cmake.out"
  # A request for a newer version than installed is refused.
  sed 's/find_package(runway 0.1 /find_package(runway 99.0 /' "$here/cmake/CMakeLists.txt" >"$work/newer.txt"
  mkdir "$work/newer" && cp "$work/newer.txt" "$work/newer/CMakeLists.txt"
  if cmake -S "$work/newer" -B "$work/newer/b" -DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLE="$work/run.c" >/dev/null 2>&1; then
    fail "find_package(runway 99.0) accepted version $version"
  fi
  ok
else
  echo "== a CMake consumer: skipped (no cmake; scripts/install-deps.sh installs it)"
fi

echo "== DESTDIR staging"
make -s -C "$root" install PREFIX=/opt/runway DESTDIR="$work/stage" >/dev/null
[[ -f "$work/stage/opt/runway/lib/$real" && -f "$work/stage/opt/runway/include/runway.h" ]] || fail "DESTDIR tree"
grep -qx 'prefix=/opt/runway' "$work/stage/opt/runway/lib/pkgconfig/runway.pc" || fail "runway.pc under DESTDIR does not name PREFIX"
ok

echo "== an argument install.sh does not take installs nothing (it would go to the default prefix)"
for arg in --help --prefix="$work/args"; do
  status=0
  PREFIX="$work/args" "$root/scripts/install.sh" "$arg" >"$work/args.out" 2>&1 || status=$?
  [[ ! -e "$work/args" ]] || fail "install.sh $arg installed to PREFIX"
  if [[ "$arg" == --help ]]; then
    [[ $status == 0 ]] && grep 'PREFIX=/usr/local' "$work/args.out" >/dev/null || fail "install.sh --help: no usage"
  else
    [[ $status == 2 ]] && grep "unknown argument '$arg'" "$work/args.out" >/dev/null || fail "install.sh $arg: status $status"
  fi
done
ok

echo "$passed passed, 0 failed"
