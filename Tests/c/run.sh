#!/usr/bin/env bash
# Tests/c/run.sh — the C side of librunway's tests (run by `make test-c`; runs from anywhere).
#   1. include/runway.h compiles as C99 (-pedantic) and as C++11, every function by address
#   2. the runway_* functions exported by build/librunway.so equal those the header declares
#   3. abi_run.c, a C host driving the library end to end, passes
#   4. limits_run.c: a route filled to RUNWAY_MAX_ROUTE_POINTS refuses the next point
#   and, before 3, the README's C example compiles and prints exactly the output the README shows
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

echo "== the library links only system libraries (no Swift runtime, no Foundation, no ICU)"
bad="$(ldd "$libdir/librunway.so" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|libicu|not found' || true)"
if [[ -n "$bad" ]]; then
  printf 'librunway.so links libraries a host may not have:\n%s\n' "$bad" >&2
  exit 1
fi

echo "== the README's C example compiles and runs"
awk '/^## A run from C/{f=1} f&&/^```c$/{c=1;next} c&&/^```$/{exit} c{print}' "$root/README.md" >"$work/readme_example.c"
if [[ ! -s "$work/readme_example.c" ]]; then echo "run.sh: no C example found in README.md" >&2; exit 1; fi
gcc -std=c99 -Wall -Wextra -Werror -I"$inc" "$work/readme_example.c" -o "$work/readme_example" \
  -L"$libdir" -lrunway -Wl,-rpath,"$libdir"
"$work/readme_example" >"$work/readme_example.out"
# It prints exactly what the README shows: the first ```text block after the example.
awk '/^## A run from C/{f=1} f&&/^```c$/{c=1} c&&/^```text$/{t=1;next} t&&/^```$/{exit} t{print}' "$root/README.md" >"$work/readme_example.expected"
if [[ ! -s "$work/readme_example.expected" ]]; then echo "run.sh: no output block after the C example in README.md" >&2; exit 1; fi
if ! diff -u "$work/readme_example.expected" "$work/readme_example.out"; then
  echo "run.sh: the README's C example printed something else than the README shows (diff above)" >&2
  exit 1
fi

echo "== abi_run"
gcc -std=c99 -Wall -Wextra -Werror -O2 -g -I"$inc" "$here/abi_run.c" -o "$work/abi_run" \
  -L"$libdir" -lrunway -Wl,-rpath,"$libdir" -lcjson -lpthread -lm
timeout 60 "$work/abi_run"

echo "== limits_run (a route at RUNWAY_MAX_ROUTE_POINTS)"
gcc -std=c99 -Wall -Wextra -Werror -O2 -g -I"$inc" "$here/limits_run.c" -o "$work/limits_run" \
  -L"$libdir" -lrunway -Wl,-rpath,"$libdir" -lm
timeout 120 "$work/limits_run"
