/// Whether the runner stands still, decided from what a standing receiver's noise can and
/// cannot explain, and what that does to the steps the odometer counts.
///
/// A standing receiver's position wanders (a Gauss–Markov error of a few metres with a time
/// constant of about a minute, plus white noise) and its Doppler speed is small noise around
/// zero (0.05–0.4 m/s, never exactly 0, its course noise). A track filter that counts steps by a
/// threshold on one fix's speed lets some of that through: tens of metres and minutes of moving
/// time in ten minutes at a red light. This stage looks at longer stretches instead:
///
/// - **Still**, from moving: over the last `windowS` seconds the mean position of the window's
///   first `endS` seconds and of its last `endS` seconds are within `stillRadiusSigmas` position
///   σ (the reported accuracy, at least `minSigmaM`) of each other, the track filter's steps
///   over the window average less than `movingDopplerMps`, and, when the fixes carry Doppler
///   speed, the window's mean Doppler speed is below `stillDopplerMps`. The still point
///   is the mean of the last `endS` seconds; while still it follows the fixes near it slowly
///   (time constant `anchorTauS`), as the receiver's error wanders.
/// - **Moving**, from still: `confirmFixes` fixes in a row with a Doppler speed of at least
///   `movingDopplerMps` (a walker's, far above standing noise); or as many fixes in a row more
///   than `movedRadiusSigmas` σ from the still point (with or without Doppler); or held steps
///   that moved without a break for `movingRunS` seconds at `movingDopplerMps` or more (laps of
///   a track too small to leave the radius).
///
/// While moving, a step slower than a walker at both its fixes waits (`judgeMoving`): it is
/// credited once its stretch is movement, and dropped when the window decides standing. Across
/// a gap, steps whose Doppler speeds read as standing noise wait on for the fixes after it
/// (`carry`), with the gap's line.
///
/// While still, the steps are held: they add no distance and no moving time. When movement is
/// confirmed (or a gap is crossed at a walker's speed), the held steps since the movement began
/// — after the last `quietS` seconds of quiet fixes (Doppler below `stillDopplerMps`; without
/// Doppler, steps the track filter did not move) — are credited, so the start of real running is never lost. A leg starts still
/// (`reset(still: true)`: the runner may wait at the start), or moving after an auto-resume.
///
/// The Doppler thresholds are set for a standing receiver whose Doppler noise is
/// `designDopplerSigmaMps` an axis. The detector measures the noise (`measureNoise`: Doppler
/// speeds under the moving threshold, less the speed the positions moved at) and scales every
/// Doppler threshold by how much noisier the receiver is (`dopplerScale`, at least 1), so a
/// noisy receiver's standing Doppler is not read as a walk.
///
///     var still = StillnessDetector()
///     still.reset(still: true)
///     let fix = Fix(t: 1, lat: 52, lon: 4, speed: 0.2)
///     let out = still.judge(Step(distanceM: 0.3, moving: true), fix: fix, at: 1, dt: 1)
///     out.step.distanceM        // 0: held, the runner may be standing
///     out.credit                // nil until movement is confirmed
public struct StillnessDetector: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Off, every step counts as the track filter measured it.
        public var enabled = true
        /// The window over which displacement and Doppler level are judged, seconds.
        public var windowS = 20.0
        /// Seconds at each end of the window whose positions are averaged.
        public var endS = 5.0
        /// Displacement over the window a standing receiver shows, in position σ.
        public var stillRadiusSigmas = 3.0
        /// Distance from the still point no standing receiver wanders, in position σ.
        public var movedRadiusSigmas = 5.0
        /// The least position σ assumed, metres (also without a reported accuracy).
        public var minSigmaM = 3.0
        /// A window's mean Doppler speed below this is standing noise, m/s.
        public var stillDopplerMps = 0.5
        /// A Doppler speed at or above this is movement, m/s (a slow walk is ≥ 0.8).
        public var movingDopplerMps = 0.8
        /// Fixes in a row that confirm movement.
        public var confirmFixes = 3
        /// Held steps that moved without a break for this long confirm movement, seconds.
        public var movingRunS = 30.0
        /// Seconds without a moving step that mark where movement began.
        public var quietS = 3.0
        /// How slowly the still point follows the fixes, seconds.
        public var anchorTauS = 30.0
        /// The standing Doppler noise the two Doppler thresholds are set for, m/s an axis (the
        /// magnitude then is 0.25 m/s at the median, rarely 0.5): a receiver measured noisier
        /// while standing has both scaled up in proportion (`dopplerScale`).
        public var designDopplerSigmaMps = 0.2
        /// The time over which the standing Doppler noise is measured, seconds.
        public var dopplerNoiseTauS = 60.0
        /// How many fixes' worth of the design noise the measurement starts from.
        public var dopplerNoisePriorFixes = 3.0
        public init() {}
    }

    /// What the odometer counts for one step.
    public struct Judged: Sendable {
        /// The step as counted: zero distance and not moving while still.
        public var step: Step
        /// Set when movement was just confirmed: the held steps since it began (each one is in
        /// the detector's `creditedSteps`, for the route and pace window; a judged step carries
        /// no array, nothing to retain or release on every fix).
        public var credit: HeldCredit?
    }

    /// The steps of the latest credit (`Judged.credit`), for the distances of the route and
    /// pace window since they began.
    public internal(set) var creditedSteps = CreditedSteps()
    /// The time the steps just credited took but for slow gaps' lines (`credited`): the stretch's time,
    /// over which its speed counts toward the max (a step can move without being moving time: a
    /// set-off inside a 20 s dropout, slower than standing over the whole step).
    public internal(set) var creditedStretchS = 0.0

    struct Sample: Sendable {
        var t: Double, x: Double, y: Double, doppler: Double, sigma: Double
        /// The track filter's step to this fix, metres.
        var d = 0.0
    }

    /// A held step; `quiet` when it did not move (a gap's first step is not: unknown).
    struct Held: Sendable {
        var t: Double, d: Double, movingS: Double, quiet: Bool
        /// Of `d`, a slow gap's line (`across`).
        var lineM = 0.0
        /// Of `movingS`, those lines' time (at the runner's pace: `across`).
        var lineS = 0.0
        /// When the step began (the fix before it, the gap's last fix before its line).
        var from = Double.nan
    }

    public let settings: Settings
    /// Whether the runner is judged standing.
    public internal(set) var isStill = true
    private(set) var window = Window()
    var held: [Held] = []

    /// The moving time of the steps that wait (held while still, slow while moving): what a
    /// credit of them may add.
    var waitingMovingS: Double {
        held.reduce(0) { $0 + $1.movingS } + slow.reduce(0) { $0 + $1.movingS }
    }
    /// While moving, the steps that wait for the window (`judgeMoving`), and the slow stretch
    /// they are in: its start (NaN: none), the sum of its Doppler speeds and their count.
    var slow: [Held] = []
    var slowStretch = (from: Double.nan, dopplerSum: 0.0, fixes: 0.0)
    /// While moving, the slow steps carried across a gap (`carry`): the time of the fix after the
    /// latest gap they wait through (NaN: none), and where the runner stood before the first of
    /// those gaps (the mean position of its last `endS` of fixes, and their mean σ; x NaN: unknown).
    var carriedSince = Double.nan
    /// The sum and count of the Doppler speeds of the carried steps' slow stretches.
    var carriedDoppler = (sum: 0.0, n: 0.0)
    var carriedFrom = (x: Double.nan, y: 0.0, sigma: 0.0)
    /// The mean position and σ of the last `endS` of fixes before the latest gap (x NaN: none).
    var beforeGap = (x: Double.nan, y: 0.0, sigma: 0.0)
    /// The previous fix's Doppler speed (NaN: none).
    private var lastDoppler = Double.nan
    var anchor: (x: Double, y: Double)? = nil
    private var anchorT = Double.nan
    var movingFixes = 0, farFixes = 0
    /// The standing Doppler noise measured (`measureNoise`): decayed sums of the Doppler speed's
    /// excess over the positions' speed, squared and halved (the variance an axis), and of
    /// their weights.
    private var noiseSum = 0.0, noiseWeight = 0.0
    /// The factor, at least 1, that the Doppler thresholds are scaled by: the measured standing
    /// Doppler noise against `designDopplerSigmaMps`.
    public private(set) var dopplerScale = 1.0
    /// The Doppler thresholds in use: the settings' scaled by `dopplerScale`.
    private(set) var movingDoppler: Double, stillDoppler: Double
    // The local plane: metres east and north of `origin`, with its metres per degree.
    private var origin = (lat: Double.nan, lon: Double.nan)
    private var scale = (kx: 0.0, ky: 0.0)

    public init(settings: Settings = Settings()) {
        self.settings = settings
        movingDoppler = settings.movingDopplerMps
        stillDoppler = settings.stillDopplerMps
    }

    /// A new leg: still (unconfirmed) or moving; holds and history are forgotten.
    public mutating func reset(still: Bool) {
        isStill = still
        window.removeAll()
        held.removeAll(keepingCapacity: true)
        slow.removeAll(keepingCapacity: true)
        slowStretch = (.nan, 0, 0)
        carriedSince = .nan
        beforeGap.x = .nan
        lastDoppler = .nan
        anchor = nil
        movingFixes = 0
        farFixes = 0
    }

    /// Judges the step that `fix` (accepted at `t`, `dt` seconds of cruise after the one before)
    /// ends: what the odometer counts now, and any credit for movement just confirmed.
    @inline(__always)
    public mutating func judge(_ step: Step, fix: Fix, at t: Double, dt: Double) -> Judged {
        judge(step, fix: fix, doppler: fix.speed, at: t, dt: dt)
    }

    /// The same, with the speed the track filter believes for the fix (`doppler`: its Doppler
    /// speed, or the filtered speed where the positions belie a standing one).
    @inline(__always)
    mutating func judge(_ step: Step, fix: Fix, doppler: Double, at t: Double, dt: Double) -> Judged {
        guard settings.enabled, t.isFinite, fix.lat.isFinite, fix.lon.isFinite else { return Judged(step: step, credit: nil) }
        if step.newSegment { startOver() }   // no window across a gap
        var s = sample(fix, at: t)
        s.d = step.distanceM
        s.doppler = doppler
        window.append(s)
        window.drop(before: t - evidenceS(sigma: s.sigma))
        if doppler >= movingDoppler {
            movingFixes += 1
        } else {
            movingFixes = 0
            if doppler >= 0 { measureNoise(doppler, at: t, dt: dt) }
        }
        let before = lastDoppler
        lastDoppler = doppler
        guard isStill else { return judgeMoving(step, doppler: doppler, before: before, at: t, dt: dt) }
        return judgeStill(step, x: s.x, y: s.y, sigma: s.sigma, doppler: doppler, at: t, dt: dt)
    }

    /// A step while still (`judge`, its fix on the local plane at `x`, `y`, of position σ `sigma`):
    /// held, or movement confirmed. (Its own function, as a runner's path in `judge` is small
    /// enough for the optimiser to inline `judgeMoving`'s into it.)
    @inline(never)
    private mutating func judgeStill(_ step: Step, x: Double, y: Double, sigma: Double, doppler: Double, at t: Double, dt: Double) -> Judged {
        // Quiet: Doppler at standing noise, or without Doppler a step the filter did not move.
        let quiet = doppler.isNaN ? !step.moving && step.distanceM <= 0 : doppler < stillDoppler
        held.append(Held(t: t, d: step.distanceM, movingS: step.moving ? max(0, dt) : 0, quiet: quiet && !step.newSegment, from: t - max(0, dt)))
        guard let a = anchor else {
            anchor = (x, y)
            anchorT = t
            return Judged(step: still(step), credit: nil)
        }
        let dx = x - a.x, dy = y - a.y
        let far = (dx * dx + dy * dy).squareRoot() > settings.movedRadiusSigmas * sigma
        farFixes = far ? farFixes + 1 : 0
        if movingFixes >= settings.confirmFixes || farFixes >= settings.confirmFixes || movedWithoutBreak(at: t) {
            var judged = confirmMoving()
            judged.step = still(step)
            return judged
        }
        // The still point follows the receiver's wander, not a runner walking off.
        if (dx * dx + dy * dy).squareRoot() <= settings.stillRadiusSigmas * sigma {
            let w = min(1, max(0, t - anchorT) / settings.anchorTauS)
            anchor = (a.x + w * dx, a.y + w * dy)
        }
        anchorT = t
        trimHeld(at: t, sigma: sigma)
        return Judged(step: still(step), credit: nil)
    }

    /// Takes a Doppler speed below the moving threshold (a runner setting off is no noise) into
    /// the measured standing noise: its square less the square of the speed the window's
    /// positions moved at (a slow walk is movement, not noise), halved (the variance an axis),
    /// in a decayed mean over about `dopplerNoiseTauS` that starts from
    /// `dopplerNoisePriorFixes` fixes of the design noise. A noisier receiver's first measure
    /// is low; the threshold it raises lets more of its noise in, and the measure reaches the
    /// noise within a minute or two. Nothing before the window spans 2 × `endS`.
    @inline(never)   // off a runner's path: no room taken in `judge`
    private mutating func measureNoise(_ doppler: Double, at t: Double, dt: Double) {
        guard let moved = windowSpeed(at: t) else { return }
        let excess = max(0, doppler * doppler - moved * moved)
        let keep = dt > 0 && dt.isFinite ? max(0, 1 - dt / settings.dopplerNoiseTauS) : 1
        noiseSum = noiseSum * keep + excess / 2
        noiseWeight = noiseWeight * keep + 1
        let design = settings.designDopplerSigmaMps
        let prior = settings.dopplerNoisePriorFixes
        let variance = (prior * design * design + noiseSum) / (prior + noiseWeight)
        dopplerScale = design > 0 ? max(1, variance.squareRoot() / design) : 1
        movingDoppler = settings.movingDopplerMps * dopplerScale
        stillDoppler = settings.stillDopplerMps * dopplerScale
    }

    /// While auto-paused (no judgement): the fix joins the window, so that a resume decided on
    /// the positions' speed can ask whether they moved beyond their accuracy
    /// (`positionsShowMovement`). A resume starts the window over (`reset`).
    mutating func observe(_ step: Step, fix: Fix, at t: Double) {
        guard settings.enabled, t.isFinite, fix.lat.isFinite, fix.lon.isFinite else { return }
        if step.newSegment { window.removeAll() }
        var s = sample(fix, at: t)
        s.d = step.distanceM
        window.append(s)
        window.drop(before: t - evidenceS(sigma: s.sigma))
    }

    /// Whether the fixes the window keeps moved beyond what their stated accuracy explains over
    /// the time such fixes take to show a walker (`evidenceS`, `positionsMoved`).
    func positionsShowMovement(at t: Double) -> Bool {
        guard let last = window.samples.last else { return false }
        return positionsMoved(since: t - evidenceS(sigma: last.sigma), at: t)
    }

    /// A gap's fix: the window starts over from it; where the fixes before the gap stood (the
    /// mean of their last `endS`) is kept in `beforeGap`.
    @inline(never)   // once a gap
    private mutating func startOver() {
        beforeGap = window.samples.last.flatMap { window.mean(since: $0.t - settings.endS) } ?? (.nan, 0, 0)
        window.removeAll()
    }

    func still(_ step: Step) -> Step { Step(distanceM: 0, moving: false, newSegment: step.newSegment) }

    /// The fix on the local plane (re-centred when it is 20 km from the origin).
    @inline(__always)
    private mutating func sample(_ fix: Fix, at t: Double) -> Sample {
        if origin.lat.isNaN { setOrigin(fix.lat, fix.lon) }
        var x = Geodesy.wrappedDeltaLon(origin.lon, fix.lon) * scale.kx
        var y = (fix.lat - origin.lat) * scale.ky
        if abs(x) > 20_000 || abs(y) > 20_000 {
            window.shift(x: x, y: y)
            if let a = anchor { anchor = (a.x - x, a.y - y) }
            carriedFrom.x -= x; carriedFrom.y -= y
            beforeGap.x -= x; beforeGap.y -= y
            setOrigin(fix.lat, fix.lon)
            x = 0
            y = 0
        }
        return Sample(t: t, x: x, y: y, doppler: fix.speed, sigma: sigma(of: fix))
    }

    /// The position σ a fix is judged by: its stated accuracy, at least `minSigmaM` (that without one).
    @inline(__always)
    func sigma(of fix: Fix) -> Double { fix.hAcc(atLeast: settings.minSigmaM) }

    /// Whether `metres` moved over `seconds` is what a standing receiver's wander explains, judged
    /// at `fix`'s σ: under `stillRadiusSigmas` σ, or slower than `movingDopplerMps` (a stretch
    /// no fix of which the detector saw: a leg with no fix of its own).
    func wanderExplains(_ metres: Double, over seconds: Double, at fix: Fix) -> Bool {
        metres < settings.stillRadiusSigmas * sigma(of: fix) || metres < settings.movingDopplerMps * seconds
    }

    private mutating func setOrigin(_ lat: Double, _ lon: Double) {
        origin = (lat, lon)
        scale = Geodesy.scales(latitude: lat)
    }

    /// Whether the window looks still is asked in two steps (`judgeMoving`): its Doppler speeds
    /// (when every fix has one) are standing noise (`windowStillFrom`, the cheap tests a runner
    /// fails at once, inlined in `judge`), and its ends are within the wander of a standing
    /// receiver (`windowEndsLookStill`). (Once moving, the filter's steps moving on at a
    /// walker's speed say moving, as before: what set the runner moving was evidence the fixes
    /// moved beyond their accuracy, `movedWithoutBreak`, `AutoPause`'s `movementUnshown`.)
    /// Nil when the first tests rule standing out, else the index of the window's first sample
    /// in the last `windowS`, where `windowEndsLookStill` goes on.
    @inline(__always)   // in `judge`: a runner's every fix
    func windowStillFrom(at t: Double) -> Int? {
        // (The window keeps more than `windowS` for fixes with a coarse accuracy: the last `windowS` judge.)
        let all = window.samples
        let since = t - settings.windowS
        guard let lead = all.firstIndex(where: { $0.t >= since }) else { return nil }
        let samples = all[lead...]
        let first = samples[lead]
        guard t - first.t >= settings.windowS * 0.9, samples.count >= 3 else { return nil }
        // The cheap tests first, each its own pass (a runner fails them at once).
        let n = Double(samples.count)
        if window.withoutDoppler == 0 {
            // Every sample has a Doppler speed and none is negative, so the running sum only
            // grows: once it reaches a mean that is not standing noise, the whole window's does.
            var doppler = 0.0
            for s in samples {
                doppler += s.doppler
                if doppler / n >= stillDoppler { return nil }
            }
        } else {
            var doppler = 0.0, withDoppler = 0
            for s in samples where !s.doppler.isNaN { doppler += s.doppler; withDoppler += 1 }
            if withDoppler == samples.count, doppler / n >= stillDoppler { return nil }
        }
        return lead
    }

    /// The rest of the window's stillness test, from the sample at `lead` (`windowStillFrom`): the
    /// track filter's steps slower than a walker and the window's ends within a standing receiver's wander.
    @inline(__always)   // no copy of the detector (in a mutating caller)
    func windowEndsLookStill(from lead: Int, at t: Double) -> Bool {
        let samples = window.samples[lead...]
        let first = samples[lead]
        var stepped = 0.0
        for s in samples where s.t > first.t { stepped += s.d }
        if stepped / (t - first.t) >= movingDoppler { return false }   // laps of a tiny track
        guard let ends = window.ends(at: t, endS: settings.endS, from: first.t) else { return false }
        return ends.distanceM <= settings.stillRadiusSigmas * ends.meanSigmaM
    }

    /// The speed the window's positions moved at: the distance between the means of its first
    /// and last `endS` seconds over the time between, m/s; nil before the window spans two of them.
    @inline(never)   // off a runner's path, as `measureNoise`
    private func windowSpeed(at t: Double) -> Double? {
        let since = t - settings.windowS
        guard let first = window.samples.first(where: { $0.t >= since }), t - first.t >= 2 * settings.endS,
              let ends = window.ends(at: t, endS: settings.endS, from: first.t), ends.spanS > 0 else { return nil }
        return ends.distanceM / ends.spanS
    }

    mutating func enterStill(at t: Double) {
        isStill = true
        held.removeAll(keepingCapacity: true)
        slow.removeAll(keepingCapacity: true)   // (the slow steps before it: the stop's)
        slowStretch = (.nan, 0, 0)
        carriedSince = .nan
        anchor = window.mean(since: t - settings.endS).map { ($0.x, $0.y) }
        anchorT = t
        farFixes = 0
    }
}
