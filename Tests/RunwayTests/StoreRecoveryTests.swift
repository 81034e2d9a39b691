import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore
@testable import RunwayStore

/// A host that dies after its stop was journaled and before the flight's record was written
/// (the stop journals the command, then finishes the flight: two writes). The flight is
/// landed: recovering it finishes it as its user stopped it, and finishing it keeps "stopped".
/// Before, recovery returned a session in touchdown that refused every input while the stored
/// flight stayed unfinished, and runway_flight_finish relabelled it "recovered".
@Suite("Store: a stop journaled but not finished")
struct StoreRecoveryTests {
    static let t0 = 1_700_000_000.0

    /// A stored flight "f" with ten fixes whose stop is in the journal but whose record is not.
    func stoppedButUnfinished(_ path: String) throws {
        do {
            let s = try CSession(#"{"store":"\#(path)","flight_id":"f"}"#)
            s.start(Self.t0)
            for k in 1...10 { _ = s.fix(Self.t0 + Double(k), 52 + Double(k) * 3 / 111_250) }
            s.close()   // (no stop: unfinished)
        }
        let store = try FlightStore(path: path)
        try store.append(.command(.stop, t: Self.t0 + 10), to: "f")
        store.close()
    }

    func flightJSON(_ path: String) -> String? {
        var out: UnsafeMutablePointer<CChar>? = nil
        guard runway_flight_json_impl(path, "f", &out) == RUNWAY_OK, let out else { return nil }
        defer { runway_string_free_impl(out) }
        return String(cString: out)
    }

    @Test func recoveringItFinishesItAsStopped() throws {
        let dir = TempDir()
        let path = dir.file()
        try stoppedButUnfinished(path)
        var h: OpaquePointer? = nil
        #expect(runway_session_recover_impl(path, "f", nil, &h) == RUNWAY_OK)
        runway_session_close_impl(h)
        let record = try #require(flightJSON(path), "no record after recovery")
        #expect(record.contains(#""phase":"touchdown""#) && record.contains(#""end_reason":"stopped""#), "\(record.prefix(200))")
        // Finished now: a second recovery is refused as for any finished flight.
        #expect(runway_session_recover_impl(path, "f", nil, &h) == RUNWAY_ERR_STATE)
    }

    @Test func finishingItKeepsItsUsersStop() throws {
        let dir = TempDir()
        let path = dir.file()
        try stoppedButUnfinished(path)
        #expect(runway_flight_finish_impl(path, "f") == RUNWAY_OK)
        let record = try #require(flightJSON(path))
        #expect(record.contains(#""end_reason":"stopped""#), "\(record.prefix(200))")
    }

    /// A flight that never started has nothing to land: finishing it keeps it in preflight,
    /// "recovered", and it is finished (store.md, runway.h).
    @Test func finishingAFlightThatNeverStartedKeepsItInPreflight() throws {
        let dir = TempDir()
        let path = dir.file()
        do {
            let s = try CSession(#"{"store":"\#(path)","flight_id":"f"}"#)
            _ = s.fix(Self.t0, 52)
            s.close()
        }
        #expect(runway_flight_finish_impl(path, "f") == RUNWAY_OK)
        let record = try #require(flightJSON(path))
        #expect(record.contains(#""phase":"preflight""#) && record.contains(#""end_reason":"recovered""#), "\(record.prefix(200))")
        #expect(runway_flight_finish_impl(path, "f") == RUNWAY_ERR_STATE)
    }
}
