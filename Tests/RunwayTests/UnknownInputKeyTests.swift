import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore

/// An input line with a key that no line reads (a misspelling: `"heartrate"`, `"lng"`) is taken
/// as before, and the session warns of each such key once, a bounded number of them.
@Suite("Unknown input keys: warned once")
struct UnknownInputKeyTests {
    static let t0 = 1_700_000_000.0

    static func fix(_ i: Int, _ extra: String = "") -> String {
        "{\"t\":\(t0 + Double(i)),\"lat\":\(52 + Double(i) * 0.00003),\"lon\":4,\"speed\":3.3,\"h_acc\":4\(extra)}"
    }

    /// The session's log lines of level `level`, oldest first.
    func log(_ s: CSession, _ level: String = "warning") -> [String] {
        guard case .array(let lines)? = try? JSONInput.object("{\"log\":\(s.log())}").first?.value else { return [] }
        return lines.compactMap { line in
            guard case .object(let o) = line, o["level"] == .string(level), case .string(let m)? = o["message"] else { return nil }
            return m
        }
    }

    static func warning(_ key: String, _ type: String = "fix") -> String {
        "input key \"\(key)\" is not one the library reads (type \(type)): ignored"
    }

    func pushLines(_ s: CSession, _ lines: [String]) -> (runway_status, Int, Int) {
        let text = lines.joined(separator: "\n")
        var accepted = 0, rejected = 0
        let st = text.withCString { runway_push_jsonl_impl(s.handle, $0, text.utf8.count, &accepted, &rejected) }
        return (st, accepted, rejected)
    }

    /// A misspelt key warns once, however often it comes, and the flight is the one without it.
    @Test func aMisspeltKeyWarnsOnceAndChangesNothing() throws {
        let plain = try CSession(), typo = try CSession()
        for s in [plain, typo] { #expect(s.start(Self.t0) == RUNWAY_OK) }
        for i in 0..<30 {
            #expect(plain.push(Self.fix(i, ",\"hr\":150")) == RUNWAY_OK)
            #expect(typo.push(Self.fix(i, ",\"hr\":150,\"heartrate\":150" + (i % 3 == 0 ? ",\"lng\":4" : ""))) == RUNWAY_OK)
        }
        // A sample's key too, named with its type.
        #expect(plain.push(#"{"type":"cadence","spm":170,"t":1700000030}"#) == RUNWAY_OK)
        #expect(typo.push(#"{"type":"cadence","spm":170,"t":1700000030,"stride":1.2}"#) == RUNWAY_OK)
        for s in [plain, typo] { #expect(s.stop() == RUNWAY_OK) }
        #expect(log(typo) == [Self.warning("heartrate"), Self.warning("lng"), Self.warning("stride", "cadence")])
        #expect(log(plain).isEmpty)
        #expect(typo.summary() == plain.summary())
        #expect(log(typo, "info") == log(plain, "info"))
    }

    /// A batch warns once a key as well, only of lines it takes; a refused line (and the
    /// import report's keys) warns of nothing, and its key is warned of when a line is taken.
    @Test func aBatchWarnsOfTheLinesItTakes() throws {
        let s = try CSession()
        #expect(s.start(Self.t0) == RUNWAY_OK)
        let refused = #"{"lat":95,"lon":4,"t":1700000001,"lng":4}"#
        let (st, accepted, rejected) = pushLines(s, [Self.fix(0, ",\"accuracy\":5"), refused, Self.fix(2, ",\"accuracy\":5"),
                                                     #"{"type":"import_report","format":"gpx","inputs":2,"untimed":0,"tracks":[{"index":0}]}"#])
        #expect(st == RUNWAY_ERR_INPUT && accepted == 3 && rejected == 1)
        #expect(log(s) == [Self.warning("accuracy")])
        #expect(log(s, "error").count == 1)
        #expect(s.push(#"{"lat":95,"lon":4,"t":1700000003,"lng":4}"#) == RUNWAY_ERR_INPUT)
        #expect(log(s) == [Self.warning("accuracy")])
        #expect(s.push(Self.fix(4, ",\"lng\":4")) == RUNWAY_OK)
        #expect(log(s) == [Self.warning("accuracy"), Self.warning("lng")])
    }

    /// An empty key is a key no line reads too: warned of like any other, the line taken as it is.
    @Test func anEmptyKeyIsWarnedOf() throws {
        let plain = try CSession(), empty = try CSession()
        for s in [plain, empty] { #expect(s.start(Self.t0) == RUNWAY_OK) }
        for i in 0..<5 {
            #expect(plain.push(Self.fix(i)) == RUNWAY_OK)
            #expect(empty.push(Self.fix(i, ",\"\":1")) == RUNWAY_OK)
        }
        #expect(log(empty) == [Self.warning("")])
        #expect(empty.summary() == plain.summary())
    }

    /// An unknown type is refused, and its message lists the types a host sends.
    @Test func anUnknownTypeNamesTheTypesAHostSends() throws {
        let s = try CSession()
        #expect(s.push(#"{"type":"heart","bpm":150,"t":1700000000}"#) == RUNWAY_ERR_INPUT)
        #expect(log(s, "error").last?.contains("unknown input type \"heart\" (expected fix, hr, cadence, altimeter, power, speed, start, pause, resume, lap or device_lap)") == true)
        #expect(s.push(#"{"type":"location","lat":52,"lon":4,"t":1700000000}"#) == RUNWAY_OK)
    }

    /// At most `UnknownKeyWarnings.limit` keys are warned of, then one line says further ones
    /// are not, then nothing: by single pushes and within one line of a batch.
    @Test func theWarningsAreBounded() throws {
        let limit = UnknownKeyWarnings.limit
        let expected = (0..<limit).map { Self.warning("k\($0)") }
            + ["further unknown input keys are not reported (\(limit) were)"]
        let single = try CSession()
        for i in 0..<20 { #expect(single.push(Self.fix(i, ",\"k\(i)\":1")) == RUNWAY_OK) }
        #expect(single.push(Self.fix(20, ",\"k0\":1,\"other\":1")) == RUNWAY_OK)
        #expect(log(single) == expected)
        let batch = try CSession()
        let many = (0..<30).map { ",\"k\($0)\":1" }.joined()
        let (st, accepted, _) = pushLines(batch, [Self.fix(0, many), Self.fix(1, many), Self.fix(2, ",\"x\":1")])
        #expect(st == RUNWAY_OK && accepted == 3)
        #expect(log(batch) == expected)
    }

    /// Every key of the schema on every line type warns of nothing (the keys derived from the
    /// single pass's own table, and "trigger", the one key only cJSON's path reads); a line with
    /// one misspelt key among them warns of that key.
    @Test func theSchemasKeysNeverWarn() throws {
        let table = stride(from: 0, to: FlatInputParser.keyPatterns.count, by: 2).compactMap { i -> String? in
            let pattern = FlatInputParser.keyPatterns[i]
            guard FlatInputParser.keyPatterns[i + 1] != 0 else { return nil }
            let bytes = (0..<8).map { UInt8(truncatingIfNeeded: pattern >> UInt64(8 * $0)) }
            return String(decoding: bytes.prefix { $0 != 0x22 }, as: UTF8.self)
        }
        let values: [String: String] = ["lat": "52", "lon": "4", "alt": "10", "speed": "3", "course": "90", "h_acc": "5",
                                        "v_acc": "5", "hr": "150", "cadence": "170", "bpm": "150", "spm": "170",
                                        "power": "200", "watts": "200", "trigger": "\"distance\""]
        let keys = table.filter { $0 != "type" && $0 != "t" } + ["trigger"]
        #expect(table.count == 15 && keys.allSatisfy { values[$0] != nil }, "\(table)")
        func line(_ type: String, _ i: Int, _ extra: String = "") -> String {
            "{\"type\":\"\(type)\",\"t\":\(Self.t0 + Double(i))" + keys.map { ",\"\($0)\":\(values[$0] ?? "null")" }.joined() + extra + "}"
        }
        for autoLapM in [0, 1000] {
            let s = try CSession("{\"auto_lap_m\":\(autoLapM)}")
            let order = ["fix", "start", "location", "hr", "cadence", "altimeter", "power", "speed", "fix", "lap", "fix",
                         "device_lap", "fix", "pause", "resume", "fix"]
            for (i, type) in order.enumerated() {
                #expect(s.push(line(type, i)) == RUNWAY_OK, "\(line(type, i)): \(lastError())")
            }
            #expect(log(s).isEmpty, "\(log(s))")
            #expect(s.push(line("hr", order.count, ",\"bpms\":150")) == RUNWAY_OK)
            #expect(log(s) == [Self.warning("bpms", "hr")])
        }
    }

    /// A stored flight recovered after its host died is the flight it was (the warnings are
    /// the host's, no part of the flight), and the recovered session warns anew: it has seen
    /// no key yet.
    @Test func aRecoveredFlightIsTheOneItWas() throws {
        let dir = TempDir(prefix: "runway-unknown-keys")
        let path = dir.file()
        let live: String
        do {
            let s = try CSession("{\"store\":\"\(path)\",\"flight_id\":\"f\"}")
            #expect(s.start(Self.t0) == RUNWAY_OK)
            for i in 0..<10 { #expect(s.push(Self.fix(i, ",\"heartrate\":150")) == RUNWAY_OK) }
            #expect(log(s) == [Self.warning("heartrate")])
            live = s.summary()
            s.close()
        }
        var h: OpaquePointer? = nil
        #expect(runway_session_recover_impl(path, "f", nil, &h) == RUNWAY_OK)
        let recovered = CSession(handle: h)
        #expect(recovered.summary() == live)
        #expect(log(recovered).isEmpty)
        #expect(recovered.push(Self.fix(10, ",\"heartrate\":150")) == RUNWAY_OK)
        #expect(log(recovered) == [Self.warning("heartrate")])
    }
}
