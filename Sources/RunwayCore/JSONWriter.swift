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
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
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
        if v.isFinite { bytes.append(contentsOf: v.description.utf8) } else { appendNull() }
        needsComma = true
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

    mutating func appendNull() { bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }
}
