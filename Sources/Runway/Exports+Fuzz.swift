#if FUZZING
import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// The fuzzing build only (`-DFUZZING`, Tests/fuzz/run.sh): not in include/runway.h, not in the
// release library.

/// How the JSON fast path and cJSON differ on `len` bytes at `bytes` (a malloc'd description
/// for the caller to free), or NULL when they agree: the same input bit for bit, or the same
/// status and message (`InputDecoder.difference`). `*fast` is set to 1 when the fast path took
/// the bytes, 0 when it handed them to cJSON.
@_cdecl("runway_fuzz_json_difference")
public func runway_fuzz_json_difference_impl(_ bytes: UnsafeRawPointer?, _ len: Int,
                                             _ fast: UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<CChar>? {
    let buf = UnsafeRawBufferPointer(start: len > 0 ? bytes : nil, count: bytes == nil ? 0 : max(len, 0))
    fast?.pointee = InputDecoder.takesFastPath(buf) ? 1 : 0
    guard let difference = InputDecoder.difference(buf) else { return nil }
    return try? mallocString(Array(difference.utf8))
}
#endif
