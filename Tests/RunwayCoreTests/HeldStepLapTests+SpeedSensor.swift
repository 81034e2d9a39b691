import Testing
@testable import RunwayCore

/// A lap that waits for held steps while speed samples measure the flight: the fixes fell silent
/// with steps held, and no fix is coming to judge them (`FlightComputer.positionsFellSilent`).
extension HeldStepLapTests {
    /// A runner with a foot pod and a receiver without Doppler speed: standing 0–30 s, then
    /// running at 3 m/s; the fixes stop after `lastFix` (indoors, a tunnel) and the foot pod
    /// measures the rest (a sample a second from 31 s: 2 m/s, from 200 s 4 m/s), auto laps every
    /// 200 m, a manual lap at `lapAt`, stopped at 400 s. Also the time of each split's event
    /// (the input after which it went out).
    static func podRun(lapAt: Double, lastFix: Int = 36) throws -> (d: Driver, splitSeenAt: [Double]) {
        var c = EngineConfig()
        c.autoLapM = 200
        c.autoPause.enabled = false
        var d = Driver(c)
        try d.phase(.start, 0)
        var seenAt: [Double] = []
        func note(_ events: [Event], _ t: Double) {
            let n = events.filter { if case .split = $0.body { true } else { false } }.count
            while seenAt.count < n { seenAt.append(t) }
        }
        for i in 0...400 {
            let t = Double(i)
            if t > lapAt && t - 1 < lapAt { try d.core.lap(at: lapAt, wallClock: .nan, events: &d.events) }
            if i <= lastFix { try d.fix(t, 52 + degreesNorth(3 * max(0, t - 30)), 4, hAcc: 5) }
            if i >= 31 { try d.json("{\"type\":\"speed\",\"speed\":\(i < 200 ? 2 : 4),\"t\":\(t)}") }
            note(d.events, t)
        }
        try d.phase(.stop, 400)
        note(d.events, 400)
        return (d, seenAt)
    }

    /// The manual lap asked while the first steps are held waits for them; while it waits, no
    /// lap is cut at all. Left held once the fixes were gone (review h98), the steps were neither
    /// credited nor dropped until the stop, and every auto lap of the foot pod's kilometre went
    /// out at the stop, 45–365 s late; judged when the pod takes the flight up, they go out as
    /// the runner passes them.
    @Test func aLapWaitingForHeldStepsDoesNotHoldBackTheAutoLapsWhileAPodMeasures() throws {
        let (d, seenAt) = try Self.podRun(lapAt: 35.5)
        let laps = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(d.core.distance > 1000, "\(d.core.distance) m")
        #expect(laps.count >= 6, "\(laps.map { ($0.trigger, $0.endT) })")
        // Each lap's split goes out within a few seconds of its end (as it does without the manual lap).
        for (lap, seen) in zip(laps, seenAt) {
            #expect(seen - lap.endT < 5, "lap \(lap.index) (\(lap.trigger)) ending at \(lap.endT) s went out at \(seen) s")
        }
    }

    /// The same run without the manual lap: its auto laps go out as the runner passes them.
    @Test func withoutTheManualLapTheAutoLapsGoOutAsTheyEnd() throws {
        let (d, seenAt) = try Self.podRun(lapAt: 1000)
        let laps = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        for (lap, seen) in zip(laps, seenAt) {
            #expect(seen - lap.endT < 5, "lap \(lap.index) (\(lap.trigger)) ending at \(lap.endT) s went out at \(seen) s")
        }
    }

    /// A manual lap does not move the auto boundaries (`LapCounter`), nor their times: cut at the
    /// stop, the auto laps the pod measured were placed by a straight line from the manual lap to
    /// the stop (up to 55 s off), not where the runner passed them (2 m/s, then 4 m/s).
    @Test func theAutoLapsEndWhereTheRunnerPassedThemWithTheManualLapToo() throws {
        let (with, _) = try Self.podRun(lapAt: 35.5), (without, _) = try Self.podRun(lapAt: 1000)
        func autoEnds(_ d: Driver) -> [Double] {
            d.events.compactMap { if case .split(let l) = $0.body, l.trigger == .auto { l.endT } else { nil } }
        }
        let a = autoEnds(with), b = autoEnds(without)
        #expect(a.count == b.count && a.count >= 4, "\(a) against \(b)")
        for (x, y) in zip(a, b) { #expect(abs(x - y) < 3, "an auto lap ending at \(y) s without the manual lap ends at \(x) s with it") }
    }
}
