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
    static func parse(_ b: UnsafeRawBufferPointer) -> (fields: InputFields, kind: InputKind)? {
        let n = b.count
        var i = 0
        skipSpace(b, &i)
        guard i < n, b[i] == 0x7B else { return nil }                   // {
        i += 1
        skipSpace(b, &i)
        var fields = InputFields()
        var kind = InputKind.fix
        var seen: UInt16 = 0
        if i < n, b[i] == 0x7D {                                          // {} (cJSON's message)
            i += 1
        } else {
            while true {
                guard let key = keyCode(b, &i), let slot = slot(of: key) else { return nil }
                let bit: UInt16 = 1 << UInt16(slot)
                guard seen & bit == 0 else { return nil }
                seen |= bit
                skipSpace(b, &i)
                guard i < n, b[i] == 0x3A else { return nil }             // :
                i += 1
                skipSpace(b, &i)
                guard i < n else { return nil }
                if slot == typeSlot {
                    guard let named = typeKind(b, &i) else { return nil }
                    kind = named
                } else if b[i] == 0x6E {                                  // null
                    guard i + 4 <= n, b[i + 1] == 0x75, b[i + 2] == 0x6C, b[i + 3] == 0x6C else { return nil }
                    i += 4
                    fields.set(slot, .nan)
                } else {
                    guard let v = DecimalNumber.read(b, at: &i) else { return nil }
                    fields.set(slot, v)
                }
                skipSpace(b, &i)
                guard i < n else { return nil }
                if b[i] == 0x2C {                                         // ,
                    i += 1
                    skipSpace(b, &i)
                    continue
                }
                guard b[i] == 0x7D else { return nil }                    // }
                i += 1
                break
            }
        }
        skipSpace(b, &i)
        return i == n ? (fields, kind) : nil
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
        let n = b.count
        let i = index
        guard i < n, b[i] == 0x22 else { return nil }
        let start = i + 1
        if start + 8 <= n {
            // The 8 bytes after the opening quote at once: the first quote among them is the
            // lowest zero byte of `x` (exact for the lowest one: borrows only run upwards).
            let word = b.loadUnaligned(fromByteOffset: start, as: UInt64.self).littleEndian
            let x = word ^ 0x2222_2222_2222_2222
            let zeros = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
            let length = zeros.trailingZeroBitCount >> 3               // 8: no quote, too long
            guard length < 8 else { return nil }
            index = start + length + 1
            let mask: UInt64 = (1 << UInt64(length * 8)) &- 1
            return word & mask | UInt64(length) << 56
        }
        var k = start
        while k < n, b[k] != 0x22 { k += 1 }
        let length = k - start
        guard k < n, length < 8 else { return nil }
        index = k + 1
        var code: UInt64 = 0
        for j in 0..<length { code |= UInt64(b[start + j]) << UInt64(j * 8) }
        return code | UInt64(length) << 56
    }

    /// The slot of a known key coded by `keyCode`, `typeSlot` for "type", nil otherwise.
    @inline(__always)
    static func slot(of key: UInt64) -> Int? {
        switch key {
        case 0x0300_0000_0074_616C: return InputFields.lat      // "lat"
        case 0x0300_0000_006E_6F6C: return InputFields.lon      // "lon"
        case 0x0100_0000_0000_0074: return InputFields.t        // "t"
        case 0x0300_0000_0074_6C61: return InputFields.alt      // "alt"
        case 0x0500_0064_6565_7073: return InputFields.speed    // "speed"
        case 0x0600_6573_7275_6F63: return InputFields.course   // "course"
        case 0x0500_0063_6361_5F68: return InputFields.hAcc     // "h_acc"
        case 0x0500_0063_6361_5F76: return InputFields.vAcc     // "v_acc"
        case 0x0200_0000_0000_7268: return InputFields.hr       // "hr"
        case 0x0765_636E_6564_6163: return InputFields.cadence  // "cadence"
        case 0x0300_0000_006D_7062: return InputFields.bpm      // "bpm"
        case 0x0300_0000_006D_7073: return InputFields.spm      // "spm"
        case 0x0500_0072_6577_6F70: return InputFields.power    // "power"
        case 0x0500_0073_7474_6177: return InputFields.watts    // "watts"
        case 0x0400_0000_6570_7974: return typeSlot             // "type"
        default: return nil
        }
    }

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
