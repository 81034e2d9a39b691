/// Raw accumulation (`"filters":"off"`), the measuring stage of the shorter pipeline: every
/// accurate fix at least the distance filter from the last kept point adds the geodesic to it.
///
/// It replaces the gate, the track filter and the gap stage; a fix after a gap (`FixCadence`:
/// longer than `gap_s` and than the recorder's rhythm explains) still begins a new segment of track.
///
/// A kept step is moving unless the fix's own speed says 0. Its moving time runs from the fix
/// before, or, when the step from the last kept point was covered at a walker's average speed or
/// more (`movingMps`), from that point: the fixes the distance filter left out moved too (at
/// 1 Hz and a 5 m filter a runner's every other fix), and their time is the distance's. Slower,
/// it is a standing receiver's drift that at last passed the filter, and its time is not. At a
/// leg's end the same speed tells whether the stretch to its latest fix, which the filter left
/// out, is a runner's (`measureEnd`).
///
///     let m = RawTrack(config: config).measure(fix, at: t, lastKept: kept, keptT: keptT, previousT: prev,
///                                              cadence: FixCadence(gapS: config.gapS))
///     if m.keep { /* a route point, m.step.distanceM from the last one, moving since m.movingSince */ }
public struct RawTrack: Sendable {
    /// What raw accumulation makes of one accurate fix in cruise.
    public struct Measure: Sendable, Equatable {
        public var step: Step
        /// Whether the fix becomes a route point.
        public var keep: Bool
        /// When a moving step's moving time begins (the fix before, or the last kept point).
        public var movingSince = Double.nan
    }

    let distanceFilterM: Double
    /// The least average speed from the last kept point that makes a step moving time, m/s (the
    /// standing decision's walker's speed, `StillnessDetector.Settings.movingDopplerMps`).
    let movingMps: Double

    public init(config: EngineConfig) {
        distanceFilterM = config.distanceFilterM
        movingMps = config.stillness.movingDopplerMps
    }

    /// - Parameters:
    ///   - lastKept: the last route point (nil before any in this leg), and `keptT` its time.
    ///   - previousT: the time of the fix before (nil before any).
    ///   - cadence: the recorder's rhythm, which says whether the wait since `previousT` is a gap.
    @inline(never)   // the filters-off path: kept out of the composer's fix path
    public func measure(_ fix: Fix, at t: Double, lastKept: Coordinate?, keptT: Double, previousT: Double?,
                        cadence: FixCadence) -> Measure {
        let newSegment = previousT.map { cadence.isGap(afterS: t - $0) } == true && lastKept != nil
        guard let kept = lastKept else { return Measure(step: Step(distanceM: 0, moving: false, newSegment: newSegment), keep: true) }
        let d = Geodesy.distance(lat1: kept.lat, lon1: kept.lon, lat2: fix.lat, lon2: fix.lon)
        guard d >= distanceFilterM && (d > 0 || distanceFilterM == 0) else {
            return Measure(step: Step(distanceM: 0, moving: false, newSegment: newSegment), keep: false)
        }
        let moving = previousT != nil && (fix.speed.isNaN || fix.speed > 0)
        let walked = t > keptT && d / (t - keptT) >= movingMps
        return Measure(step: Step(distanceM: d, moving: moving, newSegment: newSegment), keep: true,
                       movingSince: walked ? keptT : previousT ?? t)
    }

    /// The leg's latest fix, at `position` and time `t` with its own `speed`, when the leg ends (a
    /// pause or the stop) and the distance filter left it out: a runner the filter had not caught
    /// up with when the stretch from the last kept point was covered at a walker's average speed
    /// or more and the fix's speed does not say 0, so the step counts and the fix is kept, moving
    /// since that point; slower, a standing receiver's drift, left out as the filter leaves it out.
    public func measureEnd(at position: Coordinate, speed: Double, t: Double, lastKept: Coordinate?, keptT: Double) -> Measure {
        let none = Measure(step: Step(distanceM: 0, moving: false), keep: false)
        guard let kept = lastKept, t > keptT, speed.isNaN || speed > 0 else { return none }
        let d = Geodesy.distance(lat1: kept.lat, lon1: kept.lon, lat2: position.lat, lon2: position.lon)
        guard d > 0, d / (t - keptT) >= movingMps else { return none }
        return Measure(step: Step(distanceM: d, moving: true), keep: true, movingSince: keptT)
    }
}

/// A position, degrees.
public struct Coordinate: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public init(lat: Double, lon: Double) { self.lat = lat; self.lon = lon }
}
