import CJSON
#if canImport(Glibc)
import Glibc
#endif

/// Reading JSON text with cJSON: limits, UTF-8 validation, and conversion to Swift values.
public enum JSONInput {
    /// The largest JSON input accepted, in bytes (a fix, a config, options, one JSON Lines line):
    /// `RUNWAY_MAX_INPUT_BYTES`.
    public static let maxInputBytes = 1 << 20
    /// The deepest nesting accepted, the root object being level 1: `RUNWAY_MAX_JSON_DEPTH`.
    public static let maxDepth = 64

    /// The refusal of an input of `count` bytes (`count` > `maxInputBytes`); `what` names it.
    public static func tooLarge(_ count: Int, _ what: String = "input", atLeast: Bool = false) -> RunwayError {
        RunwayError(.limit, "\(what) of \(atLeast ? "more than \(count - 1)" : "\(count)") bytes exceeds the limit of \(maxInputBytes) bytes (RUNWAY_MAX_INPUT_BYTES)")
    }

    /// A whole number as text without trapping ("65537"; Swift's own text beyond 1e15).
    public static func integerText(_ n: Double) -> String {
        n.isFinite && abs(n) < 1e15 ? String(Int64(n)) : "\(n)"
    }

    /// The offset of the bracket that opens level `maxDepth + 1`, or nil when the text stays within
    /// `maxDepth` levels. A linear scan without recursion that counts `[` and `{` outside strings
    /// (a backslash in a string escapes the next byte). It stops at a closing bracket without an
    /// opening one: the text is malformed there and the parser refuses it at that point.
    public static func depthViolation(_ b: UnsafeRawBufferPointer) -> Int? {
        // Level maxDepth + 1 takes more than maxDepth opening brackets: count them first (memchr is
        // vectorised) and scan only a text that has that many. A fix has one.
        guard hasOpeningBrackets(b, atLeast: maxDepth + 1) else { return nil }
        var depth = 0
        var inString = false
        var i = 0
        let n = b.count
        while i < n {
            let c = b[i]
            if inString {
                if c == 0x5C { i += 2; continue }         // backslash: skip the escaped byte
                if c == 0x22 { inString = false }
            } else {
                switch c {
                case 0x22: inString = true
                case 0x5B, 0x7B:                          // [ {
                    depth += 1
                    if depth > maxDepth { return i }
                case 0x5D, 0x7D:                          // ] }
                    depth -= 1
                    if depth < 0 { return nil }
                default: break
                }
            }
            i += 1
        }
        return nil
    }

    /// Whether `b` holds at least `limit` bytes that are `[` or `{` (in strings or not).
    static func hasOpeningBrackets(_ b: UnsafeRawBufferPointer, atLeast limit: Int) -> Bool {
        guard let base = b.baseAddress else { return limit <= 0 }
        var found = 0
        for bracket: Int32 in [0x5B, 0x7B] {
            var p = base
            var left = b.count
            while left > 0, let hit = memchr(p, bracket, left) {
                found += 1
                if found >= limit { return true }
                let next = UnsafeRawPointer(hit) + 1
                left -= p.distance(to: next)
                p = next
            }
        }
        return found >= limit
    }

    /// Parses one JSON object from `bytes` (no NUL needed) and hands its root to `body`.
    ///
    /// Throws `.limit` for a text over `limit` bytes (`maxInputBytes`; nil: any length) or nested
    /// deeper than `maxDepth`, and `.json` for invalid UTF-8, malformed JSON, trailing content, or
    /// a value that is not an object.
    public static func withObject<R>(_ bytes: UnsafeRawBufferPointer, limit: Int? = maxInputBytes,
                                     _ body: (UnsafeMutablePointer<cJSON>) throws(RunwayError) -> R)
        throws(RunwayError) -> R
    {
        if let limit, bytes.count > limit { throw tooLarge(bytes.count) }
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw .json("empty input: expected a JSON object") }
        if let bad = firstInvalidUTF8(bytes) {
            throw .json(bytes[bad] == 0 ? "NUL byte at byte \(bad)" : "invalid UTF-8 at byte \(bad)")
        }
        if let at = depthViolation(bytes) {
            throw .limit("input nested deeper than the limit of \(maxDepth) levels (RUNWAY_MAX_JSON_DEPTH): level \(maxDepth + 1) opens at byte \(at)")
        }
        let chars = base.assumingMemoryBound(to: CChar.self)
        var end: UnsafePointer<CChar>? = nil
        guard let root = cJSON_ParseWithLengthOpts(chars, bytes.count, &end, 0) else {
            let offset = end.map { $0 - UnsafePointer(chars) } ?? 0
            throw .json("not valid JSON (error near byte \(offset))")
        }
        defer { cJSON_Delete(root) }
        if let end {
            var i = end - UnsafePointer(chars)
            while i < bytes.count, isSpace(bytes[i]) { i += 1 }
            guard i >= bytes.count else { throw .json("unexpected content after the JSON value at byte \(i)") }
        }
        guard cJSON_IsObject(root) != 0 else { throw .json("expected a JSON object, got \(typeName(root))") }
        return try body(root)
    }

    /// Parses `text` as one JSON object and converts it to a dictionary of Swift values: a flat
    /// object in one pass (`FlatObjectParser`), anything else through cJSON, with the same result.
    public static func object(_ text: String) throws(RunwayError) -> [(key: String, value: JSONValue)] {
        var copy = text
        let flat = copy.withUTF8 { buf in
            buf.count <= maxInputBytes ? FlatObjectParser.fields(UnsafeRawBufferPointer(buf)) : nil
        }
        if let flat { return flat }
        return try objectWithCJSON(text)
    }

    /// How `object` and `objectWithCJSON` differ on `text`, or nil when they agree: the same
    /// fields in the same order (numbers bit for bit), or the same status and message.
    public static func objectDifference(_ text: String) -> String? {
        let reference = Result { () throws(RunwayError) in try objectWithCJSON(text) }
        let parsed = Result { () throws(RunwayError) in try object(text) }
        switch (reference, parsed) {
        case (.success(let a), .success(let b)):
            let same = a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value.sameBits($1.value) }
            return same ? nil : "cJSON: \(a), fast path: \(b)"
        case (.failure(let a), .failure(let b)):
            return a.status == b.status && a.message == b.message ? nil : "cJSON: \(a.message), fast path: \(b.message)"
        case (.success(let a), .failure(let b)): return "cJSON: \(a), fast path: \(b.message)"
        case (.failure(let a), .success(let b)): return "cJSON: \(a.message), fast path: \(b)"
        }
    }

    /// Whether `object` reads `text` in one pass (rather than handing it to cJSON).
    public static func takesFastPath(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { $0.count <= maxInputBytes && FlatObjectParser.fields(UnsafeRawBufferPointer($0)) != nil }
    }

    /// `object` through cJSON alone: the reference the single pass must agree with.
    public static func objectWithCJSON(_ text: String) throws(RunwayError) -> [(key: String, value: JSONValue)] {
        var copy = text
        var result: Result<[(key: String, value: JSONValue)], RunwayError> = .success([])
        copy.withUTF8 { buf in
            do throws(RunwayError) {
                let fields = try withObject(UnsafeRawBufferPointer(buf)) { (root) throws(RunwayError) in
                    var out: [(key: String, value: JSONValue)] = []
                    var child = root.pointee.child
                    while let c = child {
                        out.append((key: c.pointee.string.map { String(cString: $0) } ?? "", value: JSONValue(c)))
                        child = c.pointee.next
                    }
                    return out
                }
                result = .success(fields)
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// The first key that an object in `item` (or nested in it) holds twice, described for an
    /// error message (`duplicate key "min" in "target_pace"`), or nil. cJSON keeps duplicates;
    /// readers would take one of them silently.
    public static func duplicateKey(in item: UnsafeMutablePointer<cJSON>, inside parent: String? = nil) -> String? {
        var seen = Set<String>()
        var child = item.pointee.child
        let isObject = cJSON_IsObject(item) != 0
        while let c = child {
            child = c.pointee.next
            let key = c.pointee.string.map { String(cString: $0) } ?? ""
            if isObject, !seen.insert(key).inserted {
                return "duplicate key \"\(key.prefix(60))\"" + (parent.map { " in \"\($0.prefix(60))\"" } ?? "")
            }
            if cJSON_IsObject(c) != 0 || cJSON_IsArray(c) != 0,
               let found = duplicateKey(in: c, inside: isObject ? key : parent) { return found }
        }
        return nil
    }

    /// The first duplicated key in `fields` (an object as `object` returns it) or in an object
    /// nested in one of its values, described as `duplicateKey(in:)` does, or nil.
    public static func duplicateKey(in fields: [(key: String, value: JSONValue)], text: String) -> String? {
        var seen = Set<String>()
        var nested = false
        for (key, value) in fields {
            if !seen.insert(key).inserted { return "duplicate key \"\(key.prefix(60))\"" }
            switch value {
            case .object, .array: nested = true
            default: break
            }
        }
        // Nested objects lost their duplicates in `JSONValue`: read them again from the text.
        guard nested else { return nil }
        var copy = text
        return copy.withUTF8 { buf in
            (try? withObject(UnsafeRawBufferPointer(buf)) { (root) throws(RunwayError) in duplicateKey(in: root) }) ?? nil
        }
    }

    @inline(__always)
    public static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    static func typeName(_ item: UnsafeMutablePointer<cJSON>) -> String {
        if cJSON_IsArray(item) != 0 { return "an array" }
        if cJSON_IsString(item) != 0 { return "a string" }
        if cJSON_IsNumber(item) != 0 { return "a number" }
        if cJSON_IsBool(item) != 0 { return "a boolean" }
        if cJSON_IsNull(item) != 0 { return "null" }
        return "an object"
    }

    /// The offset of the first byte that breaks UTF-8 (or is NUL), or nil when all is valid.
    public static func firstInvalidUTF8(_ b: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        let n = b.count
        while i < n {
            // Eight bytes at a time while they are ASCII without NUL: a byte of 0x80 or more sets
            // its top bit in w, and a zero byte (the lowest one) in w - 0x01…01. (Other bytes can
            // set it there too after a borrow; those go through the byte-wise check below.)
            while i + 8 <= n {
                let w = b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                guard (w | (w &- 0x0101_0101_0101_0101)) & 0x8080_8080_8080_8080 == 0 else { break }
                i += 8
            }
            guard i < n else { break }
            let c = b[i]
            if c < 0x80 {
                if c == 0 { return i }
                i += 1
                continue
            }
            var need = 0
            var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; hi = 0x9F
            case 0xF0: need = 3; lo = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; hi = 0x8F
            default: return i
            }
            guard i + need < n else { return i }
            let first = b[i + 1]
            guard first >= lo, first <= hi else { return i }
            var k = 2
            while k <= need {
                let cc = b[i + k]
                guard cc >= 0x80, cc <= 0xBF else { return i }
                k += 1
            }
            i += need + 1
        }
        return nil
    }
}

/// A JSON value converted from cJSON, for small documents (config, options).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(_ item: UnsafeMutablePointer<cJSON>) {
        if cJSON_IsNumber(item) != 0 {
            self = .number(item.pointee.valuedouble)
        } else if cJSON_IsString(item) != 0 {
            self = .string(item.pointee.valuestring.map { String(cString: $0) } ?? "")
        } else if cJSON_IsBool(item) != 0 {
            self = .bool(cJSON_IsTrue(item) != 0)
        } else if cJSON_IsArray(item) != 0 {
            var out: [JSONValue] = []
            var child = item.pointee.child
            while let c = child { out.append(JSONValue(c)); child = c.pointee.next }
            self = .array(out)
        } else if cJSON_IsObject(item) != 0 {
            var out: [String: JSONValue] = [:]
            var child = item.pointee.child
            while let c = child {
                out[c.pointee.string.map { String(cString: $0) } ?? ""] = JSONValue(c)
                child = c.pointee.next
            }
            self = .object(out)
        } else {
            self = .null
        }
    }

    /// A finite number, or nil.
    public var finiteNumber: Double? {
        if case .number(let d) = self, d.isFinite { return d }
        return nil
    }
}
