import Testing
@testable import RunwayCore

/// A manual lap asked while the stillness stage holds steps from before it (movement not yet
/// confirmed) waits for them (`FlightComputer.lapsWaitForHeld`): once they are credited, the
/// lap takes the metres covered before its time; cut before, it would leave them to the lap
/// after it, covered in none of that lap's time (random flights 4658 and 5556: a final lap of
/// 24.8 m in 0.5 s).
@Suite("A manual lap while steps are held")
struct HeldStepLapTests {
    /// A receiver without Doppler speed, noise-free fixes north: standing 0–30 s, then walking
    /// at 1.5 m/s (the filter's steps from 32 s are held until the fixes have moved beyond what
    /// their accuracy explains, at 51 s), a lap at `lapAt`, stopped at `stopAt`. Also the
    /// splits out after each second's fix.
    func walk(lapAt: Double, stopAt: Double = 60) throws -> (d: Driver, splitsAfter: [Int]) {
        var c = EngineConfig()
        c.autoLapM = 0
        c.autoPause.enabled = false
        var d = Driver(c)
        try d.phase(.start, 0)
        var splitsAfter: [Int] = []
        for i in 0...Int(stopAt) {
            let t = Double(i)
            if t > lapAt && t - 1 < lapAt { try d.core.lap(at: lapAt, wallClock: .nan, events: &d.events) }
            try d.fix(t, 52 + degreesNorth(1.5 * max(0, t - 30)), 4, hAcc: 5)
            splitsAfter.append(splits(d).count)
        }
        try d.phase(.stop, stopAt)
        return (d, splitsAfter)
    }

    func splits(_ d: Driver) -> [Lap] { d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } } }


    @Test func theLapTakesTheHeldMetresCoveredBeforeIt() throws {
        let (d, splitsAfter) = try walk(lapAt: 40.5)
        let laps = splits(d)
        #expect(laps.map(\.trigger) == [.manual, .final])
        #expect(laps[0].endT == 40.5)
        // Its split goes out once the held steps are credited (at 51 s), not with the fix after it.
        #expect(splitsAfter[41...46].allSatisfy { $0 == 0 } && splitsAfter.last == 1, "\(splitsAfter)")
        // The filter's steps before 40.5 s are the lap's (about 6 m: the filter lags the walk,
        // whose start lag is paid out later, in lap 2), not the next lap's; cut with the fix at
        // 41 s, it had none of them.
        #expect(laps[0].distanceM > 4, "lap 1: \(laps[0].distanceM) m")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.core.distance) < 1e-6)
    }

    /// Stopped before movement is confirmed: the leg's end credits the held steps (they moved
    /// at a walker's speed), and the lap that waited for them takes those before its time.
    @Test func aLapWhoseHeldStepsTheStopCreditsTakesItsShare() throws {
        let (d, _) = try walk(lapAt: 40.5, stopAt: 45)
        let laps = splits(d)
        #expect(laps.map(\.endT) == [40.5, 45])
        #expect(laps[0].distanceM > 4, "lap 1: \(laps[0].distanceM) m")
        #expect(abs(laps.reduce(0) { $0 + $1.distanceM } - d.core.distance) < 1e-6)
    }

    /// A lap while standing (nothing held after the last quiet stretch) is cut at the next
    /// fix, as before: a lap waits only for steps that may still be credited.
    @Test func aLapWhileStandingIsCutAtTheNextFix() throws {
        let (d, splitsAfter) = try walk(lapAt: 10.5)
        #expect(splitsAfter[10] == 0 && splitsAfter[11] == 1, "\(splitsAfter)")
        #expect(splits(d).first?.distanceM == 0)
    }
}
