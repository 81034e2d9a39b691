#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import RunwayCore
import RunwaySim

/// The start lag through the whole engine, over the tuning and the held-back trials (issue #19).
@Suite("Start lag (issue #19)")
struct DistanceCheckTests {
    static let trials = SimTrials.tuning + SimTrials.heldBack

    @Test func aCleanStraightTrackWithoutDopplerMeasuresItsWGS84LengthFromTheFirstFix() throws {
        // 601 noise-free fixes at 1 Hz, at each trial's place, on a bearing and at a speed of
        // its own (walk to fast ride): within 0.05% of the sum of the WGS84 geodesics.
        for (i, trial) in Self.trials.enumerated() {
            let v = [2.0, 3.3, 5.0, 8.0][i % 4], bearing = Double(i) * 47 * Double.pi / 180
            var d = Driver(EngineConfig(activity: v > 6 ? .ride : .run))
            try d.phase(.start, 0)
            var truth = 0.0, previous: (lat: Double, lon: Double)? = nil
            for k in 0...600 {
                let s = v * Double(k)
                let p = WGS84.offset(lat: trial.lat, lon: trial.lon, east: s * sin(bearing), north: s * cos(bearing))
                if let q = previous { truth += WGS84.distance(lat1: q.lat, lon1: q.lon, lat2: p.lat, lon2: p.lon) }
                previous = p
                try d.fix(Double(k), p.lat, p.lon)
            }
            let e = relativeError(d.core.distance, truth)
            #expect(abs(e) < 0.0005, "\(trial), \(v) m/s: \(d.core.distance) m against \(truth) m (\(e * 100)%)")
        }
    }
}

extension SimTrial {
    func config(with tweak: (inout SimConfig) -> Void) -> SimConfig {
        var c = config()
        tweak(&c)
        return c
    }
}
