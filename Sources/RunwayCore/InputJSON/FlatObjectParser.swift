/// One pass over a flat JSON object of plain keys and scalar values — a session config,
/// subscription options — giving the fields cJSON gives `JSONInput.object`, in order.
///
/// It takes `{`, members, `}` with spaces, tabs, CR or LF between tokens and nothing after; keys
/// and string values of printable ASCII without escapes; numbers `DecimalNumber` converts
/// exactly; `true`, `false`, `null`; each key at most once. Anything else (arrays, nested objects,
/// escapes, non-ASCII, a repeated key, more than `maxMembers` members, a number it cannot settle,
/// malformed text) returns nil, and cJSON reads the text, so the result (fields, or status and
/// message) is cJSON's.
///
///     Array(#"{"activity":"ride","filter_m":5}"#.utf8).withUnsafeBytes { FlatObjectParser.fields($0) }
///     // [("activity", .string("ride")), ("filter_m", .number(5))]
enum FlatObjectParser {
    /// The most members the single pass takes; a larger object goes to cJSON.
    static let maxMembers = 64

    static func fields(_ b: UnsafeRawBufferPointer) -> [(key: String, value: JSONValue)]? {
        let n = b.count
        var i = 0
        FlatInputParser.skipSpace(b, &i)
        guard i < n, b[i] == 0x7B else { return nil }                   // {
        i += 1
        FlatInputParser.skipSpace(b, &i)
        var out: [(key: String, value: JSONValue)] = []
        if i < n, b[i] == 0x7D {                                          // {}
            i += 1
        } else {
            while true {
                // At most `maxMembers` (the repeat check is quadratic); a config has about 20.
                guard out.count < maxMembers, let key = plainString(b, &i), !out.contains(where: { $0.key == key }) else {
                    return nil
                }
                FlatInputParser.skipSpace(b, &i)
                guard i < n, b[i] == 0x3A else { return nil }             // :
                i += 1
                FlatInputParser.skipSpace(b, &i)
                guard i < n else { return nil }
                let value: JSONValue
                switch b[i] {
                case 0x22:
                    guard let s = plainString(b, &i) else { return nil }
                    value = .string(s)
                case 0x74:
                    guard FlatInputParser.skip(b, &i, "true") else { return nil }
                    value = .bool(true)
                case 0x66:
                    guard FlatInputParser.skip(b, &i, "false") else { return nil }
                    value = .bool(false)
                case 0x6E:
                    guard FlatInputParser.skip(b, &i, "null") else { return nil }
                    value = .null
                default:
                    guard let v = DecimalNumber.read(b, at: &i) else { return nil }
                    value = .number(v)
                }
                out.append((key: key, value: value))
                FlatInputParser.skipSpace(b, &i)
                guard i < n else { return nil }
                if b[i] == 0x2C {                                         // ,
                    i += 1
                    FlatInputParser.skipSpace(b, &i)
                    continue
                }
                guard b[i] == 0x7D else { return nil }                    // }
                i += 1
                break
            }
        }
        FlatInputParser.skipSpace(b, &i)
        return i == n ? out : nil
    }

    /// A string of printable ASCII without escapes at `i`, advancing past its closing quote.
    static func plainString(_ b: UnsafeRawBufferPointer, _ i: inout Int) -> String? {
        let n = b.count
        guard i < n, b[i] == 0x22 else { return nil }
        let start = i + 1
        var k = start
        while k < n {
            let c = b[k]
            if c == 0x22 {
                i = k + 1
                return String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<k]), as: UTF8.self)
            }
            guard c >= 0x20, c < 0x7F, c != 0x5C else { return nil }
            k += 1
        }
        return nil
    }
}

extension JSONValue {
    /// Whether two values are the same, numbers bit for bit (the sign of zero included).
    func sameBits(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.number(let a), .number(let b)): return a.bitPattern == b.bitPattern
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.sameBits($1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, v in b[key].map { v.sameBits($0) } ?? false }
        default: return self == other
        }
    }
}
