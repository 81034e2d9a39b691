import Testing
@testable import RunwayCore

/// The summary's max speed: the fastest ground speed the pace window measured and the fastest
/// stretch no window measured (a credit, a step longer than the window, a leg).
@Suite("Max speed")
struct MaxSpeedTests {
    /// Fixes 15 s apart, longer than the 10 s pace window, which then holds one fix and measures
    /// nothing: each step is a stretch of its own. A minute at 3 m/s, one at 4, one at 3: the max
    /// is the fast minute's 4 m/s (before, the leg's average, 3.3).
    @Test func aSparseTracksFastestStepIsItsMax() throws {
        var d = Driver()
        let t0 = 1_700_000_000.0
        try d.phase(.start, t0)
        var north = 0.0
        for k in 0...12 {
            let v = k > 4 && k <= 8 ? 4.0 : 3.0
            if k > 0 { north += 15 * v }
            try d.fix(t0 + 15 * Double(k), 52 + degreesNorth(north), 4, speed: v, hAcc: 5)
        }
        try d.phase(.stop)
        #expect(abs(d.core.maxSpeed - 4) < 0.05, "max \(d.core.maxSpeed) m/s, average \(d.core.distance / d.core.movingS)")
    }
}

/// The audit's flights (issue: max_speed_mps below avg_speed_mps): a flight starts standing, so
/// a short one's steps are held and its distance arrives as a credit.
@Suite("Max speed of a short flight")
struct ShortFlightMaxSpeedTests {
    /// Two fixes 10 s apart at 3.3 m/s, then stopped: the step was held and the stop credited it
    /// (33 m in 10 s). Before, the max was the window's 0 m/s of the held step.
    @Test func twoFixesWithDopplerThenStopped() throws {
        var d = Driver()
        let t0 = 1_700_000_000.0
        try d.phase(.start, t0)
        try d.fix(t0, 52, 4, speed: 3.3, hAcc: 5)
        try d.fix(t0 + 10, 52 + degreesNorth(33), 4, speed: 3.3, hAcc: 5)
        try d.phase(.stop)
        #expect(abs(d.core.distance - 33) < 0.1)
        #expect(abs(d.core.maxSpeed - 3.3) < 0.01, "max \(d.core.maxSpeed) m/s")
    }

    /// Three fixes 10 s apart without a speed: all held, credited by the stop (66 m in 20 s).
    /// Before, the max was the smoothed window speed of the held steps, 1.75 m/s.
    @Test func threeFixesWithoutDopplerThenStopped() throws {
        var d = Driver()
        let t0 = 1_700_000_000.0
        try d.phase(.start, t0)
        for k in 0...2 { try d.fix(t0 + 10 * Double(k), 52 + degreesNorth(33 * Double(k)), 4, hAcc: 5) }
        try d.phase(.stop)
        let average = d.core.distance / d.core.elapsed
        #expect(abs(average - 3.3) < 0.01)
        #expect(d.core.maxSpeed >= average * (1 - 1e-9), "max \(d.core.maxSpeed) m/s, average \(average)")
    }
}

/// A dropout's line measures the runner's speed across it from two positions, each with its
/// error; the fixes' Doppler speeds at its ends do not carry that error.
@Suite("Max speed across a dropout")
struct DropoutMaxSpeedTests {
    /// A run at 3 m/s with a 40 s dropout whose fixes come back 10 m further along than the
    /// runner (the receiver's wander: they stay there): the line reads 130 m in 40 s, 3.25 m/s,
    /// between fixes whose Doppler says 3 (before: the line's average was the max, 3.25). The
    /// distance keeps the line (what the positions say); the max is the Doppler speeds', or the
    /// flight's average when that is faster (the max is never under it). Without
    /// Doppler the line is the only measure of that stretch: its average counts.
    @Test func aLineLongByItsEndsErrorIsNoFasterThanTheirDopplerSpeeds() throws {
        for doppler in [true, false] {
            var d = Driver()
            let t0 = 1_700_000_000.0
            try d.phase(.start, t0)
            for k in 0...120 where k <= 60 || k >= 100 {
                let north = 3 * Double(k) + (k >= 100 ? 10 : 0)
                try d.fix(t0 + Double(k), 52 + degreesNorth(north), 4, speed: doppler ? 3 : .nan, course: doppler ? 0 : .nan, hAcc: 5)
            }
            try d.phase(.stop)
            #expect(abs(d.core.distance - 370) < 3, "doppler \(doppler): \(d.core.distance) m")
            if doppler {
                // (The flight's average moving speed, which the max must reach, has the 10 m too.)
                let average = d.core.distance / d.core.movingS
                #expect(d.core.maxSpeed <= max(3, average) + 1e-9, "max \(d.core.maxSpeed) m/s, average \(average)")
            } else {
                #expect(d.core.maxSpeed >= 3.2, "max \(d.core.maxSpeed) m/s: the line's average")
            }
        }
    }

    /// A rider at 5 m/s who is at 8 when the fixes come back after a minute: the line is faster
    /// than the speed before it, and as fast as the one after it allows.
    @Test func aRiderWhoSpedUpInADropoutKeepsTheSpeedTheFixesAfterItMeasure() throws {
        var c = EngineConfig()
        c.activity = .ride
        var d = Driver(c)
        let t0 = 1_700_000_000.0
        try d.phase(.start, t0)
        var north = 0.0
        for k in 0...180 {
            let v = k <= 60 ? 5.0 : 8.0
            if k > 0 { north += v }
            if k <= 60 || k >= 120 { try d.fix(t0 + Double(k), 52 + degreesNorth(north), 4, speed: v, course: 0, hAcc: 5) }
        }
        try d.phase(.stop)
        #expect(abs(d.core.maxSpeed - 8) < 0.05, "max \(d.core.maxSpeed) m/s")
    }
}

extension DropoutMaxSpeedTests {
    /// A host that passes 0 m/s for every fix's speed (the track filter doubts it: the positions
    /// move on): a walk at 1.5 m/s, a 40 s dropout the runner crosses at 4 m/s, the walk again.
    /// The speed before the dropout is no Doppler speed the flight trusts, so the line counts
    /// toward the max as it does without speeds (4 m/s); capped by the doubted 0 it counted
    /// nothing, and the max was the leg's average, 1.9.
    @Test func aLineAfterADoubtedStandingSpeedCountsAsWithoutSpeeds() throws {
        var maxima: [Double] = []
        for zero in [false, true] {
            var d = Driver()
            try d.phase(.start, 0)
            var north = 0.0
            for k in 0...280 {
                let v = k > 120 && k <= 160 ? 4.0 : 1.5
                if k > 0 { north += v }
                if k > 120 && k < 160 { continue }
                try d.fix(Double(k), 52 + degreesNorth(north), 4, speed: zero ? 0 : .nan, hAcc: 5)
            }
            try d.phase(.stop, 280)
            maxima.append(d.core.maxSpeed)
        }
        #expect(maxima[0] > 3.9, "without speeds: max \(maxima[0]) m/s")
        #expect(abs(maxima[1] - maxima[0]) < 0.1, "speeds of 0: max \(maxima[1]) m/s, \(maxima[0]) without speeds")
    }
}

extension DropoutMaxSpeedTests {
    /// As `aLineLongByItsEndsErrorIsNoFasterThanTheirDopplerSpeeds`, but the runner stops the
    /// flight half a second after the fix after the dropout, before any fix confirms it: the stop
    /// credits the gap as it is (`GapResolver.flush`), and its line (130 m in 40 s, 3.25 m/s) is
    /// no faster toward the max than the Doppler speeds at its ends (3 m/s), or the flight's
    /// average, as when a fix confirms it.
    @Test func aFlushedLineIsNoFasterThanItsEndsDopplerSpeeds() throws {
        var d = Driver()
        let t0 = 1_700_000_000.0
        try d.phase(.start, t0)
        for k in 0...100 where k <= 60 || k >= 100 {
            let north = 3 * Double(k) + (k >= 100 ? 10 : 0)
            try d.fix(t0 + Double(k), 52 + degreesNorth(north), 4, speed: 3, course: 0, hAcc: 5)
        }
        try d.phase(.stop, t0 + 100.5)
        let average = d.core.distance / d.core.movingS
        #expect(abs(d.core.distance - 310) < 3, "\(d.core.distance) m")
        #expect(d.core.maxSpeed <= max(3, average) + 1e-9, "max \(d.core.maxSpeed) m/s, average \(average)")
    }
}
