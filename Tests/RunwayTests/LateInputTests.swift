import Testing
import CRunwayABI
@testable import Runway
@testable import RunwayCore
import RunwaySim

/// A tick says that time passed and measures nothing, so an input stamped before it but after the
/// latest input (a phone's location delivered late, in a batch; a GPS time a second behind the
/// live clock's wall clock) is taken at its own time. Before, every tick raised the floor: a host
/// on the live clock stamping its fixes with GPS time lost those that came a fraction of a second
/// late, and a batch delivered after the host's own tick lost all but its last fix.
@Suite("Inputs stamped before a tick")
struct LateInputTests {
    /// A run of 1 Hz fixes 3 m apart from t0, the same flight ticked ahead of its fixes or not.
    func flight(_ config: String, ticked: Bool, store: String? = nil) throws -> CSession {
        let storeKeys = store.map { #","store":"\#($0)","flight_id":"late""# } ?? ""
        let s = try CSession("{" + config + storeKeys + "}")
        let t0 = 1_700_000_000.0
        #expect(s.start(t0) == RUNWAY_OK)
        for batch in 0..<6 {
            let first = 1 + batch * 20
            // The host ticks at its wall clock, 20 s on; the batch of the 20 s before comes after.
            if ticked { #expect(runway_tick_impl(s.handle, t0 + Double(first + 19)) == RUNWAY_OK) }
            for k in first..<(first + 20) {
                #expect(s.fix(t0 + Double(k), 52 + Double(k) * 0.000027) == RUNWAY_OK, "\(k): \(lastError())")
                #expect(s.push(#"{"type":"hr","bpm":\#(120 + k % 30),"t":\#(t0 + Double(k) + 0.5)}"#) == RUNWAY_OK)
            }
        }
        return s
    }

    @Test func aBatchDeliveredAfterATickIsTakenWhole() throws {
        let plain = try flight(#""distance_filter_m":0"#, ticked: false)
        let ticked = try flight(#""distance_filter_m":0"#, ticked: true)
        for s in [plain, ticked] { #expect(s.stop(1_700_000_121) == RUNWAY_OK) }
        let a = plain.summary(), b = ticked.summary()
        let distance = try #require(field("distance_m", in: b))
        #expect(abs(distance - 119 * 3.0) < 3, "\(distance)")
        for key in ["distance_m", "moving_s", "elapsed_s", "avg_hr_bpm", "max_hr_bpm", "fixes", "points"] {
            #expect(field(key, in: a) == field(key, in: b), "\(key)")
        }
    }

    /// An auto lap that a fix of a late batch completes is cut where that fix's step crossed
    /// its boundary, at the step's time and cruise seconds, as without the tick: not at the
    /// tick's time (the clock's `now`), with the cruise seconds up to the tick.
    @Test func aLateBatchCutsItsAutoLapsAtTheirOwnTimes() throws {
        let plain = try flight(#""distance_filter_m":0,"auto_lap_m":100"#, ticked: false)
        let ticked = try flight(#""distance_filter_m":0,"auto_lap_m":100"#, ticked: true)
        for s in [plain, ticked] { #expect(s.stop(1_700_000_121) == RUNWAY_OK) }
        // (The laps' array: no array inside a lap.)
        let a = try #require(after("\"laps\":", in: plain.summary())).prefix { $0 != "]" }
        let b = try #require(after("\"laps\":", in: ticked.summary())).prefix { $0 != "]" }
        #expect(String(a).has("\"index\":3"), "\(a)")
        #expect(a == b, "\n\(a)\n\(b)")
    }

    /// The floor is the latest input, command or lap: an input before it is still refused,
    /// changing nothing, and a tick may not go back before the latest tick.
    @Test func anInputBeforeTheLatestInputOrCommandIsStillRefused() throws {
        let s = try CSession(#"{"distance_filter_m":0}"#)
        let t0 = 1_700_000_000.0
        #expect(s.start(t0) == RUNWAY_OK)
        #expect(s.fix(t0 + 10, 52) == RUNWAY_OK)
        #expect(runway_tick_impl(s.handle, t0 + 20) == RUNWAY_OK)
        #expect(s.fix(t0 + 15, 52.0001) == RUNWAY_OK)
        var before = s.summary()
        #expect(s.fix(t0 + 12, 52.0002) == RUNWAY_ERR_INPUT)
        #expect(lastError().has("is before the latest \(t0 + 15)"), "\(lastError())")
        #expect(runway_tick_impl(s.handle, t0 + 18) == RUNWAY_ERR_INPUT, "a tick stays after the latest tick")
        #expect(s.summary() == before)
        #expect(s.pause(t0 + 25) == RUNWAY_OK)
        before = s.summary()
        #expect(s.fix(t0 + 22, 52.0003) == RUNWAY_ERR_INPUT, "a command bounds inputs as an input does")
        #expect(s.summary() == before)
        // The clock never went back: elapsed counted to the tick, then to the pause.
        #expect(field("elapsed_s", in: s.summary()) == 25)
    }

    /// Recovery replays the journal in order under the same rule: the same flight.
    @Test func aFlightWithLateInputsRecoversTheSame() throws {
        let dir = TempDir()
        let path = dir.file()
        let live = try flight(#""distance_filter_m":0"#, ticked: true, store: path)
        let summary = live.summary()
        live.close()   // unfinished
        var h: OpaquePointer? = nil
        #expect(runway_session_recover_impl(path, "late", nil, &h) == RUNWAY_OK, "\(lastError())")
        let recovered = try CSession.adopt(h)
        #expect(recovered.summary() == summary)
        recovered.close()
    }

    /// The live clock's own case: a fix stamped with GPS time, which lags the wall clock by a
    /// fraction of a second, after a tick at the wall clock's time.
    @Test func aLiveClockFixStampedJustBeforeTheTickIsTaken() throws {
        let s = try CSession(#"{"clock":"live","distance_filter_m":0}"#)
        #expect(s.start(WallClock.now() - 5) == RUNWAY_OK)
        for k in 0..<5 {
            #expect(runway_tick_impl(s.handle, .nan) == RUNWAY_OK)   // at the wall clock's time
            let t = WallClock.now() - 0.9
            #expect(s.fix(t, 52 + Double(k) * 0.00003) == RUNWAY_OK, "\(k): \(lastError())")
        }
        #expect(field("fixes", in: s.summary()) == 5)
    }
}
