import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore
@testable import RunwayStore

/// A stored flight fed a recording's device lap lines, its host gone before the stop: recovered
/// from its journal, it is the flight it was, with auto laps off (the device's laps, journaled
/// as laps) and on (the device's laps passed over, nothing journaled).
@Suite("Store: device laps recovered")
struct DeviceLapRecoveryTests {
    func fixes(_ ts: ClosedRange<Int>) -> String {
        ts.map { "{\"t\":\($0),\"lat\":\(52 + Double($0) * 0.0001),\"lon\":4}\n" }.joined()
    }

    func push(_ s: CSession, _ text: String) -> runway_status {
        var accepted = 0, rejected = 0
        return text.withCString { runway_push_jsonl_impl(s.handle, $0, text.utf8.count, &accepted, &rejected) }
    }

    func laps(_ summary: String) -> [String] {
        ["manual", "auto", "final"].map { "\($0) \(summary.ranges(of: "\"trigger\":\"\($0)\"").count)" }
    }

    @Test(arguments: [0, 10])
    func aRecoveredFlightHasTheLapsItHad(autoLapM: Int) throws {
        let text = fixes(0...5) + "{\"type\":\"device_lap\",\"t\":5}\n" + fixes(6...9)
            + "{\"type\":\"device_lap\",\"t\":9.5}\n" + fixes(10...12)
        let config = "\"distance_filter_m\":0,\"auto_lap_m\":\(autoLapM)"
        // The flight as its host would have stopped it.
        let whole = try CSession("{\(config)}")
        #expect(runway_start_impl(whole.handle, 0) == RUNWAY_OK)
        #expect(push(whole, text) == RUNWAY_OK)
        #expect(runway_stop_impl(whole.handle, 12) == RUNWAY_OK)
        // The same flight stored, its host gone before the stop, recovered and stopped.
        let dir = TempDir()
        let path = dir.file()
        do {
            let s = try CSession("{\"store\":\"\(path)\",\"flight_id\":\"f\",\(config)}")
            #expect(runway_start_impl(s.handle, 0) == RUNWAY_OK)
            #expect(push(s, text) == RUNWAY_OK)
            s.close()
        }
        var h: OpaquePointer? = nil
        #expect(runway_session_recover_impl(path, "f", nil, &h) == RUNWAY_OK)
        defer { runway_session_close_impl(h) }
        #expect(runway_stop_impl(h, 12) == RUNWAY_OK)
        var out: UnsafeMutablePointer<CChar>? = nil
        #expect(runway_summary_json_impl(h, &out) == RUNWAY_OK)
        let recovered = String(cString: try #require(out))
        runway_string_free_impl(out)
        let original = whole.summary()
        #expect(laps(recovered) == laps(original), "recovered \(laps(recovered)), original \(laps(original))")
        #expect(field("distance_m", in: recovered) == field("distance_m", in: original))
        #expect(laps(original)[0] == (autoLapM == 0 ? "manual 2" : "manual 0"), "\(laps(original))")
    }
}
