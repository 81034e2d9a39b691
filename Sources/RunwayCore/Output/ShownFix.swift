/// What the snapshot shows of the latest fix: its position, altitude, Doppler speed, course and
/// time, whether or not the fix counted (the display follows the runner even in preflight).
///
///     var shown = ShownFix()
///     shown.show(Fix(lat: 52, lon: 4, alt: .nan, speed: 3))   // the altitude before is kept
public struct ShownFix: Sendable, Equatable {
    public private(set) var lat = Double.nan, lon = Double.nan, alt = Double.nan
    public private(set) var speed = Double.nan, course = Double.nan
    /// The fix's time (NaN before any).
    public private(set) var t = Double.nan

    public init() {}

    mutating func show(_ fix: Fix) {
        lat = fix.lat; lon = fix.lon; course = fix.course; speed = fix.speed; t = fix.t
        if !fix.alt.isNaN { alt = fix.alt }
    }
}
