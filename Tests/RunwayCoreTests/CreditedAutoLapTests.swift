import Testing
@testable import RunwayCore

/// Distance the stillness detector credits after it was covered (held steps paid out when
/// movement is confirmed, or at the stop): the auto laps it completes end where the steps
/// crossed their boundaries, and go out as `split` events like any other.
@Suite("Auto laps in distance credited later")
struct CreditedAutoLapTests {
    /// A runner at 3 m/s without Doppler speed who stops the flight before the detector confirmed
    /// the movement: the stop credits the held steps, crossing auto boundaries every 4 m.
    @Test func aCreditAtTheStopCutsItsAutoLapsWhereTheStepsCrossedThem() throws {
        var c = Driver.config()
        c.autoLapM = 4
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...2 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, hAcc: 5) }
        #expect(d.snapshot.distanceM < 4, "the steps were held: the test needs the credit at the stop")
        try d.phase(.stop, 2)
        let splits = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(splits.map(\.index) == Array(1...splits.count), "every lap goes out once: \(splits.map(\.index))")
        #expect(splits.count == d.core.lapStage.counter.laps.count)
        #expect(splits.filter { $0.trigger == .auto }.count == Int(d.snapshot.distanceM / 4))
        for l in splits where l.distanceM > 0.01 {
            #expect(l.elapsedS > 0, "lap \(l.index): \(l.distanceM) m in \(l.elapsedS) s")
        }
    }

    @Test func theCounterCutsABoundaryInsideTheStepThatCrossedIt() {
        var laps = LapCounter(autoLapM: 1000)
        laps.update(LapProgress(t: 0))
        laps.update(LapProgress(t: 100, distanceM: 990, elapsedS: 100))
        // Two steps held (not counted yet) while the laps went on with the clock.
        laps.update(LapProgress(t: 101, distanceM: 990, elapsedS: 101))
        laps.update(LapProgress(t: 102, distanceM: 990, elapsedS: 102))
        var steps = CreditedSteps()
        steps.append(t: 101, d: 5)
        steps.append(t: 102, d: 10)   // crosses 1000 m half way: at 101.5
        var done: [Lap] = []
        laps.credit(15, steps: steps, elapsedAt: { $0 }, into: &done)
        #expect(done.count == 1)
        #expect(abs((done.first?.endT ?? 0) - 101.5) < 1e-9)
        #expect(abs((done.first?.elapsedS ?? 0) - 101.5) < 1e-9)
        #expect(done.first?.distanceM == 1000)
        laps.update(LapProgress(t: 102, distanceM: 1005, elapsedS: 102))
        #expect(laps.laps.count == 1, "the credit is not cut again")
    }
}
