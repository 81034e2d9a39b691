/// Raw accumulation (`"filters":"off"`), the measuring stage of the shorter pipeline: every
/// accurate fix at least the distance filter from the last kept point adds the geodesic to it.
///
/// It replaces the gate, the track filter and the gap stage; a fix more than `gapS` after the one
/// before still begins a new segment of track.
///
///     let m = RawTrack(config: config).measure(fix, at: t, lastKept: kept, previousT: prev)
///     if m.keep { /* a route point, m.step.distanceM from the last one */ }
public struct RawTrack: Sendable {
    /// What raw accumulation makes of one accurate fix in cruise.
    public struct Measure: Sendable, Equatable {
        public var step: Step
        /// Whether the fix becomes a route point.
        public var keep: Bool
    }

    let distanceFilterM: Double
    let gapS: Double

    public init(config: EngineConfig) {
        distanceFilterM = config.distanceFilterM
        gapS = config.gapS
    }

    /// - Parameters:
    ///   - lastKept: the last route point (nil before any in this leg).
    ///   - previousT: the time of the fix before (nil before any).
    public func measure(_ fix: Fix, at t: Double, lastKept: Coordinate?, previousT: Double?) -> Measure {
        let newSegment = previousT.map { t - $0 > gapS } == true && lastKept != nil
        guard let kept = lastKept else { return Measure(step: Step(distanceM: 0, moving: false, newSegment: newSegment), keep: true) }
        let d = Geodesy.distance(lat1: kept.lat, lon1: kept.lon, lat2: fix.lat, lon2: fix.lon)
        guard d >= distanceFilterM && (d > 0 || distanceFilterM == 0) else {
            return Measure(step: Step(distanceM: 0, moving: false, newSegment: newSegment), keep: false)
        }
        let moving = previousT != nil && (fix.speed.isNaN || fix.speed > 0)
        return Measure(step: Step(distanceM: d, moving: moving, newSegment: newSegment), keep: true)
    }
}

/// A position, degrees.
public struct Coordinate: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public init(lat: Double, lon: Double) { self.lat = lat; self.lon = lon }
}
