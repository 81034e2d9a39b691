import Testing
@testable import RunwaySim
#if canImport(Glibc)
import Glibc
#endif

// Helpers of the simulator tests (SimulatorTests.swift, WGS84Tests.swift).

/// Every number of a run, as bit patterns (so NaN equals NaN), for exact comparisons.
func fingerprint(_ fix: SimFix) -> [UInt64] {
    [fix.t, fix.lat, fix.lon, fix.alt, fix.speed, fix.course, fix.hAcc, fix.trueLat, fix.trueLon,
     fix.trueAlt, fix.trueDistanceM, fix.truePathM, fix.trueSpeedMps].map(\.bitPattern) + [fix.isMoving ? 1 : 0]
}

func fingerprint(_ run: SimRun) -> [UInt64] {
    run.fixes.flatMap(fingerprint)
        + [run.truthDistanceM, run.truthMovingS, run.truthElapsedS, run.truthGainM, run.truthLossM].map(\.bitPattern)
}

/// The receiver's error at a fix, metres east and north of the true position (measured with
/// the geodesic, independently of how the simulator applied it).
func error(of fix: SimFix) -> (east: Double, north: Double) {
    let g = WGS84.inverse(lat1: fix.trueLat, lon1: fix.trueLon, lat2: fix.lat, lon2: fix.lon)
    let az = g.azimuth * Double.pi / 180
    return (g.distance * sin(az), g.distance * cos(az))
}

func mean(_ xs: [Double]) -> Double { xs.reduce(0, +) / Double(max(xs.count, 1)) }

func standardDeviation(_ xs: [Double]) -> Double {
    let m = mean(xs)
    return (xs.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(max(xs.count - 1, 1))).squareRoot()
}

/// Sample autocorrelation at a lag (in samples).
func autocorrelation(_ xs: [Double], lag: Int) -> Double {
    let m = mean(xs)
    var num = 0.0, den = 0.0
    for i in xs.indices {
        den += (xs[i] - m) * (xs[i] - m)
        if i + lag < xs.count { num += (xs[i] - m) * (xs[i + lag] - m) }
    }
    return num / den
}

func config(_ change: (inout SimConfig) -> Void) -> SimConfig {
    var c = SimConfig()
    change(&c)
    return c
}

/// Relative difference.
func relative(_ x: Double, to reference: Double) -> Double { abs(x - reference) / reference }
