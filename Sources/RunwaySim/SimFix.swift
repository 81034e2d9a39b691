/// One simulated fix: what the receiver reports, beside the truth it was made from.
///
/// Measured fields use NaN for "not reported" (an excluded field, or a course at low speed),
/// as librunway does.
public struct SimFix: Sendable {
    /// Time, seconds since 1970.
    public var t: Double
    /// Reported position, degrees (longitude in -180 ..< 180).
    public var lat: Double, lon: Double
    /// Reported altitude, metres (NaN when excluded).
    public var alt: Double
    /// Reported Doppler speed, m/s (NaN when excluded).
    public var speed: Double
    /// Reported course, degrees clockwise from north (NaN when excluded or below 0.5 m/s).
    public var course: Double
    /// Reported horizontal accuracy, metres: about the error's σ per axis (NaN when excluded).
    public var hAcc: Double
    /// Reported vertical accuracy, metres: the altitude error's σ (NaN unless
    /// `SimConfig.includeVerticalAccuracy`).
    public var vAcc: Double = .nan
    /// The true position and altitude.
    public var trueLat: Double, trueLon: Double, trueAlt: Double
    /// Cumulative geodesic distance along the true path up to this fix, metres: the sum of
    /// WGS84 geodesics between consecutive true positions, so the last fix's value is
    /// `SimRun.truthDistanceM`.
    public var trueDistanceM: Double
    /// The simulator's own distance coordinate along the planned path, metres (equal to
    /// `trueDistanceM` up to the small cut where a 1 Hz chord crosses a rounded corner, and the
    /// local-scale projection's parts per million). A stop's fixes have exactly its distance.
    public var truePathM: Double
    /// True speed, m/s (exactly 0 while standing).
    public var trueSpeedMps: Double
    /// Whether the runner is moving at this instant (true speed above 0).
    public var isMoving: Bool
}
