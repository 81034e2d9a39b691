/// Phase commands, laps, clock ticks and time: what the driver applies besides inputs.
///
///     try fc.command(.pause, at: 1_700_000_300, wallClock: .nan, events: &events)
///     try fc.lap(at: .nan, wallClock: .nan, events: &events)   // a manual lap now
extension FlightComputer {
    /// Applies a phase command at `t` (NaN = now). A user's pause while auto-paused makes the hold
    /// the user's; resume ends either kind of hold.
    /// - Throws: `.state` when not allowed in the current phase, `.input` for a time before the latest.
    public mutating func command(_ command: PhaseCommand, at t: Double, wallClock: Double, events: inout [Event]) throws(RunwayError) {
        guard let resolved = try check(command, at: t, wallClock: wallClock) else { return }
        self.command(command, resolved: resolved, events: &events)
    }

    /// Applies a command `check` allowed (its time resolved once, there).
    @usableFromInline
    mutating func command(_ command: PhaseCommand, resolved: ResolvedCommand, events: inout [Event]) {
        let time = resolved.t, next = resolved.next
        // (As the flight was when its second ended; the stop's own second too: nothing comes after it.)
        if powerToJudgeAt < time || (command == .stop && powerToJudgeAt <= time) { judgePower(&events) }
        if gapSetOff != nil { takeGapSetOff() }   // (on the fix after the gap, as the flush credits it)
        if let c = gaps.flush() { credit(c, &events) }   // the flight leaves cruise: as it is
        if !time.isNaN { advance(to: time) }
        if phases.phase == .cruise && (command == .pause || command == .stop) {
            // (Every point kept so far takes its share: the last fix's may be of this very second.)
            if let moved = stillness.endLeg() { creditMovement(moved, before: .infinity) }
            endRawLeg()   // (filters off: the leg's latest fix the distance filter left out)
            if let m = speedSensor.legEnds() { sensorMeasured(m, at: now) }   // the sensor's stretch since the last fix
            if command == .pause { keepLegEnd(pausedAt: now) }
            creditLagAtLegEnd(&events)
            keepLatestPosition()   // (with the lag credited: the leg's, up to that fix)
            odometer.endLeg(capMps: stretchCapMps, at: clock.measuredNow)
        }
        // (A pause that takes an auto-pause over with a resume under way: the next fix judges it.)
        if command == .pause && phases.isAutoHeld { keepSetOffLegEnd(pausedAt: now) }
        if command == .stop { elevationStage.settle() }   // the climb in progress ends where the runner stopped
        legStart = nil   // a leg that ends before its first fix has no point
        if command == .stop { legEnd = nil; legEndSetOff = nil } else if command == .resume { legEnd?.resumed = true }
        speedSensor.legChanged()
        clock.apply(command, at: time, phase: phases.phase)
        if command == .resume { pace.reset() }
        pause.userCommand(command)
        alerts.resetHolds()
        changePhase(to: next, by: next == .holding ? .user : nil, at: time, &events)
        if next == .cruise {
            // The leg starts where the runner is: neither the preflight position nor the walk
            // while holding adds distance, and the stretch to the next fix is not lost.
            startSegment()
            odometer.beginLeg()
            stillness.reset(still: true)
            recorder.startLeg()
            beginLeg(at: time.isNaN ? now : time)
            if command == .start { lapStage.begin(lapProgress) }
            // The laps' progress is the resume's (the hold added no cruise time): a lap asked for
            // before the leg's first fix shares that fix's step from here, not from the fix before
            // the pause, whose wall time would count the pause as the step's.
            // (While a pause's leg end waits, its step makes the cut: `takeLegEnd`.)
            if command == .resume && legEnd == nil { lapStage.cut(lapProgress, now: now, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &eventLog, into: &events) }
        }
        if next == .touchdown { lapStage.finish(lapProgress, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &eventLog, into: &events) }
        emitFlight(&events)
    }

    /// A command's phase and resolved time (NaN: pending on the next input), if allowed now.
    public struct ResolvedCommand: Sendable, Equatable {
        public var next: FlightPhase
        public var t: Double
    }

    /// Checks that `command` is allowed now; changes nothing. Nil when it is already true, so there
    /// is nothing to do: a start at the flight's own start time while it flies (a recording's start
    /// line, pushed by a host that started the flight at its first line's time). Any other start
    /// after the start is a state error.
    public func check(_ command: PhaseCommand, at t: Double, wallClock: Double) throws(RunwayError) -> ResolvedCommand? {
        if command == .start, t == clock.startT, phases.phase != .preflight, phases.phase != .touchdown { return nil }
        let next = try phases.check(command)
        return ResolvedCommand(next: next, t: try resolve(t, wallClock: wallClock, what: command.rawValue, optional: true))
    }

    /// Whether `command` is a start with a time while the flight's start time is still pending
    /// (started with no time before any input: it takes the next input's time). Such a start is
    /// that input: it gives the start its time, as a tick at `t` would (`FlightDriver` performs
    /// it as one), so a host may start a replay with no time and push every line, a recording's
    /// start line too.
    public func givesPendingStartItsTime(_ command: PhaseCommand, at t: Double) -> Bool {
        command == .start && t.isFinite && clock.startT.isNaN && phases.phase != .preflight && phases.phase != .touchdown
    }

    /// Ends the current lap now (a manual lap).
    public mutating func lap(at t: Double, wallClock: Double, events: inout [Event]) throws(RunwayError) {
        lap(resolvedAt: try checkLap(at: t, wallClock: wallClock), events: &events)
    }

    /// Ends the current lap at a time `checkLap` allowed.
    ///
    /// A lap later than the latest progress the laps have (a lap between two fixes, or two speed
    /// samples, in cruise; not before any has come: nothing would measure its step), or
    /// one while a gap's distance waits for the fix that confirms it (crediting the gap now,
    /// unconfirmed, would measure no movement across it), waits for the step it falls in: it is
    /// cut, at its own time, by the first fix, sample or gap credit at or after it, with the
    /// share of that step its time makes (`LapCounter.askManual`): a lap asked for inside a gap
    /// takes the gap's line up to its time, not none of it and not all of it. A phase change
    /// or the stop cuts it with what is known then; a second lap meanwhile waits after it, and
    /// the step is shared among them in time order.
    /// `trigger`: `manual`, or a recording's device's (`FlightDriver.Request.deviceLap`).
    @usableFromInline
    mutating func lap(resolvedAt time: Double, trigger: LapTrigger = .manual, events: inout [Event]) {
        if !time.isNaN { advance(to: time) }
        guard lapStage.manual(progress(at: .nan), trigger: trigger, waits: lapWaits(at: now), metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &eventLog, into: &events) else { return }
        emitFlight(&events)
    }

    /// A recording's device lap while auto laps are on (`FlightDriver.Request.deviceLap`): not
    /// taken, the flight's laps are its auto laps; the first one says so in the log.
    public mutating func passOverDeviceLap(_ events: inout [Event]) {
        guard !saidDeviceLapsPassed else { return }
        saidDeviceLapsPassed = true
        eventLog.append(.info, "the recording's own laps are not replayed: auto laps are on (auto_lap_m \(config.autoLapM)); auto_lap_m 0 replays them",
                        at: now, into: &events)
    }

    /// Checks that a manual lap is allowed at `t` and returns its resolved time; changes nothing.
    public func checkLap(at t: Double, wallClock: Double) throws(RunwayError) -> Double {
        guard phases.phase == .cruise || phases.phase == .holding else { throw .state("cannot lap in phase \(phases.phase.rawValue)") }
        let time = try resolve(t, wallClock: wallClock, what: "lap", optional: true)
        let at = time.isNaN ? now : time
        try lapStage.checkManual(progress(at: at), waits: lapWaits(at: at))
        return time
    }

    /// Whether a manual lap at `t` waits for the step it falls in: a gap's distance waits, a
    /// pause's leg end waits for its step (`legEnd`: the next fix measures the stretch before
    /// the pause), in cruise the lap is later than the laps' latest progress, or steps before it
    /// may still be credited (`lapsWaitForHeld`). (With no fix accepted and no
    /// speed sample yet, nothing will measure the step: an indoor session with a heart-rate
    /// strap alone laps when asked, not at the next command.)
    func lapWaits(at t: Double) -> Bool {
        let measured = lastAccepted != nil || speedSensor.hasSamples
        return gaps.isWaiting || legEnd != nil || (phases.phase == .cruise && measured && t > lapStage.counter.latestT)
            || (phases.phase == .cruise && stillness.creditableSince < t)
    }

    /// Whether the laps that wait wait also for steps the stillness stage holds from before the
    /// first of them (`StillnessDetector.creditableSince`: movement not yet confirmed, which may
    /// still be credited): a lap cut meanwhile would leave their metres, once credited, to the
    /// lap after it, covered in none of its time. They are cut once the steps are credited
    /// (shared by time with the step the lap falls in) or can no longer be (a quiet stretch, a
    /// phase change).
    @inline(__always)
    var lapsWaitForHeld: Bool { mutating get { lapStage.hasWaitingLap && heldBeforeWaitingLap() } }

    /// `lapsWaitForHeld` once a lap waits (out of line: the fix path only asks whether one does;
    /// `mutating`, though it changes nothing, so the call takes the computer by address: a
    /// non-mutating call from the fix path copied it, 580 instructions a fix).
    @inline(never)
    mutating func heldBeforeWaitingLap() -> Bool {
        phases.phase == .cruise && stillness.creditableSince < lapStage.lapSinceFirstWaiting
    }

    /// Advances the clock without a fix; emits a `tick` while cruising. After touchdown it
    /// changes nothing: the record is complete.
    public mutating func tick(at t: Double, wallClock: Double, events: inout [Event]) throws(RunwayError) {
        tick(resolvedAt: try checkTick(at: t, wallClock: wallClock).t, events: &events)
    }

    /// A tick's resolved time (NaN: none yet, under the replay clock before any input), and
    /// whether it moves the flight: a tick at the latest time, one with no time and one after
    /// touchdown change nothing (the first still emits its `tick` event while cruising), nor does
    /// one before the start (no time is counted then, and the start journals its own time: a
    /// watch waiting for its GPS writes nothing a second); any other advances the clock, and with
    /// it elapsed time (not the time-weighted sensor and power figures: `advance`), so a journal
    /// must keep it.
    /// Changes nothing.
    public func checkTick(at t: Double, wallClock: Double) throws(RunwayError) -> (t: Double, moves: Bool) {
        let time = try resolve(t, wallClock: wallClock, what: "tick", optional: true)
        return (time, !time.isNaN && phases.phase != .touchdown && phases.phase != .preflight && !(time == now))
    }

    /// Applies a tick at its resolved time (`checkTick`).
    public mutating func tick(resolvedAt time: Double, events: inout [Event]) {
        guard !time.isNaN, phases.phase != .touchdown else { return }  // (replay clock before any input: nothing to advance)
        advance(to: time, measured: false)
        guard phases.phase == .cruise else { return }
        events.append(Event(seq: eventLog.next(), t: time, body: .tick(elapsedS: elapsed, distanceM: distance, phase: phases.phase)))
    }

    func resolve(_ t: Double, wallClock: Double, what: String, optional: Bool = false) throws(RunwayError) -> Double {
        try clock.resolve(t, wallClock: wallClock, live: config.clock == .live, what: what, optional: optional,
                          notBefore: clock.now)
    }

    /// Moves the clock, sensors and metrics to `t`. A tick (`measured` false) moves the clock
    /// alone: it measures nothing, so an input may still come stamped before it
    /// (`FlightClock.inputFloor`), and the sensors' and metrics' held values are integrated up
    /// to that input's time when it comes (a value holds for at most 5 s after its sample, so
    /// integrating it at the tick or at the next input gives the same totals).
    @inline(__always)
    mutating func advance(to t: Double, metricsToo: Bool = true, measured: Bool = true) {
        if measured {
            sensors.advance(to: t, counting: phases.phase == .cruise)
            if metricsToo { metrics.advance(to: t, cruising: phases.phase == .cruise) }
        }
        clock.advance(to: t, phase: phases.phase, measured: measured)
    }

    mutating func changePhase(to next: FlightPhase, by: HoldReason?, at time: Double, _ events: inout [Event]) {
        let change = phases.change(to: next, by: by)
        // A lap waiting is cut first, at the flight as of now (its time counted as the new phase
        // counts it: a resume's credited hold is cruise), its split before the phase event; not
        // while the step it falls in is still to come: a gap that waits (an auto-pause decided
        // meanwhile: its credit cuts it), a pause's leg end (`takeLegEnd` cuts it).
        if legEnd == nil && !gaps.isWaiting { lapStage.settle(lapProgress, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &eventLog, into: &events) }
        pace.left(for: next)
        events.append(Event(seq: eventLog.next(), t: time, body: .phase(from: change.from, to: next, by: change.by)))
        eventLog.append(.info, change.logText, at: now, into: &events)
    }

}
