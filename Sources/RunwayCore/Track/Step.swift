/// What one accepted fix adds to the flight: the distance from the fix before, whether the
/// runner moved over it, and whether it starts a new segment of track (after a gap, a jump or a
/// re-anchor, when there is no measured path from the fix before).
///
/// The track filter makes one from each fix (`TrackFilter.update`), the gap stage one for the fix
/// after a gap (`GapResolver`), and raw accumulation one from the geodesic between kept points
/// (`RawTrack`). The odometer, the route, the pace window and auto-pause take it from there.
///
///     let step = Step(distanceM: 3.1, moving: true)
///     odometer.add(step, over: 1)   // distance += 3.1, moving time += 1 s
public struct Step: Sendable, Equatable {
    /// Metres added to the flight's distance.
    public var distanceM: Double
    /// Whether the time since the fix before counts as moving time.
    public var moving: Bool
    /// Whether this fix begins a new segment of track.
    public var newSegment: Bool

    public init(distanceM: Double, moving: Bool, newSegment: Bool = false) {
        self.distanceM = distanceM
        self.moving = moving
        self.newSegment = newSegment
    }

    /// The first fix of a new segment: no distance, no movement from the fix before.
    public static let segmentStart = Step(distanceM: 0, moving: false, newSegment: true)
}
