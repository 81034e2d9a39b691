import Testing
@testable import RunwayCore

/// Review h98: edge cases of the last session's change (the power alerts that wait while
/// auto-pause judges a stand; manual laps that wait for held steps).
@Suite("h98 review")
struct H98ReviewTests {
    /// `PowerAlertAtAStopTests.ride`'s alerts, each second's power sample before its fix
    /// (`powerFirst`) or after it: the ride is the same either way, and its alerts should be too.
    static func alerts(powerFirst: Bool, speed: (Int) -> Double, watts: (Int) -> Int) throws -> [String] {
        PowerAlertAtAStopTests.alerts(of: try PowerAlertAtAStopTests.ride(powerFirst: powerFirst, speed: speed, watts: watts))
    }

    /// `PowerAlertAtAStopTests`' ride (8 m/s, standing 100–130 s: auto-pause from the first slow
    /// fix, 100 s), but the rider stops pedalling at `dropAt` (0 W), some seconds before it: the
    /// alerts' 5 s hold may complete at any second, that fix's too. Power first, GPWS_POWER_LOW at
    /// 100 s for a drop at 95 s; fix first, none (the fix began the slow hold: the sample of its
    /// second is not judged). Before 5cfe8a3 the split was at 98 s (h97's case): it moved.
    @Test(arguments: Array(90...99))
    func powerAlertsAtTheFirstSlowFixDoNotHangOnTheInputOrder(dropAt: Int) throws {
        let speed = { (i: Int) in i < 100 || i >= 130 ? 8.0 : 0 }, watts = { (i: Int) in i < dropAt || i >= 130 ? 250 : 0 }
        let first = try Self.alerts(powerFirst: true, speed: speed, watts: watts)
        let after = try Self.alerts(powerFirst: false, speed: speed, watts: watts)
        #expect(first == after, "drop at \(dropAt) s: power before the fix: \(first); after it: \(after)")
    }

    /// A ride at 8 m/s that slows to 0.5 m/s for two fixes (100 and 101 s: a track stand at a
    /// light that turns green, shorter than auto-pause's 3 s hold) and rides on; 0 W from
    /// `dropAt` to 110 s. No pause comes. The fix of 102 s ends the slow hold: power first, the
    /// sample of 102 s is not judged (the hold still runs), fix first it is: the alert at 100 or
    /// 103 s against 102 s. (Before 5cfe8a3 both orders agreed.)
    @Test(arguments: Array(93...99))
    func powerAlertsAtTheEndOfABriefSlowingDoNotHangOnTheInputOrder(dropAt: Int) throws {
        let speed = { (i: Int) in i == 100 || i == 101 ? 0.5 : 8.0 }, watts = { (i: Int) in i < dropAt || i >= 110 ? 250 : 0 }
        let first = try Self.alerts(powerFirst: true, speed: speed, watts: watts)
        let after = try Self.alerts(powerFirst: false, speed: speed, watts: watts)
        #expect(first == after, "drop at \(dropAt) s: power before the fix: \(first); after it: \(after)")
    }
}

extension H98ReviewTests {
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
    /// lap is cut at all: with the fixes gone, the stillness stage's held steps are neither
    /// credited nor dropped until the stop, so every auto lap of the foot pod's kilometre goes
    /// out at the stop, not as the runner passes it.
    @Test func aLapWaitingForHeldStepsHoldsBackTheAutoLapsWhileThePodMeasures() throws {
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

    /// A manual lap does not move the auto boundaries (`LapCounter`), nor should it move their
    /// times: cut at the stop, the auto laps the pod measured are placed by a straight line from
    /// the manual lap to the stop, not where the runner passed them (2 m/s, then 4 m/s).
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
