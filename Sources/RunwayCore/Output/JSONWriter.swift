#if canImport(Glibc)
import Glibc
#endif

/// Builds compact JSON text into one growable byte buffer. Non-finite numbers are written as
/// `null`, never NaN or Infinity.
///
///     var w = JSONWriter()
///     w.beginObject(); w.field("seq", 7); w.field("t", 0.5); w.endObject()
///     w.text   // {"seq":7,"t":0.5}
///
/// Every write reserves its room once and stores its bytes through the buffer's pointer: keys,
/// integers, PFD texts and the digits of numbers go straight into the output, with no `String`
/// or array made on the way. The buffer is copied on write, like an array's, should a writer be
/// copied. It is a malloc'd block, which `takeCString` can hand to C whole.
public struct JSONWriter {
    private var owner: Storage
    // The bytes: `count` of `capacity` written at `base`. Internal, not private, for the writer's
    // extensions in JSONWriter+Digits.swift and JSONWriter+Owned.swift; nothing else writes them.
    var base: UnsafeMutablePointer<UInt8>
    var count = 0
    var capacity: Int
    var needsComma = false

    /// Owns the allocation (freed with the last writer holding it, unless handed to C).
    private final class Storage {
        let base: UnsafeMutablePointer<UInt8>
        /// `base` came from malloc (so C may free it); else (malloc failed) from `allocate`.
        let fromMalloc: Bool
        /// `takeCString` gave the block away: it is no longer this storage's to free.
        var handedOver = false

        init(_ capacity: Int) {
            if let block = malloc(capacity) {
                base = block.bindMemory(to: UInt8.self, capacity: capacity)
                fromMalloc = true
            } else {
                base = .allocate(capacity: capacity)    // as before: the runtime's own out-of-memory handling
                fromMalloc = false
            }
        }

        deinit {
            if handedOver { return }
            if fromMalloc { free(base) } else { base.deallocate() }
        }
    }

    public init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        owner = Storage(self.capacity)
        base = owner.base
    }

    /// Empties the writer, keeping its buffer (for writing a new text into the same memory).
    public mutating func removeAll() {
        count = 0
        needsComma = false
    }

    /// The text so far (a copy).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    public var text: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

    /// Calls `body` with the bytes written so far (valid only during the call).
    public func withBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Makes room for `n` more bytes (and makes the buffer this writer's own).
    @inline(__always)
    mutating func reserve(_ n: Int) {
        if _slowPath(count &+ n > capacity || !isKnownUniquelyReferenced(&owner)) { regrow(count &+ n) }
    }

    mutating func regrow(_ need: Int) {
        var cap = max(capacity, 16)     // 0 after takeCString
        while cap < need { cap = cap &* 2 }
        let fresh = Storage(cap)
        fresh.base.update(from: base, count: count)
        owner = fresh
        base = fresh.base
        capacity = cap
    }

    /// Stores one byte (room reserved).
    @inline(__always)
    mutating func put(_ b: UInt8) { base[count] = b; count &+= 1 }

    @inline(__always)
    mutating func put(_ buf: UnsafeBufferPointer<UInt8>) {
        guard let src = buf.baseAddress else { return }
        (base + count).update(from: src, count: buf.count)
        count &+= buf.count
    }

    /// Appends bytes, reserving room.
    mutating func append(_ buf: UnsafeBufferPointer<UInt8>) { reserve(buf.count); put(buf) }

    @inline(__always)
    mutating func putSeparator() { if needsComma { put(UInt8(ascii: ",")) } }

    public mutating func beginObject() { reserve(2); putSeparator(); put(UInt8(ascii: "{")); needsComma = false }
    public mutating func endObject() { reserve(1); put(UInt8(ascii: "}")); needsComma = true }
    public mutating func beginArray() { reserve(2); putSeparator(); put(UInt8(ascii: "[")); needsComma = false }
    public mutating func endArray() { reserve(1); put(UInt8(ascii: "]")); needsComma = true }

    /// Writes `"name":` inside an object.
    public mutating func key(_ name: StaticString) {
        reserve(name.utf8CodeUnitCount &+ 4)
        putKey(name)
    }

    /// Stores `,"name":` (room reserved: the name and 4).
    @inline(__always)
    mutating func putKey(_ name: StaticString) {
        putSeparator()
        put(UInt8(ascii: "\""))
        putSmall(name.utf8Start, name.utf8CodeUnitCount)
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Stores `n` bytes from `p` (room reserved). A short run (a key, a literal) without a call:
    /// 8 bytes at a time with the last 8 overlapping the one before (4 bytes twice below 8, a
    /// byte at a time below 4), every load and store inside the `n` bytes.
    @inline(__always)
    mutating func putSmall(_ p: UnsafePointer<UInt8>, _ n: Int) {
        let from = UnsafeRawPointer(p), to = UnsafeMutableRawPointer(base + count)
        if n >= 8 {
            if n > 32 {
                to.copyMemory(from: from, byteCount: n)
            } else {
                var i = 0
                while i &+ 8 < n {
                    to.storeBytes(of: from.loadUnaligned(fromByteOffset: i, as: UInt64.self), toByteOffset: i, as: UInt64.self)
                    i &+= 8
                }
                to.storeBytes(of: from.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self), toByteOffset: n &- 8, as: UInt64.self)
            }
        } else if n >= 4 {
            to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self), toByteOffset: n &- 4, as: UInt32.self)
        } else {
            var i = 0
            while i < n { to.storeBytes(of: from.load(fromByteOffset: i, as: UInt8.self), toByteOffset: i, as: UInt8.self); i &+= 1 }
        }
        count &+= n
    }

    /// Writes `"name":` for a key known only at run time (escaped like any string).
    public mutating func key(dynamic name: String) {
        string(name)
        reserve(1)
        put(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func number(_ v: Double) {
        reserve(41)
        putNumber(v)
    }

    /// Stores a number (room reserved: 41 bytes; a long form reserves more itself).
    @inline(__always)
    mutating func putNumber(_ v: Double) {
        putSeparator()
        if v.isFinite { appendShortest(v) } else { appendNull() }
        needsComma = true
    }

    /// `v`'s shortest round-trip form, the same text as `v.description`. Written here: zero
    /// ("0.0", "-0.0"), whole numbers below 2⁵⁰ in magnitude (their digits and ".0", as
    /// `description` writes them) and other magnitudes from 2⁻¹⁰ to 2⁵⁰ (`ShortestDecimal`'s
    /// digits with the point placed); anything else, and the few values `ShortestDecimal`
    /// declines, through `Double.write(to:)`, which formats on the stack and hands the digits to
    /// `_writeASCII`, straight into the buffer (no String made).
    mutating func appendShortest(_ v: Double) {
        let magnitude = v.bitPattern & 0x7FFF_FFFF_FFFF_FFFF
        let biased = Int(truncatingIfNeeded: magnitude &>> 52)
        if magnitude == 0 {
            if v.sign == .minus { put(UInt8(ascii: "-")) }
            put(UInt8(ascii: "0")); put(UInt8(ascii: ".")); put(UInt8(ascii: "0"))
            return
        }
        if biased >= 1023, biased <= 1072 {                     // 1 ≤ |v| < 2⁵⁰
            let e = 1075 &- biased                              // |v| = M·2⁻ᵉ, 3 ≤ e ≤ 52
            let significand = (magnitude & 0x000F_FFFF_FFFF_FFFF) | (1 << 52)
            if significand & ((1 &<< e) &- 1) == 0 {
                if v.sign == .minus { put(UInt8(ascii: "-")) }
                putDigits(significand &>> e)
                put(UInt8(ascii: ".")); put(UInt8(ascii: "0"))
                return
            }
        }
        if let (n, k) = ShortestDecimal.digits(Double(bitPattern: magnitude)) {
            if v.sign == .minus { put(UInt8(ascii: "-")) }
            let unit = ShortestDecimal.pow10(k)
            putDigits(n / unit)
            put(UInt8(ascii: "."))
            putDigits(n % unit, count: k)
            return
        }
        withUnsafeMutablePointer(to: &self) { w in
            var sink = Sink(writer: w)
            v.write(to: &sink)
        }
    }

    public mutating func integer<I: BinaryInteger>(_ v: I) {
        reserve(21)
        putInteger(v)
    }

    /// Stores an integer (room reserved: 21 bytes).
    @inline(__always)
    mutating func putInteger<I: BinaryInteger>(_ v: I) {
        putSeparator()
        if v < 0 {
            put(UInt8(ascii: "-"))
            putDigits(UInt64(v.magnitude))
        } else {
            putDigits(UInt64(v))
        }
        needsComma = true
    }

    public mutating func null() { reserve(5); putSeparator(); appendNull(); needsComma = true }

    public mutating func bool(_ v: Bool) {
        reserve(6)
        putSeparator()
        putStatic(v ? "true" : "false")
        needsComma = true
    }

    public mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            reserve(utf8.count &+ 3)
            putSeparator()
            put(UInt8(ascii: "\""))
            var plain = true
            for b in utf8 where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { plain = false; break }
            if plain { put(utf8) } else { putEscaped(utf8) }
            reserve(1)
            put(UInt8(ascii: "\""))
        }
        needsComma = true
    }

    private mutating func putEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        let hex: StaticString = "0123456789abcdef"
        for b in utf8 {
            reserve(6)
            switch b {
            case UInt8(ascii: "\""): put(0x5C); put(0x22)
            case UInt8(ascii: "\\"): put(0x5C); put(0x5C)
            case 0x0A: put(0x5C); put(UInt8(ascii: "n"))
            case 0x0D: put(0x5C); put(UInt8(ascii: "r"))
            case 0x09: put(0x5C); put(UInt8(ascii: "t"))
            case 0..<0x20:
                put(0x5C); put(UInt8(ascii: "u")); put(0x30); put(0x30)
                put(hex.utf8Start[Int(b >> 4)]); put(hex.utf8Start[Int(b & 15)])
            default: put(b)
            }
        }
    }

    /// Writes a string whose text `body` stores as ASCII that needs no escaping (the PFD's texts),
    /// with at most `maxBytes` bytes reserved for it.
    public mutating func asciiString(maxBytes: Int, _ body: (inout JSONWriter) -> Void) {
        reserve(maxBytes &+ 3)   // the buffer made this writer's own: then as in a run of writes
        ownedPlainString(maxBytes: maxBytes, body)
    }

    public mutating func strings(_ list: [String]) {
        beginArray()
        for s in list { string(s) }
        endArray()
    }

    // Convenience for `"key": value` pairs, with room reserved once for the pair.
    public mutating func field(_ k: StaticString, _ v: Double) { reserve(k.utf8CodeUnitCount &+ 45); putKey(k); putNumber(v) }
    public mutating func field(_ k: StaticString, _ v: String) { key(k); string(v) }
    public mutating func field(_ k: StaticString, _ v: UInt64) { reserve(k.utf8CodeUnitCount &+ 25); putKey(k); putInteger(v) }
    public mutating func field(_ k: StaticString, _ v: Int) { reserve(k.utf8CodeUnitCount &+ 25); putKey(k); putInteger(v) }

    /// Appends the NUL that ends a C string (not counted in `text`'s callers' view once copied).
    public mutating func terminate() { reserve(1); put(0) }

    /// The text, NUL-terminated, as a malloc'd C string that the caller frees with `free`: the
    /// writer's own block, handed over without a copy (`terminate`'s reserve has made it this
    /// writer's own: a copied writer keeps the bytes it shared). Nil, and nothing changed, when
    /// the block did not come from malloc; then copy `withBytes` instead. The writer is left
    /// empty, and grows a new buffer if written to again.
    public mutating func takeCString() -> UnsafeMutablePointer<CChar>? {
        terminate()
        guard owner.fromMalloc else {
            count &-= 1    // the NUL is not text
            return nil
        }
        owner.handedOver = true
        let block = UnsafeMutableRawPointer(base).assumingMemoryBound(to: CChar.self)
        count = 0
        capacity = 0
        needsComma = false
        return block
    }

    /// The text, NUL-terminated, for handing to C.
    public mutating func finishCString() -> [UInt8] {
        terminate()
        return bytes
    }

    @inline(__always)
    mutating func appendNull() { putStatic("null") }

    /// Stores a literal's bytes (room reserved); inlined, a literal's bytes become constant stores.
    @inline(__always)
    mutating func putStatic(_ s: StaticString) { putSmall(s.utf8Start, s.utf8CodeUnitCount) }

    /// Where `Double.write(to:)` hands its digits. `_writeASCII` is the standard library's
    /// customization point for ASCII text formatted in a buffer (numbers); without it (or should
    /// a future standard library stop calling it) `write(_:)` still gets the same text.
    private struct Sink: TextOutputStream {
        let writer: UnsafeMutablePointer<JSONWriter>
        mutating func write(_ string: String) {
            var s = string
            s.withUTF8 { writer.pointee.append($0) }
        }
        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { writer.pointee.append(buffer) }
    }
}
