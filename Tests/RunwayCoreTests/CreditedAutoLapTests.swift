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

    /// A step that ended after the latest update is the next update's: the boundary it crosses
    /// is where that update's step crosses it, not at the latest update's time.
    @Test func aStepAfterTheLatestUpdateIsTheNextUpdates() {
        var laps = LapCounter(autoLapM: 1000)
        laps.update(LapProgress(t: 0))
        laps.update(LapProgress(t: 100, distanceM: 990, elapsedS: 100))
        var steps = CreditedSteps()
        steps.append(t: 110, d: 20, from: 100)
        var done: [Lap] = []
        laps.credit(20, steps: steps, elapsedAt: { $0 }, into: &done)
        #expect(done.isEmpty, "cut at \(done.map(\.endT))")
        done = laps.update(LapProgress(t: 110, distanceM: 1010, elapsedS: 110))
        #expect(done.count == 1)
        #expect(abs((done.first?.endT ?? 0) - 105) < 1e-9)
    }

    /// A held step's boundary lies in the step's own time, from its start (the fix before it).
    @Test func aLongHeldStepIsSharedFromItsStart() {
        var laps = LapCounter(autoLapM: 1000)
        laps.update(LapProgress(t: 0))
        laps.update(LapProgress(t: 100, distanceM: 990, elapsedS: 100))
        laps.update(LapProgress(t: 130, distanceM: 990, elapsedS: 130))
        var steps = CreditedSteps()
        steps.append(t: 120, d: 20, from: 100)   // (a 20 s step, held)
        var done: [Lap] = []
        laps.credit(20, steps: steps, elapsedAt: { $0 }, into: &done)
        #expect(done.count == 1)
        #expect(abs((done.first?.endT ?? 0) - 110) < 1e-9, "cut at \(done.map(\.endT))")
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

/// A step the laps have not reached yet (it ended after their latest update) is theirs to share
/// over its time when it is paid out with the held steps: the stillness detector confirms the
/// movement with the very step that showed it.
@Suite("Auto laps in a held step after the laps' latest update")
struct HeldStepAfterTheLapsTests {
    /// A runner stands 40 s, then sets off during a 25 s silence (shorter than gap_s: one step
    /// of 87.5 m), and runs on at 3.5 m/s; auto laps every 30 m. The laps in that step end
    /// inside it, at its pace, not all at the time the runner began to stand.
    @Test func theLapsInTheStepThatConfirmedTheMovementEndInsideIt() throws {
        var c = Driver.config()
        c.autoLapM = 30
        var d = Driver(c)
        try d.phase(.start, 0)
        var north = 0.0
        for i in 0...20 { north = 3.5 * Double(i); try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: 3.5, hAcc: 5) }
        for i in 21...60 { try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: 0, hAcc: 5) }
        for i in 85...120 {
            try d.fix(Double(i), 52 + degreesNorth(north + 3.5 * Double(i - 60)), 4, speed: 3.5, hAcc: 5)
        }
        try d.phase(.stop, 120)
        let laps = d.core.laps.laps
        #expect(laps.contains { $0.endT > 60 && $0.endT < 85 }, "no lap ends in the step: \(laps.map { ($0.startT, $0.endT) })")
        for l in laps where l.distanceM > 1 {
            #expect(l.distanceM / l.elapsedS < c.speedCapMps, "lap \(l.index): \(l.distanceM) m in \(l.elapsedS) s (\(l.startT)–\(l.endT))")
        }
    }
}
