/// Gaps in the fixes: a gap's distance waits until a fix confirms it, then is credited as one
/// `GapCredit`, the only thing the gap stage hands to the others.
///
/// After a gap the gate accepts any position, and a receiver's first fix after losing the sky (a
/// tunnel) is often junk. So the gap's distance waits: the next fix that agrees with the fix after
/// the gap credits it (`confirmed`); a re-anchor replaces it with the gap to the fix the gate
/// re-anchored on (`reanchored`); a phase command, a manual lap or the next gap credits it as it
/// is (`flush`, `gapEnded`). Until then the snapshot's distance leaves it out (one fix, usually),
/// and auto laps wait with it.
///
/// A gap that ends while auto-paused waits the same way, but it is `held`: credited, it is a step
/// of the hold, which counts only when the resume's fast hold began before it; a resume before
/// the credit makes it an ordinary gap then, or drops it (`resumed`).
///
/// Whether the runner moved across a gap is measured when a fix confirms it: the speed of the
/// straight line from where the runner was last known to be before the gap to that fix
/// (`GapCredit.speedAcrossMps`). Not the line to the fix after the gap: that fix may be junk, and
/// so may the next fix that agrees with it.
/// A line faster than the profile's speed cap is none: one of its ends was junk, and the gap
/// credits no distance.
///
///     var gaps = GapResolver(countGaps: true)
///     let start = gaps.gapEnded(at: fixAfter, t: 130, last: before, shownSpeed: 3, waits: true)
///     // start.step is a segment start; the gap's 300 m wait
///     let credit = gaps.confirmed(by: nextFix, at: 131)   // GapCredit(distanceM: 300, ...)
public struct GapResolver: Sendable {
    /// A gap waiting for a fix to confirm it.
    struct Pending: Sendable {
        /// The last fix before the gap, and its time.
        var lat: Double, lon: Double, lastT: Double
        /// The distance the gap adds (0 when gaps do not count).
        var d: Double
        /// Whether its line counts (`count_gaps`, or a gap in the recorder's rhythm).
        var counts: Bool
        /// The time of the fix after the gap (its route point takes the credit too), and where it is.
        var at: Double, atLat: Double, atLon: Double
        /// Where and when the runner was last known to be before the gap: the last fix before
        /// it, or, when that fix was itself the doubtful first fix after an earlier gap (the fix
        /// after it did not lie on the way on), where the runner was before that gap.
        var fromLat: Double, fromLon: Double, fromT: Double
        var trust = Trust.known
        /// Whether it ended while auto-paused (and no resume has taken it up since).
        var held = false
        /// When an auto-pause decided while it waited took effect, if before the gap's end.
        var pausedFrom: Double? = nil
        /// Up to when speed samples had measured the flight when the gap ended (`wait`).
        var sensedUntil = -Double.infinity

        func speed(to fix: Fix, at t: Double) -> Double {
            t > fromT ? Geodesy.distance(lat1: fromLat, lon1: fromLon, lat2: fix.lat, lon2: fix.lon) / (t - fromT) : 0
        }
    }

    /// How far the place before a gap is to be trusted.
    enum Trust: Sendable {
        /// The last fix before the gap, or one borne out.
        case known
        /// Carried over a doubtful fix. It is carried over one only: a recorder whose every
        /// fix is doubtful would otherwise keep the held steps since then forever.
        case carried
        /// The carry-over was used up and the fix before the gap is itself doubtful: the gap
        /// measures nothing; the fix after it, borne out, is known again.
        case unknown
    }

    /// The last accepted fix before this one.
    public struct LastFix: Sendable, Equatable {
        public var lat: Double, lon: Double, t: Double
        public init(lat: Double, lon: Double, t: Double) { self.lat = lat; self.lon = lon; self.t = t }
    }

    /// A gap beginning: the step of the fix after it, the credit of a gap before it (applied
    /// first), and the gap that then waits (`wait`).
    public struct GapStart: Sendable {
        public var credit: GapCredit?
        public var step: Step
        var waiting: Pending? = nil
        /// The fix after the gap before this one, found junk (out of reach and not borne out):
        /// it is no point of the route (nil: none).
        public var junk: LastFix? = nil
        /// The Doppler speeds of the fixes at the waiting line's start and end
        /// (`GapResolver.beforeSpeed`, `afterSpeed`).
        var beforeSpeed = Double.nan, afterSpeed = Double.nan
    }

    let countGaps: Bool
    /// The profile's speed cap (m/s): a gap crossed faster is no movement of the runner's.
    let speedCapMps: Double
    private var pending: Pending? = nil
    /// The Doppler speed of the fix at the waiting line's start (NaN: none); beside `pending`,
    /// not in it: a larger `Pending` is copied out of line on every fix's path.
    private var beforeSpeed = Double.nan
    /// The Doppler speed of the fix after the waiting gap (NaN: none): the line's end speed when
    /// a flush credits it, as no fix confirms it.
    private var afterSpeed = Double.nan

    public init(countGaps: Bool, speedCapMps: Double = .infinity) {
        self.countGaps = countGaps
        self.speedCapMps = speedCapMps
    }

    /// Whether a gap waits.
    public var isWaiting: Bool { pending != nil }

    /// The time of the fix after the waiting gap (nil: none waits); cheaper than `waiting`, on
    /// every fix's path.
    @inline(__always)
    public var waitingAt: Double? { pending?.at }

    /// A view of the waiting gap for the stages that must know of it.
    public var waiting: WaitingGap? {
        pending.map { WaitingGap(at: $0.at, fromT: $0.fromT, held: $0.held, distanceM: $0.d) }
    }

    /// The gate re-anchored on `fix`: a waiting gap ends here instead, at the chord to it.
    mutating func reanchored(on fix: Fix, at t: Double) -> GapCredit? {
        guard let gap = pending else { return nil }
        let chord = Geodesy.distance(lat1: gap.lat, lon1: gap.lon, lat2: fix.lat, lon2: fix.lon)
        return credit(as: gap.counts ? chord : 0, confirmedBy: fix, at: t)
    }

    /// A gap ended at `fix` (the gate says a gap or jump precedes it).
    ///
    /// - Parameters:
    ///   - last: the fix before the gap.
    ///   - shownSpeed: the Doppler speed of `last`.
    ///   - waits: whether its distance waits for confirmation (cruise or auto-paused); else it
    ///     is the step's own.
    ///   - inRhythm: whether it came in the recorder's rhythm (`FixGate.gapInRhythm`): its line
    ///     counts whatever `count_gaps` says, as an ordinary step's would.
    ///   - speedDoubted: whether the flight doubts `last`'s speed (a standing speed its positions
    ///     belie: `TrackFilter.doubtsSpeed`): no Doppler speed at the line's start.
    mutating func gapEnded(at fix: Fix, t: Double, last: LastFix, shownSpeed: Double, waits: Bool,
                           inRhythm: Bool = false, speedDoubted: Bool = false) -> GapStart {
        var chord = Geodesy.distance(lat1: last.lat, lon1: last.lon, lat2: fix.lat, lon2: fix.lon)
        // A gap before this one (a sparse recorder: one fix a gap): the fix after it (`last`) is
        // borne out, and confirms it, when this fix lies on the way on from where the runner was
        // before that gap. If not (a junk fix and the way back from it; a hairpin looks the
        // same), that gap stays unconfirmed, and where the runner was last known stays where it
        // was. Not borne out and out of reach (the runner could not have got there at the speed
        // cap), the fix after that gap is junk: it goes, and the two gaps are one, from before
        // the first to this fix (its line counted from there, not both lines to the junk fix).
        var from = last, before: (lat: Double, lon: Double, t: Double) = (last.lat, last.lon, last.t)
        var bornOut: Fix? = nil, trust = Trust.known, junk: LastFix? = nil, merged: Pending? = nil
        if let gap = pending {
            if GapResolver.bearsOut(gap, fix, last: last, chord: chord) {
                bornOut = Fix(t: last.t, lat: last.lat, lon: last.lon, speed: shownSpeed)
            } else if gap.trust != .unknown, gap.speed(to: Fix(t: last.t, lat: last.lat, lon: last.lon), at: last.t) > speedCapMps {
                junk = last
                merged = gap
                pending = nil
                from = LastFix(lat: gap.fromLat, lon: gap.fromLon, t: gap.fromT)
                trust = gap.trust
                before = (gap.lat, gap.lon, gap.lastT)
                chord = Geodesy.distance(lat1: gap.lat, lon1: gap.lon, lat2: fix.lat, lon2: fix.lon)
            } else if gap.trust == .known {
                from = LastFix(lat: gap.fromLat, lon: gap.fromLon, t: gap.fromT)
                trust = .carried
            } else {
                trust = .unknown   // two doubtful fixes in a row: where the runner is, is unknown
            }
        }
        let credited = credit(confirmedBy: bornOut, at: last.t)
        let counts = countGaps || inRhythm || (merged?.counts ?? false)
        let gapD = counts ? chord : 0
        guard waits else { return GapStart(credit: credited, step: Step(distanceM: gapD, moving: false, newSegment: true), junk: junk) }
        var next = Pending(lat: before.lat, lon: before.lon, lastT: before.t, d: gapD, counts: counts, at: t, atLat: fix.lat, atLon: fix.lon,
                           fromLat: from.lat, fromLon: from.lon,
                           fromT: from.t, trust: trust)
        next.pausedFrom = merged?.pausedFrom
        return GapStart(credit: credited, step: .segmentStart, waiting: next, junk: junk,
                        beforeSpeed: merged != nil ? beforeSpeed : speedDoubted ? .nan : shownSpeed, afterSpeed: fix.speed)
    }

    /// Whether `fix`, which ends a gap while one waits (`gapEnded`), bears the fix after the
    /// waiting gap (`last`) out: it lies on the way on from where the runner was before that gap.
    func bearsOut(_ fix: Fix, last: LastFix) -> Bool {
        guard let gap = pending else { return false }
        return GapResolver.bearsOut(gap, fix, last: last, chord: Geodesy.distance(lat1: last.lat, lon1: last.lon, lat2: fix.lat, lon2: fix.lon))
    }

    private static func bearsOut(_ gap: Pending, _ fix: Fix, last: LastFix, chord: Double) -> Bool {
        let direct = Geodesy.distance(lat1: gap.fromLat, lon1: gap.fromLon, lat2: fix.lat, lon2: fix.lon)
        let via = Geodesy.distance(lat1: gap.fromLat, lon1: gap.fromLon, lat2: last.lat, lon2: last.lon) + chord
        return direct >= via / 2
    }

    /// The gap of `start` waits, once the credit before it is applied; `autoHeld`: whether the
    /// flight is auto-paused now, after that credit (which may have paused it: a gap before
    /// crossed standing), so whether this gap ended while auto-paused; `sensedUntil`: up to when
    /// speed samples had measured the flight then (they measure nothing before the fix after
    /// the gap from then on, but may measure after it before the gap is credited; what they
    /// measured of the gap, the composer keeps: `FlightComputer.gapSensed`).
    mutating func wait(_ start: GapStart, autoHeld: Bool, sensedUntil: Double = -.infinity) {
        guard var next = start.waiting else { return }
        next.held = autoHeld
        next.sensedUntil = sensedUntil
        pending = next
        beforeSpeed = start.beforeSpeed
        afterSpeed = start.afterSpeed
    }

    /// A fix that agrees with the one after the gap confirms it.
    @inline(__always)   // on every fix's path, nearly always with no gap waiting
    mutating func confirmed(by fix: Fix, at t: Double) -> GapCredit? { pending == nil ? nil : credit(confirmedBy: fix, at: t) }

    /// Credits a waiting gap as it is, unconfirmed (a phase command, a second manual lap). No fix
    /// will confirm the fix after it, so the gap's own line, the distance it credits, measures the
    /// runner's speed across it (from where the runner was last known): its time is moving time
    /// as its line is distance, as a confirmation would make it. Not a gap that ended while
    /// auto-paused: movement across it resumes the flight, which waits for a fix that bears it
    /// out; nor one whose place before it is unknown.
    mutating func flush() -> GapCredit? {
        guard let gap = pending else { return nil }
        let own = gap.held || gap.trust == .unknown ? nil : Fix(t: gap.at, lat: gap.atLat, lon: gap.atLon, speed: .nan)
        return credit(confirmedBy: own, at: gap.at, endSpeed: afterSpeed)
    }

    /// The waiting gap's line up to `t` was credited otherwise (a set-off a user's pause took
    /// over, judged on it: its share up to the pause, `FlightComputer.takeGapSetOff`): the gap
    /// waits from `place`, where that share ends, at `t`, as where the runner was last known.
    mutating func waits(from place: Coordinate, at t: Double) {
        guard var gap = pending, t > gap.lastT, t < gap.at else { return }
        gap.lat = place.lat; gap.lon = place.lon; gap.lastT = t
        gap.fromLat = place.lat; gap.fromLon = place.lon; gap.fromT = t
        gap.trust = .known
        if gap.counts { gap.d = Geodesy.distance(lat1: place.lat, lon1: place.lon, lat2: gap.atLat, lon2: gap.atLon) }
        pending = gap
    }

    /// An auto-pause took effect at `when` while a gap waited: if before the gap's end, a credit
    /// crossed at moving speed moves the pause to the gap's end.
    mutating func paused(from when: Double, cruising: Bool) {
        if let gap = pending, !gap.held, cruising, when < gap.at { pending?.pausedFrom = when }
    }

    /// An auto-resume whose fast hold began at `since`: a held gap after that is an ordinary gap
    /// from now on; one before it is the hold's, and goes.
    mutating func resumed(fastHoldSince since: Double) {
        guard let gap = pending, gap.held else { return }
        if gap.at > since { pending?.held = false } else { pending = nil }
    }

    private mutating func credit(as metres: Double? = nil, confirmedBy confirming: Fix?, at confirmedT: Double,
                                 endSpeed: Double? = nil) -> GapCredit? {
        guard let gap = pending else { return nil }
        pending = nil
        // Credited by a phase command or a manual lap, nothing has confirmed the fix after the
        // gap: no measure of the runner's speed.
        var speed = Double.nan, distance = metres ?? gap.d
        if let confirming, gap.trust != .unknown { speed = gap.speed(to: confirming, at: confirmedT) }
        if speed > speedCapMps {
            // Faster than the gate lets any step be: one end of the line is junk (a junk fix the
            // gate stayed anchored on until `gap_s` passed, its fixes after it too noisy to agree
            // on a re-anchor), not the runner's movement. No distance, and no measure of movement.
            distance = 0
            speed = .nan
        }
        // The speeds at the line's ends: the fix before it, and the one that confirms the fix
        // after it, a second later (or that the gate re-anchored on, where the line then ends);
        // flushed, nothing confirms it: the fix after it (`endSpeed`).
        let after = endSpeed ?? confirming?.speed ?? .nan
        let ends = beforeSpeed.isFinite && after.isFinite ? max(beforeSpeed, after) : .nan
        return GapCredit(distanceM: distance, at: gap.at, fromT: gap.fromT, lastT: gap.lastT, speedAcrossMps: speed,
                         confirmingDopplerMps: confirming?.speed ?? .nan, held: gap.held, pausedFrom: gap.pausedFrom,
                         confirmedT: confirming == nil ? .nan : confirmedT, sensedUntil: gap.sensedUntil, endsDopplerMps: ends)
    }
}

/// A confirmed (or flushed) gap: what the other stages apply.
public struct GapCredit: Sendable, Equatable {
    /// Metres the gap adds.
    public var distanceM: Double
    /// The time of the fix after the gap.
    public var at: Double
    /// When the runner was last known to be before the gap.
    public var fromT: Double
    /// The time of the last fix before the gap: the gap spans `lastT` to `at`.
    public var lastT: Double
    /// The speed of the line across the gap to the confirming fix, m/s (NaN: unconfirmed or
    /// unknown; 0 is a measured standing).
    public var speedAcrossMps: Double
    /// The confirming fix's own Doppler speed (NaN: none, or unconfirmed).
    public var confirmingDopplerMps: Double
    /// Whether it ended while auto-paused (a step of the hold).
    public var held: Bool
    /// An auto-pause decided while it waited, backdated to before its end.
    public var pausedFrom: Double?
    /// The confirming fix's time: `speedAcrossMps` is over `fromT` to it (NaN: unconfirmed).
    public var confirmedT = Double.nan
    /// Up to when speed samples had measured the flight when the gap ended: of its line, only
    /// the share after that counts (-infinity: they had measured none of it).
    public var sensedUntil = -Double.infinity
    /// The faster of the Doppler speeds at the line's two ends, the fix before it and the
    /// confirming fix (NaN: either has none).
    public var endsDopplerMps = Double.nan
}

/// What the other stages may know of a gap that waits.
public struct WaitingGap: Sendable, Equatable {
    public var at: Double
    public var fromT: Double
    public var held: Bool
    public var distanceM: Double
}
