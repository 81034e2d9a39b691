/// One pass over the bytes of a flat input object — a fix or a sensor sample — without building a
/// tree or allocating: the fast path of `InputDecoder`.
///
/// It takes only what it can read exactly as cJSON would: `{`, members separated by `,`, `}`,
/// spaces, tabs, CR or LF between tokens and nothing after; each key one of the known fields
/// (`InputFields`), at most once, as printable ASCII without escapes; each value a JSON number
/// `DecimalNumber` converts exactly or `null`, and `"type"` a known kind as printable ASCII. For
/// anything else — nesting, escapes, unknown or repeated keys, other whitespace, booleans, strings
/// where numbers go, numbers it cannot convert with certainty, malformed text — it returns nil
/// and cJSON reads the bytes, so the result (input, or status and message) is cJSON's.
///
///     let line = Array(#"{"lat":52.1,"lon":4.3,"hr":null}"#.utf8)
///     var fields = InputFields()
///     line.withUnsafeBytes { FlatInputParser.parse($0, into: &fields) }   // .fix; fields lat 52.1, lon 4.3
///     Array(#"{"lat":52.1,"lon":4.3,"x":[]}"#.utf8).withUnsafeBytes { FlatInputParser.parse($0, into: &fields) }  // nil
enum FlatInputParser {
    /// The slot of `"type"` in the seen-keys mask (after `InputFields`' number slots).
    static let typeSlot = 14

    /// The kind of the flat object in `b`, its fields set in `fields` (fresh: `InputFields()`),
    /// or nil when cJSON must read it (then `fields` holds any of them).
    ///
    /// The closing brace is found first (the last byte that is not whitespace): no loop below
    /// runs past it, as it is no digit, space or quote, and every single byte looked at is at or
    /// before it (each step moves past a byte that is not it), so those reads need no bound.
    static func parse(_ b: UnsafeRawBufferPointer, into fields: inout InputFields) -> InputKind? {
        let n = b.count
        var last = n - 1
        while last > 0, JSONInput.isSpace(b[last]) { last -= 1 }
        guard last > 0, b[last] == 0x7D else { return nil }              // }
        var i = 0
        skipSpaceBefore(b, &i)
        guard b[i] == 0x7B else { return nil }                            // {
        i += 1
        skipSpaceBefore(b, &i)
        var kind = InputKind.fix
        if i == last { return kind }                                      // {} (cJSON's message)
        var seen: UInt16 = 0
        while true {
            guard let key = keySlot(b, at: i) else { return nil }
            let slot = key.slot
            let bit = key.bit
            guard seen & bit == 0 else { return nil }
            seen |= bit
            i = key.end
            if b[i] != 0x3A {                                             // :
                skipSpaceBefore(b, &i)
                guard b[i] == 0x3A else { return nil }
            }
            i &+= 1
            skipSpaceBefore(b, &i)
            if let v = DecimalNumber.readBeforeDelimiter(b, at: &i) {
                guard fields.store(slot, v) else { return nil }              // "type": no number
            } else {
                guard let end = otherValue(b, at: i, slot: slot, fields: &fields, kind: &kind) else { return nil }
                i = end
            }
            if b[i] == 0x2C, b[i &+ 1] == 0x22 {                          // ," the next key at once
                i &+= 1
                continue
            }
            skipSpaceBefore(b, &i)
            guard b[i] == 0x2C else { break }                             // ,
            i &+= 1
            skipSpaceBefore(b, &i)
        }
        fields.seen = seen & ~(1 << UInt16(typeSlot))
        return i == last ? kind : nil                                     // } and only space after
    }

    /// A value at `i` that is no number `readBeforeDelimiter` takes: `null`, or the `"type"`
    /// string; the index after it, or nil for anything else (cJSON reads the text). Out of
    /// line: rare.
    @inline(never)
    static func otherValue(_ b: UnsafeRawBufferPointer, at start: Int, slot: Int, fields: inout InputFields,
                           kind: inout InputKind) -> Int? {
        var i = start
        if slot == typeSlot {
            guard let named = typeKind(b, &i) else { return nil }
            kind = named
            return i
        }
        guard i + 4 <= b.count, b[i] == 0x6E, b[i + 1] == 0x75, b[i + 2] == 0x6C, b[i + 3] == 0x6C else { return nil }
        fields.store(slot, .nan)                                          // null
        return i + 4
    }

    /// `skipSpace` where a byte that is not whitespace is known to follow `i` within `b` (the
    /// closing brace): no bound check.
    @inline(__always)
    static func skipSpaceBefore(_ b: UnsafeRawBufferPointer, _ i: inout Int) {
        while JSONInput.isSpace(b[i]) { i &+= 1 }
    }

    @inline(__always)
    static func skipSpace(_ b: UnsafeRawBufferPointer, _ i: inout Int) {
        while i < b.count, JSONInput.isSpace(b[i]) { i += 1 }
    }

    /// A string of 1...8 printable ASCII bytes without escapes at `i` (a `"type"` value), packed
    /// little-endian (the first byte lowest), advancing past its closing quote; nil otherwise.
    @inline(__always)
    static func packedString(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> UInt64? {
        let n = b.count
        guard i < n, b[i] == 0x22 else { return nil }
        i += 1
        var packed: UInt64 = 0
        var shift: UInt64 = 0
        while i < n {
            let c = b[i]
            i += 1
            if c == 0x22 { return shift == 0 ? nil : packed }
            guard c >= 0x20, c < 0x7F, c != 0x5C, shift < 64 else { return nil }
            packed |= UInt64(c) << shift
            shift += 8
        }
        return nil
    }

    /// The slot, seen-mask bit and end (past the closing quote) of the known key (`typeSlot` for
    /// "type") whose string opens at `i` (< `b.count`); nil for any other key or string.
    ///
    /// The 8 bytes after the opening quote are matched at once: a known key with its closing
    /// quote (at most 8 bytes) is a masked compare against the one candidate a hash of the first
    /// three bytes picks (for `"t"`, written `"t":`, the colon is the third). A match is exactly
    /// that key: its bytes then a quote, the first quote of the string.
    @inline(__always)
    static func keySlot(_ b: UnsafeRawBufferPointer, at i: Int) -> (slot: Int, bit: UInt16, end: Int)? {
        guard b[i] == 0x22 else { return nil }                             // i < b.count: the caller's
        let start = i &+ 1
        if start &+ 8 <= b.count {
            let word = b.loadUnaligned(fromByteOffset: start, as: UInt64.self).littleEndian
            if let key = knownKey(word) { return (key.slot, key.bit, start &+ key.length &+ 1) }
        }
        return keySlotSlowly(b, at: i)
    }

    /// The slot and length of the known key whose bytes, then a quote, begin `word` (the first
    /// byte lowest); nil when no known key does.
    @inline(__always)
    static func knownKey(_ word: UInt64) -> (slot: Int, bit: UInt16, length: Int)? {
        let h = Int(truncatingIfNeeded: ((word & 0xFF_FFFF) &* keyHash) &>> 60)
        guard word & keyPatterns[2 &* h &+ 1] == keyPatterns[2 &* h] else { return nil }
        let info = keyInfo[h]
        return (Int(truncatingIfNeeded: info & 0xFF), UInt16(truncatingIfNeeded: info &>> 16),
                Int(truncatingIfNeeded: (info &>> 8) & 0xFF) &- 2)
    }

    /// `keySlot` for a key near the end of the text or not followed by a colon: its bytes are
    /// found first, then matched as if written `"key":`.
    @inline(never)
    static func keySlotSlowly(_ b: UnsafeRawBufferPointer, at i: Int) -> (slot: Int, bit: UInt16, end: Int)? {
        let n = b.count
        let start = i + 1
        var k = start
        while k < n, k - start < 8, b[k] != 0x22 { k += 1 }
        let length = k - start
        guard k < n, b[k] == 0x22, length >= 1, length <= 7 else { return nil }
        var word: UInt64 = 0x3A22 << UInt64(8 * length)               // the key, then ":
        for j in 0..<length { word |= UInt64(b[start + j]) << UInt64(8 * j) }
        guard let key = knownKey(word), key.length == length else { return nil }
        return (key.slot, key.bit, k + 1)
    }

    /// The multiplier of the key hash: the top four bits of (first three bytes × it) differ for
    /// the 15 known keys.
    static let keyHash: UInt64 = 0x0683_23EC_409F_28CD
    /// By hash h, at 2h and 2h + 1: a known key's bytes and closing quote (the first byte
    /// lowest), and the mask of those bytes; hash 5 is no key's (its mask keeps nothing, so it
    /// never equals 1).
    static let keyPatterns: [UInt64] = [
        0x0000_0000_226E_6F6C, 0xFFFF_FFFF, 0x0000_0000_2274_6C61, 0xFFFF_FFFF,  // lon alt
        0x0000_0000_226D_7062, 0xFFFF_FFFF, 0x2265_636E_6564_6163, .max,  // bpm cadence
        0x0000_2263_6361_5F76, 0xFFFF_FFFF_FFFF, 1, 0,  // v_acc -
        0x0000_2272_6577_6F70, 0xFFFF_FFFF_FFFF, 0x0000_2264_6565_7073, 0xFFFF_FFFF_FFFF,  // power speed
        0x0000_0000_0000_2274, 0xFFFF, 0x0000_0000_226D_7073, 0xFFFF_FFFF,  // t spm
        0x0000_0022_6570_7974, 0xFF_FFFF_FFFF, 0x0000_0000_2274_616C, 0xFFFF_FFFF,  // type lat
        0x0022_6573_7275_6F63, 0xFF_FFFF_FFFF_FFFF, 0x0000_0000_0022_7268, 0xFF_FFFF,  // course hr
        0x0000_2263_6361_5F68, 0xFFFF_FFFF_FFFF, 0x0000_2273_7474_6177, 0xFFFF_FFFF_FFFF,  // h_acc watts
    ]
    /// By hash: the key's slot (bits 0-7), length + 2 (bits 8-15: from the opening quote to past
    /// the closing one) and bit in the seen mask (1 << slot, bits 16-31).
    static let keyInfo: [UInt32] = [
        0x0002_0501, 0x0008_0503, 0x0400_050A, 0x0200_0909,  // lon 1, alt 3, bpm 10, cadence 9
        0x0080_0707, 0, 0x1000_070C, 0x0010_0704,  // v_acc 7, -, power 12, speed 4
        0x0004_0302, 0x0800_050B, 0x4000_060E, 0x0001_0500,  // t 2, spm 11, type 14, lat 0
        0x0020_0805, 0x0100_0408, 0x0040_0706, 0x2000_070D,  // course 5, hr 8, h_acc 6, watts 13
    ]

    /// The kind a `"type"` string value at `i` names, advancing past it; nil for anything but a
    /// known kind written plainly (an unknown one gets cJSON's path and message).
    static func typeKind(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> InputKind? {
        if skip(b, &i, "\"altimeter\"") { return .altimeter }
        if skip(b, &i, "\"import_report\"") { return .importReport }
        if let short = packedString(b, &i) {
            switch short {
            case 0x78_69_66: return .fix                                   // "fix"
            case 0x6E_6F_69_74_61_63_6F_6C: return .fix                    // "location"
            case 0x72_68: return .hr                                       // "hr"
            case 0x65_63_6E_65_64_61_63: return .cadence                   // "cadence"
            case 0x72_65_77_6F_70: return .power                           // "power"
            case 0x64_65_65_70_73: return .speed                           // "speed"
            default: return nil
            }
        }
        return nil
    }

    /// Whether the bytes at `i` are `literal`, advancing past them if so.
    static func skip(_ b: UnsafeRawBufferPointer, _ i: inout Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard b.count - i >= count else { return false }
        let p = literal.utf8Start
        for k in 0..<count where b[i + k] != p[k] { return false }
        i += count
        return true
    }
}
