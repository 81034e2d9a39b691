import CJSON
#if canImport(Glibc)
import Glibc
#endif

/// Decoding inputs (fixes and samples) from JSON text, the hot path of `runway_push_json` and
/// `runway_push_jsonl`.
///
/// A flat object of known keys takes `FlatInputParser`'s single pass; anything else (and
/// anything that pass is not certain of) goes through cJSON, the parser of record. Both fill
/// `InputFields`, which validates, so the result — input, or status and message — is the same
/// whichever path read the bytes (`InputDecoder.difference` checks that; the differential fuzz
/// harness runs it).
///
///     let line = Array(#"{"lat":52.1,"lon":4.3,"t":1700000000}"#.utf8)
///     try line.withUnsafeBytes { try InputDecoder.decode($0) }   // a validated fix
public enum InputDecoder {
    /// Decodes one input from JSON text bytes.
    ///
    /// - Throws: `.input` for an import report or a start, pause, resume or lap line too (they are not
    ///   inputs; see `decodeLine`).
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(RunwayError) -> ValidatedInput {
        switch try decodeLine(bytes) {
        case .input(let input)?: return input
        case .command(let command, _)?: throw .input("a \"\(command.rawValue)\" line is a command, not an input")
        case nil: throw .input("an \"import_report\" line is a summary, not an input")
        case .lap?: throw .input("a \"lap\" line is a command, not an input")
        case .deviceLap?: throw .input("a \"device_lap\" line is a command, not an input")
        case .tick?: throw .input("a tick is a request, not an input")   // (decodeLine makes none)
        }
    }

    /// Decodes one line of JSON Lines input into the request it makes: an input, a start, pause or
    /// resume (`{"type":"pause","t":…}`, as `runway_import` writes a recording's timer), a lap
    /// (`{"type":"lap","t":…}`: `runway_lap` at `t`), a device's lap (`{"type":"device_lap","t":…}`,
    /// as it writes a recording's laps: the lap while auto laps are off), or nil for
    /// the import report (`"type":"import_report"`, the line `runway_import` ends with), which the
    /// push paths accept and ignore.
    public static func decodeLine(_ bytes: UnsafeRawBufferPointer) throws(RunwayError) -> FlightDriver.Request? {
        var unknownKeys: Unmanaged<UnknownInputKeys>? = nil
        defer { unknownKeys?.release() }
        return try decodeLine(bytes, unknownKeys: &unknownKeys)
    }

    /// `decodeLine`, setting `unknownKeys` (nil before: it is left as it is otherwise) when the
    /// line is decoded, is no import report, and has keys that no line of the schema reads
    /// (`UnknownInputKeys`): what a session warns of once it has taken the request. The caller
    /// owns that reference (`takeRetainedValue`, or `release`): an unmanaged one is no more than
    /// a word to test on every other line, with nothing to release. Only cJSON's path looks: the
    /// single pass takes known keys alone.
    public static func decodeLine(_ bytes: UnsafeRawBufferPointer,
                                  unknownKeys: inout Unmanaged<UnknownInputKeys>?) throws(RunwayError) -> FlightDriver.Request? {
        var fields = InputFields()
        if bytes.count <= JSONInput.maxInputBytes, let kind = FlatInputParser.parse(bytes, into: &fields) {
            return try fields.finish(kind)
        }
        return try decodeLineWithCJSON(bytes, unknownKeys: &unknownKeys)
    }

    /// `decodeLine` through cJSON alone: the reference the single pass must agree with.
    public static func decodeLineWithCJSON(_ bytes: UnsafeRawBufferPointer) throws(RunwayError) -> FlightDriver.Request? {
        var unknownKeys: Unmanaged<UnknownInputKeys>? = nil
        defer { unknownKeys?.release() }
        return try decodeLineWithCJSON(bytes, unknownKeys: &unknownKeys)
    }

    /// `decodeLineWithCJSON`, with `decodeLine(_:unknownKeys:)`'s `unknownKeys`.
    @inline(never)
    public static func decodeLineWithCJSON(_ bytes: UnsafeRawBufferPointer,
                                           unknownKeys: inout Unmanaged<UnknownInputKeys>?) throws(RunwayError) -> FlightDriver.Request? {
        try JSONInput.withObject(bytes) { (root) throws(RunwayError) in try decode(object: root, unknownKeys: &unknownKeys) }
    }

    static func decode(object root: UnsafeMutablePointer<cJSON>,
                       unknownKeys: inout Unmanaged<UnknownInputKeys>?) throws(RunwayError) -> FlightDriver.Request? {
        var fields = InputFields()
        var type: String? = nil
        var trigger: UnsafeMutablePointer<cJSON>? = nil
        var unknown: [String] = []
        var child = root.pointee.child
        while let c = child {
            child = c.pointee.next
            guard let key = c.pointee.string else { continue }
            if key[0] == 0 { UnknownInputKeys.add(key, to: &unknown); continue }   // "" (no key[1] to read)
            let slot: Int
            switch (key[0], key[1]) {
            case (0x6C, 0x61) where strcmp(key, "lat") == 0: slot = InputFields.lat  // la
            case (0x6C, 0x6F) where strcmp(key, "lon") == 0: slot = InputFields.lon  // lo
            case (0x74, 0) : slot = InputFields.t                                    // t
            case (0x61, 0x6C) where strcmp(key, "alt") == 0: slot = InputFields.alt
            case (0x73, 0x70) where strcmp(key, "speed") == 0: slot = InputFields.speed
            case (0x73, 0x70) where strcmp(key, "spm") == 0: slot = InputFields.spm
            case (0x63, 0x6F) where strcmp(key, "course") == 0: slot = InputFields.course
            case (0x68, 0x5F) where strcmp(key, "h_acc") == 0: slot = InputFields.hAcc
            case (0x76, 0x5F) where strcmp(key, "v_acc") == 0: slot = InputFields.vAcc
            case (0x68, 0x72) where key[2] == 0: slot = InputFields.hr              // hr
            case (0x63, 0x61) where strcmp(key, "cadence") == 0: slot = InputFields.cadence
            case (0x62, 0x70) where strcmp(key, "bpm") == 0: slot = InputFields.bpm
            case (0x70, 0x6F) where strcmp(key, "power") == 0: slot = InputFields.power
            case (0x77, 0x61) where strcmp(key, "watts") == 0: slot = InputFields.watts
            case (0x74, 0x79) where strcmp(key, "type") == 0:
                guard cJSON_IsString(c) != 0, let s = c.pointee.valuestring else {
                    throw .input("\"type\" must be a string")
                }
                type = String(cString: s)
                continue
            case (0x74, 0x72) where strcmp(key, "trigger") == 0:
                trigger = c
                continue
            default:
                // Ignored (forward compatibility), and noted for the session's warning.
                UnknownInputKeys.add(key, to: &unknown)
                continue
            }
            let v: Double
            if cJSON_IsNumber(c) != 0 {
                v = c.pointee.valuedouble
                guard v.isFinite else { throw .input("\"\(String(cString: key))\" must be a finite number") }
            } else if cJSON_IsNull(c) != 0 {
                v = .nan  // null = unknown
            } else {
                throw .input("\"\(String(cString: key))\" must be a number, got \(JSONInput.typeName(c))")
            }
            fields.set(slot, v)
        }
        let kind = try InputKind(type: type)
        let request = try fields.finish(kind)
        // A device lap's trigger (`LapTrigger.device`; absent or null: manual); on other lines
        // the key is not read (it is the schema's, so not reported as unknown either).
        if case .deviceLap(let t, _)? = request, let trigger, cJSON_IsNull(trigger) == 0 {
            guard cJSON_IsString(trigger) != 0, let s = trigger.pointee.valuestring,
                  let named = LapTrigger(rawValue: String(cString: s)), LapTrigger.device.contains(named) else {
                throw .input("a device_lap's \"trigger\" must be one of \(LapTrigger.device.map(\.rawValue).joined(separator: ", ")), or null")
            }
            if !unknown.isEmpty { unknownKeys = .passRetained(UnknownInputKeys(type: kind.name, keys: unknown)) }
            return .deviceLap(t: t, trigger: named)
        }
        // An import report (nil) carries keys of its own: accepted and ignored, never reported.
        if request != nil, !unknown.isEmpty { unknownKeys = .passRetained(UnknownInputKeys(type: kind.name, keys: unknown)) }
        return request
    }

    /// How the two paths differ on `bytes`, or nil when they agree: the same input bit for bit
    /// (NaN payloads and the sign of zero included), or the same status and message.
    public static func difference(_ bytes: UnsafeRawBufferPointer) -> String? {
        let reference = Result { () throws(RunwayError) in try decodeLineWithCJSON(bytes) }
        let decoded = Result { () throws(RunwayError) in try decodeLine(bytes) }
        switch (reference, decoded) {
        case (.success(let a), .success(let b)):
            return a?.bits == b?.bits ? nil : "cJSON: \(String(describing: a)), fast path: \(String(describing: b))"
        case (.failure(let a), .failure(let b)):
            return a.status == b.status && a.message == b.message ? nil : "cJSON: \(a.status) \(a.message), fast path: \(b.status) \(b.message)"
        case (.success(let a), .failure(let b)):
            return "cJSON: \(String(describing: a)), fast path: \(b.status) \(b.message)"
        case (.failure(let a), .success(let b)):
            return "cJSON: \(a.status) \(a.message), fast path: \(String(describing: b))"
        }
    }

    /// Whether the single pass takes `bytes` (rather than handing them to cJSON).
    public static func takesFastPath(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var fields = InputFields()
        return bytes.count <= JSONInput.maxInputBytes && FlatInputParser.parse(bytes, into: &fields) != nil
    }
}

extension FlightDriver.Request {
    /// The request's kind and every value's bit pattern, for comparing decoded lines exactly.
    var bits: [UInt64] {
        switch self {
        case .input(let input): return input.input.bits
        case .command(let c, let t): return [5, UInt64(PhaseCommand.allCases.firstIndex(of: c) ?? 0), t.bitPattern]
        case .lap(let t, let trigger): return [6, t.bitPattern, UInt64(LapTrigger.allCases.firstIndex(of: trigger) ?? 0)]
        case .tick(let t): return [7, t.bitPattern]
        case .deviceLap(let t, let trigger): return [8, t.bitPattern, UInt64(LapTrigger.allCases.firstIndex(of: trigger) ?? 0)]
        }
    }
}

extension Input {
    /// The input's kind and every value's bit pattern, for comparing inputs exactly.
    var bits: [UInt64] {
        switch self {
        case .fix(let f):
            return [0] + [f.t, f.lat, f.lon, f.alt, f.speed, f.course, f.hAcc, f.vAcc, f.hr, f.cadence, f.power].map(\.bitPattern)
        case .sample(.heartRate(let bpm, let t)): return [1, bpm.bitPattern, t.bitPattern]
        case .sample(.cadence(let spm, let t)): return [2, spm.bitPattern, t.bitPattern]
        case .sample(.altimeter(let alt, let t)): return [3, alt.bitPattern, t.bitPattern]
        case .sample(.power(let watts, let t)): return [4, watts.bitPattern, t.bitPattern]
        case .sample(.speed(let mps, let t)): return [8, mps.bitPattern, t.bitPattern]
        }
    }
}
