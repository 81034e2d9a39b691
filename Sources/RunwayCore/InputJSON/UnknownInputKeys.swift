/// The keys of one accepted input line that no line of the flat input schema reads: a misspelt
/// key (`"heartrate"`, `"lng"`, `"accuracy"`), found by the cJSON path of `InputDecoder` (the
/// single pass reads known keys only, so a line with such a key never takes it).
///
/// "Unknown" means unknown to every line type: the schema is one flat set of keys (the number
/// keys the decoders have slots for, `"type"` and `"trigger"`), and a key that another type
/// reads (`"bpm"` on a fix, `"lat"` on a heart-rate sample) is known, not reported.
///
///     var unknown: Unmanaged<UnknownInputKeys>? = nil
///     let line = Array(#"{"lat":52,"lon":4,"lng":4}"#.utf8)
///     _ = try line.withUnsafeBytes { try InputDecoder.decodeLine($0, unknownKeys: &unknown) }
///     unknown?.takeRetainedValue()   // type "fix", keys ["lng"]
///
/// A class: the decoders hand it over as an unmanaged reference, one word that is nil on every
/// line but these, and nothing to release on them (the JSON fix path pays no more than a test).
public final class UnknownInputKeys: Sendable {
    /// The line's type as the warning names it (`fix`, `hr`, `cadence`, ... `device_lap`).
    public let type: String
    /// The distinct unknown keys in the line's order, the first `UnknownKeyWarnings.limit` + 1
    /// of them (enough for a session to warn of all it will, and to know there were more), each
    /// cut to its first `maxKeyBytes` bytes (at a character boundary).
    public let keys: [String]

    /// The most bytes of a key kept (a key may be up to a line's size).
    public static let maxKeyBytes = 64

    public init(type: String, keys: [String]) {
        self.type = type
        self.keys = keys
    }

    /// Adds the NUL-terminated `key` unless the list is full or holds it already. Out of line:
    /// only a line with an unknown key gets here.
    @inline(never)
    static func add(_ key: UnsafePointer<CChar>, to keys: inout [String]) {
        guard keys.count <= UnknownKeyWarnings.limit else { return }
        var n = 0
        while n <= maxKeyBytes, key[n] != 0 { n += 1 }
        var kept = min(n, maxKeyBytes)
        // Back to the start of a character: a continuation byte is 0b10xxxxxx.
        if n > maxKeyBytes {
            while kept > 0, UInt8(bitPattern: key[kept]) & 0xC0 == 0x80 { kept -= 1 }
        }
        let name = UnsafeRawBufferPointer(start: key, count: kept)
        let text = String(decoding: name, as: UTF8.self) + (n > maxKeyBytes ? "…" : "")
        if !keys.contains(text) { keys.append(text) }
    }
}

/// Which unknown input keys a session has warned of: each distinct key once, at most `limit`
/// of them, then one line saying that further ones are not reported, then nothing (a host
/// cannot flood the log or grow the set).
///
///     var warned = UnknownKeyWarnings()
///     warned.messages(for: UnknownInputKeys(type: "fix", keys: ["lng"]))
///     // [#"input key "lng" is not one the library reads (type fix): ignored"#]
///     warned.messages(for: UnknownInputKeys(type: "fix", keys: ["lng"]))   // []
public struct UnknownKeyWarnings: Sendable {
    /// The most distinct keys warned of.
    public static let limit = 8

    /// The keys warned of, in order.
    public private(set) var warned: [String] = []
    /// Whether the line saying further keys are not reported was given.
    public private(set) var saidFurther = false

    public init() {}

    /// The warning lines `keys` gives now (none for keys already warned of, or once the
    /// limit's line was given), recording them.
    public mutating func messages(for keys: UnknownInputKeys) -> [String] {
        var out: [String] = []
        for key in keys.keys where !saidFurther && !warned.contains(key) {
            guard warned.count < Self.limit else {
                saidFurther = true
                out.append("further unknown input keys are not reported (\(Self.limit) were)")
                break
            }
            warned.append(key)
            out.append("input key \"\(key)\" is not one the library reads (type \(keys.type)): ignored")
        }
        return out
    }
}
