import Testing
import CRunwayABI
import RunwaySim
@testable import Runway
@testable import RunwayCore
@testable import RunwayStore

/// Clock ticks (the live clock's ticker, or a host's `runway_tick`) move the flight's clock:
/// elapsed time runs on (the time-weighted figures, average power and heart rate, normalised
/// power, time in zones, are integrated up to each input, not to the ticks: LateInputTests).
/// Ticks that move the clock are journaled, so a recovered flight is the live one exactly.
/// Before, they were not: a recovered flight had lost the elapsed time of the ticks after its
/// last input.
@Suite("Store: a live-clock flight recovers with its ticks")
struct LiveClockRecoveryTests {
    /// A live-clock ride with power, heart-rate and cadence samples, fixes and ticks at times of
    /// their own, a pause with ticks in it, and ticks after its last input; left unfinished.
    /// Its times are a day ahead of the wall clock, so the library's own ticker (which ticks the
    /// session at the wall clock's time) never moves it: every tick that does is one of these.
    /// Returns the summary the live session gave last.
    func liveRide(_ path: String, t0: Double) throws -> String {
        let s = try CSession(#"{"store":"\#(path)","flight_id":"f","clock":"live","activity":"ride"}"#)
        for dt in [-3.4, -2.1, -0.6] { #expect(runway_tick_impl(s.handle, t0 + dt) == RUNWAY_OK) }   // waiting for the start
        #expect(s.start(t0) == RUNWAY_OK)
        var nextTick = 0.37
        for k in 1...150 {
            let t = t0 + Double(k) * 0.7131
            while nextTick < Double(k) * 0.7131 {
                #expect(runway_tick_impl(s.handle, t0 + nextTick) == RUNWAY_OK)
                nextTick += 1.0 + 0.0123 * Double(k % 7)
            }
            if k == 60 { #expect(s.pause(t) == RUNWAY_OK) }
            if k == 75 { #expect(s.resume(t) == RUNWAY_OK) }
            #expect(s.push(#"{"type":"power","watts":\#(150.3 + Double((k * 37) % 120) * 1.37),"t":\#(t)}"#) == RUNWAY_OK)
            if k % 3 == 0 { #expect(s.fix(t, 52 + Double(k) * 0.00003) == RUNWAY_OK) }
            if k % 5 == 0 { #expect(s.push(#"{"type":"hr","bpm":\#(120 + k % 40),"t":\#(t)}"#) == RUNWAY_OK) }
            if k % 4 == 0 { #expect(s.push(#"{"type":"cadence","spm":\#(80 + k % 9),"t":\#(t)}"#) == RUNWAY_OK) }
        }
        let last = t0 + 150 * 0.7131
        for dt in [0.31, 1.31, 2.77] { #expect(runway_tick_impl(s.handle, last + dt) == RUNWAY_OK) }
        let summary = s.summary()
        s.close()   // unfinished, as a dead host leaves it
        return summary
    }

    @Test func aRecoveredLiveFlightGivesTheLiveSummaryByteForByte() throws {
        let dir = TempDir()
        let path = dir.file()
        let t0 = (WallClock.now() + 86_400).rounded(.down)
        let live = try liveRide(path, t0: t0)
        #expect(field("avg_power_w", in: live) != nil && field("avg_hr_bpm", in: live) != nil)
        // Cruise up to the last tick (the pause from the 60th to the 75th sample left out).
        let elapsed = try #require(field("elapsed_s", in: live))
        #expect(abs(elapsed - ((150 - 15) * 0.7131 + 2.77)) < 1e-6, "\(elapsed)")

        var h: OpaquePointer? = nil
        #expect(runway_session_recover_impl(path, "f", nil, &h) == RUNWAY_OK, "\(lastError())")
        var out: UnsafeMutablePointer<CChar>? = nil
        #expect(runway_summary_json_impl(h, &out) == RUNWAY_OK)
        let recovered = out.map { String(cString: $0) } ?? ""
        runway_string_free_impl(out)
        runway_session_close_impl(h)
        #expect(recovered == live, "recovered:\n\(recovered.prefix(900))\nlive:\n\(live.prefix(900))")

        out = nil
        #expect(runway_flight_json_impl(path, "f", &out) == RUNWAY_OK)
        #expect(out.map { String(cString: $0) } == live, "runway_flight_json replays the same flight")
        runway_string_free_impl(out)
    }

    /// A tick that moves nothing (at the latest time, before the start, or after touchdown) is
    /// not journaled: the journal grows by the ticks that move the clock.
    @Test func onlyTicksThatMoveTheClockAreJournaled() throws {
        let dir = TempDir()
        let path = dir.file()
        let t0 = 1_700_000_000.0
        do {
            let s = try CSession(#"{"store":"\#(path)","flight_id":"f"}"#)
            #expect(runway_tick_impl(s.handle, .nan) == RUNWAY_OK)       // replay clock, no time yet
            for dt in [-30.0, -10.0] { #expect(runway_tick_impl(s.handle, t0 + dt) == RUNWAY_OK) }   // before the start
            #expect(s.start(t0) == RUNWAY_OK)
            #expect(s.fix(t0 + 1, 52) == RUNWAY_OK)
            #expect(runway_tick_impl(s.handle, t0 + 1) == RUNWAY_OK)     // the latest time
            #expect(runway_tick_impl(s.handle, .nan) == RUNWAY_OK)       // replay clock: the latest time
            #expect(runway_tick_impl(s.handle, t0 + 2.5) == RUNWAY_OK)   // moves
            #expect(runway_tick_impl(s.handle, t0 + 2) == RUNWAY_ERR_INPUT)   // backwards: refused
            s.close()
        }
        let store = try FlightStore(path: path)
        defer { store.close() }
        let entries = try store.journal(of: "f").entries
        #expect(entries.count == 3, "\(entries)")
        if case .tick(let t)? = entries.last { #expect(t == t0 + 2.5) } else { Issue.record("last entry: \(String(describing: entries.last))") }
    }
}
