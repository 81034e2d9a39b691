import Testing
import RunwaySim
import CRunwayABI
@testable import Runway
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// `runway_analyse` against the separate calls it stands for, on every real recording.
@Suite("runway_analyse")
struct AnalyseTests {
    static let recordings: [String] = {
        guard let dir = SharedTracks.folder, let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".gpx") || name.hasSuffix(".tcx") || name.hasSuffix(".fit") { names.append(name) }
        }
        return names.sorted()
    }()

    /// A C call that gives a malloc'd buffer: its bytes, or the status and message.
    static func call(_ body: (StringOut, UnsafeMutablePointer<Int>) -> runway_status) -> Result<[UInt8], RunwayError> {
        var p: UnsafeMutablePointer<CChar>? = nil
        var n = 0
        let st = body(&p, &n)
        guard st == RUNWAY_OK, let p else {
            return .failure(RunwayError(RunwayStatus(rawValue: st.rawValue) ?? .internal, lastError()))
        }
        defer { free(p) }
        return .success(Array(UnsafeRawBufferPointer(start: p, count: n)))
    }

    /// Today's path: import, a session with the file's activity, altitude source and auto-lap
    /// distance (0 when its laps are replayed: `runway_replay_config`), start at the first input's time, push_jsonl, stop, summary.
    static func separateCalls(_ bytes: [UInt8], _ format: String) throws -> Result<String, RunwayError> {
        let jsonl = try bytes.withUnsafeBufferPointer { b in
            try call { out, n in
                b.withMemoryRebound(to: CChar.self) { runway_import_impl(format, $0.baseAddress, b.count, out, n) }
            }.get()
        }
        let lines = jsonl.split(separator: 0x0A)
        let report = String(decoding: lines.last ?? [], as: UTF8.self)
        // The config the report names: its activity, altitude source and auto-lap distance.
        var config: UnsafeMutablePointer<CChar>? = nil
        guard runway_replay_config_impl(report, nil, &config) == RUNWAY_OK, let config else {
            throw RunwayError(.internal, "runway_replay_config: \(lastError())")
        }
        defer { free(config) }
        let s = try CSession(String(cString: config))
        let first = String(decoding: lines.first ?? [], as: UTF8.self)
        guard s.start(field("t", in: first) ?? .nan) == RUNWAY_OK else {
            return .failure(RunwayError(.input, lastError()))   // the 1901 placeholder times
        }
        var accepted = 0, rejected = 0
        _ = jsonl.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { runway_push_jsonl_impl(s.handle, $0.baseAddress, b.count, &accepted, &rejected) }
        }
        #expect(s.stop() == RUNWAY_OK)
        return .success(s.summary())
    }

    static func analyse(_ bytes: [UInt8], _ options: String?) -> Result<[UInt8], RunwayError> {
        bytes.withUnsafeBufferPointer { b in
            call { out, n in
                b.withMemoryRebound(to: CChar.self) { runway_analyse_impl(options, $0.baseAddress, b.count, out, n) }
            }
        }
    }

    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"), arguments: recordings)
    func theSummaryIsTheSeparateCallsOne(_ file: String) throws {
        let dir = try #require(SharedTracks.folder)
        let bytes = try #require(SharedTracks.read(dir + "/" + file))
        let format = String(file.split(separator: ".").last ?? "")
        let expected: String
        switch try AnalyseTests.separateCalls(bytes, format) {
        case .success(let summary): expected = summary
        case .failure(let startError):
            // A file whose first time cannot start a flight is refused with runway_start's message.
            guard case .failure(let e) = AnalyseTests.analyse(bytes, nil) else {
                Issue.record("\(file): runway_start refused it, runway_analyse did not")
                return
            }
            #expect(e == startError)
            return
        }
        // By the file's first bytes, and with the format named.
        for options in [nil, "{\"format\":\"\(format)\"}"] {
            let text = String(decoding: try AnalyseTests.analyse(bytes, options).get(), as: UTF8.self)
            let prefix = "{\"summary\":"
            #expect(text.hasPrefix(prefix + expected + ",\"report\":{\"type\":\"import_report\""), "\(file)")
        }
    }

    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"), arguments: recordings)
    func theReportIsRunwayImportsAndTheCountsAddUp(_ file: String) throws {
        let dir = try #require(SharedTracks.folder)
        let bytes = try #require(SharedTracks.read(dir + "/" + file))
        let format = String(file.split(separator: ".").last ?? "")
        let jsonl = try bytes.withUnsafeBufferPointer { b in
            try AnalyseTests.call { out, n in
                b.withMemoryRebound(to: CChar.self) { runway_import_impl(format, $0.baseAddress, b.count, out, n) }
            }.get()
        }
        let lines = jsonl.split(separator: 0x0A)
        let report = String(decoding: lines.last ?? [], as: UTF8.self)
        guard case .success(let out) = AnalyseTests.analyse(bytes, "{\"route\":false}") else { return }  // see above
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.has(",\"report\":" + report + ",\"inputs\":\(lines.count - 1),"), "\(file)")
        let accepted = field("accepted", in: text) ?? -1, rejected = field("rejected", in: text) ?? -1
        #expect(accepted + rejected == Double(lines.count - 1))
        #expect(!text.has("\"route\":["))
    }

    @Test func optionsAreCheckedBeforeTheFileIsRead() {
        let junk = Array("not a recording".utf8)
        let cases: [(String, RunwayStatus, String)] = [
            ("{\"format\":\"kml\"}", .argument, "options: unknown format \"kml\" (expected auto, gpx, tcx or fit)"),
            ("{\"route\":1}", .argument, "options: \"route\" must be true or false"),
            ("{\"config\":{\"clock\":\"live\"}}", .argument, "options: a recording is replayed: config \"clock\" must be \"replay\""),
            // Every store key is refused alike: "needs store" would send the caller to a key refused next.
            ("{\"config\":{\"store\":\"x.db\"}}", .argument, "options: a recording is replayed, not journaled: no \"store\" in its config"),
            ("{\"config\":{\"flight_id\":\"a\"}}", .argument, "options: a recording is replayed, not journaled: no \"flight_id\" in its config"),
            ("{\"config\":{\"durability\":\"batched\"}}", .argument, "options: a recording is replayed, not journaled: no \"durability\" in its config"),
            ("[1]", .argument, "options: expected a JSON object, got an array"),
            ("{}", .input, "not a GPX, TCX or FIT recording (by its first bytes)"),
        ]
        for (options, status, message) in cases {
            guard case .failure(let e) = AnalyseTests.analyse(junk, options) else {
                Issue.record("\(options) succeeded")
                continue
            }
            #expect(e.status == status, "\(options)")
            #expect(e.message == message, "\(options)")
        }
    }

    /// `runway_replay_config` on every cut of a report line and of a config: each refused with a
    /// status and message (never a trap), the whole ones giving the rule's config.
    @Test func replayConfigRefusesEveryCutOfItsInputs() {
        let report = #"{"type":"import_report","format":"fit","activity":"ride","altitude_source":"gps","auto_lap_m":0,"tracks":[{"index":0}]}"#
        let config = #"{"auto_lap_m":500,"target_pace":{"min_per_km":5}}"#
        func replay(_ r: String, _ c: String?) -> (runway_status, String) {
            var out: UnsafeMutablePointer<CChar>? = nil
            let st = runway_replay_config_impl(r, c, &out)
            defer { free(out) }
            return (st, st == RUNWAY_OK ? String(cString: out!) : lastError())
        }
        #expect(replay(report, config) == (RUNWAY_OK, #"{"activity":"ride","fix_altitude":"gps","auto_lap_m":500,"target_pace":{"min_per_km":5}}"#))
        for n in 0..<report.utf8.count {
            let (st, message) = replay(String(report.utf8.prefix(n))!, config)
            #expect(st == RUNWAY_ERR_JSON && message.hasPrefix("report_line: "), "\(n): \(message)")
        }
        for n in 1..<config.utf8.count {
            let (st, message) = replay(report, String(config.utf8.prefix(n))!)
            #expect(st == RUNWAY_ERR_ARGUMENT && message.hasPrefix("config: "), "\(n): \(message)")
        }
    }

    /// A config naming `activity`, `fix_altitude` or `auto_lap_m` is refused by
    /// `runway_replay_config` exactly when `runway_session_open` refuses it, with its message:
    /// null is no value of any config key. Before, `"activity":null` kept the report's activity
    /// out, and the config it gave then failed `runway_session_open`.
    @Test func replayConfigRefusesANullSettingAsTheSessionDoes() throws {
        let report = #"{"type":"import_report","activity":"ride","altitude_source":"barometric","auto_lap_m":0}"#
        let values = ["activity": #""walk""#, "fix_altitude": #""gps""#, "auto_lap_m": "500"]
        var configs = ["{}"]
        for (key, value) in values {
            for v in [value, "null"] {
                configs.append("{\"\(key)\":\(v)}")
                configs.append("{\"hr_max\":185,\"\(key)\":\(v)}")
                for (other, _) in values where other != key { configs.append("{\"\(key)\":\(v),\"\(other)\":null}") }
            }
        }
        for config in configs {
            var out: UnsafeMutablePointer<CChar>? = nil
            let st = runway_replay_config_impl(report, config, &out)
            let replayMessage = st == RUNWAY_OK ? "" : lastError()
            defer { free(out) }
            var h: OpaquePointer? = nil
            let opened = runway_session_open_impl(config, &h)
            let openMessage = opened == RUNWAY_OK ? "" : lastError()
            runway_session_close_impl(h)
            #expect(st == opened, "\(config): \(replayMessage) / \(openMessage)")
            #expect(replayMessage == openMessage, "\(config)")
            if st == RUNWAY_OK, let out {
                #expect((try? CSession(String(cString: out))) != nil, "\(String(cString: out))")
            }
        }
    }

    /// A config the session opens whatever comes before its "{" (spaces, a UTF-8 byte order mark,
    /// which the JSON parser skips) gives a config it opens too, with its own members. Before, a
    /// byte order mark lost one of its bytes: the result was not UTF-8, and not JSON.
    @Test func replayConfigKeepsAConfigWrittenWithAByteOrderMark() throws {
        let report = #"{"type":"import_report","activity":"ride","altitude_source":null,"auto_lap_m":0}"#
        for config in ["\u{FEFF}{\"hr_max\":185}", " \n{\"hr_max\":185}", "\u{FEFF} {\"hr_max\":185}"] {
            var out: UnsafeMutablePointer<CChar>? = nil
            try #require(runway_replay_config_impl(report, config, &out) == RUNWAY_OK, "\(lastError())")
            defer { free(out) }
            let text = try #require(out.map { String(cString: $0) })
            #expect(text == #"{"activity":"ride","auto_lap_m":0,"hr_max":185}"#, "\(Array(config.utf8)): \(Array(text.utf8))")
            #expect((try? CSession(text)) != nil, "\(text)")
        }
    }
}
