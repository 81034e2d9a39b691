import Testing
@testable import RunwayCore

/// Which lap a speed falls in: a speed the runner went before a lap's end is that lap's, not the
/// next one's (review h94 of e297b25..0321d6f; `Odometer.noteSpeed(_:at:)` notes each speed at
/// `clock.measuredNow`, the input that measured or credited it).
@Suite("A lap's max speed is of its own time")
struct LapMaxSpeedAttributionTests {
    static let t0 = 1_700_000_000.0

    /// A 600 s run (auto-pause off, auto laps every `autoLapM`, 0: none): `second` pushes what
    /// comes in second `i`, 0 to 600; the flight is stopped at 600 s. Returns it and its splits.
    func run(autoLapM: Double, _ second: (inout Driver, Int) throws -> Void) throws -> (d: Driver, laps: [Lap]) {
        var c = EngineConfig(activity: .run)
        c.autoLapM = autoLapM
        c.autoPause.enabled = false
        var d = Driver(c)
        try d.phase(.start, Self.t0)
        for i in 0...600 { try second(&d, i) }
        try d.phase(.stop, Self.t0 + 600)
        return (d, d.events.compactMap { e -> Lap? in if case .split(let l) = e.body { return l } else { return nil } })
    }

    /// A run at 5 m/s with fixes every second; the runner pauses at 300.5 s, half a second after
    /// the last fix (the leg's end waits for the next fix: `keepLegEnd`), asks for a lap at 310 s
    /// while paused, resumes at 320 s and walks on at 1.3 m/s until 600 s. The leg before the
    /// pause (5 m/s) is credited at the first fix after the resume (321 s, `takeLegEnd`), and its
    /// average is noted then, after the first lap's end: the walked lap gets the run's speed.
    @Test func aLegsAverageCreditedAfterALapsEndIsNotTheNextLaps() throws {
        var north = 0.0
        let (d, laps) = try run(autoLapM: 0) { d, i in
            let t = Self.t0 + Double(i)
            let v = i <= 300 ? 5.0 : 1.3
            if i > 0 && (i <= 300 || i > 320) { north += v }
            if i == 300 { north += 2.5 }   // (on to the pause at 300.5 s)
            if i <= 300 || i > 320 { try d.fix(t, 52 + degreesNorth(north), 4, speed: v, hAcc: 4) }
            if i == 300 { try d.phase(.pause, t + 0.5) }
            if i == 310 { try d.core.lap(at: t, wallClock: .nan, events: &d.events) }
            if i == 320 { try d.phase(.resume, t) }
        }
        try #require(laps.map(\.trigger) == [.manual, .final], "\(laps.map { ($0.trigger, $0.endT - Self.t0) })")
        #expect(laps[0].maxSpeedMps > 4.5, "the run's lap: \(laps[0].maxSpeedMps) m/s")
        // The walked lap: nothing in it went faster than a walk.
        #expect(laps[1].maxSpeedMps < 2, "the walked lap's max speed \(laps[1].maxSpeedMps) m/s (the run's leg: \(laps[0].maxSpeedMps))")
        #expect(d.core.record.laps.map(\.maxSpeedMps) == laps.map(\.maxSpeedMps))
    }

    /// A run at 3 m/s with 1 km auto laps and fixes every second without Doppler speed (a
    /// positions-only receiver), and a 30 s GPS gap (290 s to 320 s) run at 6 m/s across the
    /// 1000 m mark (at 311.8 s). The first lap's 1000 m took 311.8 s, 3.21 m/s on average; the
    /// gap's stretch (5.96 m/s) is noted at the fix after it (320 s), in the second lap only, so
    /// the first lap's max speed is its fixes' 3.00 m/s: below its own average. (The flight's max
    /// is never below its average: each leg's average counts, `Odometer.endLeg`.)
    @Test func aLapsMaxSpeedIsNotBelowItsAverage() throws {
        var north = 0.0
        let (d, laps) = try run(autoLapM: 1000) { d, i in
            if i > 0 { north += (i > 290 && i <= 320) ? 6 : 3 }
            if i <= 290 || i >= 320 { try d.fix(Self.t0 + Double(i), 52 + degreesNorth(north), 4, hAcc: 4) }
        }
        try #require(laps.map(\.trigger) == [.auto, .final], "\(laps.map { ($0.trigger, $0.endT - Self.t0) })")
        for l in laps where l.elapsedS > 0 {
            let avg = l.distanceM / l.elapsedS
            #expect(!(l.maxSpeedMps < avg), "lap \(l.index): max \(l.maxSpeedMps) m/s below its average \(avg) m/s (\(l.distanceM) m in \(l.elapsedS) s)")
        }
        let r = d.core.record
        #expect(r.maxSpeedMps >= r.distanceM / r.elapsedS, "the flight's: \(r.maxSpeedMps), \(r.distanceM / r.elapsedS)")
    }
}
