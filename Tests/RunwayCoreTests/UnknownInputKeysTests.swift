import Testing
@testable import RunwayCore

/// Keys that no input line reads: what the decoder reports of a line (`UnknownInputKeys`), and
/// how often a session warns of them (`UnknownKeyWarnings`).
@Suite("Unknown input keys")
struct UnknownInputKeysTests {
    /// The decoder's report of `text`: (type, keys), nil when none; a refused line throws.
    func unknown(_ text: String) throws(RunwayError) -> (type: String, keys: [String])? {
        var keys: Unmanaged<UnknownInputKeys>? = nil
        let bytes = Array(text.utf8)
        let decoded = bytes.withUnsafeBytes { b in
            Result { () throws(RunwayError) in try InputDecoder.decodeLine(b, unknownKeys: &keys) }
        }
        _ = try decoded.get()
        guard let found = keys?.takeRetainedValue() else { return nil }
        return (found.type, found.keys)
    }

    /// The keys the single pass reads (its own table: each pattern's bytes up to the quote).
    static var singlePassKeys: [String] {
        stride(from: 0, to: FlatInputParser.keyPatterns.count, by: 2).compactMap { i in
            let pattern = FlatInputParser.keyPatterns[i], mask = FlatInputParser.keyPatterns[i + 1]
            guard mask != 0 else { return nil }
            let bytes = (0..<8).map { UInt8(truncatingIfNeeded: pattern >> UInt64(8 * $0)) }
            return String(decoding: bytes.prefix { $0 != 0x22 }, as: UTF8.self)
        }
    }

    /// The keys of every line the library writes for input (`Input.write`, a recording's command
    /// and device lap lines): a key a writer writes is one the decoder reads.
    static var writtenKeys: [String] {
        let t = 1_700_000_000.0
        let lines: [ImportedRecording.Line] = [
            .input(.fix(Fix(t: t, lat: 52, lon: 4, alt: 1, speed: 3, course: 90, hAcc: 5, vAcc: 5, hr: 150, cadence: 170, power: 200))),
            .input(.sample(.heartRate(bpm: 150, t: t))), .input(.sample(.cadence(spm: 170, t: t))),
            .input(.sample(.altimeter(alt: 10, t: t))), .input(.sample(.power(watts: 200, t: t))),
            .input(.sample(.speed(mps: 3, t: t))), .command(.start, t: t), .command(.pause, t: t), .command(.resume, t: t),
            .lap(t: t, trigger: .distance),
        ]
        var keys: [String] = []
        for line in lines {
            var w = JSONWriter(capacity: 256)
            line.write(to: &w)
            let fields = (try? JSONInput.object(String(decoding: w.bytes, as: UTF8.self))) ?? []
            for (key, _) in fields where !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    /// A value for each key of the schema, valid on every line type (a new key needs one here).
    static let values: [String: String] = [
        "lat": "52", "lon": "4", "t": "1700000000", "alt": "10", "speed": "3", "course": "90", "h_acc": "5",
        "v_acc": "5", "hr": "150", "cadence": "170", "bpm": "150", "spm": "170", "power": "200", "watts": "200",
        "trigger": "\"distance\"",
    ]

    static let types = ["fix", "location", "hr", "cadence", "altimeter", "power", "speed", "start", "pause", "resume",
                        "lap", "device_lap"]

    /// A line of `type` with every key of `keys` (and `extra` after them).
    static func line(_ type: String, _ keys: [String], extra: String = "") -> String {
        "{\"type\":\"\(type)\"" + keys.filter { $0 != "type" }.map { ",\"\($0)\":\(values[$0] ?? "null")" }.joined() + extra + "}"
    }

    /// Every key the library reads or writes, on every line type, is no unknown key, whichever
    /// decoder reads the line; the same line with one more key, a misspelt one, reports that key.
    @Test func theSchemasKeysAreNeverUnknownOnAnyType() throws {
        let keys = Self.singlePassKeys + Self.writtenKeys.filter { !Self.singlePassKeys.contains($0) }
        #expect(keys.count == 16 && keys.contains("trigger") && keys.contains("type"), "\(keys)")
        for key in keys where key != "type" { #expect(Self.values[key] != nil, "no value for \(key)") }
        for type in Self.types {
            let name = type == "location" ? "fix" : type
            // With "trigger" cJSON reads the line; without it the single pass does (where it can).
            for keys in [keys, keys.filter { $0 != "trigger" }] {
                #expect(try unknown(Self.line(type, keys)) == nil, "\(Self.line(type, keys))")
                for key in keys {
                    let typo = key == "type" ? "Type" : key + "s"
                    let found = try unknown(Self.line(type, keys, extra: ",\"\(typo)\":1"))
                    #expect(found?.type == name && found?.keys == [typo], "\(type): \(typo): \(String(describing: found))")
                }
            }
        }
    }

    /// The usual misspellings, in the line's order, each once however often it comes.
    @Test func aLinesUnknownKeysAreItsOwn() throws {
        let found = try unknown(#"{"lat":52,"lon":4,"heartrate":150,"lng":4,"accuracy":5,"lng":4,"extra":{"x":[1]}}"#)
        #expect(found?.type == "fix" && found?.keys == ["heartrate", "lng", "accuracy", "extra"], "\(String(describing: found))")
        #expect(try unknown(#"{"type":"hr","bpm":150,"heart_rate":150}"#)?.keys == ["heart_rate"])
        #expect(try unknown(#"{"type":"pause","time":5}"#)?.type == "pause")
        // At most limit + 1 distinct keys are kept: enough for every warning a session gives.
        let many = (0..<30).map { ",\"k\($0)\":1" }.joined()
        #expect(try unknown("{\"lat\":52,\"lon\":4\(many)}")?.keys == (0...UnknownKeyWarnings.limit).map { "k\($0)" })
    }

    /// The import report's keys, a refused line's and a line without unknown keys report nothing.
    @Test func reportsRefusalsAndKnownKeysReportNothing() throws {
        #expect(try unknown(#"{"type":"import_report","format":"gpx","sport":null,"inputs":2,"tracks":[{"index":0}],"warnings":["x"]}"#) == nil)
        #expect(throws: RunwayError.self) { try unknown(#"{"lat":95,"lon":4,"heartrate":1}"#) }
        #expect(throws: RunwayError.self) { try unknown(#"{"type":"hr","heartrate":1}"#) }
        #expect(try unknown(#"{"lat":52,"lon":4,"hr":150}"#) == nil)
    }

    /// A long key is kept to its first 64 bytes at a character boundary, with an ellipsis.
    @Test func aLongKeyIsCut() throws {
        let long = String(repeating: "a", count: 63) + "é" + String(repeating: "b", count: 500)
        let found = try unknown("{\"lat\":52,\"lon\":4,\"\(long)\":1,\"\(long)x\":1}")
        #expect(found?.keys == [String(repeating: "a", count: 63) + "…"], "\(String(describing: found))")
    }

    /// Each key once; at most `limit` keys, then one line, then nothing.
    @Test func warningsComeOnceAndAreBounded() {
        var warned = UnknownKeyWarnings()
        func keys(_ k: [String]) -> UnknownInputKeys { UnknownInputKeys(type: "fix", keys: k) }
        #expect(warned.messages(for: keys(["lng"])) == [#"input key "lng" is not one the library reads (type fix): ignored"#])
        #expect(warned.messages(for: keys(["lng"])).isEmpty)
        #expect(warned.messages(for: UnknownInputKeys(type: "hr", keys: ["lng", "x"])) == [#"input key "x" is not one the library reads (type hr): ignored"#])
        let more = warned.messages(for: keys((0..<20).map { "k\($0)" }))
        #expect(more.count == UnknownKeyWarnings.limit - 2 + 1, "\(more)")
        #expect(more.last == "further unknown input keys are not reported (\(UnknownKeyWarnings.limit) were)")
        #expect(warned.warned.count == UnknownKeyWarnings.limit && warned.saidFurther)
        #expect(warned.messages(for: keys(["other", "k19"])).isEmpty)
        #expect(warned.warned.count == UnknownKeyWarnings.limit)
    }
}
