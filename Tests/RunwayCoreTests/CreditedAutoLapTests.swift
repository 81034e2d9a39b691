import Testing
@testable import RunwayCore

/// A ride started at 0 s with `auto_lap_m`, a fix a second due north at `v` m/s up to 60 s, each
/// with Doppler `speed` (NaN: none).
func rideAMinute(autoLapM: Double, v: Double, speed: Double) throws -> Driver {
    var c = Driver.config()
    c.activity = .ride
    c.autoLapM = autoLapM
    var d = Driver(c)
    try d.phase(.start, 0)
    for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(v * Double(i)), 4, speed: speed, hAcc: 5) }
    return d
}

/// Distance the stillness detector credits after it was covered (held steps paid out when
/// movement is confirmed, or at the stop): the auto laps it completes end where the steps
/// crossed their boundaries, and go out as `split` events like any other.
@Suite("Auto laps in distance credited later")
struct CreditedAutoLapTests {
    /// A rider at 10 m/s without Doppler speed, paused and resumed, who stops the flight two
    /// seconds after the resume, before the detector confirmed the movement since: the stop
    /// credits the held steps across auto boundaries every 5 m.
    @Test func aCreditAtTheStopCutsItsAutoLapsWhereTheStepsCrossedThem() throws {
        var d = try rideAMinute(autoLapM: 5, v: 10, speed: .nan)
        try d.phase(.pause, 60.5)
        for i in 61...90 { try d.fix(Double(i), 52 + degreesNorth(600), 4, hAcc: 5) }
        try d.phase(.resume, 90.5)
        for i in 91...92 { try d.fix(Double(i), 52 + degreesNorth(600 + 10 * Double(i - 90)), 4, hAcc: 5) }
        let before = d.snapshot.distanceM
        try d.phase(.stop, 92)
        #expect(d.snapshot.distanceM - before >= 10, "the stop credits the held steps: \(d.snapshot.distanceM - before) m")
        let splits = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(splits.map(\.index) == Array(1...max(1, splits.count)), "every lap goes out once, in order")
        #expect(splits.count == d.core.lapStage.counter.laps.count, "\(splits.count) split events, \(d.core.lapStage.counter.laps.count) laps")
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

/// A speed sensor's first sample after a long silence measures nothing: it is no progress of the
/// laps, so the gap credited next shares its line among them from where the fixes left off.
@Suite("A sensor sample that measured nothing, then a gap")
struct SilentSensorSampleLapTests {
    @Test func theGapsAutoLapEndsWhereTheGapCrossedItsBoundary() throws {
        var d = try rideAMinute(autoLapM: 700, v: 9, speed: 9)
        // Fixes and sensor out for 49 s; one sample just before the fixes come back.
        try d.core.process(try ValidatedInput(.sample(.speed(mps: 9, t: 109.75))), wallClock: .nan, events: &d.events)
        for i in 110...130 { try d.fix(Double(i), 52 + degreesNorth(9 * Double(i)), 4, speed: 9, hAcc: 5) }
        try d.phase(.stop, 130)
        let laps = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        guard let first = laps.first, first.trigger == .auto else {
            Issue.record("no auto lap: \(laps.map(\.trigger))")
            return
        }
        // 700 m at 9 m/s: 77.8 s in, inside the gap (60 s to 110 s).
        #expect(abs(first.endT - 700.0 / 9) < 3, "the lap ended at \(first.endT)")
        for l in laps where l.elapsedS > 0 { #expect(l.distanceM / l.elapsedS < 10, "lap \(l.index): \(l.distanceM) m in \(l.elapsedS) s") }
    }
}
