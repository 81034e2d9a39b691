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
