/// Builds compact JSON text. Non-finite numbers are written as `null`, never NaN or Infinity.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    var needsComma = false

    public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// Writes `"name":` inside an object.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes `"name":` for a key known only at run time (escaped like any string).
    public mutating func key(dynamic name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func number(_ v: Double) {
        separate()
        if v.isFinite { appendShortest(v) } else { appendNull() }
        needsComma = true
    }

    /// `v`'s shortest round-trip form, the same text as `v.description`, written straight into
    /// `bytes`: `Double.write(to:)` formats on the stack and hands the digits to `_writeASCII`,
    /// where `description` allocates a String for every text longer than 15 bytes
    /// (`1700000012.3456788`), one heap allocation per number of every snapshot and summary.
    mutating func appendShortest(_ v: Double) {
        var sink = ByteSink(bytes: [])
        swap(&sink.bytes, &bytes)   // moved, not copied: `bytes` stays uniquely referenced
        v.write(to: &sink)
        swap(&sink.bytes, &bytes)
    }

    public mutating func integer<I: BinaryInteger>(_ v: I) {
        separate()
        bytes.append(contentsOf: String(v).utf8)
        needsComma = true
    }

    public mutating func null() { separate(); appendNull(); needsComma = true }

    public mutating func bool(_ v: Bool) {
        separate()
        bytes.append(contentsOf: (v ? "true" : "false").utf8)
        needsComma = true
    }

    public mutating func string(_ s: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func strings(_ list: [String]) {
        beginArray()
        for s in list { string(s) }
        endArray()
    }

    // Convenience for `"key": value` pairs.
    public mutating func field(_ k: StaticString, _ v: Double) { key(k); number(v) }
    public mutating func field(_ k: StaticString, _ v: String) { key(k); string(v) }
    public mutating func field(_ k: StaticString, _ v: UInt64) { key(k); integer(v) }
    public mutating func field(_ k: StaticString, _ v: Int) { key(k); integer(v) }

    /// The text, NUL-terminated, for handing to C.
    public mutating func finishCString() -> [UInt8] {
        bytes.append(0)
        return bytes
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    @inline(__always)
    mutating func separate() { if needsComma { bytes.append(UInt8(ascii: ",")) } }

    mutating func appendNull() { ("null" as StaticString).withUTF8Buffer { bytes.append(contentsOf: $0) } }
}

/// The byte sink `JSONWriter.appendShortest` formats a Double into. `_writeASCII` is the
/// standard library's customization point for ASCII text formatted in a buffer (numbers); without
/// it (or should a future standard library stop calling it) `write(_:)` still gets the same text.
struct ByteSink: TextOutputStream {
    var bytes: [UInt8]
    mutating func write(_ string: String) { bytes.append(contentsOf: string.utf8) }
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
}
