import Testing
@testable import RunwayCore

/// Slow steps and slow gap lines while moving (`StillnessDetector.judgeMoving`, `across`): cases
/// whose movement must count, as guards for any rule that makes them wait for the standing
/// window (review h106 found a rule that made the logger's lines wait through every gap, and
/// the stop dropped them: 81 of 1620 m).
@Suite("Slow steps and lines while moving keep their movement")
struct SlowStepMovementTests {
    /// A hiker's sparse logger (a fix a minute, every step a gap) that records a Doppler speed:
    /// the hiker climbs at `v` m/s and the logger's speed reads `doppler`. Once movement is
    /// confirmed, every line is crossed slower than a walker; the hour's distance must count.
    @Test(arguments: [(0.45, 0.45), (0.7, 0.7), (0.7, 0.0), (0.7, 0.3)])
    func aSparseLoggerWithDopplerKeepsItsLines(_ c: (v: Double, doppler: Double)) throws {
        var d = Driver(EngineConfig(activity: .walk))
        let t0 = 1_700_000_000.0
        try d.fix(t0 - 60, 52, 4, speed: c.doppler, hAcc: 5)
        try d.phase(.start, t0)
        for i in 0...60 {
            let s = Double(i) * 60
            try d.fix(t0 + s, 52 + degreesNorth(c.v * s), 4, speed: c.doppler, hAcc: 5)
        }
        try d.phase(.stop, t0 + 3600)
        #expect(d.core.distance > 0.9 * c.v * 3600, "\(d.core.distance) m of \(c.v * 3600) m")
    }

    /// The "in any case" credit of slow steps, with no gap at all: a moving leg whose slow steps the
    /// window neither judges standing (the filter's steps average 1 m/s: laps of a tiny track)
    /// nor `slowIsMovement` calls movement (Doppler 0.3 m/s, positions within their accuracy).
    /// The window is trimmed to `windowS` (σ 4 m), so the credit must not depend on a fix landing
    /// exactly `windowS` before the latest: the same fixes with a few milliseconds of timestamp
    /// jitter are credited as on whole seconds.
    @Test(arguments: [false, true])
    func slowStepsAreWaitedOutWithJitteredTimestamps(_ jitter: Bool) {
        var det = StillnessDetector()
        det.reset(still: false)
        var rng = SeededRandom(seed: 11)
        let k = Geodesy.scales(latitude: 52)
        var credited = 0.0
        for i in 0..<120 {
            let t = Double(i) + (jitter ? Double(rng.next() % 21) / 1000 - 0.01 : 0)
            let east = Double(rng.next() % 2001) / 1000 - 1
            let fix = Fix(t: t, lat: 52, lon: 4 + east / k.kx, speed: 0.3, hAcc: 4)
            let j = det.judge(Step(distanceM: 1, moving: true), fix: fix, at: t, dt: 1)
            credited += j.step.distanceM + (j.credit?.distanceM ?? 0)
        }
        // (On whole seconds: every step 20 s old or more, 99 of 120.)
        #expect(credited >= 99, "credited \(credited) m of 120 before the leg ends")
    }
}
