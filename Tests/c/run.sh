#!/usr/bin/env bash
# Tests/c/run.sh — the C side of librunway's tests (run by `make test-c`; runs from anywhere).
#   1. include/runway.h compiles as C99 (-pedantic) and as C++11, every function by address
#   2. the runway_* functions exported by build/librunway.so equal those the header declares
#   3. abi_run (abi_run.c and the other abi_*.c), a C host driving the library end to end, passes
#   4. the library exports nothing but runway_* and has the SONAME librunway.so.MAJOR
#   5. the README's C example prints what README.md shows (readme_example.py)
#   6. threads_run.c: no library thread (ticker, delivery) outlives the last session
#   7. limits_run.c: a route filled to RUNWAY_MAX_ROUTE_POINTS refuses the next point
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
inc="$root/include"
libdir="$root/build"
lib="$libdir/librunway.so"

if [[ ! -f "$lib" ]]; then
  echo "run.sh: $lib not found (build it with 'make lib')" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== header: gcc -std=c99 -pedantic"
gcc -std=c99 -Wall -Wextra -Werror -pedantic -I"$inc" -c "$here/header_c99.c" -o "$work/header_c.o"
echo "== header: g++ -std=c++11"
g++ -std=c++11 -Wall -Wextra -Werror -x c++ -I"$inc" -c "$here/header_c99.c" -o "$work/header_cxx.o"

echo "== exports: nm -D against the header's declarations"
# Declared functions: identifiers followed by "(" in the preprocessed header (comments are gone;
# a function-pointer typedef such as runway_event_fn is followed by ")" and so is not matched).
gcc -E -P -x c "$inc/runway.h" \
  | grep -oE '\brunway_[a-z_0-9]+[[:space:]]*\(' | sed -E 's/[[:space:]]*\($//' \
  | sort -u >"$work/declared"
typedefs="$(gcc -E -P -x c "$inc/runway.h" | grep -oE '\btypedef\b.*' \
  | grep -oE '\brunway_[a-z_0-9]+' | sort -u || true)"
if [[ -n "$typedefs" ]]; then
  grep -vxF "$typedefs" "$work/declared" >"$work/declared.fn" || true
else
  cp "$work/declared" "$work/declared.fn"
fi
nm -D --defined-only "$lib" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' \
  | grep -E '^runway_' | sort -u >"$work/exported" || true
missing="$(comm -23 "$work/declared.fn" "$work/exported")"
extra="$(comm -13 "$work/declared.fn" "$work/exported")"
echo "   declared: $(wc -l <"$work/declared.fn"), exported: $(wc -l <"$work/exported")"
if [[ -n "$missing" || -n "$extra" ]]; then
  [[ -n "$missing" ]] && printf 'declared in runway.h but not exported:\n%s\n' "$missing" >&2
  [[ -n "$extra" ]] && printf 'exported but not declared in runway.h:\n%s\n' "$extra" >&2
  exit 1
fi
if [[ ! -s "$work/declared.fn" ]]; then
  echo "run.sh: found no declarations in runway.h (parser broken?)" >&2
  exit 1
fi

echo "== exports: nothing but runway_* (scripts/librunway.map); the SONAME"
others="$(nm -D --defined-only "$lib" | awk '{ print $NF }' | grep -vE '^runway_' || true)"
if [[ -n "$others" ]]; then
  printf 'librunway.so exports %d symbols besides runway_*, e.g.:\n%s\n' "$(wc -l <<<"$others")" "$(head -5 <<<"$others")" >&2
  exit 1
fi
major="$(sed -n 's/^#define RUNWAY_VERSION_MAJOR  *\([0-9]*\).*/\1/p' "$inc/runway.h")"
soname="$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
if [[ "$soname" != "librunway.so.$major" ]]; then
  echo "librunway.so has SONAME '$soname', want librunway.so.$major" >&2
  exit 1
fi
echo "   $(nm -D --defined-only "$lib" | wc -l) defined dynamic symbols, all runway_*; SONAME $soname"

echo "== the library links only system libraries (no Swift runtime, no Foundation, no ICU)"
bad="$(ldd "$libdir/librunway.so" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|libicu|not found' || true)"
if [[ -n "$bad" ]]; then
  printf 'librunway.so links libraries a host may not have:\n%s\n' "$bad" >&2
  exit 1
fi

echo "== the README's C example compiles, runs and prints what README.md shows"
python3 "$here/readme_example.py" source "$root/README.md" >"$work/readme_example.c"
gcc -std=c99 -Wall -Wextra -Werror -I"$inc" "$work/readme_example.c" -o "$work/readme_example" \
  -L"$libdir" -lrunway -Wl,-rpath,"$libdir"
"$work/readme_example" >"$work/readme_example.out"
python3 "$here/readme_example.py" check "$root/README.md" "$work/readme_example.out"

echo "== abi_run"
gcc -std=c99 -Wall -Wextra -Werror -O2 -g -I"$inc" "$here"/abi_*.c -o "$work/abi_run" \
  -L"$libdir" -lrunway -Wl,-rpath,"$libdir" -lcjson -lpthread -lm
timeout 60 "$work/abi_run"

echo "== threads_run (no library thread outlives the last session)"
gcc -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O2 -g -I"$inc" "$here/threads_run.c" \
  -o "$work/threads_run" -L"$libdir" -lrunway -Wl,-rpath,"$libdir" -lm
timeout 120 "$work/threads_run"

echo "== limits_run (a route at RUNWAY_MAX_ROUTE_POINTS)"
gcc -std=c99 -Wall -Wextra -Werror -O2 -g -I"$inc" "$here/limits_run.c" -o "$work/limits_run" \
  -L"$libdir" -lrunway -Wl,-rpath,"$libdir" -lm
timeout 120 "$work/limits_run"
