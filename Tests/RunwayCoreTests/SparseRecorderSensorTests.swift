import Testing
@testable import RunwayCore

/// A sparse recorder (a fix every 40 or 60 s) with a speed sensor (a foot pod every 1 or 5 s):
/// the sensor measures where positions have been silent for `gap_s`, and each gap's line counts
/// from where the sensor left off up to the fix after it. That line is credited one fix later,
/// once the next fix confirms it; by then the sensor has measured the next silence too.
@Suite("Sparse recorders with a speed sensor")
struct SparseRecorderSensorTests {
    @Test(arguments: [40.0, 60.0], [1.0, 5.0])
    func everyStepCountsFromWhereTheSensorLeftOff(_ intervalS: Double, _ sampleS: Double) throws {
        for countGaps in [true, false] {
            var config = EngineConfig()
            config.countGaps = countGaps
            var d = Driver(config)
            let t0 = 1_700_000_000.0, mps = 3.0, end = 1200.0
            try d.fix(t0 - intervalS, 52, 4, speed: 0, hAcc: 5)   // (a fix before the start: the rhythm is known)
            try d.phase(.start, t0)
            var speeds: [Double] = []
            var s = 0.0
            while s <= end {
                if s.truncatingRemainder(dividingBy: intervalS) == 0 {
                    try d.fix(t0 + s, 52 + degreesNorth(mps * s), 4, speed: mps, hAcc: 5)
                    speeds.append(d.snapshot.groundSpeedMps)
                } else {
                    try d.core.process(.sample(.speed(mps: mps, t: t0 + s)), wallClock: .nan, events: &d.events)
                }
                s += sampleS
            }
            try d.phase(.stop, t0 + end)
            let label = "every \(Int(intervalS)) s, samples every \(Int(sampleS)) s, count_gaps \(countGaps)"
            // (Before: 3165 m of 3600 at 40 s and 5 s: each step's share after the sensor's last
            // sample was lost, and the live pace across the steps showed 2.63 m/s.)
            #expect(abs(d.core.distance / (mps * end) - 1) < 0.002, "\(label): \(d.core.distance) m of \(mps * end)")
            #expect(abs(d.core.movingS - end) < 1, "\(label): moving \(d.core.movingS) s of \(end)")
            for (i, v) in speeds.enumerated().dropFirst(2) where abs(v - mps) >= 0.01 * mps {
                Issue.record("\(label): fix \(i): ground speed \(v) m/s")
                break
            }
        }
    }
}
