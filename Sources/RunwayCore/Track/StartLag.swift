/// The distance a positions-only track filter misses while it converges after it starts, credited
/// once it has.
///
/// The filter starts at a fix with no velocity and integrates its own speed (`TrackFilter`), so
/// the first seconds, while that speed rises to the runner's, count short: about 0.9 s of running
/// on a clean track at steady speed, 2.4 s from a standing start. Its position does not lag once
/// it has converged, so the distance from the fix it started on to where it is then, less what
/// the steps added meanwhile, is what the integration missed (`take` returns it once).
///
/// Only without Doppler speed (the trapezoid of Doppler speeds does not lag), only when the
/// filter moves when it has converged (the scatter of a receiver standing still is no distance),
/// only when the whole stretch was in cruise, and never more than `maxS` seconds at the filtered
/// speed: on noisy fixes the credit is the difference of two positions' errors, so it is bounded
/// by what a lag can be.
///
///     var lag = StartLag()
///     _ = lag.take(step, fix: first, at: 0, filter: track, cruising: true)   // the origin
///     // ... 20 s later, the filter converged and moving:
///     let missed = lag.take(step, fix: fix, at: 20, filter: track, cruising: true)   // e.g. 3.0 m
public struct StartLag: Sendable {
    /// Seconds after the origin at which the filter counts as converged.
    public var settleS: Double = 20
    /// Fixes after the origin before the filter counts as converged.
    public var settleFixes = 10
    /// The most a credit can be, in seconds at the filtered speed.
    public var maxS: Double = 5
    /// Filtered speeds below this are standing still (`TrackFilter.Settings.movingSpeedMps`).
    public var movingSpeedMps: Double = 0.8

    /// Where the filter started, when, the steps' distance since and how many.
    var origin: (lat: Double, lon: Double, t: Double)? = nil
    var integratedM = 0.0
    var steps = 0
    /// Whether a credit is still possible for this start.
    var open = false

    public init() {}

    /// Takes the filter's `step` for `fix`: the distance to credit now (0 but once a start).
    /// A step that starts a segment (or the first) is a new origin.
    @inline(__always)   // called on the stored stage: no copy of it (or of the filter) a fix
    mutating func take(_ step: Step, fix: Fix, at t: Double, filter: TrackFilter, cruising: Bool) -> Double {
        guard let o = origin, !step.newSegment else {
            origin = (fix.lat, fix.lon, t)
            integratedM = 0
            steps = 0
            open = cruising && fix.speed.isNaN
            return 0
        }
        guard open else { return 0 }
        guard cruising, fix.speed.isNaN else { open = false; return 0 }
        integratedM += step.distanceM
        steps += 1
        guard t - o.t >= settleS, steps >= settleFixes else { return 0 }
        open = false
        let v = filter.speedMps
        guard v >= movingSpeedMps else { return 0 }
        let chord = Geodesy.distance(lat1: o.lat, lon1: o.lon, lat2: filter.lat, lon2: filter.lon)
        let missed = chord - integratedM
        return missed > 0 ? min(missed, v * maxS) : 0
    }
}
