/// Decides which fixes are believable enough to count, before any distance is measured.
///
/// Filtered (the input was valid, so the call still succeeds; the fix just does not count):
/// accuracy worse than the gate, exactly (0,0), an implied speed above the profile's cap from the
/// last accepted fix, or the same timestamp as the last accepted fix. A gap without fixes longer
/// than `gapS`, or a jump longer than `jumpM`, goes to the gap stage (its line waits for the next
/// fix to bear it out). It starts a new route segment unless it came in the recorder's own rhythm
/// (`gapInRhythm`: a recorder giving one fix every 30 or 60 s, whose every step is such a gap).
///
/// The gate never locks itself out: when the fix it compares against was the bad one (a junk
/// first fix, a spike that slipped through), `reanchorCount` mutually consistent fixes in a row
/// re-anchor it, and the jump to them starts a new segment without adding distance.
public struct FixGate: Sendable {
    public struct Settings: Sendable, Equatable {
        public var maxHAccM: Double = 50
        public var speedCapMps: Double = 12
        public var gapS: Double = 30
        public var jumpM: Double = 200
        public var reanchorCount: Int = 3
        /// Seconds of continuously bad accuracy before the reduced-accuracy warning.
        public var warnAfterS: Double = 10
        public init() {}
    }

    public enum Reason: String, Sendable, CaseIterable {
        case accuracy, nullIsland = "null_island", speed, repeatedTime = "repeated_time"
    }

    public enum Verdict: Sendable, Equatable {
        /// Count it. `newSegment`: a gap or jump precedes it; `reanchored`: the previous anchor was
        /// judged bad (its jump must not add distance).
        case accept(newSegment: Bool, reanchored: Bool)
        case filtered(Reason)
    }

    public let settings: Settings
    /// The last accepted fix.
    public private(set) var anchor: (lat: Double, lon: Double, t: Double)?
    /// Recent fixes refused for speed, kept while they agree with each other.
    var candidates: [(lat: Double, lon: Double, t: Double)] = []
    /// Since when accuracy has been worse than the gate (NaN: it is fine).
    var badAccuracySince = Double.nan
    /// Whether the reduced-accuracy warning is raised (for this episode).
    public private(set) var warned = false
    /// The recorder's interval between fixes (every fix's time is heard, after it is judged).
    public var cadence: FixCadence
    /// Whether the last gap or jump accepted came within the recorder's rhythm (`FixCadence`:
    /// no longer than three of its intervals): an ordinary step of a sparse recorder, whose line
    /// is the route's and counts, not a break in it.
    public private(set) var gapInRhythm = false
    /// The offset from the anchor to the fix that `judge` last measured it against (the route
    /// measures the same step from its last kept point, mostly that anchor: `RouteRecorder.due`).
    private(set) var measured = Geodesy.Measured()

    public init(settings: Settings = Settings()) {
        self.settings = settings
        cadence = FixCadence(gapS: settings.gapS)
    }

    /// Judges one fix at time `t` (its own time, already resolved).
    @inline(__always)
    public mutating func assess(_ fix: Fix, at t: Double) -> Verdict {
        let verdict = judge(fix, at: t)
        // A fix without h_acc that counts ends a spell of bad accuracy as a good one does.
        if case .accept = verdict, fix.hAcc.isNaN { badAccuracySince = .nan; warned = false }
        return verdict
    }

    @inline(__always)
    mutating func judge(_ fix: Fix, at t: Double) -> Verdict {
        if fix.lat == 0 && fix.lon == 0 { return .filtered(.nullIsland) }
        if !fix.hAcc.isNaN && fix.hAcc > settings.maxHAccM {
            if badAccuracySince.isNaN { badAccuracySince = t }
            return .filtered(.accuracy)
        }
        if !fix.hAcc.isNaN { badAccuracySince = .nan; warned = false }
        guard let a = anchor else {
            anchor = (fix.lat, fix.lon, t)
            return .accept(newSegment: false, reanchored: false)
        }
        if t == a.t { return .filtered(.repeatedTime) }
        let dt = t - a.t
        if dt > settings.gapS {
            gapInRhythm = !cadence.isSilence(afterS: dt)
            accept(fix, t)
            return .accept(newSegment: true, reanchored: false)
        }
        let o = Geodesy.offset(lat1: a.lat, lon1: a.lon, lat2: fix.lat, lon2: fix.lon)
        measured = Geodesy.Measured(lat1: a.lat, lon1: a.lon, lat2: fix.lat, lon2: fix.lon, offset: o)
        let d = Geodesy.length(o)
        if d > settings.speedCapMps * dt {
            if reanchors(with: fix, at: t) {
                gapInRhythm = false
                accept(fix, t)
                return .accept(newSegment: true, reanchored: true)
            }
            return .filtered(.speed)
        }
        accept(fix, t)
        let jump = d > settings.jumpM
        if jump { gapInRhythm = !cadence.isSilence(afterS: dt) }
        return .accept(newSegment: jump, reanchored: false)
    }

    /// Whether the reduced-accuracy warning should be raised now (once per episode).
    public mutating func accuracyWarningDue(at t: Double) -> Bool {
        guard !warned, !badAccuracySince.isNaN, t - badAccuracySince >= settings.warnAfterS else { return false }
        warned = true
        return true
    }

    /// Whether accuracy is currently worse than the gate.
    public var accuracyIsBad: Bool { !badAccuracySince.isNaN }

    mutating func accept(_ fix: Fix, _ t: Double) {
        anchor = (fix.lat, fix.lon, t)
        if !candidates.isEmpty { candidates.removeAll(keepingCapacity: true) }
    }

    /// Adds a fix refused for speed to the candidates; true when enough of them agree with each
    /// other to be the truth (so the anchor was the outlier).
    mutating func reanchors(with fix: Fix, at t: Double) -> Bool {
        if let last = candidates.last {
            let dt = t - last.t
            let d = Geodesy.distance(lat1: last.lat, lon1: last.lon, lat2: fix.lat, lon2: fix.lon)
            if dt <= 0 || dt > settings.gapS || d > settings.speedCapMps * dt {
                candidates.removeAll(keepingCapacity: true)   // they disagree: start over from this one
            }
        }
        candidates.append((fix.lat, fix.lon, t))
        return candidates.count >= settings.reanchorCount
    }
}
