/// A speed sensor's samples (a wheel or foot pod, a FIT record's speed without a position): they
/// measure the flight where positions are silent (`SpeedSensorStage`).
extension FlightComputer {
    /// A speed sensor's sample: where positions are silent (`SpeedSensorStage`: before the first
    /// fix, or none for `positionsSilentAfterS`) it measures the flight as a fix's step would:
    /// distance and moving time in cruise, a held step while auto-paused, the pace, auto-pause,
    /// laps and alerts, and the snapshot shows its speed. While fixes come it waits. A sample
    /// faster than the profile's cap (filters on) measures nothing, with a warning the first time.
    mutating func sensorSpeed(_ mps: Double, at t: Double, _ events: inout [Event]) {
        let autoHeld = phases.isAutoHeld
        guard phases.phase == .cruise || autoHeld else { speedSensor.seen(at: t); return }
        guard !config.filters || mps <= config.speedCapMps else {
            speedSensor.seen(at: t)
            if speedSensor.noteTooFast() {
                eventLog.note(.warning, "speed sample \(mps) m/s is faster than the \(config.activity.rawValue) profile's cap (\(config.speedCapMps) m/s): not counted")
            }
            return
        }
        // (While auto-paused the samples wait `gap_s`: the hold is judged on the positions' steps,
        // and a resume credits those from its fast hold on, which a sample inside a dropout would
        // begin before the step that measured the set-off. Not once the sensor has taken up the
        // silence since the latest fix: it measures on through the hold, its standing samples
        // too, so the fix that ends the silence holds only what they left.)
        let waits = autoHeld && !speedSensor.tookUpSilence
        let since = autoHeld ? -Double.infinity : clock.cruiseSince, silentAfterS = waits ? config.gapS : positionsSilentAfterS
        let takesUp = !speedSensor.tookUpSilence   // (whether a measure now takes the flight up from the positions)
        let measured = speedSensor.step(mps: mps, at: t, since: since, silentAfterS: silentAfterS,
                                        point: autoHeld ? nil : sensedPoint(mps, at: t))
        if let m = measured {
            if autoHeld {   // (a held step: no route point)
                if m.movingS > 0 { pause.hold(Step(distanceM: m.movingM, moving: true), at: t, dt: m.movingS, bySensor: true) }
            } else {
                if takesUp { positionsFellSilent(sensorMps: mps, at: t) }
                sensorMeasured(m, at: t)
                pace.push(t: t, distanceM: distance)
            }
        }
        guard speedSensor.measures(at: t, silentAfterS: silentAfterS) else {   // positions measure the flight
            // (Of the very time of the fix that ended a silence the samples took up: auto-pause
            // judges it as it would have had it come before that fix. A resume its samples began
            // in the silence is not lost to the order of one second's inputs.)
            if config.filters && speedSensor.endsTakenSilence(at: t) { autoPause(mps, at: t, &events) }
            return
        }
        shown.sense(mps, at: t)
        if config.filters {
            pace.update(at: t, phase: phases.phase, dopplerMps: mps, filterSpeedMps: mps)
        } else {
            pace.updateRaw(fixSpeedMps: mps, cruising: phases.phase == .cruise, at: t)
        }
        if phases.phase == .cruise, pace.isMeasured { odometer.noteSpeed(pace.groundSpeedMps, at: clock.measuredNow) }
        if config.filters { autoPause(mps, at: t, &events) }
        // (A sample that measured nothing, the first after a silence, is no progress of the
        // laps: a gap credited next may cover that silence, and its line is the laps' to share.)
        if measured != nil { lapsAndAlerts(at: t, &events) }
    }

    /// The fix that ends a silence the speed sensor measured: the track filter starts over at it
    /// (`TrackFilter.restart`), and the start lag learns where the silence began (the filter's
    /// last fix before it), which it measures a credit still open at (`StartLag.restarted`).
    @inline(never)   // (rare: kept out of the fix path)
    mutating func restartTrack(at fix: Fix, t: Double) -> Step {
        lag.silenceBegan(at: (track.lastFixLat, track.lastFixLon), t: track.lastT)
        return track.restart(at: dopplerCheck.trusted(fix), t: t, mps: speedSensor.lastMps)
    }

    /// The speed samples take the flight up from the positions (they fell silent): the stillness
    /// stage, which judges the positions, starts over, moving when the sample is at a walker's
    /// speed (`SpeedSensorStage.movingMps`), else still: the sensor says which the runner is now,
    /// and the fix that ends the silence is judged from there (judged still, a runner the pod
    /// measured setting off in the silence lost the steps after it until the fixes confirmed
    /// the movement). Steps it still holds (movement unconfirmed, or slow steps waiting) are
    /// judged first, as at the end of a leg (a pause, the stop): no fix is coming to judge them:
    /// credited, at their own times, when they moved at a walker's speed or more, else dropped.
    /// Left held, they kept every lap asked after them waiting (`lapsWaitForHeld`), and the auto
    /// laps behind it, until a fix came back or the flight stopped (review h98: a foot pod's
    /// five auto laps all went out at the stop).
    @inline(never)
    mutating func positionsFellSilent(sensorMps: Double, at t: Double) {
        if let moved = stillness.endLeg() { creditMovement(moved, before: t) }
        stillness.reset(still: sensorMps < speedSensor.movingMps)
    }

    /// How long after the latest fix that measured the flight positions are silent, and speed
    /// samples take it up: three of the receiver's intervals between fixes (one or two missed
    /// fixes are its rhythm, not a silence: `FixCadence.gapIntervals`), 3 s at 1 Hz; at most
    /// `gap_s`, after which the next fix is a gap, and `gap_s` before an interval is known (and
    /// while auto-paused: `sensorSpeed`).
    var positionsSilentAfterS: Double {
        let interval = gate.cadence.intervalS
        return interval.isNaN ? config.gapS : min(config.gapS, FixCadence.gapIntervals * interval)
    }

    /// What speed samples measured in cruise: distance and moving time, auto-pause's count of
    /// moving time since a slow hold began, and the samples' points on the route recorder.
    mutating func sensorMeasured(_ m: SpeedSensorStage.Measured, at t: Double) {
        let from = distance   // where the samples' distances start (the backlog's first samples', when it kept fewer)
        odometer.credit(distanceM: m.movingM, movingS: m.movingS)
        odometer.noteStretch(distanceM: m.movingM, movingS: m.movingS, capMps: stretchCapMps, at: clock.measuredNow)
        sensorM += m.movingM
        pause.cruised(movingS: m.movingS, at: t)
        recorder.sense(m.samples, from: from)
    }

    /// A fix's step while auto-paused across a silence the speed sensor measured (in cruise
    /// before the hold, or in it) since the fix before: it holds only its share of the time after
    /// the sensor's last sample (`legShare`, at the fix's trusted speed), and that time, so a
    /// resume that credits it from its start neither counts the sensor's stretch again nor
    /// counts its time twice.
    @inline(never)   // (rare: kept out of the fix path)
    func unsensedShare(of step: Step, fix: Fix, dt: Double, at t: Double) -> (Step, Double) {
        let legS = max(0, t - speedSensor.measuredUntil)
        var share = step
        share.distanceM *= FlightComputer.legShare(of: step.distanceM, speed: dopplerCheck.trusted(fix).speed, legS: legS, stepS: dt)
        return (share, legS)
    }
}
