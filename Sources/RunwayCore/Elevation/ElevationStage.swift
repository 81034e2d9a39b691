/// Elevation in the pipeline: fixes' altitudes pass the altitude gate before the tracker, barometric
/// samples go straight to it, and a new segment of track ends the stretch that grade and vertical
/// speed are measured over. Fixes' altitudes are GPS altitudes unless the session says they come
/// from a barometric altimeter (`"fix_altitude":"barometric"`, as a watch's recording has them).
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
    /// Where fixes' altitudes come from.
    public let fixAltitude: ElevationTracker.Source

    public init(hysteresisM: Double, fixAltitude: ElevationTracker.Source = .gps) {
        tracker = ElevationTracker(hysteresisM: hysteresisM, gradeStretchM: Self.gradeStretchM)
        self.fixAltitude = fixAltitude
    }

    /// A fix's altitude in cruise (`vAcc` its vertical accuracy, NaN when unknown).
    @inline(__always)
    mutating func gps(alt: Double, at t: Double, distanceM: Double, vAcc: Double = .nan) {
        guard gate.accepts(alt, at: t) else { return }
        if gate.reanchored { tracker.rebase(fixAltitude) }
        switch fixAltitude {
        case .gps: tracker.addGPS(alt: alt, t: t, distanceM: distanceM, vAcc: vAcc)
        case .barometric: tracker.addBarometric(alt: alt, t: t, distanceM: distanceM)
        }
    }

    /// A barometric sample in cruise.
    mutating func barometric(alt: Double, at t: Double, distanceM: Double) {
        tracker.addBarometric(alt: alt, t: t, distanceM: distanceM)
    }

    /// The flight stops: the climb in progress is measured to the latest altitude.
    mutating func settle() { tracker.settle() }

    /// A new segment of track: no grade or vertical speed across it.
    mutating func breakStretch() { tracker.breakStretch() }
}
