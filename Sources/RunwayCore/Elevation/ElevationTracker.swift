#if canImport(Glibc)
import Glibc
#endif

/// Elevation gain and loss, grade and vertical speed from GPS or barometric altitudes.
///
/// Raw GPS altitude is noisy (σ of several metres at 1 Hz); summing every rise of a raw series
/// reads a flat road as hundreds of metres of climbing. The tracker therefore:
///
/// 1. picks one **source**: a barometric sample (`"type":"altimeter"`) seen within
///    `baroPreferenceS` makes GPS altitudes ignored; without one, GPS altitude is used;
/// 2. **smooths** it with an exponentially weighted mean of time constant `smoothingWindowS`: a
///    sample `Δt` seconds old weighs `exp(−Δt/window)`, normalised by the sum of the weights, so
///    the first samples are simply averaged (no start-up bias toward the first, noisy one) and
///    irregular intervals are handled by time, not by count;
///    (this smoothed altitude is the one shown, and behind grade and vertical speed);
/// 3. counts **gain and loss from extreme to extreme** (`ClimbCounter`): the turns on a trailing
///    box mean of the altitude whose length is set by how far the source is trusted, each
///    extreme's level on the middle 80 % of that window, averaged over the stretch round the
///    extreme that the altitude's measured noise explains: a climb from the last valley to the
///    next peak counts whole once it exceeds the threshold. GPS altitude wanders
///    (σ 3 m over a minute or more), so it is averaged over `gpsWindowS` (300 s) scaled by the
///    fix's stated vertical accuracy against 3 m (`v_acc`; 3 m when absent, at most twice
///    that), with a threshold of twice `hysteresisM` scaled alike (6 m at 3 m; never under a
///    third of `hysteresisM`); a barometric altitude is averaged over 60 m of distance or 60 s,
///    whichever is shorter, with a third of `hysteresisM` (1 m). The means lag by half their
///    window, and so does the gain of a climb in progress; `settle()` (at the stop) counts
///    the last half window on shorter and shorter means, down to the last tenth of the window,
///    and then measures the climb in progress to the smoothed altitude below, which lags less.
///
/// A missing altitude (NaN) is skipped entirely: it is never read as 0 m and changes nothing.
/// When the source changes (barometer appears, or falls silent for longer than
/// `baroPreferenceS`), the two sources' offset must not count as a climb: the smoothing,
/// the climb counter's window and climb in progress, and the grade and vertical-speed histories restart from the new
/// source's first sample. `altitudeM` then reports the new source. `minAltitudeM` and
/// `maxAltitudeM` never mix the sources' levels: they are the barometric extremes once any
/// barometric altitude was used, the GPS extremes before.
///
/// ```swift
/// var e = ElevationTracker()
/// e.addGPS(alt: 12.0, t: 1_700_000_000, distanceM: 0)
/// e.addGPS(alt: .nan, t: 1_700_000_001, distanceM: 3)   // missing: skipped
/// print(e.gainM, e.altitudeM, e.gradePct)
/// ```
///
/// A plain value: no clock, no threads; samples must come in time order (an earlier one than
/// the latest accepted sample is ignored).
public struct ElevationTracker: Sendable {
    /// Where the altitude in use comes from.
    public enum Source: String, Sendable {
        case gps
        case barometric
    }

    /// The smallest climb or descent of GPS altitude, in metres, that counts as gain or loss (a
    /// third of it for a barometric altitude).
    public let hysteresisM: Double
    /// The time constant of the smoothing, in seconds (0: no smoothing).
    ///
    /// Against white noise an exponential mean of time constant τ at 1 Hz reduces σ by about
    /// √(2τ) (σ 3 m → 0.7 m for 10 s), as a moving average over 2τ would, lagging the terrain by
    /// about τ (which leaves the grade and vertical speed of a steady slope unchanged).
    public let smoothingWindowS: Double
    /// How long, in seconds, a barometric sample keeps GPS altitudes ignored.
    public let baroPreferenceS: Double
    /// The horizontal stretch, in metres, that `gradePct` spans at least (10 m by default).
    public let gradeStretchM: Double
    /// The span, in seconds, of the altitude change behind `verticalSpeedMps` (10 s by default).
    public let verticalSpeedWindowS: Double

    /// The GPS altitude's averaging window for gain and loss, seconds, at a vertical accuracy of 3 m.
    public static let gpsWindowS = 300.0
    /// The vertical accuracy (m) that `gpsWindowS` is for, assumed when a fix states none.
    public static let gpsVerticalAccuracyM = 3.0
    /// A barometric altitude's averaging window for gain and loss: metres of distance, seconds.
    public static let barometricWindowM = 60.0, barometricWindowS = 60.0

    /// Total climb, metres: from valley to peak, each climb that exceeded the threshold.
    public var gainM: Double { climbs.gainM }
    /// Total descent, metres: from peak to valley, likewise.
    public var lossM: Double { climbs.lossM }
    /// The smoothed current altitude, metres; NaN before any altitude.
    public private(set) var altitudeM = Double.nan
    /// The lowest smoothed altitude so far, metres, of the barometer when it was used, else of
    /// GPS; NaN before any.
    public var minAltitudeM: Double { baroExtremes.min.isNaN ? gpsExtremes.min : baroExtremes.min }
    /// The highest smoothed altitude so far, metres, of the barometer when it was used, else of
    /// GPS; NaN before any.
    public var maxAltitudeM: Double { baroExtremes.min.isNaN ? gpsExtremes.max : baroExtremes.max }
    /// The source of the altitude in use; nil before any.
    public private(set) var source: Source? = nil

    /// Exponentially decayed sums of altitude·weight and of weight since the source began.
    private var weightedSum = 0.0
    private var weight = 0.0
    private var climbs = ClimbCounter()
    private var gpsExtremes = Extremes()
    private var baroExtremes = Extremes()
    private var lastBaroT = -Double.infinity
    private var lastT = -Double.infinity
    /// The smoothing's weight of the last interval between samples, and that interval (s).
    private var decayDt = Double.nan, decayForDt = 0.0
    /// The trust in GPS altitude the climb counter was last configured for (its bits: the
    /// settings are a function of them), from the fix's vertical accuracy; −∞ (no trust a fix
    /// gives) before any and since a barometric sample configured it.
    private var configuredTrust = -Double.infinity
    private var byDistance: Trail
    private var byTime: Trail

    /// Creates a tracker.
    ///
    /// - Parameters:
    ///   - hysteresisM: the smallest counted rise or fall, metres (default 3).
    ///   - smoothingWindowS: the smoothing time constant, seconds (default 10).
    ///   - baroPreferenceS: how long a barometric sample keeps GPS altitudes ignored (default 10).
    ///   - gradeStretchM: the least horizontal distance behind `gradePct` (default 10).
    ///   - verticalSpeedWindowS: the span behind `verticalSpeedMps` (default 10).
    ///
    /// A negative or non-finite setting falls back to its default.
    public init(hysteresisM: Double = 3, smoothingWindowS: Double = 10, baroPreferenceS: Double = 10,
                gradeStretchM: Double = 10, verticalSpeedWindowS: Double = 10) {
        func setting(_ v: Double, _ fallback: Double, positive: Bool = false) -> Double {
            guard v.isFinite, v >= 0, !(positive && v == 0) else { return fallback }
            return v
        }
        self.hysteresisM = setting(hysteresisM, 3)
        self.smoothingWindowS = setting(smoothingWindowS, 10)
        self.baroPreferenceS = setting(baroPreferenceS, 10)
        self.gradeStretchM = setting(gradeStretchM, 10, positive: true)
        self.verticalSpeedWindowS = setting(verticalSpeedWindowS, 10, positive: true)
        byDistance = Trail(spacing: self.gradeStretchM / 20)
        byTime = Trail(spacing: self.verticalSpeedWindowS / 20)
    }

    // MARK: - Inputs

    /// Adds a GPS altitude.
    ///
    /// - Parameters:
    ///   - alt: metres; NaN (missing) is skipped entirely, never read as 0.
    ///   - t: the fix's time, seconds.
    ///   - distanceM: cumulative horizontal distance at `t`, metres (for the grade).
    ///
    ///   - vAcc: the fix's vertical accuracy, metres (NaN: unknown, taken as 3 m).
    ///
    /// Ignored while a barometric sample is at most `baroPreferenceS` old.
    @inline(__always)
    public mutating func addGPS(alt: Double, t: Double, distanceM: Double, vAcc: Double = .nan) {
        guard alt.isFinite, t.isFinite, t >= lastT else { return }
        if t - lastBaroT <= baroPreferenceS { return }
        // (The same trust, the same settings: every vertical accuracy of 6 m or more is trusted alike.)
        let trust = vAcc >= 0 ? min(vAcc / Self.gpsVerticalAccuracyM, 2) : 1   // NaN fails: 1
        if trust.bitPattern != configuredTrust.bitPattern {   // (a barometric sample resets it: see there)
            configuredTrust = trust
            climbs.configure(windowS: Self.gpsWindowS * trust, windowM: .infinity,
                             thresholdM: max(hysteresisM / 3, 2 * hysteresisM * trust))
        }
        ingest(alt: alt, t: t, distanceM: distanceM, from: .gps)
    }

    /// Adds a barometric altitude, preferred over GPS altitude while it keeps coming.
    ///
    /// - Parameters:
    ///   - alt: metres; NaN is skipped.
    ///   - t: the sample's time, seconds.
    ///   - distanceM: cumulative horizontal distance at `t`, metres (for the grade).
    public mutating func addBarometric(alt: Double, t: Double, distanceM: Double) {
        guard alt.isFinite, t.isFinite, t >= lastT else { return }
        lastBaroT = t
        climbs.configure(windowS: Self.barometricWindowS, windowM: Self.barometricWindowM, thresholdM: hysteresisM / 3)
        // The next GPS altitude configures the counter for GPS again (a source that is not GPS
        // has been configured by this, and only this, since the GPS settings were).
        configuredTrust = -.infinity
        ingest(alt: alt, t: t, distanceM: distanceM, from: .barometric)
    }

    /// Starts the smoothing, gain and loss, grade and vertical speed over from the next altitude,
    /// as on a change of source, when `from` is the source in use: its altitude jumped to a new
    /// level (a settling GPS receiver, re-anchored by the engine's altitude gate), and the jump
    /// is no climb. The extremes of that source start over too: the old level was the outlier.
    public mutating func rebase(_ from: Source) {
        guard source == from else { return }
        restart(with: from)
        switch from {
        case .gps: gpsExtremes = Extremes()
        case .barometric: baroExtremes = Extremes()
        }
    }

    /// Counts the end of the flight, which the window's mean has not reached: it lags by half its
    /// window (150 s for GPS), so at the stop the last climb under way, or its last part, would
    /// be missing. The last half window is counted on means over fewer and fewer of its newest
    /// samples (down to a tenth of the window), then the climb or descent in progress is
    /// measured to the latest smoothed altitude (`altitudeM`) when that is further. Gain and loss
    /// only grow. For the end of a flight: a later sample is counted on the full window again.
    public mutating func settle() { climbs.settle() }

    /// Ends the stretch of track that grade and vertical speed are measured over: the next
    /// altitude starts their histories anew, while the smoothing and the gain and loss go on.
    ///
    /// A new segment of track (the start, a resume, a gap in the fixes) joins two places with no
    /// measured path between them: a rider auto-paused for 20 minutes whose barometer reads 34 m
    /// higher on setting off has climbed no 111 % slope over the first 30 m after it.
    public mutating func breakStretch() {
        byTime.clear()
        byDistance.clear()
    }

    // MARK: - Derived values

    /// The grade in percent, 100·Δaltitude/Δdistance of the smoothed altitude over the most recent
    /// stretch of at least `gradeStretchM` horizontal metres; NaN until such a stretch exists.
    public var gradePct: Double {
        guard let tip = byDistance.tip, let ref = byDistance.reference(span: gradeStretchM) else { return .nan }
        let run = tip.x - ref.x
        guard run > 0 else { return .nan }
        return 100 * (tip.y - ref.y) / run
    }

    /// The vertical speed in m/s, Δaltitude/Δt of the smoothed altitude over about the last
    /// `verticalSpeedWindowS` seconds (over what there is when less); NaN before two points.
    public var verticalSpeedMps: Double {
        guard let tip = byTime.tip else { return .nan }
        guard let ref = byTime.reference(span: verticalSpeedWindowS) ?? byTime.oldest else { return .nan }
        let dt = tip.x - ref.x
        guard dt > 0 else { return .nan }
        return (tip.y - ref.y) / dt
    }

    // MARK: - Internals

    @inline(__always)
    private mutating func ingest(alt: Double, t: Double, distanceM: Double, from newSource: Source) {
        if source != newSource { restart(with: newSource) }
        var decay = 0.0
        if weight > 0 && smoothingWindowS > 0 {
            // Fixes mostly come at one interval: the weight of that interval is kept, not
            // recomputed (the same exp of the same argument).
            let dt = t - lastT
            if dt != decayDt {
                decayDt = dt
                decayForDt = exp(-dt / smoothingWindowS)
            }
            decay = decayForDt
        }
        lastT = t
        weightedSum = weightedSum * decay + alt
        weight = weight * decay + 1
        let smoothed = weightedSum / weight

        altitudeM = smoothed
        switch newSource {
        case .gps: gpsExtremes.add(smoothed)
        case .barometric: baroExtremes.add(smoothed)
        }

        climbs.add(alt: alt, t: t, distanceM: distanceM, latest: smoothed)

        byTime.push(x: t, y: smoothed, keepingSpan: verticalSpeedWindowS)
        if distanceM.isFinite {
            byDistance.push(x: distanceM, y: smoothed, keepingSpan: gradeStretchM)
        }
    }

    private struct Extremes: Sendable {
        var min = Double.nan
        var max = Double.nan
        mutating func add(_ v: Double) {
            if !(v >= min) { min = v }
            if !(v <= max) { max = v }
        }
    }

    /// Starts over on a new source: its offset from the old one is no climb, no grade, no speed.
    private mutating func restart(with newSource: Source) {
        source = newSource
        weightedSum = 0
        weight = 0
        climbs.restart()
        byTime.clear()
        byDistance.clear()
    }

    /// A short history of (x, altitude) with x non-decreasing (time or distance), holding just
    /// enough points to find the newest one at least `span` behind the tip.
    ///
    /// Points other than the tip are at least `spacing` apart, so the history stays small however
    /// often samples come: a new point replaces the tip while the tip is closer than `spacing` to
    /// the point before it.
    struct Trail: Sendable {
        struct Point: Sendable, Equatable {
            var x: Double
            var y: Double
        }

        /// Room for the history: points are kept at least `spacing` (a twentieth of the span)
        /// apart but for the tip, and only one is kept a whole span behind it, so a history holds
        /// at most 23 points; should it ever fill, the oldest goes.
        static let capacity = 32
        let spacing: Double
        /// The history, oldest first, in a ring (`start`, `count`) held inline: a push allocates
        /// nothing, moves no other point and has no buffer to check the uniqueness of (an index
        /// masked to the capacity needs no bounds check either). Only `push` reads it, in place:
        /// what the readings need of it, its oldest point and its tip, are kept beside it (a
        /// reading of the ring outside a mutating method copies the whole ring).
        private var ring = InlineArray<32, Point>(repeating: Point(x: 0, y: 0))   // (32: `capacity`)
        private var start = 0, count = 0
        /// The oldest point and the tip (while `count` > 0).
        private var first = Point(x: 0, y: 0), last = Point(x: 0, y: 0)
        /// The x of the point before the tip (while `count` ≥ 2), which every push compares the
        /// tip's with: kept as a push appends (the old tip's), not read from the ring. Neither a
        /// new tip in the tip's place nor a drop of the oldest (of 3 or more) changes it.
        private var beforeTipX = 0.0

        init(spacing: Double) { self.spacing = spacing }

        /// Where the `i`th point of the history, oldest first, lies in the ring.
        @inline(__always)
        private func slot(_ i: Int) -> Int { (start &+ i) & (Trail.capacity - 1) }

        var tip: Point? { count > 0 ? last : nil }
        var oldest: Point? { count >= 2 ? first : nil }

        mutating func clear() { count = 0 }

        private mutating func dropOldest() {
            start = (start &+ 1) & (Trail.capacity - 1)
            count -= 1
        }

        @inline(__always)
        private mutating func append(_ p: Point) {
            if count == Trail.capacity { dropOldest() }
            ring[slot(count)] = p
            count += 1
        }

        @inline(__always)
        mutating func push(x: Double, y: Double, keepingSpan span: Double) {
            let p = Point(x: x, y: y)
            defer { first = ring[slot(0)]; last = p }   // (the tip is `p` whichever way it went)
            guard count > 0, !(x < last.x) else {   // the first point, or x went back: a new history
                clear()
                append(p)
                return
            }
            if count >= 2, last.x - beforeTipX < spacing {
                ring[slot(count - 1)] = p
            } else {
                beforeTipX = last.x
                append(p)
            }
            // Drop points older than the newest one that is still `span` behind the tip.
            while count >= 3, x - ring[slot(1)].x >= span { dropOldest() }
        }

        /// The newest point at least `span` behind the tip, if any.
        func reference(span: Double) -> Point? {
            guard let tip, tip.x - first.x >= span else { return nil }   // (a tip: count > 0)
            return first
        }
    }
}
