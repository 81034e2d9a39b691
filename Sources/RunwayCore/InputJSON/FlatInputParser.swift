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
///     line.withUnsafeBytes { FlatInputParser.parse($0) }   // fields lat 52.1, lon 4.3; kind .fix
///     Array(#"{"lat":52.1,"lon":4.3,"x":[]}"#.utf8).withUnsafeBytes { FlatInputParser.parse($0) }  // nil
enum FlatInputParser {
    /// The slot of `"type"` in the seen-keys mask (after `InputFields`' number slots).
    static let typeSlot = 14

    /// The fields and kind of the flat object in `b`, or nil when cJSON must read it.
    ///
    /// The closing brace is found first (the last byte that is not whitespace): no loop below
    /// runs past it, as it is no digit, space or quote, and every single byte looked at is at or
    /// before it (each step moves past a byte that is not it), so those reads need no bound.
    static func parse(_ b: UnsafeRawBufferPointer) -> (fields: InputFields, kind: InputKind)? {
        let n = b.count
        var last = n - 1
        while last > 0, JSONInput.isSpace(b[last]) { last -= 1 }
        guard last > 0, b[last] == 0x7D else { return nil }              // }
        var i = 0
        skipSpaceBefore(b, &i)
        guard b[i] == 0x7B else { return nil }                            // {
        i += 1
        skipSpaceBefore(b, &i)
        var fields = InputFields()
        var kind = InputKind.fix
        if i == last { return (fields, kind) }                            // {} (cJSON's message)
        while true {
            guard let key = keyCode(b, &i), let slot = slot(of: key) else { return nil }
            let bit: UInt16 = 1 &<< UInt16(truncatingIfNeeded: slot)
            guard fields.seen & bit == 0 else { return nil }
            if b[i] != 0x3A {                                             // :
                skipSpaceBefore(b, &i)
                guard b[i] == 0x3A else { return nil }
            }
            i &+= 1
            skipSpaceBefore(b, &i)
            if let v = DecimalNumber.readBeforeDelimiter(b, at: &i) {
                guard slot != typeSlot else { return nil }
                fields.set(slot, v)
            } else {
                guard otherValue(b, &i, slot: slot, fields: &fields, kind: &kind) else { return nil }
            }
            skipSpaceBefore(b, &i)
            guard b[i] == 0x2C else { break }                             // ,
            i &+= 1
            skipSpaceBefore(b, &i)
        }
        return i == last ? (fields, kind) : nil                           // } and only space after
    }

    /// A value at `i` that is no number `readBeforeDelimiter` takes: `null`, or the `"type"`
    /// string; false for anything else (cJSON reads the text). Out of line: rare.
    @inline(never)
    static func otherValue(_ b: UnsafeRawBufferPointer, _ i: inout Int, slot: Int, fields: inout InputFields,
                           kind: inout InputKind) -> Bool {
        if slot == typeSlot {
            guard let named = typeKind(b, &i) else { return false }
            kind = named
            fields.seen |= 1 << UInt16(typeSlot)
            return true
        }
        guard i + 4 <= b.count, b[i] == 0x6E, b[i + 1] == 0x75, b[i + 2] == 0x6C, b[i + 3] == 0x6C else { return false }
        i += 4                                                            // null
        fields.set(slot, .nan)
        return true
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

    /// A key of 1...7 bytes at `i` as its bytes little-endian (the first lowest) with its length
    /// in the top byte, advancing past the closing quote; nil for a longer key or a text that
    /// ends first. Its bytes are not checked: only a known key's code (which holds no quote,
    /// backslash, control or non-ASCII byte) finds a slot.
    @inline(__always)
    static func keyCode(_ b: UnsafeRawBufferPointer, _ index: inout Int) -> UInt64? {
        let i = index
        guard i < b.count, b[i] == 0x22 else { return nil }
        let start = i &+ 1
        guard start &+ 8 <= b.count else { return keyCodeNearEnd(b, &index) }
        // The 8 bytes after the opening quote at once: the first quote among them is the
        // lowest zero byte of `x` (exact for the lowest one: borrows only run upwards).
        let word = b.loadUnaligned(fromByteOffset: start, as: UInt64.self).littleEndian
        let x = word ^ 0x2222_2222_2222_2222
        let zeros = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
        let length = zeros.trailingZeroBitCount &>> 3                   // 8: no quote, too long
        guard length < 8 else { return nil }
        index = start &+ length &+ 1
        let mask: UInt64 = (1 &<< UInt64(truncatingIfNeeded: length &* 8)) &- 1
        return word & mask | UInt64(truncatingIfNeeded: length) &<< 56
    }

    /// `keyCode` where fewer than 8 bytes follow the opening quote at `index`.
    @inline(never)
    static func keyCodeNearEnd(_ b: UnsafeRawBufferPointer, _ index: inout Int) -> UInt64? {
        let n = b.count
        let start = index + 1
        var k = start
        while k < n, b[k] != 0x22 { k += 1 }
        let length = k - start
        guard k < n, length < 8 else { return nil }
        index = k + 1
        var code: UInt64 = 0
        for j in 0..<length { code |= UInt64(b[start + j]) << UInt64(j * 8) }
        return code | UInt64(length) << 56
    }

    /// The slot of a known key coded by `keyCode`, `typeSlot` for "type", nil otherwise: a
    /// perfect hash (the top four bits of the code times `keyHash` differ for the 15 known keys)
    /// picks the one candidate, which must then be the key itself.
    @inline(__always)
    static func slot(of key: UInt64) -> Int? {
        let h = Int(truncatingIfNeeded: (key &* keyHash) >> 60)
        guard keyCodes[h] == key else { return nil }
        return Int(truncatingIfNeeded: (keySlots >> UInt64(truncatingIfNeeded: h &* 4)) & 0xF)
    }

    static let keyHash: UInt64 = 0x68C9_3AB8_8481_03DF
    /// The known keys' codes by hash; `UInt64.max` (no key's code) where none hashes.
    static let keyCodes: [UInt64] = [
        0x0500_0073_7474_6177,  // 0 "watts"
        .max,                   // 1
        0x0500_0063_6361_5F76,  // 2 "v_acc"
        0x0500_0064_6565_7073,  // 3 "speed"
        0x0300_0000_006E_6F6C,  // 4 "lon"
        0x0100_0000_0000_0074,  // 5 "t"
        0x0600_6573_7275_6F63,  // 6 "course"
        0x0500_0063_6361_5F68,  // 7 "h_acc"
        0x0500_0072_6577_6F70,  // 8 "power"
        0x0400_0000_6570_7974,  // 9 "type"
        0x0300_0000_0074_616C,  // 10 "lat"
        0x0300_0000_006D_7073,  // 11 "spm"
        0x0300_0000_006D_7062,  // 12 "bpm"
        0x0300_0000_0074_6C61,  // 13 "alt"
        0x0200_0000_0000_7268,  // 14 "hr"
        0x0765_636E_6564_6163,  // 15 "cadence"
    ]
    /// The slots by hash, four bits each (the lowest for hash 0).
    /// (watts 13, -, v_acc 7, speed 4, lon 1, t 2, course 5, h_acc 6, power 12, type 14, lat 0,
    /// spm 11, bpm 10, alt 3, hr 8, cadence 9; a test checks them against `InputFields`).
    static let keySlots: UInt64 = 0x983A_B0EC_6521_470D

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
