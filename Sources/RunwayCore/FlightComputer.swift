/// The deterministic heart of the engine: all run state and the rules that change it.
///
/// A plain value with mutating methods and no clock of its own: every method that needs the wall
/// clock takes it as a parameter, so the same inputs always give the same outputs and a recorded
/// run replays exactly. Each method appends the events it causes to `events`, with increasing
/// `seq`. A method that throws has changed nothing (and appended nothing).
///
/// With filters on (the default) a fix goes through the `FixGate`, then the `TrackFilter` measures
/// the distance; elevation, laps, sensor statistics, auto-pause and alerts are fed from there.
/// With `"filters":"off"` distance is the raw sum of geodesic distances between kept points.
public struct FlightComputer: Sendable {
    public let config: EngineConfig
    public private(set) var phase: FlightPhase = .preflight
    /// Why the flight is holding (nil unless `phase == .holding`).
    public private(set) var holdingBy: HoldReason? = nil
    /// The sequence number of the latest event.
    public private(set) var seq: UInt64 = 0
    /// The sequence number of the latest `flight` event: the snapshot's `seq`.
    public private(set) var flightSeq: UInt64 = 0
    /// The latest time seen (an input's, a phase change's or a tick's); NaN before any.
    public private(set) var now: Double = .nan
    public private(set) var route = Route()
    public private(set) var log = LogRing(capacity: 20)

    public enum HoldReason: String, Sendable { case user, auto }

    /// The flight's id in a store (written into the summary), if any.
    public var flightID: String? = nil

    // Times of the flight.
    var startT = Double.nan
    var endT = Double.nan
    var elapsedBefore = 0.0          // cruise seconds before the current cruise leg
    var cruiseSince = Double.nan     // start of the current cruise leg (NaN: not cruising, or time pending)
    var cruiseLegs = CruiseLegs()    // the finished cruise legs, for the FIT timer events
    var endReason: String? = nil
    var timePending = false
    var pendingLog: [(LogRing.Line.Level, String)] = []

    // Live values from the latest accepted fix.
    var lat = Double.nan, lon = Double.nan, hAcc = Double.nan, alt = Double.nan
    var deviceSpeed = Double.nan, course = Double.nan
    var reducedAccuracy = false
    var sawAccuracy = false

    // Distance.
    public private(set) var distance = 0.0
    public private(set) var movingS = 0.0
    var fixes = 0
    var anchorLat = Double.nan, anchorLon = Double.nan     // the last kept route point
    var segmentBearing = Double.nan
    var lastAccepted: (lat: Double, lon: Double, t: Double)?
    var gate: FixGate
    var track: TrackFilter
    public private(set) var filtered = FilterCounts()
    /// Increments measured while auto-holding, credited back when the hold turns out shorter.
    var heldSteps: [(t: Double, d: Double, movingDt: Double)] = []

    // Recent (time, cumulative distance) in cruise, for the current pace.
    var window: [(t: Double, d: Double)] = []
    var windowHead = 0
    var groundSpeed = Double.nan
    var maxSpeed = Double.nan
    /// A gap's (or jump's) distance, waiting for the fix after it (see `PendingGap`).
    var pendingGap: PendingGap? = nil

    /// After a gap the gate accepts any position, and a receiver's first fix after losing the sky
    /// (a tunnel) is often junk. So the gap's distance waits: the next fix that agrees with the
    /// fix after the gap credits it; a re-anchor replaces it with the gap to the fix the gate
    /// re-anchored on; a phase command, a manual lap or the next gap credits it as it is. Until
    /// then the snapshot's distance leaves it out (one fix, usually), and auto laps wait with it
    /// (`creditPendingGap` cuts them).
    ///
    /// A gap that ends while auto-paused waits the same way, but it is `held`: credited, it is
    /// a step of the hold, which counts only when the resume's fast hold began before it; a resume
    /// before the credit makes it an ordinary gap then, or drops it.
    ///
    /// Whether the runner moved across a gap is measured when a fix confirms it (the next
    /// agreeing fix, the fix the gate re-anchors on, or the fix after the next gap): the speed of
    /// the straight line from where the runner was last known to be before the gap to that fix.
    /// Not the line to the fix after the gap: that fix may be junk, and so may the next fix that
    /// agrees with it (the way back from a junk fix a few seconds later is within the gate's
    /// limits). At moving speed, a held gap starts the fast hold at its beginning, and no
    /// auto-pause is backdated across a gap in cruise.
    struct PendingGap: Sendable {
        /// The last fix before the gap.
        var lat: Double, lon: Double
        /// The distance the gap adds (0 when gaps do not count).
        var d: Double
        /// The time of the fix after the gap (its route point takes the credit too).
        var at: Double
        /// Where and when the runner was last known to be before the gap: the last fix before
        /// it, or, when that fix was itself the doubtful first fix after an earlier gap (the fix
        /// after it did not lie on the way on), where the runner was before that gap.
        var fromLat: Double, fromLon: Double, fromT: Double
        /// How far `from` is to be trusted.
        var trust = Trust.known
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
        /// Whether it ended while auto-paused (and no resume has taken it up since).
        var held = false
        /// When an auto-pause decided while it waited took effect, if that is before the gap's
        /// end: a gap confirmed at moving speed moves the pause to its end (`creditPendingGap`).
        var pausedFrom: Double? = nil
        /// The speed of the straight line from where the runner was last known to be to a fix
        /// that confirms the gap, m/s.
        func speed(to fix: Fix, at t: Double) -> Double {
            t > fromT ? Geodesy.distance(lat1: fromLat, lon1: fromLon, lat2: fix.lat, lon2: fix.lon) / (t - fromT) : 0
        }
    }
    /// The end of the last confirmed gap in cruise crossed at moving speed (NaN when none): no
    /// auto-pause is backdated across it (see `PendingGap`).
    var lastMovingGapEnd = Double.nan
    /// When the current auto-pause took effect (NaN when none has): a resume is never backdated
    /// to before it.
    var autoPausedSince = Double.nan
    /// A confirmed held gap's speed, for auto-pause with the fix that confirmed it.
    var gapSpeedSample: Double? = nil

    // Components.
    var altitudeGate = AltitudeGate()
    var elevation: ElevationTracker
    var laps: LapCounter
    var sensors: SensorStats
    var autoPause: AutoPause
    var alerts: AlertMonitor

    public init(config: EngineConfig = EngineConfig()) {
        self.config = config
        gate = FixGate(settings: config.gateSettings)
        track = TrackFilter(settings: config.trackSettings)
        elevation = ElevationTracker(hysteresisM: config.elevationHysteresisM, gradeStretchM: FlightComputer.gradeStretchM)
        laps = LapCounter(autoLapM: config.autoLapM)
        sensors = SensorStats(hrMax: config.hrMax)
        autoPause = AutoPause(settings: config.autoPause)
        alerts = AlertMonitor(settings: config.alerts)
    }

    // MARK: - Inputs

    /// Processes one fix or sample.
    ///
    /// - Parameters:
    ///   - input: a validated input; its time may be NaN only with the live clock.
    ///   - wallClock: the wall clock now, used for a missing time with the live clock.
    ///   - journal: called with the input stamped with its resolved time once every check has
    ///     passed and before anything changes (a store journals it there); what it throws is
    ///     rethrown and the input is not processed.
    /// - Throws: `.input` when the time is missing (replay clock) or goes backwards; `.limit`
    ///   for a fix that would add a point to a full route (`maxRoutePoints`).
    public mutating func process(_ input: Input, wallClock: Double, events: inout [Event],
                                 journal: ((Input) throws(RunwayError) -> Void)? = nil) throws(RunwayError) {
        let t = try resolveTime(input.t, wallClock: wallClock, what: "input")
        let stamped = input.withTime(t)
        guard case .fix = input, route.count >= config.maxRoutePoints else {
            try journal?(stamped)
            run(stamped, at: t, &events)
            return
        }
        // The route is full. Whether this fix would add a point depends on the whole pipeline
        // (gate, track filter, distance filter, auto-pause), so it runs on a copy, which is kept
        // only when it added none. `keep` adds nothing to a full route, so the copy shares the
        // route's storage. (A fix adds at most one point, so below the limit no check is needed.)
        var trial = self
        trial.refusedPoint = false
        let mark = events.count
        trial.run(stamped, at: t, &events)
        do throws(RunwayError) {
            if trial.refusedPoint {
                let name = config.maxRoutePoints == EngineConfig.maxRoutePointsLimit
                    ? "RUNWAY_MAX_ROUTE_POINTS" : "the config's max_route_points"
                throw .limit("fix refused: the route is full (\(route.count) points, the limit of \(config.maxRoutePoints) points, \(name)); fixes that add no point are still accepted")
            }
            try journal?(stamped)
        } catch {
            events.removeSubrange(mark...)
            throw error
        }
        self = trial
    }

    /// Whether `keep` found the route full since this was last cleared (a trial's verdict).
    var refusedPoint = false

    /// Processes an input whose time is resolved and checked.
    mutating func run(_ input: Input, at t: Double, _ events: inout [Event]) {
        advance(to: t)
        switch input {
        case .fix(let fix): apply(fix, at: t, &events)
        case .sample(.heartRate(let bpm, _)): sensors.heartRate(bpm, at: t)
        case .sample(.cadence(let spm, _)): sensors.cadence(spm, at: t)
        case .sample(.altimeter(let metres, _)):
            if phase == .cruise { elevation.addBarometric(alt: metres, t: t, distanceM: distance) }
        case .sample(.power): break  // accepted; no power stage yet
        }
        emitFlight(&events)
    }

    mutating func apply(_ fix: Fix, at t: Double, _ events: inout [Event]) {
        fixes += 1
        if !fix.hr.isNaN { sensors.heartRate(fix.hr, at: t) }
        if !fix.cadence.isNaN { sensors.cadence(fix.cadence, at: t) }
        if !fix.hAcc.isNaN { sawAccuracy = true; hAcc = fix.hAcc }
        if config.filters { applyFiltered(fix, at: t, &events) } else { applyRaw(fix, at: t, &events) }
    }

    /// Raw accumulation: every accurate fix that passes the distance filter adds its distance.
    mutating func applyRaw(_ fix: Fix, at t: Double, _ events: inout [Event]) {
        let accurate = fix.hAcc.isNaN || fix.hAcc <= config.requiredAccuracyM
        if !accurate && !reducedAccuracy {
            reducedAccuracy = true
            pendingLog.append((.warning, "reduced accuracy: h_acc \(PFD.whole(fix.hAcc)) m > \(PFD.whole(config.requiredAccuracyM)) m; fixes not counted"))
        } else if accurate && reducedAccuracy && !fix.hAcc.isNaN {
            reducedAccuracy = false
            pendingLog.append((.info, "accuracy restored: h_acc \(PFD.whole(fix.hAcc)) m"))
        }
        showPosition(fix)
        if phase == .cruise && accurate {
            // Raw mode counts every fix, but a long gap still starts a new route segment.
            if let last = lastAccepted, t - last.t > config.gapS, !anchorLat.isNaN {
                beginSegment()
            }
            if anchorLat.isNaN {
                keep(fix, at: t)
            } else {
                let d = Geodesy.distance(lat1: anchorLat, lon1: anchorLon, lat2: fix.lat, lon2: fix.lon)
                if d >= config.distanceFilterM && (d > 0 || config.distanceFilterM == 0) {
                    distance += d
                    if let last = lastAccepted, fix.speed.isNaN || fix.speed > 0 { movingS += t - last.t }
                    keep(fix, at: t)
                }
            }
            pushWindow(t: t, d: distance)
        }
        groundSpeed = !fix.speed.isNaN ? fix.speed : (phase == .cruise ? windowSpeed() : .nan)
        if phase == .cruise { noteSpeed(groundSpeed) }
        lastAccepted = (fix.lat, fix.lon, t)
        lapAndAlert(at: t, &events)
    }

    /// The gate, the track filter, then everything fed from the measured distance.
    mutating func applyFiltered(_ fix: Fix, at t: Double, _ events: inout [Event]) {
        let verdict = gate.assess(fix, at: t)
        if gate.accuracyWarningDue(at: t) {
            pendingLog.append((.warning, "reduced accuracy for \(PFD.whole(config.gateSettings.warnAfterS)) s: h_acc \(PFD.whole(fix.hAcc)) m > \(PFD.whole(config.requiredAccuracyM)) m; fixes not counted"))
        }
        let wasReduced = reducedAccuracy
        reducedAccuracy = gate.accuracyIsBad
        if wasReduced && !reducedAccuracy { pendingLog.append((.info, "accuracy restored: h_acc \(PFD.whole(fix.hAcc)) m")) }
        let step: (d: Double, moving: Bool, newSegment: Bool)
        switch verdict {
        case .filtered(let reason):
            filtered[reason] += 1
            pendingLog.append((.info, "filtered fix at t \(t): \(reason.rawValue)\(FlightComputer.detail(reason, fix, config))"))
            return
        case .accept(let newSegment, let reanchored):
            if reanchored {
                // The previous anchor was junk: if it stands alone on the route, it goes (kept
                // in cruise, or by the resume it completed, and still there when auto-paused since;
                // a flight the user paused or stopped keeps its route as it was).
                // (A start or resume keeps it at the command's time: the position identifies it.)
                if phase == .cruise || (phase == .holding && holdingBy == .auto),
                   route.currentSegmentCount == 1, let a = lastAccepted,
                   route.lat.last == Route.quantise(a.lat), route.lon.last == Route.quantise(a.lon) {
                    route.removeLast()
                }
                // When the junk was the first fix after a gap, the gap ends here instead.
                if let gap = pendingGap {
                    let chord = Geodesy.distance(lat1: gap.lat, lon1: gap.lon, lat2: fix.lat, lon2: fix.lon)
                    creditPendingGap(&events, as: config.countGaps ? chord : 0, confirmedBy: fix, at: t)
                }
                pendingLog.append((.info, "gate re-anchored on consistent fixes; the previous anchor was an outlier"))
                track.reset(at: fix, t: t)
                step = (0, false, true)
            } else if newSegment, let last = lastAccepted {
                let chord = Geodesy.distance(lat1: last.lat, lon1: last.lon, lat2: fix.lat, lon2: fix.lon)
                // A gap before this one (a sparse recorder: one fix a gap): the fix after it
                // (`last`) is borne out, and confirms it, when this fix lies on the way on from
                // where the runner was before that gap. If not (a junk fix and the way back from
                // it; a hairpin looks the same), that gap stays unconfirmed, and where the runner
                // was last known to be stays where it was.
                var from = (lat: last.lat, lon: last.lon, t: last.t)
                var bornOut: Fix? = nil, trust = PendingGap.Trust.known
                if let gap = pendingGap {
                    let direct = Geodesy.distance(lat1: gap.fromLat, lon1: gap.fromLon, lat2: fix.lat, lon2: fix.lon)
                    let via = Geodesy.distance(lat1: gap.fromLat, lon1: gap.fromLon, lat2: last.lat, lon2: last.lon) + chord
                    if direct >= via / 2 {
                        bornOut = Fix(t: last.t, lat: last.lat, lon: last.lon, speed: deviceSpeed)   // `last` is still shown
                    } else if gap.trust == .known {
                        from = (gap.fromLat, gap.fromLon, gap.fromT)
                        trust = .carried
                    } else {
                        trust = .unknown   // two doubtful fixes in a row: where the runner is, is unknown
                    }
                }
                creditPendingGap(&events, confirmedBy: bornOut, at: last.t)
                let gapD = config.countGaps ? chord : 0
                track.reset(at: fix, t: t)
                let autoHeld = phase == .holding && holdingBy == .auto
                if phase == .cruise || autoHeld {
                    pendingGap = PendingGap(lat: last.lat, lon: last.lon, d: gapD, at: t,
                                            fromLat: from.lat, fromLon: from.lon, fromT: from.t, trust: trust,
                                            held: autoHeld)
                    step = (0, false, true)
                } else {
                    step = (gapD, false, true)
                }
            } else {
                creditPendingGap(&events, confirmedBy: fix, at: t)   // this fix agrees with the one after the gap
                let r = track.update(fix, t: t)
                step = (r.distanceM, r.moving, false)
            }
        }
        let dt = lastAccepted.map { t - $0.t } ?? 0
        showPosition(fix)
        switch phase {
        case .cruise:
            distance += step.d
            if step.moving { movingS += dt }
            if step.newSegment {
                beginSegment()
                // No current pace across a gap: it would be the gap's, not the runner's.
                window.removeAll(keepingCapacity: true); windowHead = 0
            }
            keepIfFarEnough(fix, at: t, force: step.newSegment)
            pushWindow(t: t, d: distance)
            if altitudeGate.accepts(fix.alt, at: t) {
                if altitudeGate.reanchored { elevation.rebase(.gps) }
                elevation.addGPS(alt: fix.alt, t: t, distanceM: distance)
            }
        case .holding where holdingBy == .auto:
            heldSteps.append((t, step.d, step.moving ? dt : 0))
        default:
            break
        }
        lastAccepted = (fix.lat, fix.lon, t)
        updateGroundSpeed(at: t)
        if phase == .cruise { noteSpeed(groundSpeed) }
        if let v = gapSpeedSample { gapSpeedSample = nil; runAutoPause(speed: v, at: t, &events) }
        // Without Doppler speed, a filter that starts over at this fix has measured no speed yet.
        runAutoPause(speed: !fix.speed.isNaN ? fix.speed : (step.newSegment ? .nan : track.speedMps), at: t, &events)
        lapAndAlert(at: t, &events)
    }

    /// Credits the gap waiting for the fix after it (see `PendingGap`), as `d` metres when given,
    /// else as its own distance; nothing when none waits. The pace window,
    /// reset at the gap, and the route point kept at the fix after the gap move up with it, so the
    /// credit is no burst of speed. In cruise the auto laps that waited are cut now, as of the fix
    /// after the gap (so a lap ending in the gap spans the gap's time), before whatever credited
    /// it (the next fix, a pause, a stop, a manual lap, another gap) goes on: each gets its
    /// `split` event in order, and a lap never ends inside a pause.
    mutating func creditPendingGap(_ events: inout [Event], as metres: Double? = nil,
                                   confirmedBy confirming: Fix? = nil, at confirmedT: Double = .nan) {
        guard let gap = pendingGap else { return }
        pendingGap = nil
        let d = metres ?? gap.d
        // Credited by a phase command or a manual lap, the gap's distance is taken as it is, but
        // nothing has confirmed the fix after it: no measure of the runner's speed (a lap in
        // the second between a junk fix and the next one would otherwise resume a standing ride).
        var speed = 0.0
        if let confirming, gap.trust != .unknown { speed = gap.speed(to: confirming, at: confirmedT) }
        let autoHeld = phase == .holding && holdingBy == .auto
        if gap.held {
            // Still auto-paused (a held gap's resume takes it up): a step of the hold, before
            // the step of the fix that credits it. Crossed at moving speed, the fast hold that
            // may resume the flight began with it.
            guard autoHeld else { return }
            if d > 0 { heldSteps.append((gap.at, d, 0)) }
            // With Doppler speed the confirming fix must not say standing (a small junk fix a
            // few seconds after the one after the gap passes the gate, and its line from before
            // the gap can be fast; a rider in a corner is slow, not standing).
            let doppler = confirming?.speed ?? .nan
            if speed > config.autoPause.resumeAboveMps, doppler.isNaN || doppler >= config.autoPause.pauseBelowMps {
                // Not to before the pause itself: the cruise up to it is counted already.
                autoPause.backdateFastHold(to: autoPausedSince.isNaN ? gap.fromT : max(gap.fromT, autoPausedSince))
                // The gap's speed is also a sample of the hold, taken with the confirming fix,
                // before that fix's own (a filter starting over without Doppler has measured none).
                gapSpeedSample = speed
            }
            return
        }
        if speed >= config.autoPause.pauseBelowMps, speed > 0 {
            lastMovingGapEnd = gap.at
            if let from = gap.pausedFrom, autoHeld {
                // An auto-pause backdated to before the gap, but the runner moved across it: the
                // slow samples before the gap were a slowdown, and the pause starts at its end.
                elapsedBefore += gap.at - from
                cruiseLegs.moveLastEnd(from: from, to: gap.at)
                autoPausedSince = gap.at
            }
        }
        if d > 0 {
            distance += d
            for i in windowHead..<window.count { window[i].d += d }
            if route.count > 0, route.time(route.count - 1) == gap.at { route.setLastDistance(route.distanceM(route.count - 1) + d) }
        }
        if phase == .cruise { cutLaps(progress(at: gap.at), &events) }
    }

    /// After a fix in cruise, filtered or raw: auto laps, then GPWS and MINIMUMS.
    mutating func lapAndAlert(at t: Double, _ events: inout [Event]) {
        guard phase == .cruise else { return }
        if pendingGap == nil { cutLaps(lapProgress, &events) }   // see PendingGap
        let judgedPace = paceSettled(at: t) ? FlightData.pace(speedMps: groundSpeed) : .nan
        for alert in alerts.update(t: t, paceMinPerKm: judgedPace,
                                   hrBpm: sensors.heartRate(at: t), distanceM: distance) {
            seq += 1
            events.append(Event(seq: seq, t: t, body: .alert(alert)))
        }
    }

    static func detail(_ reason: FixGate.Reason, _ fix: Fix, _ config: EngineConfig) -> String {
        switch reason {
        case .accuracy: return " (h_acc \(PFD.whole(fix.hAcc)) m > \(PFD.whole(config.requiredAccuracyM)) m)"
        case .speed: return " (implied speed above \(PFD.whole(config.speedCapMps)) m/s)"
        case .nullIsland, .repeatedTime: return ""
        }
    }

    mutating func showPosition(_ fix: Fix) {
        lat = fix.lat; lon = fix.lon; course = fix.course; deviceSpeed = fix.speed
        if !fix.alt.isNaN { alt = fix.alt }
    }

    /// Keeps the fix as a route point when it is at least the distance filter away from the last kept point.
    mutating func keepIfFarEnough(_ fix: Fix, at t: Double, force: Bool) {
        if anchorLat.isNaN || force {
            keep(fix, at: t)
            return
        }
        let d = Geodesy.distance(lat1: anchorLat, lon1: anchorLon, lat2: fix.lat, lon2: fix.lon)
        guard d >= config.distanceFilterM, d > 0 || config.distanceFilterM == 0 else { return }
        keep(fix, at: t)
    }

    /// Ends a cruise leg's route at the latest accepted fix when the distance filter left it out,
    /// so the route's last cumulative distance is the flight's (before, it fell short by the
    /// distance measured after the last kept point: 4.2 m on a 2.6 km run). Not on a full route.
    mutating func keepLatestPosition() {
        guard config.filters, let last = lastAccepted, route.count > 0, route.count < config.maxRoutePoints,
              route.time(route.count - 1) < last.t, route.distanceM(route.count - 1) < Double(Float(distance)) else { return }
        keep(Fix(t: last.t, lat: last.lat, lon: last.lon, alt: alt), at: last.t)
    }

    /// Starts a new route segment, unless the route is full (no point would follow).
    mutating func beginSegment() {
        if route.count < config.maxRoutePoints { route.beginSegment() }
    }

    /// Adds a route point; on a full route, changes nothing and notes the refusal (the
    /// caller's trial then refuses the fix; a phase change just adds no point).
    mutating func keep(_ fix: Fix, at t: Double) {
        guard route.count < config.maxRoutePoints else {
            refusedPoint = true
            return
        }
        if !anchorLat.isNaN {
            let d = Geodesy.distance(lat1: anchorLat, lon1: anchorLon, lat2: fix.lat, lon2: fix.lon)
            if d > 0 { segmentBearing = Geodesy.bearing(lat1: anchorLat, lon1: anchorLon, lat2: fix.lat, lon2: fix.lon) }
        }
        anchorLat = fix.lat
        anchorLon = fix.lon
        route.append(lat: fix.lat, lon: fix.lon, alt: fix.alt, t: t, distanceM: distance,
                     speedMps: groundSpeed, hr: sensors.heartRate(at: t), cadence: sensors.cadence(at: t))
    }

    mutating func noteSpeed(_ v: Double) {
        if !v.isNaN, !(v <= maxSpeed) { maxSpeed = v }
    }

    mutating func pushWindow(t: Double, d: Double) {
        if window.isEmpty { windowSince = t }
        window.append((t, d))
        while windowHead < window.count - 1, window[windowHead].t < t - config.paceWindowS { windowHead += 1 }
        if windowHead > 64 && windowHead * 2 > window.count {
            window.removeFirst(windowHead)
            windowHead = 0
        }
    }

    /// Distance over time across the pace window; NaN with fewer than two fixes in it.
    func windowSpeed() -> Double {
        guard window.count - windowHead >= 2, let last = window.last else { return .nan }
        let first = window[windowHead]
        let dt = last.t - first.t
        guard dt > 0 else { return .nan }
        return (last.d - first.d) / dt
    }

    /// The current ground speed: distance over time across the pace window, once the window spans
    /// enough of its length (so one noisy step cannot make the pace jump); before that, the track
    /// filter's own speed. With Doppler speed, half the window is enough. Without it, the pace must
    /// have settled (`paceSettled`) before the window's speed is taken and smoothed.
    mutating func updateGroundSpeed(at t: Double) {
        guard phase == .cruise else { groundSpeed = phase == .holding ? 0 : .nan; return }
        guard window.count - windowHead >= 2, let last = window.last else { groundSpeed = .nan; return }
        let span = last.t - window[windowHead].t
        let enough = deviceSpeed.isNaN ? paceSettled(at: t) : span >= config.paceWindowS / 2
        let measured = enough ? windowSpeed() : (track.speedMps.isNaN ? windowSpeed() : track.speedMps)
        let raw = min(measured, config.speedCapMps)   // nothing faster than the gate believes
        // Without Doppler speed, the window's speed carries the receiver's drift: smooth it.
        // (An exponential average over 10 s halves the median error; see the accuracy tests.)
        let tau = deviceSpeed.isNaN ? FlightComputer.positionsOnlySmoothingS : 0
        if tau > 0, enough, !groundSpeed.isNaN, !raw.isNaN, let prevT = lastSpeedT, t > prevT {
            let a = (t - prevT) / (tau + (t - prevT))
            groundSpeed += a * (raw - groundSpeed)
        } else {
            groundSpeed = raw
        }
        lastSpeedT = t
    }
    var lastSpeedT: Double? = nil
    /// When the pace window began to fill (the start, a resume, a gap: each empties it).
    var windowSince = Double.nan
    /// Whether the current pace has left the start (from a standstill, after a resume or a gap)
    /// behind; GPWS does not judge it before. With Doppler speed, once the pace window has filled
    /// since it was last emptied, and with the filters off (raw distance has no filter to lag).
    /// Without Doppler, once it has filled twice over: the window's distance is the track
    /// filter's, which takes some seconds to follow the runner from a standstill, so the first
    /// window holds the filter's lag. Until then the filter's own speed is shown; a
    /// window that was smoothed from the start read 23% slow 10-20 s after it, and 12% at 20-30 s
    /// (`benchmarks/accuracy_figures.py`).
    func paceSettled(at t: Double) -> Bool {
        t - windowSince >= (deviceSpeed.isNaN && config.filters ? 2 : 1) * config.paceWindowS
    }
    static let positionsOnlySmoothingS = 10.0
    /// Grade is taken over at least this much horizontal distance (GPS altitude is too noisy
    /// for the minimum of 10 m).
    static let gradeStretchM = 30.0

    // MARK: - Auto-pause, laps

    mutating func runAutoPause(speed: Double, at t: Double, _ events: inout [Event]) {
        guard config.autoPause.enabled, phase == .cruise || (phase == .holding && holdingBy == .auto) else { return }
        switch autoPause.update(speedMps: speed, t: t, autoPaused: phase == .holding) {
        case .none:
            // A resume credits only the steps after the start of its fast hold: keep no others,
            // or a long auto-pause (a parked bike with its receiver on) grows them by one a fix.
            // A gap still waiting may yet start that hold where the runner was before it (see
            // `PendingGap`): the steps after that stay too.
            guard phase == .holding else { break }
            var since = autoPause.fastSince
            if let from = pendingGap?.fromT { since = min(since ?? from, from) }
            if let since, let first = heldSteps.firstIndex(where: { $0.t > since }) {
                heldSteps.removeFirst(first)
            } else {
                heldSteps.removeAll(keepingCapacity: true)
            }
        case .pause(let at):
            var when = max(at, cruiseSince.isNaN ? at : cruiseSince)
            if when < lastMovingGapEnd { when = lastMovingGapEnd }   // not across a gap the runner crossed moving (NaN: none)
            if let gap = pendingGap, !gap.held, !cruiseSince.isNaN, when < gap.at { pendingGap?.pausedFrom = when }
            autoPausedSince = when
            elapsedBefore += cruiseSince.isNaN ? 0 : max(0, when - cruiseSince)
            cruiseLegs.close(from: cruiseSince, to: when)
            keepLatestPosition()
            cruiseSince = .nan
            heldSteps.removeAll(keepingCapacity: true)
            alerts.resetHolds()
            changePhase(to: .holding, by: .auto, at: t, &events)
        case .resume(let at):
            // Credit what was measured since the runner really started moving again.
            for s in heldSteps where s.t > at {
                distance += s.d
                movingS += s.movingDt
            }
            heldSteps.removeAll(keepingCapacity: true)
            // A gap still waiting that ended in the hold: an ordinary gap from now on when the
            // fast hold began before it, else it is the hold's.
            if let gap = pendingGap, gap.held {
                if gap.at > at { pendingGap?.held = false } else { pendingGap = nil }
            }
            cruiseSince = min(at, t)
            window.removeAll(keepingCapacity: true); windowHead = 0
            alerts.resetHolds()
            changePhase(to: .cruise, by: nil, at: t, &events)
            beginSegment()
            if !lat.isNaN { keep(Fix(t: t, lat: lat, lon: lon, alt: alt), at: t) }
        }
    }

    var lapProgress: LapProgress {
        LapProgress(t: now, distanceM: distance, elapsedS: elapsed, gainM: elevation.gainM, lossM: elevation.lossM,
                    hrBeatsIntegral: sensors.hrBeatsIntegral, hrCoveredS: sensors.hrCoveredS)
    }

    mutating func cutLaps(_ progress: LapProgress, _ events: inout [Event]) {
        let stoppedBefore = laps.autoLapsStopped
        for lap in laps.update(progress) { emitSplit(lap, &events) }
        if laps.autoLapsStopped && !stoppedBefore {
            appendLog(.warning, "auto laps stopped: the flight has \(laps.laps.count) laps, one less than the limit of \(LapCounter.maxLaps) (RUNWAY_MAX_LAPS); the rest of the flight is its final lap", &events)
        }
    }

    mutating func emitSplit(_ lap: Lap, _ events: inout [Event]) {
        seq += 1
        events.append(Event(seq: seq, t: lap.endT, body: .split(lap)))
    }

    /// Ends the current lap now (a manual lap).
    public mutating func lap(at t: Double, wallClock: Double, events: inout [Event]) throws(RunwayError) {
        let time = try checkLap(at: t, wallClock: wallClock)
        creditPendingGap(&events)
        if !time.isNaN { advance(to: time) }
        guard let lap = laps.manualLap(lapProgress) else { return }   // checkLap made sure there is one
        emitSplit(lap, &events)
        emitFlight(&events)
    }

    /// Checks that a manual lap is allowed at `t` and returns its resolved time; changes nothing.
    public func checkLap(at t: Double, wallClock: Double) throws(RunwayError) -> Double {
        guard phase == .cruise || phase == .holding else {
            throw .state("cannot lap in phase \(phase.rawValue)")
        }
        let time = try resolveTime(t, wallClock: wallClock, what: "lap", optional: true)
        var probe = laps
        guard probe.manualLap(progress(at: time.isNaN ? now : time)) != nil else {
            if probe.isFull {   // full already, or an auto lap due before this one fills it
                throw .limit("lap refused: the flight has \(probe.laps.count) laps, and the limit of \(LapCounter.maxLaps) (RUNWAY_MAX_LAPS) keeps the last for its final lap")
            }
            throw .state("nothing to lap: no time or distance since the last lap")
        }
        return time
    }

    /// The lap progress as it will be at `time` (only the clock moves).
    func progress(at time: Double) -> LapProgress {
        var p = lapProgress
        if let gap = pendingGap, !gap.held { p.distanceM += gap.d }   // a lap credits a pending gap first
        guard !time.isNaN else { return p }
        p.t = time
        if phase == .cruise, !cruiseSince.isNaN { p.elapsedS = elapsedBefore + max(0, time - cruiseSince) }
        return p
    }

    /// The time `input` will be processed at (its own, or the clock's); throws what `process`
    /// would throw for its time. Changes nothing: a journal can record the input first.
    public func resolvedTime(of input: Input, wallClock: Double) throws(RunwayError) -> Double {
        try resolveTime(input.t, wallClock: wallClock, what: "input")
    }

    // MARK: - Phases and time

    /// Applies a phase command at time `t` (NaN = now).
    ///
    /// A user's pause while auto-paused makes the hold the user's; resume ends either kind of hold.
    /// - Throws: `.state` when the command is not allowed in the current phase, `.input` for a time
    ///   before the latest input.
    public mutating func command(_ command: PhaseCommand, at t: Double, wallClock: Double,
                                 events: inout [Event]) throws(RunwayError) {
        let (next, time) = try check(command, at: t, wallClock: wallClock)
        creditPendingGap(&events)   // the flight leaves cruise: as it is
        if !time.isNaN { advance(to: time) }
        if phase == .cruise && (command == .pause || command == .stop) { keepLatestPosition() }
        switch command {
        case .start:
            startT = time
            cruiseSince = time
        case .pause:
            elapsedBefore = elapsed
            cruiseLegs.close(from: cruiseSince, to: now)
            cruiseSince = .nan
            heldSteps.removeAll(keepingCapacity: true)
        case .resume:
            cruiseSince = time
            window.removeAll(keepingCapacity: true); windowHead = 0
        case .stop:
            elapsedBefore = elapsed
            cruiseLegs.close(from: cruiseSince, to: now)
            cruiseSince = .nan
            endT = time
            endReason = "stopped"
        }
        autoPause.reset()
        alerts.resetHolds()
        if time.isNaN { timePending = true }
        changePhase(to: next, by: next == .holding ? .user : nil, at: time, &events)
        if next == .cruise {
            beginSegment()
            anchorAtCurrentPosition(time)
            if command == .start { _ = laps.update(lapProgress) }   // the laps start here
        }
        if next == .touchdown, let last = laps.finish(lapProgress) { emitSplit(last, &events) }
        emitFlight(&events)
    }

    /// Checks that `command` is allowed now; returns the phase it leads to and its resolved time
    /// (NaN when pending on the next input). Changes nothing.
    public func check(_ command: PhaseCommand, at t: Double, wallClock: Double) throws(RunwayError) -> (FlightPhase, Double) {
        let userTakesOverAutoHold = command == .pause && phase == .holding && holdingBy == .auto
        guard let next = userTakesOverAutoHold ? .holding : phase.after(command) else {
            throw .state("cannot \(command.rawValue) in phase \(phase.rawValue)" +
                         (phase == .touchdown ? " (a session is one flight)" : ""))
        }
        return (next, try resolveTime(t, wallClock: wallClock, what: command.rawValue, optional: true))
    }

    /// Lands an unfinished flight at its latest time with an end reason of its own (a flight
    /// recovered after its host died is finished as "recovered").
    public mutating func land(reason: String, events: inout [Event]) {
        if phase != .touchdown && phase != .preflight {
            try? command(.stop, at: .nan, wallClock: now, events: &events)
        }
        endReason = reason
    }

    mutating func changePhase(to next: FlightPhase, by: HoldReason?, at time: Double, _ events: inout [Event]) {
        let from = phase
        let fromBy = holdingBy
        phase = next
        holdingBy = next == .holding ? by : nil
        seq += 1
        events.append(Event(seq: seq, t: time, body: .phase(from: from, to: next, by: holdingBy)))
        let how = holdingBy.map { " (\($0.rawValue))" } ?? (fromBy == .auto && next == .cruise ? " (auto)" : "")
        appendLog(.info, "phase \(from.rawValue) -> \(next.rawValue)\(how)", &events)
    }

    /// Starts a cruise leg where the runner is: the latest accurate fix becomes the first kept
    /// point, so neither the preflight position nor the walk while holding adds distance, and the
    /// stretch from the start line to the next fix is not lost.
    mutating func anchorAtCurrentPosition(_ t: Double) {
        anchorLat = .nan; anchorLon = .nan
        guard !lat.isNaN, !reducedAccuracy else { return }
        keep(Fix(t: t, lat: lat, lon: lon, alt: alt), at: t.isNaN ? now : t)
    }

    /// Advances the clock without a fix; emits a `tick` while cruising.
    public mutating func tick(at t: Double, wallClock: Double, events: inout [Event]) throws(RunwayError) {
        let time = try resolveTime(t, wallClock: wallClock, what: "tick", optional: true)
        guard !time.isNaN else { return }  // replay clock before any input: nothing to advance
        advance(to: time)
        guard phase == .cruise else { return }
        seq += 1
        events.append(Event(seq: seq, t: time, body: .tick(elapsedS: elapsed, distanceM: distance, phase: phase)))
    }

    /// Records in the log that replaying a journal refused some of its entries (run state is
    /// unchanged): the flight then differs from the one recorded.
    public mutating func logReplayRefusals(_ count: Int, of total: Int, first: RunwayError, events: inout [Event]) {
        appendLog(.warning, "replay: \(count) of \(total) journaled entries were refused (the first: \(Self.clipped(first.message, 160))); this flight differs from the one recorded (another config, or another build)", &events)
    }

    /// Records a rejected input in the log (run state is unchanged).
    public mutating func logRejection(_ error: RunwayError, events: inout [Event]) {
        appendLog(.error, "rejected input: " + Self.clipped(error.message, 200), &events)
    }

    /// `message`, cut to `limit` characters with an ellipsis when longer (a log line stays short).
    static func clipped(_ message: String, _ limit: Int) -> String {
        message.count > limit ? String(message.prefix(limit)) + "…" : message
    }

    /// Cruise seconds so far.
    public var elapsed: Double {
        guard phase == .cruise, !cruiseSince.isNaN, !now.isNaN else { return elapsedBefore }
        return elapsedBefore + max(0, now - cruiseSince)
    }

    /// The time of an input or command: its own, the wall clock (live), or the latest (replay).
    func resolveTime(_ t: Double, wallClock: Double, what: String, optional: Bool = false) throws(RunwayError) -> Double {
        if t.isNaN {
            if config.clock == .live {
                return now.isNaN ? wallClock : max(now, wallClock)
            }
            if optional { return now }
            throw .input("\(what) needs \"t\" (unix seconds) with the replay clock")
        }
        try Sample.checkTime(t)
        if !now.isNaN && t < now {
            throw .input("time going backwards: t \(t) is before the latest \(now)")
        }
        return t
    }

    /// Moves the clock to `t`, filling in phase times that were pending.
    mutating func advance(to t: Double) {
        sensors.advance(to: t, counting: phase == .cruise)
        now = t
        guard timePending else { return }
        timePending = false
        if phase != .preflight && startT.isNaN { startT = t }
        if phase == .cruise && cruiseSince.isNaN { cruiseSince = t }
        if phase == .touchdown && endT.isNaN { endT = t }
    }

    // MARK: - Outputs

    mutating func appendLog(_ level: LogRing.Line.Level, _ message: String, _ events: inout [Event]) {
        seq += 1
        let line = LogRing.Line(seq: seq, t: now, level: level, message: message)
        log.append(line)
        events.append(Event(seq: seq, t: now, body: .log(line)))
    }

    mutating func emitFlight(_ events: inout [Event]) {
        if !pendingLog.isEmpty {
            for (level, message) in pendingLog { appendLog(level, message, &events) }
            pendingLog.removeAll(keepingCapacity: true)
        }
        seq += 1
        flightSeq = seq
        // The snapshot is built only when someone will read the event; its seq is taken either way.
        if emitsSnapshots { events.append(Event(seq: seq, t: now, body: .flight(snapshot))) }
    }

    /// Whether `flight` events are built (a session turns it off while no subscriber wants them:
    /// the seq still advances, so `runway_snapshot_json` and later events are unchanged).
    public var emitsSnapshots = true

    /// The current FlightData.
    public var snapshot: FlightData {
        var d = FlightData()
        d.seq = flightSeq
        d.t = now
        d.phase = phase
        d.holdingBy = holdingBy?.rawValue
        d.lat = lat; d.lon = lon; d.hAccM = hAcc
        d.accuracy = reducedAccuracy ? .reduced : (sawAccuracy ? .ok : .unknown)
        d.distanceM = distance
        d.points = route.count
        d.segments = route.segmentStarts.count
        d.fixes = fixes
        d.filteredBy = filtered
        d.filtered = filtered.total
        d.speedMps = config.filters ? deviceSpeed : groundSpeed
        d.groundSpeedMps = groundSpeed
        d.altitudeM = config.filters && !elevation.altitudeM.isNaN ? elevation.altitudeM : alt
        d.headingDeg = course.isNaN ? segmentBearing : course
        d.elapsedS = elapsed
        d.movingS = movingS
        d.hrBpm = now.isNaN ? .nan : sensors.heartRate(at: now)
        d.cadenceSpm = now.isNaN ? .nan : sensors.cadence(at: now)
        d.gainM = elevation.gainM
        d.lossM = elevation.lossM
        // Grade needs motion: standing still, altitude drift over the last few metres is no slope.
        d.gradePct = groundSpeed >= track.settings.movingSpeedMps ? elevation.gradePct : .nan
        d.verticalSpeedMps = elevation.verticalSpeedMps
        d.lap = laps.laps.count + 1
        d.lapDistanceM = distance - laps.current.distanceM
        d.lapElapsedS = elapsed - laps.current.elapsedS
        return d
    }

    /// The flight record so far: times, totals, averages, laps and (optionally) the route.
    public func writeSummary(to w: inout JSONWriter, includeRoute: Bool = true) {
        let elapsedS = elapsed
        w.beginObject()
        w.field("kind", "summary")
        if let flightID { w.field("flight_id", flightID) }
        w.field("phase", phase.rawValue)
        w.key("end_reason"); if let endReason { w.string(endReason) } else { w.null() }
        w.field("activity", config.activity.rawValue)
        w.field("filters", config.filters ? "on" : "off")
        w.field("start_t", startT)
        w.field("end_t", endT)
        w.field("elapsed_s", elapsedS)
        w.field("moving_s", movingS)
        w.field("distance_m", distance)
        w.field("avg_pace_min_per_km", FlightData.averagePace(elapsedS: elapsedS, distanceM: distance))
        w.field("avg_moving_pace_min_per_km", FlightData.averagePace(elapsedS: movingS, distanceM: distance))
        w.field("avg_speed_mps", elapsedS > 0 ? distance / elapsedS : .nan)
        w.field("max_speed_mps", maxSpeed)
        w.field("gain_m", elevation.gainM)
        w.field("loss_m", elevation.lossM)
        w.field("min_altitude_m", elevation.minAltitudeM)
        w.field("max_altitude_m", elevation.maxAltitudeM)
        w.field("avg_hr_bpm", sensors.avgHrBpm)
        w.field("max_hr_bpm", sensors.maxHrBpm)
        w.field("hr_max_setting", config.hrMax)
        w.key("hr_zone_s"); w.beginArray(); for z in sensors.zoneSeconds { w.number(z) }; w.endArray()
        w.field("avg_cadence_spm", sensors.avgCadenceSpm)
        w.field("max_cadence_spm", sensors.maxCadenceSpm)
        w.field("fixes", fixes)
        w.key("filtered"); filtered.write(to: &w)
        w.field("points", route.count)
        w.field("segments", route.segmentStarts.count)
        w.key("laps")
        w.beginArray()
        for lap in laps.laps { lap.write(to: &w) }
        w.endArray()
        if includeRoute {
            let simple = Simplify.indices(of: route, toleranceM: config.simplifyM)
            w.field("simplify_m", config.simplifyM)
            w.key("route_simplified")
            w.beginArray()
            for i in simple {
                w.beginArray()
                w.number(route.latitude(i)); w.number(route.longitude(i))
                w.number(route.altitude(i)); w.number(route.time(i))
                w.endArray()
            }
            w.endArray()
            w.key("segment_starts")
            w.beginArray(); for s in route.segmentStarts { w.integer(s) }; w.endArray()
            w.key("route")
            w.beginArray()
            for i in 0..<route.count {
                w.beginArray()
                w.number(route.latitude(i)); w.number(route.longitude(i))
                w.number(route.altitude(i)); w.number(route.time(i))
                w.endArray()
            }
            w.endArray()
        }
        w.endObject()
    }

    public func summaryJSON(includeRoute: Bool = true) -> String {
        var w = JSONWriter()
        writeSummary(to: &w, includeRoute: includeRoute)
        return w.text
    }
}

extension FixGate.Reason {
    /// The key in JSON (a StaticString, as the writer takes).
    var jsonKey: StaticString {
        switch self {
        case .accuracy: return "accuracy"
        case .nullIsland: return "null_island"
        case .speed: return "speed"
        case .repeatedTime: return "repeated_time"
        }
    }
}

extension Lap {
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("index", index)
        w.field("trigger", trigger.rawValue)
        w.field("start_t", startT)
        w.field("end_t", endT)
        w.field("distance_m", distanceM)
        w.field("elapsed_s", elapsedS)
        w.field("pace_min_per_km", paceMinPerKm)
        w.field("avg_hr_bpm", avgHrBpm)
        w.field("gain_m", gainM)
        w.field("loss_m", lossM)
        w.endObject()
    }
}

/// Refuses GPS altitudes that jump faster than anyone climbs (receivers settling report junk
/// such as 55 m → 142 m → 56 m within seconds); like the fix gate, it re-anchors when several
/// consecutive refused altitudes agree with each other, so a junk first altitude cannot lock it out.
struct AltitudeGate: Sendable {
    /// The fastest believable change of altitude (m/s), plus a fixed allowance for noise (m).
    static let maxVerticalSpeedMps = 5.0
    static let noiseAllowanceM = 10.0
    static let reanchorCount = 3
    /// Refused altitudes must agree for this long before they are believed (a settling
    /// receiver's junk lasts a few seconds).
    static let reanchorSpanS = 10.0

    var last: (alt: Double, t: Double)?
    var candidates: [(alt: Double, t: Double)] = []
    /// Whether the last accepted altitude re-anchored the gate: the previous level was the
    /// outlier, and the step from it is no climb.
    private(set) var reanchored = false

    static func consistent(_ a: (alt: Double, t: Double), _ b: (alt: Double, t: Double)) -> Bool {
        abs(b.alt - a.alt) <= noiseAllowanceM + maxVerticalSpeedMps * abs(b.t - a.t)
    }

    /// Whether to use this altitude (NaN: missing, never used).
    mutating func accepts(_ alt: Double, at t: Double) -> Bool {
        guard !alt.isNaN else { return false }
        let sample = (alt: alt, t: t)
        reanchored = false
        guard let l = last, !AltitudeGate.consistent(l, sample) else {
            last = sample
            candidates.removeAll(keepingCapacity: true)
            return true
        }
        if let c = candidates.last, !AltitudeGate.consistent(c, sample) { candidates.removeAll(keepingCapacity: true) }
        candidates.append(sample)
        if candidates.count >= AltitudeGate.reanchorCount,
           let first = candidates.first, t - first.t >= AltitudeGate.reanchorSpanS {
            last = sample
            candidates.removeAll(keepingCapacity: true)
            reanchored = true
            return true
        }
        return false
    }
}
