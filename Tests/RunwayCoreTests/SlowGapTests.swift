import Testing
@testable import RunwayCore

/// A gap crossed slower than a walker while the stillness stage judges the runner standing:
/// its line is held with the steps while still, credited when movement is confirmed after it,
/// dropped when the runner stands on (`StillnessDetector.across`).
@Suite("A slow gap after a stand: its line waits for the standing decision")
struct SlowGapTests {
    /// Runs 120 s at 3 m/s and stands 120 s (1 Hz, ±1.5 m); the receiver then loses the sky
    /// for `gapS` seconds, in which the runner stands `standS` more and sets off at 3 m/s; the
    /// run goes on to 700 s. The line across the gap is crossed at 0.5–0.7 m/s.
    @Test(arguments: [(60.0, 50.0), (90.0, 70.0)], [true, false])
    func aRunnerWhoSetsOffInATunnelAfterALightKeepsTheLineAcrossIt(_ g: (gapS: Double, standS: Double), _ doppler: Bool) throws {
        var d = Driver(EngineConfig(activity: .run))
        var rng = SeededRandom(seed: 7)
        func noise() -> Double { 1.5 * (Double(rng.next() % 2001) / 1000 - 1) }
        let t0 = 1_700_000_000.0, setOff = 240 + g.standS
        try d.phase(.start, t0)
        var north = 0.0
        for i in 0...700 {
            let s = Double(i)
            north = s < 120 ? 3 * s : s < setOff ? 360 : 360 + 3 * (s - setOff)
            if s > 240 && s < 240 + g.gapS { continue }
            let moving = s < 120 || s >= setOff
            try d.fix(t0 + s, 52 + degreesNorth(north + noise()), 4 + degreesEast(noise()),
                      speed: doppler ? (moving ? 3 : 0.15) : .nan, hAcc: 5)
        }
        try d.phase(.stop, t0 + 700)
        // (Positions only, the receiver's noise while running adds some 15 m.)
        #expect(d.core.distance > north - 5, "\(d.core.distance) m of \(north) m")
        let route = d.core.record.route
        #expect(abs(route.distanceM(route.count - 1) - d.core.distance) < 1, "the route ends at \(route.distanceM(route.count - 1)) m")
    }

    /// A hiker climbing at 0.7 m/s with a logger that saves a fix a minute (every step a gap in
    /// its rhythm, each crossed slower than a walker): the leg starts still, and the lines
    /// before the fixes confirm movement count once they do.
    @Test func aSlowHikersSparseLoggerCountsTheLinesBeforeMovementIsConfirmed() throws {
        var d = Driver(EngineConfig(activity: .walk))
        let t0 = 1_700_000_000.0
        try d.fix(t0 - 60, 52, 4, hAcc: 5)
        try d.phase(.start, t0)
        for i in 0...60 {
            let s = Double(i) * 60
            try d.fix(t0 + s, 52 + degreesNorth(0.7 * s), 4, hAcc: 5)
        }
        try d.phase(.stop, t0 + 3600)
        #expect(abs(d.core.distance - 0.7 * 3600) < 5, "\(d.core.distance) m of \(0.7 * 3600) m")
        // Each line's time at the walker's pace (0.8 m/s: no faster one measured), within the
        // hour: the moving pace is a hiker's (before, the lines counted no time: 0 s).
        #expect(d.core.movingS > 0.99 * 0.7 * 3600 / 0.8 && d.core.movingS <= 3600, "moving \(d.core.movingS) s")
    }

    /// A walker (1.4 m/s, Doppler) whose receiver drops out for 60 s while the walk turns (north,
    /// east, south, east: its chord reads 0.7 m/s, slower than a walker): the line counts the
    /// time it takes at the walk's own pace, so the walk's average moving speed and its max stay
    /// the walker's (before, the line counted no time: the moving time 140 s, and the leg's
    /// average with its 42 m, 1.7 m/s, went to the max, faster than any Doppler speed).
    @Test func aSlowGapWhileMovingCountsItsTimeAtTheRunnersPace() throws {
        var d = Driver(EngineConfig(activity: .walk))
        let v = 1.4
        func place(_ s: Double) -> (north: Double, east: Double) {
            if s <= 100 { return (v * s, 0) }
            let u = min(s, 160) - 100   // the dropout's walk: 15 s each way
            let legs = [(0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (1.0, 0.0)]
            var p = (north: v * 100, east: 0.0)
            for (k, (e, n)) in legs.enumerated() {
                let part = min(max(u - 15 * Double(k), 0), 15)
                p.north += n * v * part
                p.east += e * v * part
            }
            return (p.north, p.east + v * max(0, s - 160))
        }
        try d.phase(.start, 0)
        for i in 0...200 where !(i > 100 && i < 160) {
            let p = place(Double(i))
            let course = i <= 100 ? 0.0 : 90.0
            try d.fix(Double(i), 52 + degreesNorth(p.north), 4 + degreesEast(p.east), speed: v, course: course, hAcc: 5)
        }
        try d.phase(.stop, 200)
        let s = d.snapshot
        #expect(d.core.maxSpeed <= v + 0.05, "max \(d.core.maxSpeed) m/s")
        #expect(s.distanceM / s.movingS <= d.core.maxSpeed + 1e-9, "average moving \(s.distanceM / s.movingS) m/s, max \(d.core.maxSpeed)")
        #expect(s.movingS > 140 + 42 / v - 2 && s.movingS <= s.elapsedS, "moving \(s.movingS) s of \(s.elapsedS)")
    }
}

extension SlowGapTests {
    /// A runner stands 60 s at the start (Doppler 0.15 m/s), walks 36 m slowly through a 60 s
    /// dropout (its line crossed at 0.6 m/s: held with the stand's steps, with its time at a
    /// walker's pace, 45 s), then sprints at 5 m/s for a few seconds and stops. The credit that
    /// confirms the sprint counts toward the max at its steps' own speed, the line left out with
    /// its time; before, the line's 45 s stayed in the stretch while its metres were left out,
    /// and the sprint read 0.2 m/s (the max then the leg's average, 1.07 m/s).
    @Test func aHeldSlowLinesTimeIsNoPartOfTheCreditsStretch() throws {
        var d = Driver(EngineConfig(activity: .run))
        var rng = SeededRandom(seed: 3)
        func noise() -> Double { 0.8 * (Double(rng.next() % 2001) / 1000 - 1) }
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(noise()), 4 + degreesEast(noise()), speed: 0.15, hAcc: 5) }
        for i in 120...123 {
            let north = 36 + 5 * Double(i - 120)
            try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: 5, course: 0, hAcc: 5)
        }
        try d.phase(.stop, 123)
        #expect(d.core.maxSpeed > 4, "max \(d.core.maxSpeed) m/s")
        #expect(d.core.maxSpeed <= 5 + 1e-9, "max \(d.core.maxSpeed) m/s")
    }
}
