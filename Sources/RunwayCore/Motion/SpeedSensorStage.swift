/// Speed samples (a wheel sensor, a foot pod, a treadmill) measure the flight where positions are
/// silent: before the first fix, indoors, where none comes, and wherever no fix has measured the
/// flight for longer than the composer's `silentAfterS` (three of the receiver's intervals, at
/// most the config's `gap_s`: `FlightComputer.positionsSilentAfterS`): a tunnel, a GPS that lost
/// its lock, an indoor leg after an outdoor one. While fixes come, the samples wait: those since
/// the latest fix are kept as a backlog, and when positions fall silent the sensor takes the
/// flight up from that fix, the backlog first, then measures it live, sample by sample. When
/// fixes come again, positions take the leg up from where the sensor left off (`measuredUntil`:
/// of the step across the silence, a gap's line, or a line from a fix before a start or a resume,
/// only the share after it counts).
///
/// The backlog is the one list of those samples: their sums, and each sample's route point (the
/// flight's figures at it) with its own metres. It leaves the stage one way only: measured (in
/// cruise, with the points for the route; while auto-paused, as a held step), or dropped (a fix
/// measured its stretch, or the leg changed before the sensor did: what waited in a hold the user
/// made a pause is not the next leg's).
///
/// Each sample measures the time since the previous one (or since the leg began, or the latest fix,
/// when that is later) at its own speed, as a sensor's reading is the speed over its last interval:
/// a step of that distance, moving when at a walker's speed or more; slower, neither distance nor
/// moving time, as a standing runner's steps. A silence longer than `maxIntervalS` measures nothing.
///
///     var s = SpeedSensorStage(movingMps: 0.8, maxIntervalS: 30)
///     s.step(mps: 3, at: 1, since: 0, silentAfterS: 3)   // Measured(movingM: 3, movingS: 1, standingS: 0)
///     s.positioned(at: 2)                                // a fix measured the flight at 2
///     s.step(mps: 3, at: 3, since: 0, silentAfterS: 3)   // nil: kept in the backlog while positions measure
///     s.step(mps: 3, at: 6, since: 0, silentAfterS: 3)   // Measured(movingM: 12, movingS: 4, ...): silent since 2, the backlog first
///     s.step(mps: 3, at: 40, since: 0, silentAfterS: 3)  // nil: 34 s of the sensor's own silence measure nothing
struct SpeedSensorStage: Sendable, Equatable {
    /// What samples measured: the moving samples' distance and time, and the standing samples' time.
    struct Measured: Sendable, Equatable {
        var movingM = 0.0, movingS = 0.0, standingS = 0.0
        /// The samples' points, in time order (at most `maxSamples` of them).
        var samples: [Sample] = []
        var isEmpty: Bool { movingS == 0 && standingS == 0 }
    }

    /// A sample's route point (the flight's figures at its time; `distanceM` is set when it is
    /// recorded) and the metres of its own interval.
    struct Sample: Sendable, Equatable {
        var point: RoutePoint
        var ownM: Double
    }

    /// The speed from which a sample is movement (the stillness detector's walker's speed).
    let movingMps: Double
    let maxIntervalS: Double
    /// The most points the backlog keeps (the route's own cap): its sums count every sample.
    let maxSamples: Int
    /// The previous sample's time (NaN: none yet), and its speed (the filter's, when it starts
    /// over after a silence: `TrackFilter.restart`).
    private var lastT = Double.nan
    private(set) var lastMps = Double.nan
    /// The time up to which the samples measured the flight (-infinity: never).
    private(set) var measuredUntil = -Double.infinity
    /// The same, where they measured it because positions were silent (not a backlog a pause or
    /// the stop took: `legEnds`).
    private(set) var silenceMeasuredUntil = -Double.infinity
    /// The stretches the samples measured since the latest fix: of a gap's line, the share of the
    /// cruise time they left unmeasured counts (they may have measured only part of the gap,
    /// after a resume in it, or a stand in a hold).
    private(set) var measuredSincePositioned = TimeSpans()
    /// The backlog's stretches.
    private var backlogSpans = TimeSpans()
    /// When a fix last measured the flight (-infinity: none has).
    private var positionedAt = -Double.infinity
    /// The time of the latest fix that ended a silence the samples had taken up (NaN: none).
    private var endedTakenSilenceAt = Double.nan
    /// What the samples since that fix measured, waiting for positions to fall silent, and the
    /// end of its last interval.
    private var backlog = Measured()
    private var backlogUntil = -Double.infinity
    /// Whether a sample faster than the profile's cap has been seen (it is logged once).
    private var sawTooFast = false

    init(movingMps: Double, maxIntervalS: Double, maxSamples: Int = 0) {   // (0: no points kept)
        self.movingMps = movingMps
        self.maxIntervalS = maxIntervalS
        self.maxSamples = maxSamples
    }

    /// Whether any sample has come (before the first, the sensor measures nothing).
    var hasSamples: Bool { !lastT.isNaN }

    /// Whether the samples have taken up the silence since the latest fix (they measured after it).
    var tookUpSilence: Bool { measuredUntil > positionedAt }

    /// Whether samples at `t` measure the flight: no fix has for longer than `silentAfterS`.
    func measures(at t: Double, silentAfterS: Double) -> Bool { t - positionedAt > silentAfterS }

    /// Whether a sample at `t` comes at the very time of the fix that ended a silence the samples
    /// had taken up: the last of that silence's samples, had it come first (one second's inputs
    /// may come in either order).
    func endsTakenSilence(at t: Double) -> Bool { t == endedTakenSilenceAt }

    /// A sample of `mps` at `t`, over the time since the previous sample and not before `since`
    /// (the leg's start; -infinity while auto-paused, where the hold keeps it) nor the latest fix.
    /// Returns what the samples measured when they measure the flight, positions silent for
    /// longer than `silentAfterS` (the backlog with this sample's interval); nil while positions
    /// do (the interval joins the backlog), or when nothing was measured (no time in the leg, or
    /// a silence of the sensor's own longer than `maxIntervalS`).
    /// `point`: the sample's route point, kept with its interval (none when nil).
    mutating func step(mps: Double, at t: Double, since: Double, silentAfterS: Double, point: RoutePoint? = nil) -> Measured? {
        defer { lastT = t; lastMps = mps }
        let from = max(lastT.isNaN ? since : max(lastT, since), positionedAt)
        let dt = t - from
        if dt > 0, dt <= maxIntervalS {
            var sampleM = 0.0   // (its interval's metres)
            if mps >= movingMps {
                sampleM = mps * dt
                backlog.movingM += sampleM
                backlog.movingS += dt
            } else {
                backlog.standingS += dt
            }
            backlogUntil = t
            backlogSpans.add(from: from, to: t)
            if let point, backlog.samples.count < maxSamples { backlog.samples.append(Sample(point: point, ownM: sampleM)) }
        }
        guard measures(at: t, silentAfterS: silentAfterS) else { return nil }
        defer { silenceMeasuredUntil = measuredUntil }
        return takeBacklog()
    }

    /// The backlog as measured (nil when empty): the samples measured the flight up to its end.
    private mutating func takeBacklog() -> Measured? {
        guard !backlog.isEmpty else { return nil }
        defer { backlog = Measured() }
        measuredUntil = backlogUntil
        measuredSincePositioned.add(backlogSpans)
        backlogSpans.clear()
        return backlog
    }

    /// A fix measured the flight at `t`: the samples' backlog is the positions' stretch.
    @inline(__always)
    mutating func positioned(at t: Double) {
        if tookUpSilence { endedTakenSilenceAt = t }
        positionedAt = t
        measuredSincePositioned.clear()
        if !backlog.isEmpty { dropBacklog() }   // (inlined: no call on a fix with no samples)
    }

    /// The leg ends in cruise (a pause or a stop) before positions measured the samples' backlog:
    /// the sensor measured it (nil when empty). Positions take up no line across that stretch.
    mutating func legEnds() -> Measured? { takeBacklog() }

    /// A phase command changed the leg: what is left in the backlog waited in a leg that ended
    /// without it (a hold the user made a pause, a resume), and measures nothing.
    mutating func legChanged() { dropBacklog() }

    private mutating func dropBacklog() {
        guard !backlog.isEmpty else { return }   // (a sample's point comes with its interval)
        backlog.movingM = 0; backlog.movingS = 0; backlog.standingS = 0
        backlogSpans.clear()
        backlog.samples.removeAll(keepingCapacity: true)   // (filled again by the next fix's interval)
    }

    /// Notes a sample faster than the profile's cap: true the first time (to log it).
    mutating func noteTooFast() -> Bool {
        defer { sawTooFast = true }
        return !sawTooFast
    }

    /// A sample that measures nothing (before the start, while the user holds): the next one
    /// measures from it.
    mutating func seen(at t: Double) { lastT = t }
}
