/// What the snapshot shows of the latest fix: its position, altitude, Doppler speed, course and
/// time, whether or not the fix counted (the display follows the runner even in preflight); and
/// the speed of the latest speed sample that measured the flight where positions are silent,
/// shown in place of the fix's when later.
///
///     var shown = ShownFix()
///     shown.show(Fix(lat: 52, lon: 4, alt: .nan, speed: 3))   // the altitude before is kept
///     shown.sense(4.2, at: 1_700_000_005)                    // speedSensed: the sensor's 4.2 m/s
public struct ShownFix: Sendable, Equatable {
    public private(set) var lat = Double.nan, lon = Double.nan, alt = Double.nan
    public private(set) var speed = Double.nan, course = Double.nan
    /// The fix's time (NaN before any).
    public private(set) var t = Double.nan
    /// The latest speed sample that measured the flight: its speed and time (NaN before any).
    public private(set) var sensedMps = Double.nan, sensedT = Double.nan

    /// Whether the device's speed to show is the sensor's: its sample is later than the fix.
    public var speedSensed: Bool { !sensedT.isNaN && (t.isNaN || sensedT > t) }

    public init() {}

    mutating func show(_ fix: Fix) {
        lat = fix.lat; lon = fix.lon; course = fix.course; speed = fix.speed; t = fix.t
        if !fix.alt.isNaN { alt = fix.alt }
    }

    mutating func sense(_ mps: Double, at t: Double) {
        sensedMps = mps; sensedT = t
    }
}
