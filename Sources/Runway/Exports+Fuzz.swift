#if FUZZING
import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

// The fuzzing build only (`-DFUZZING`, Tests/fuzz/run.sh): not in include/runway.h, not in the
// release library.

/// How the JSON fast paths and cJSON differ on `len` bytes at `bytes` (a malloc'd description
/// for the caller to free), or NULL when they agree: as an input, the same input bit for bit or
/// the same status and message (`InputDecoder.difference`); as a config or options object (the
/// bytes as a String, as the C entry points read them), the same fields or the same status and
/// message (`JSONInput.objectDifference`). `*fast` gets bit 0 when the input fast path took the
/// bytes, bit 1 when the flat object one did.
@_cdecl("runway_fuzz_json_difference")
public func runway_fuzz_json_difference_impl(_ bytes: UnsafeRawPointer?, _ len: Int,
                                             _ fast: UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<CChar>? {
    let buf = UnsafeRawBufferPointer(start: len > 0 ? bytes : nil, count: bytes == nil ? 0 : max(len, 0))
    let text = String(decoding: buf, as: UTF8.self)
    fast?.pointee = (InputDecoder.takesFastPath(buf) ? 1 : 0) | (JSONInput.takesFastPath(text) ? 2 : 0)
    if let difference = InputDecoder.difference(buf) { return try? mallocString(Array(("input: " + difference).utf8)) }
    if let difference = JSONInput.objectDifference(text) { return try? mallocString(Array(("object: " + difference).utf8)) }
    return nil
}
#endif
