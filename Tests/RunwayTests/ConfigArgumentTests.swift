import Testing
import CRunwayABI
@testable import Runway
@testable import RunwayCore
import RunwaySim

/// A session opened with `config`, started at 1 700 000 000 with five fixes a second apart,
/// 3 m north each, left open (not stopped).
private func flightOfFiveFixes(_ config: String) throws -> CSession {
    let t0 = 1_700_000_000.0
    let s = try CSession(config)
    s.start(t0)
    for k in 1...5 { _ = s.fix(t0 + Double(k), 52 + Double(k) * 3 / 111_250) }
    return s
}

/// The status of opening a session with `config` (the session closed), and the last error.
private func open(_ config: String) -> (runway_status, String) {
    var h: OpaquePointer? = nil
    let status = runway_session_open_impl(config, &h)
    let message = lastError()
    runway_session_close_impl(h)
    return (status, message)
}

/// Config and export arguments a host developer found accepted without effect.
@Suite("Config arguments")
struct ConfigArgumentTests {
    /// A store at `path` with an unfinished flight "long1".
    func unfinishedFlight(_ path: String) throws {
        try flightOfFiveFixes(#"{"store":"\#(path)","flight_id":"long1"}"#).close()   // (no stop: unfinished)
    }

    @Test func storeKeysWithoutAStoreAreArgumentErrors() {
        for key in ["flight_id", "durability"] {
            let config = key == "flight_id" ? #"{"flight_id":"mine"}"# : #"{"activity":"run","durability":"batched"}"#
            let (status, message) = open(config)
            #expect(status == RUNWAY_ERR_ARGUMENT, "\(config)")
            #expect(message.contains("\"\(key)\""), "\(message)")
        }
        let (status, message) = open(#"{"flight_id":"mine","durability":"batched"}"#)
        #expect(status == RUNWAY_ERR_ARGUMENT && message.contains("\"flight_id\""), "\(message)")
        // With a store they name the flight and its journal's commits, as before.
        let dir = TempDir()
        #expect(open(#"{"flight_id":"mine","durability":"batched","store":"\#(dir.file())"}"#).0 == RUNWAY_OK)
    }

    @Test func aRecoverConfigNamesNeitherStoreNorFlight() throws {
        let dir = TempDir()
        let path = dir.file()
        try unfinishedFlight(path)
        var h: OpaquePointer? = nil
        for (key, config) in [("store", #"{"store":"/tmp/other.db"}"#), ("flight_id", #"{"flight_id":"zzz"}"#),
                              ("store", #"{"store":"/tmp/other.db","flight_id":"zzz","durability":"batched"}"#)] {
            #expect(runway_session_recover_impl(path, "long1", config, &h) == RUNWAY_ERR_ARGUMENT, "\(config)")
            #expect(h == nil)
            #expect(lastError().contains("\"\(key)\""), "\(lastError())")
        }
        // "durability" applies to the recovered session's journal: accepted.
        #expect(runway_session_recover_impl(path, "long1", #"{"durability":"batched"}"#, &h) == RUNWAY_OK, "\(lastError())")
        runway_session_close_impl(h)
    }
}

@Suite("Config arguments: duplicate keys")
struct DuplicateKeyTests {
    @Test func aConfigKeyGivenTwiceIsAnArgumentError() {
        for (config, named) in [(#"{"activity":"run","activity":"ride"}"#, #"duplicate key "activity""#),
                                (#"{"hr_max":180,"clock":"replay","hr_max":200}"#, #"duplicate key "hr_max""#),
                                (#"{"target_pace":{"min":4,"max":6,"min":5}}"#, #"duplicate key "min" in "target_pace""#)] {
            let (status, message) = open(config)
            #expect(status == RUNWAY_ERR_ARGUMENT, "\(config)")
            #expect(message.contains(named), "\(message)")
        }
        #expect(open(#"{"activity":"ride","target_pace":{"min":4,"max":6}}"#).0 == RUNWAY_OK)
    }

    @Test func subscribeAndAnalyseOptionsGivenTwiceAreArgumentErrors() throws {
        let s = try CSession(nil)
        let recorder = Recorder()
        var id: UInt64 = 0
        #expect(runway_subscribe_impl(s.handle, #"{"kinds":["tick"],"kinds":["log"]}"#, Recorder.callback, recorder.user, &id) == RUNWAY_ERR_ARGUMENT)
        #expect(lastError().contains(#"duplicate key "kinds""#), "\(lastError())")
        #expect(throws: RunwayError.self) { try AnalysisOptions.parse(#"{"format":"gpx","format":"fit"}"#) }
        #expect(throws: RunwayError.self) { try AnalysisOptions.parse(#"{"config":{"activity":"run","activity":"ride"}}"#) }
        #expect(try AnalysisOptions.parse(#"{"format":"gpx","config":{"activity":"ride"}}"#).format == .gpx)
    }
}

@Suite("Config arguments: nested keys")
struct NestedKeyTests {
    @Test func anUnknownTargetPaceKeyIsNamed() {
        for (config, key) in [(#"{"target_pace":{"min":4,"max":5,"avg":3}}"#, "avg"),
                              (#"{"target_pace":{"min":4,"max":5,"z":1,"b":2}}"#, "b")] {
            var h: OpaquePointer? = nil
            #expect(runway_session_open_impl(config, &h) == RUNWAY_ERR_ARGUMENT)
            #expect(lastError().contains(#"unknown key "\#(key)" in "target_pace""#), "\(lastError())")
            runway_session_close_impl(h)
        }
        // Bad bounds keep their own message.
        #expect(throws: RunwayError.argument(#"config: "target_pace" must be {"min":M,"max":N} in min/km with 0 < min <= max"#)) {
            try EngineConfig.parse(#"{"target_pace":{"min":5,"max":4}}"#)
        }
    }
}

@Suite("Export arguments")
struct ExportArgumentTests {
    @Test func anExportWithoutItsLengthIsAnArgumentError() throws {
        let dir = TempDir()
        let path = dir.file()
        let s = try flightOfFiveFixes(#"{"store":"\#(path)","flight_id":"f"}"#)
        for format in ExportFormat.allCases.map(\.rawValue) {
            var out: UnsafeMutablePointer<CChar>? = nil
            #expect(runway_export_impl(s.handle, format, &out, nil) == RUNWAY_ERR_ARGUMENT, "\(format)")
            #expect(out == nil && lastError() == "len is NULL", "\(format): \(lastError())")
            #expect(runway_flight_export_impl(path, "f", format, &out, nil) == RUNWAY_ERR_ARGUMENT, "\(format)")
            #expect(out == nil && lastError() == "len is NULL", "\(format): \(lastError())")
            // With the length: the buffer and its size, FIT's NUL bytes included.
            var len = 0
            #expect(runway_export_impl(s.handle, format, &out, &len) == RUNWAY_OK && len > 0, "\(format)")
            runway_string_free_impl(out)
            out = nil
        }
        s.close()
    }
}

@Suite("Config arguments: empty text")
struct EmptyConfigTests {
    @Test func anEmptyRecoverConfigIsTheFlightsOwnAsNULLIs() throws {
        let dir = TempDir()
        let path = dir.file()
        try flightOfFiveFixes(#"{"store":"\#(path)","flight_id":"r","activity":"ride"}"#).close()   // (no stop: unfinished)
        var h: OpaquePointer? = nil
        #expect(runway_session_recover_impl(path, "r", "", &h) == RUNWAY_OK, "\(lastError())")
        let r = try CSession.adopt(h)
        #expect(r.summary().contains(#""activity":"ride""#), "\(r.summary().prefix(300))")
        r.close()
    }

    @Test func anEmptyConfigOrOptionsAreTheDefaultsAsNULLIs() throws {
        let s = try CSession("")
        #expect(s.snapshot() == (try CSession(nil)).snapshot())
        let recorder = Recorder()
        var id: UInt64 = 0
        #expect(runway_subscribe_impl(s.handle, "", Recorder.callback, recorder.user, &id) == RUNWAY_OK)
        #expect(runway_unsubscribe_impl(s.handle, id) == RUNWAY_OK)
        #expect(try AnalysisOptions.parse("") == AnalysisOptions())
        s.close()
    }
}
