/// The deterministic heart of the engine: the pipeline of stages that turns inputs into run state.
///
/// A plain value with no clock of its own (the wall clock is a parameter), so the same inputs give
/// the same outputs and a recorded run replays exactly. It holds the stages, passes each input
/// through them and applies what they return; each method appends the events it causes, with
/// increasing `seq`, and a method that throws has changed nothing.
///
/// Filters on: `GateStage` → `TrackFilter` (or `GapResolver` at a gap) → a `Step` for
/// `StillnessDetector` (then `Odometer`), `RouteRecorder`, `PaceEstimator`, `ElevationStage` and
/// `AutoPauseStage`, then `LapStage` and `AlertMonitor`. Filters off, the shorter pipeline: `RawTrack` measures the `Step`, with no
/// gap stage, elevation or auto-pause. Gaps reach the others as one `GapCredit`.
///
/// Here: the inputs' path (`process`, `apply`, `measure`). In extensions: the shorter pipeline's
/// fix and leg end (`+Raw`), phase commands, laps and time (`+Commands`), a gap's credit (`+Gaps`),
/// speed samples (`+SpeedSensor`), auto-pause (`+AutoPause`), a doubted speed (`+Dropout`), route
/// points (`+Route`), the readings (`+Readings`).
///
///     var fc = FlightComputer()
///     var events: [Event] = []
///     try fc.command(.start, at: 0, wallClock: .nan, events: &events)
///     try fc.process(.fix(Fix(t: 1, lat: 52, lon: 4, speed: 3)), wallClock: .nan, events: &events)
public struct FlightComputer: Sendable {
    public let config: EngineConfig
    /// The flight's id in a store (written into the summary), if any.
    public var flightID: String? = nil
    /// Whether `flight` events are built (the seq advances either way).
    public var emitsSnapshots = true
    public typealias HoldReason = PhaseMachine.HoldReason

    var clock = FlightClock(), phases = PhaseMachine(), eventLog = EventLog()
    var gate: GateStage, track: TrackFilter, raw: RawTrack, gaps: GapResolver
    var odometer = Odometer(), stillness: StillnessDetector, pause: AutoPauseStage, pace: PaceEstimator, recorder: RouteRecorder
    var elevationStage: ElevationStage, lapStage: LapStage, sensors: SensorStats, alerts: AlertMonitor
    var metrics = Metrics(), lag = StartLag(), dopplerCheck = DopplerCheck(), owed = 0.0
    /// The time of the latest input with power that the power alerts have yet to judge (`+∞`:
    /// none): they judge it once every input of its second is in (`judgePower`).
    var powerToJudgeAt = Double.infinity
    var shown = ShownFix()
    /// Whether the log said that a recording's laps are not taken (`passOverDeviceLap`).
    var saidDeviceLapsPassed = false
    var speedSensor: SpeedSensorStage
    /// Metres the speed samples measured (with their held steps a resume credited).
    var sensorM = 0.0
    /// The flight's distance when a fix last measured it.
    var distanceAtPosition = 0.0
    var lastAccepted: GapResolver.LastFix? = nil
    /// Where a leg that a start or resume began lies when the last fix is older than the command:
    /// its first point waits for the next fix (`keepLegStart`).
    var legStart: LegStart? = nil
    /// Where the leg a user's pause ended lies when its last fix came before the pause: the
    /// next fix's step counts its share before the pause (`takeLegEnd`).
    var legEnd: LegEnd? = nil
    /// The auto-resume under way when that pause took an auto-pause over (`keepSetOffLegEnd`;
    /// nil: none). Beside `legEnd`, not in it: its held steps (an array) would make every fix's
    /// test of `legEnd` copy it out of line.
    var legEndSetOff: SetOff? = nil
    /// Such a set-off whose fix after the pause ended a gap that waits: judged when the gap is
    /// credited (`takeGapSetOff`; nil: none).
    var gapSetOff: GapSetOff? = nil
    /// The stretches speed samples had measured of the gap that waits (`GapResolver.wait`) and of
    /// a pause's leg end, when it ended: of their lines, the cruise time in them is left out.
    /// (Kept here, not in the waiting gap and the leg end, which the fix path tests every fix.)
    var gapSensed = TimeSpans(), legEndSensed = TimeSpans()
    var fixes = 0

    public init(config: EngineConfig = EngineConfig()) {
        self.config = config
        gate = GateStage(config: config)
        track = TrackFilter(settings: config.trackSettings)
        raw = RawTrack(config: config)
        gaps = GapResolver(countGaps: config.countGaps, speedCapMps: config.speedCapMps)
        pause = AutoPauseStage(settings: config.autoPause)
        stillness = StillnessDetector(settings: config.stillness)
        pace = PaceEstimator(windowS: config.paceWindowS, speedCapMps: config.speedCapMps, filters: config.filters)
        recorder = RouteRecorder(distanceFilterM: config.distanceFilterM, maxPoints: config.maxRoutePoints,
                                 heartbeatS: config.filters ? config.gapS / 2 : .infinity,   // (filters off: points are raw accumulation's anchors)
                                 movingMps: config.filters ? config.stillness.movingDopplerMps : .nan)
        elevationStage = ElevationStage(hysteresisM: config.elevationHysteresisM, fixAltitude: config.fixAltitude)
        recorder.altitudes = PointAltitudes(fixAltitude: config.fixAltitude, windowS: elevationStage.tracker.baroPreferenceS,
                                           keptS: config.gapS)
        lapStage = LapStage(autoLapM: config.autoLapM)
        sensors = SensorStats(hrMax: config.hrMax)
        alerts = AlertMonitor(settings: config.alerts)
        speedSensor = SpeedSensorStage(movingMps: config.stillness.movingDopplerMps, maxIntervalS: config.gapS,
                                       maxSamples: config.maxRoutePoints)
    }

    // MARK: - Inputs

    /// Processes one validated input (its time NaN only with the live clock). `journal` gets it
    /// stamped with its resolved time once every check has passed, before anything changes.
    /// - Throws: `.input` for a missing (replay) or backwards time; `.limit` for a fix that would
    ///   add a point to a full route.
    @inline(__always)
    public mutating func process(_ validated: ValidatedInput, wallClock: Double, events: inout [Event],
                                 journal: ((Input) throws(RunwayError) -> Void)? = nil) throws(RunwayError) {
        // (An invalid input is that first, after the stop too: a time going backwards is `.input`.)
        // (Not before the latest input, command or lap; a tick's time does not bound it.)
        let t = try clock.resolve(validated.t, wallClock: wallClock, live: config.clock == .live, what: "input",
                                  notBefore: clock.inputFloor)
        // The record is complete at touchdown: what comes after it would change it.
        guard phases.phase != .touchdown else { throw .state("input refused: the flight has landed (touchdown); a session is one flight") }
        // A fix is stamped and run as itself (`runFix`): wrapped again as an `Input` for `run`,
        // each wrap and unwrap copied its 88 bytes.
        let stamped = validated.input.withTime(t)
        guard case .fix(let fix) = stamped else {
            try journal?(stamped)
            run(stamped, at: t, &events)
            return
        }
        if recorder.route.count >= config.maxRoutePoints {
            try processOnFullRoute(stamped, at: t, events: &events, journal: journal)
            return
        }
        try journal?(stamped)
        runFix(fix, stamped, at: t, &events)
    }

    @inline(__always)
    mutating func run(_ input: Input, at t: Double, _ events: inout [Event]) {
        if case .fix(let fix) = input {
            runFix(fix, input, at: t, &events)
            return
        }
        let wasCruising = begin(at: t, &events)
        switch input {
        case .fix: break   // (above)
        case .sample(.heartRate(let bpm, _)): sensors.heartRate(bpm, at: t)
        case .sample(.cadence(let spm, _)): sensors.cadence(spm, at: t)
        case .sample(.altimeter(let metres, _)):
            if phases.phase == .cruise {
                elevationStage.barometric(alt: metres, at: t, distanceM: distance)
                recorder.altitudes.barometric(alt: metres, at: t)
            }
        case .sample(.power): break   // a metric's (below)
        case .sample(.speed(let mps, _)): sensorSpeed(mps, at: t, &events)
        }
        end(input, at: t, wasCruising: wasCruising, &events)
    }

    /// `run` for a fix (`input`), the fix passed as itself.
    @inline(__always)
    mutating func runFix(_ fix: Fix, _ input: Input, at t: Double, _ events: inout [Event]) {
        let wasCruising = begin(at: t, &events)
        apply(fix, at: t, &events)
        end(input, at: t, wasCruising: wasCruising, &events)
    }

    /// What every input does first: the power of a second that is over is judged, and the flight
    /// advances to `t`. Returns whether it was in cruise before the input.
    @inline(__always)
    private mutating func begin(at t: Double, _ events: inout [Event]) -> Bool {
        if powerToJudgeAt < t { judgePower(&events) }   // (its second is over: judged as it ended)
        let wasCruising = phases.phase == .cruise
        advance(to: t, metricsToo: false)   // the metrics take the clock with the input (`end`)
        return wasCruising
    }

    /// What every input does last: the metrics take it, and the flight's state goes out.
    @inline(__always)
    private mutating func end(_ input: Input, at t: Double, wasCruising: Bool, _ events: inout [Event]) {
        // (The power alerts on the branch of an input with power only: no test for any other.)
        if metrics.take(input, at: t, cruisingBefore: wasCruising, cruisingAfter: phases.phase == .cruise), alerts.watchesPower {
            powerToJudgeAt = t
        }
        emitFlight(&events)
    }

    /// The power alerts judge the current power at the time of the latest input with power (a
    /// power sample, or a fix carrying power; `powerToJudgeAt`) once its second is over: at the
    /// first input or command after it, or at a stop at its time, since nothing comes after the
    /// stop (`AlertMonitor.updatePower`), stamped with its time. Not at a tick: a tick does not
    /// bound the inputs' times (`FlightClock.inputFloor`), so the second's fix may still come.
    /// So they judge it as the flight was when that second ended, whatever the order of its
    /// inputs: in cruise, and not while auto-pause judges a stand (`AutoPause.slowSince`: the
    /// fixes read slower than its pause speed), since those seconds may become the hold's,
    /// backdated. Judged at the sample itself, a rider stopping at a light was called TOO LOW,
    /// or not, as the meter's sample of the first slow second came before or after its fix. A
    /// stand that turns out not to be one leaves the power's hold as it was.
    @inline(never)
    mutating func judgePower(_ events: inout [Event]) {
        let t = powerToJudgeAt
        powerToJudgeAt = .infinity
        guard phases.phase == .cruise, pause.machine.slowSince == nil else { return }
        if let alert = alerts.updatePower(t: t, powerW: metrics.power.current(at: t)) {
            events.append(Event(seq: eventLog.next(), t: t, body: .alert(alert)))
        }
    }

    mutating func apply(_ fix: Fix, at t: Double, _ events: inout [Event]) {
        fixes &+= 1   // (a count: wrapping, no overflow check on every fix, 4 instructions)
        // The gate hears the fix's time last, on either way out (judged against the rhythm
        // before it): at both exits, not in a `defer` (outlined into a call on every fix).
        if !fix.hr.isNaN { sensors.heartRate(fix.hr, at: t) }
        if !fix.cadence.isNaN { sensors.cadence(fix.cadence, at: t) }
        gate.see(fix)
        let dt = lastAccepted.map { t - $0.t } ?? 0
        // Moving time counts cruise time only: the step from a fix before the start or a resume
        // counts from the start of the leg.
        // (From where speed samples left off, when they measured the leg.)
        let since = positionsSince
        let cruiseDt = since.isNaN ? dt : min(dt, max(0, t - since))
        var measured: Step? = nil
        let positionsMeasure: Bool   // (the fix is one positions measure the flight by)
        if !config.filters {   // the shorter pipeline
            positionsMeasure = applyRaw(fix, at: t, &events)
        } else {
            guard let step = measure(fix, at: t, &events) else { gate.heard(at: t); return }
            measured = step
            var keepFrom: (dx: Double, dy: Double)? = nil
            // (The share of the step before a user's pause after its first fix: counted here.)
            let ended = legEnd == nil ? (m: 0.0, s: 0.0) : takeLegEnd(lineM: step.distanceM, toward: fix, at: t, &events)
            if phases.phase != .cruise || cruiseDt < dt { outsideCruise(step, dt: dt, cruiseDt: cruiseDt, ended: ended) }
            positionsMeasure = phases.phase == .cruise || phases.isAutoHeld
            shown.show(fix)
            // What the filter's step left out (its lag after a start, a Doppler window's shortfall,
            // a dropout's), paid out no faster than the speed cap allows. (While auto-paused the
            // stillness detector judges nothing, its judgement is the one before: the credit waits
            // for the resume.)
            let lagCredit = lag.take(step, fix: fix, at: t, filter: track.estimate, cruising: phases.phase == .cruise || phases.isAutoHeld,
                                     standing: phases.isAutoHeld || stillness.settings.enabled && stillness.isStill)
            if lagCredit > 0 { track.credited(lagCredit) }
            owed += lagCredit + dopplerCheck.take(step, fix: fix, at: t, cruising: phases.phase == .cruise,
                                                  measuredBySpeed: track.lastStepMeasuredBySpeed, log: &eventLog)
            // A dropout's stretch the filter just doubted (rare): what its steps missed is owed.
            let doubt = track.doubt == nil ? nil : settleDoubt(step, at: t)
            if phases.phase == .cruise {
                // A step that began before the leg (a start or resume between its fixes) counts
                // the leg's share of its line (`legShare`), as its moving time counts the leg's time.
                var cruiseStep = step
                if cruiseDt < dt || legStart != nil { cruiseStep = legsFirstStep(step, fix: fix, dt: dt, cruiseDt: cruiseDt, endedM: ended.m, at: t) }
                // (A standing speed the positions belie is the filtered speed here too, as for
                // auto-pause: a leg resumed while the speed is out moves.)
                let judged = stillness.judge(cruiseStep, fix: fix, doppler: track.doubtsSpeed ? track.speedMps : fix.speed, at: t, dt: cruiseDt)
                if judged.step.moving && owed > 0 { payOwed(over: dt, stepM: judged.step.distanceM) }   // (nothing owed: no call)
                odometer.add(judged.step, over: cruiseDt)
                // A moving step at least a window long is a stretch the pace window cannot measure
                // (it keeps the fixes of its last `paceWindowS` seconds: this one alone): it counts
                // toward the max at its own average speed, as the window's would.
                if judged.step.moving, cruiseDt >= config.paceWindowS {
                    odometer.noteStretch(distanceM: judged.step.distanceM, movingS: cruiseDt, capMps: stretchCapMps, at: clock.measuredNow, from: t - cruiseDt)
                }
                if let c = judged.credit {   // (none: no call)
                    creditMovement(judged, before: t)
                    track.restarted(countedM: c.distanceM - c.lineM)   // (a slow gap's line is no step of the filter's)
                }
                pause.cruised(movingS: judged.step.moving ? cruiseDt : 0, at: t)
                if let doubt { creditStill(doubt, step: cruiseStep, cruiseDt: cruiseDt, at: t) }
                // No pace across a gap, and a new segment of route; not at a gap in the recorder's
                // rhythm (one fix every 30 s or more: every step a gap), an ordinary step of its route.
                if step.newSegment && !gate.gapInRhythm { startSegment(); pace.reset() }
                keepFrom = recorder.due(lat: fix.lat, lon: fix.lon, at: t, speed: fix.speed, force: step.newSegment,
                                        measured: gate.measured)   // (kept below; the gate's step, mostly from the same point)
                if gaps.waitingAt != t { pace.push(t: t, distanceM: distance) }   // (the fix after a gap: when it is credited)
                elevationStage.gps(alt: fix.alt, at: t, distanceM: distance, vAcc: fix.vAcc)
            } else if phases.isAutoHeld {
                // (A step across a silence the sensor measured holds only its share after it.)
                let (held, heldS) = speedSensor.measuredUntil > t - dt ? unsensedShare(of: step, fix: fix, dt: dt, at: t) : (step, dt)
                pause.hold(held, at: t, dt: heldS, from: lastAccepted.map { Coordinate(lat: $0.lat, lon: $0.lon) }, to: Coordinate(lat: fix.lat, lon: fix.lon),
                           dopplerMps: track.doubtsSpeed ? .nan : fix.speed)   // (the sample auto-pause judges below)
                stillness.observe(step, fix: fix, at: t)   // (whether the positions move: `movementUnshown`)
                if let doubt { doubted(from: doubt.from, shortfallM: doubt.shortfallM, at: t, &events) }
            }
            pace.update(at: t, phase: phases.phase, dopplerMps: fix.speed, filterSpeedMps: track.speedMps)
            // The point once the pace has taken the fix: it carries this fix's speed, not the one before.
            if let o = keepFrom {
                recorder.keep(point(of: fix, at: t), fromLast: o)
            } else if phases.phase == .cruise && recorder.holds(speed: fix.speed) {
                recorder.hold(point(of: fix, at: t))   // (kept if the next point's speed crosses a walker's)
            }
        }
        if positionsMeasure {
            speedSensor.positioned(at: t)
            distanceAtPosition = distance
        }
        lastAccepted = GapResolver.LastFix(lat: fix.lat, lon: fix.lon, t: t)
        if phases.phase == .cruise, pace.isMeasured { odometer.noteSpeed(pace.groundSpeedMps, at: clock.measuredNow) }
        if let step = measured {
            if let v = pause.takeGapSample() { autoPause(v, at: t, &events) }
            // Without Doppler speed (or with a standing one the positions belie: `doubtsSpeed`),
            // the filtered speed; a filter that starts over at this fix has measured none yet,
            // nor has one whose fixes were silent while speed samples measured the flight (this
            // fix ends that silence: the samples judged it, and the one of this very second
            // judges it still, `sensorSpeed`, in whichever order the two come).
            if pause.isEnabled {   // (off: no call to decide nothing)
                let byPositions = fix.speed.isNaN || track.doubtsSpeed
                let speed = !byPositions ? fix.speed : (step.newSegment || speedSensor.endsTakenSilence(at: t) ? .nan : track.speedMps)
                autoPause(speed, at: t, standingInDoubt: track.standingInDoubt,
                          movementUnshown: byPositions && movementUnshown(speed, at: t), &events)
            }
        }
        lapsAndAlerts(at: t, &events)
        gate.heard(at: t)
    }

    /// A leg's first step in cruise (`apply`: a start or resume between its fixes, `cruiseDt` <
    /// `dt`, or a leg whose start point waits, `legStart`), with the fix as the Doppler check
    /// trusts it: the leg's share of the step, and the leg's start point.
    @inline(never)   // (once a leg: inline, the fix as trusted was copied into `apply`'s frame on every fix)
    mutating func legsFirstStep(_ step: Step, fix: Fix, dt: Double, cruiseDt: Double, endedM: Double, at t: Double) -> Step {
        var cruiseStep = step
        let trusted = dopplerCheck.trusted(fix)
        if cruiseDt < dt {
            cruiseStep.distanceM = min(step.distanceM * FlightComputer.legShare(of: step.distanceM, speed: trusted.speed, legS: cruiseDt, stepS: dt),
                                       step.distanceM - endedM)
        }
        if legStart != nil { if step.newSegment { legStart = nil } else { keepLegStart(toward: trusted, at: t) } }
        return cruiseStep
    }

    /// Where positions begin to measure the current leg: its start or resume, or where speed
    /// samples measured it up to when later (NaN outside cruise).
    /// (`max(cruiseSince, measuredUntil)` as the standard library's, `y >= x ? y : x`: NaN when
    /// `cruiseSince` is, the comparison false for it. A test for NaN before `max` compiled to
    /// two selects on every fix.)
    var positionsSince: Double {
        let since = clock.cruiseSince, measured = speedSensor.measuredUntil
        return measured >= since ? measured : since
    }

    /// The gate, then the track filter or the gap stage: the fix's `Step`, nil when filtered.
    /// (A re-anchor's and a gap's fix go on out of line, `reanchor`, `segmentAfterGap`: with them
    /// here, the fix was copied into this function's frame on every fix, for them.)
    @inline(__always)
    mutating func measure(_ fix: Fix, at t: Double, _ events: inout [Event]) -> Step? {
        guard case .accept(let newSegment, let reanchored) = gate.assess(fix, at: t, log: &eventLog) else { return nil }
        if reanchored { return reanchor(on: fix, at: t, &events) }
        if newSegment, let last = lastAccepted { return segmentAfterGap(fix, last: last, at: t, &events) }
        if gaps.isWaiting { confirmGap(by: fix, at: t, &events) }
        // (A speed sensor measured a silence of the fixes after the filter's last fix: the
        // filter starts over at this one, `TrackFilter.restart`. Not a pause's backlog.)
        if speedSensor.silenceMeasuredUntil > track.lastT { return restartTrack(at: fix, t: t) }
        // (The fix itself while its Doppler speed is trusted: the filter took `trusted`'s value, a
        // copy of the fix made on every fix; `updateTrusted` makes it once positions are preferred.)
        return dopplerCheck.prefersPositions ? updateTrusted(fix, at: t) : track.update(fix, t: t)
    }

    /// The track filter's step to `fix` as the Doppler check trusts it, once it prefers the positions.
    @inline(never)   // (inline, the copy of the fix it makes was made in `measure`'s frame on every fix)
    mutating func updateTrusted(_ fix: Fix, at t: Double) -> Step { track.update(dopplerCheck.trusted(fix), t: t) }

    /// After a fix in cruise: auto laps (not while a gap waits, nor a pause's leg end: filters off,
    /// a fix too inaccurate to count leaves it waiting; nor while a manual lap waits for held
    /// steps from before it, `lapsWaitForHeld`), then the alerts (when any is on); outside
    /// cruise, a manual lap that waited for a gap once none waits (nor a leg end).
    @inline(__always)
    mutating func lapsAndAlerts(at t: Double, _ events: inout [Event]) {
        guard phases.phase == .cruise else {
            // (A lap that waited for a gap ending while held: nothing more comes before it.)
            if !gaps.isWaiting && legEnd == nil { lapStage.settle(lapProgress, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &eventLog, into: &events) }
            return
        }
        if !gaps.isWaiting && legEnd == nil && !lapsWaitForHeld { lapStage.cut(lapProgress, now: now, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &eventLog, into: &events) }
        guard alerts.isWatching else { return }
        let judged = pace.settled(at: t, dopplerMps: shown.speed) ? FlightData.pace(speedMps: pace.groundSpeedMps) : .nan
        for alert in alerts.update(t: t, paceMinPerKm: judged, hrBpm: sensors.heartRate(at: t), distanceM: distance) {
            events.append(Event(seq: eventLog.next(), t: t, body: .alert(alert)))
        }
    }

    /// A new segment of track: on the route, and for grade and vertical speed.
    mutating func startSegment() {
        recorder.beginSegment()
        elevationStage.breakStretch()
    }

    @inline(__always)
    mutating func emitFlight(_ events: inout [Event]) {
        eventLog.flush(at: now, into: &events)
        let seq = eventLog.nextFlight()
        // The snapshot is built only when someone will read the event.
        if emitsSnapshots { events.append(Event(seq: seq, t: now, body: .flight(snapshot))) }
    }
}
