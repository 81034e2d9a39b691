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

/// The altitude a route point carries: the one the flight's gain is measured on at its time
/// (`ElevationTracker`'s source then), given by the route recorder as it keeps the point
/// (`RouteRecorder.altitudes`): read where the composer builds a point, it made the composer's
/// call copy the whole composer on every fix (a memcpy of about 550 instructions).
struct PointAltitudes: Sendable {
    let fixAltitude: ElevationTracker.Source
    /// How long an altimeter sample keeps GPS altitudes ignored (`ElevationTracker.baroPreferenceS`).
    let windowS: Double
    /// How far back the samples are kept, seconds: a point is kept up to this long after its time
    /// (a fix held, `RouteRecorder.hold`; a speed sensor's backlog, paid out when positions have
    /// been silent for `gap_s`; a leg's end). At most `maxSamples` of them.
    let keptS: Double
    static let maxSamples = 4096

    /// The altimeter samples taken (in cruise) in the last `keptS`, in time order, from `head`.
    private var samples: [(t: Double, alt: Double)] = []
    private var head = 0
    /// The time of the first altimeter sample taken (NaN: none).
    private(set) var firstT = Double.nan

    init(fixAltitude: ElevationTracker.Source, windowS: Double, keptS: Double = 0) {
        self.fixAltitude = fixAltitude
        self.windowS = windowS
        self.keptS = max(windowS, keptS + windowS)
    }

    /// An altimeter sample the tracker took.
    mutating func barometric(alt: Double, at t: Double) {
        guard alt.isFinite, t.isFinite, !(t < samples.last?.t ?? -.infinity) else { return }   // (as the tracker skips them)
        if firstT.isNaN { firstT = t }
        samples.append((t, alt))
        while head < samples.count - 1, samples[head].t < t - keptS || samples.count - head > Self.maxSamples { head += 1 }
        if head > 64 && head * 2 > samples.count {
            samples.removeFirst(head)
            head = 0
        }
    }

    /// Where the flight's altitudes come from, as its exports say: barometric when the fixes'
    /// are (`fixAltitude`) or an altimeter sample was taken, else GPS.
    var source: ElevationTracker.Source {
        fixAltitude == .barometric || !firstT.isNaN ? .barometric : .gps
    }

    /// The time from which the route points' altitudes are of `source`: before the first
    /// altimeter sample of a flight whose fixes' altitudes are GPS ones, the points carry those.
    var sourceFromT: Double {
        fixAltitude == .gps && !firstT.isNaN ? firstT : -.infinity
    }

    /// The altitude a route point at `t` carries, `fixAlt` its fix's (NaN: none): a barometric
    /// fix's own; else while the latest altimeter sample at or before `t` is at most `windowS`
    /// old (the tracker ignored GPS altitudes then), that sample's; else the fix's GPS altitude,
    /// unless an altimeter sample was taken before (the flight's altitudes are then barometric,
    /// `source`: a GPS one among them would be read as the barometer's level).
    @inline(__always)
    func altitude(_ fixAlt: Double, at t: Double) -> Double {
        if fixAltitude == .barometric && fixAlt.isFinite { return fixAlt }
        if let s = sample(atOrBefore: t), t - s.t <= windowS { return s.alt }
        return firstT.isNaN ? fixAlt : .nan
    }

    /// The latest sample kept at or before `t` (nil: none).
    private func sample(atOrBefore t: Double) -> (t: Double, alt: Double)? {
        guard let last = samples.last else { return nil }
        if t >= last.t { return last }   // (nearly always: a point is kept at its fix)
        var lo = head, hi = samples.count - 1   // (the first with a later time is in lo...hi)
        while lo < hi {
            let mid = (lo + hi) / 2
            if samples[mid].t > t { hi = mid } else { lo = mid + 1 }
        }
        return lo > head ? samples[lo - 1] : nil
    }
}
