/// Elevation in the pipeline: GPS altitudes pass the altitude gate before the tracker, barometric
/// samples go straight to it, and a new segment of track ends the stretch that grade and vertical
/// speed are measured over.
///
///     var stage = ElevationStage(hysteresisM: 3)
///     stage.gps(alt: 12, at: 0, distanceM: 0)
///     stage.tracker.gainM
public struct ElevationStage: Sendable {
    /// Grade is taken over at least this much horizontal distance (GPS altitude is too noisy
    /// for less).
    static let gradeStretchM = 30.0
    var gate = AltitudeGate()
    public private(set) var tracker: ElevationTracker

    public init(hysteresisM: Double) {
        tracker = ElevationTracker(hysteresisM: hysteresisM, gradeStretchM: Self.gradeStretchM)
    }

    /// A fix's GPS altitude in cruise.
    mutating func gps(alt: Double, at t: Double, distanceM: Double) {
        guard gate.accepts(alt, at: t) else { return }
        if gate.reanchored { tracker.rebase(.gps) }
        tracker.addGPS(alt: alt, t: t, distanceM: distanceM)
    }

    /// A barometric sample in cruise.
    mutating func barometric(alt: Double, at t: Double, distanceM: Double) {
        tracker.addBarometric(alt: alt, t: t, distanceM: distanceM)
    }

    /// A new segment of track: no grade or vertical speed across it.
    mutating func breakStretch() { tracker.breakStretch() }
}
