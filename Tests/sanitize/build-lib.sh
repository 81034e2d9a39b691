#!/usr/bin/env bash
# Tests/sanitize/build-lib.sh address|thread — builds librunway.so under a sanitizer into
# .build-<sanitizer>/release/librunway.so and prints that path.
#
#   address: AddressSanitizer (and LeakSanitizer) with libFuzzer's coverage instrumentation and
#            -DFUZZING (whose only effect is one more export, runway_fuzz_json_difference, for the
#            json_diff harness). One build serves the fuzz harnesses (Tests/fuzz/run.sh) and the
#            C hosts under AddressSanitizer (Tests/sanitize/run.sh): without libFuzzer the
#            coverage hooks are the sanitizer runtime's no-ops.
#   thread:  ThreadSanitizer.
#
# Both are linked as the release library is (lld, the export list: hosts see only runway_*). The
# Swift runtime is linked statically, as in the release, except under ThreadSanitizer: a static
# runtime hides its lazy-initialisation locks (swift_once) from TSan's interceptors, which then
# reports every lazy global as a race. That build is a test tool, never shipped, and cannot be
# loaded by a host without the toolchain's runtime libraries.
set -euo pipefail

san="${1:-}"
case "$san" in address|thread) ;; *) sed -n '2,15p' "$0" >&2; exit 2 ;; esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
toolchain="$(dirname "$(readlink -f "$(command -v swiftc)")")"
mkdir -p "$root/build/$san"
printf '{"schemaVersion": "1.0", "linker": {"path": "%s"}}\n' "$toolchain/ld.lld" >"$root/build/$san/toolset.json"
flags=(-Xswiftc -sanitize="$san")
[[ "$san" == address ]] && flags+=(-Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
                                   -Xswiftc -DFUZZING -Xswiftc -static-stdlib)
(cd "$root" && swift build -c release --product runway --build-path ".build-$san" \
   --toolset "$root/build/$san/toolset.json" -Xlinker --version-script="$root/scripts/librunway.map" \
   "${flags[@]}" 2>&1 | { grep -E "error|warning|Build" >&2 || true; })   # (pipefail: swift's status)
lib="$root/.build-$san/release/librunway.so"
[[ -f "$lib" ]] || { echo "build-lib $san: no $lib" >&2; exit 1; }
echo "$lib"
