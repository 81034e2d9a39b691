/// Auto-pause's decisions applied to the flight: the hold it backdates, and the steps it held,
/// credited at the resume.
extension FlightComputer {
    /// Applies what auto-pause decides at a speed sample (a fix's own: `standingInDoubt`, whether
    /// the track filter has yet to judge its standing speed; `movementUnshown`, whether a speed
    /// the positions measured is yet to be borne out by them, `movementUnshown(_:at:)`;
    /// the track filter has yet to judge its standing speed).
    mutating func autoPause(_ speed: Double, at t: Double, standingInDoubt: Bool = false, movementUnshown: Bool = false, _ events: inout [Event]) {
        switch pause.update(speedMps: speed, at: t, phases: phases, cruiseSince: clock.cruiseSince,
                            lapSince: lapStage.lapSince, waiting: gaps.waiting,
                            standingInDoubt: standingInDoubt, movementUnshown: movementUnshown) {
        case .none: return
        case .pause(let from, let withdrawn):
            odometer.withdraw(movingS: withdrawn)
            odometer.endLeg(capMps: stretchCapMps, at: clock.measuredNow)
            gaps.paused(from: from, cruising: !clock.cruiseSince.isNaN)
            clock.autoPause(from: from)
            lapStage.cruiseWithdrawn(to: clock.elapsed(in: .holding))   // the hold's part the laps saw
            keepLatestPosition()
            alerts.resetHolds()
            changePhase(to: .holding, by: .auto, at: t, &events)
        case .resume(let since, let held):
            autoResume(since: since, held: held, at: t, speedMps: speed, &events)
        }
    }

    /// Whether `speed`, measured by the positions alone (the filtered speed: no Doppler speed,
    /// or one they belie) and fast enough to resume, is yet to be borne out by fixes that moved
    /// beyond what their stated accuracy explains (`StillnessDetector.positionsShowMovement`):
    /// fixes hopping within a coarse accuracy (Wi-Fi or cell fixes indoors) draw a filtered speed
    /// of metres a second from a receiver that stands. The fast hold goes on meanwhile, from
    /// where the speed rose: a set-off's resume is as early as before, only later decided.
    @inline(__always)
    func movementUnshown(_ speed: Double, at t: Double) -> Bool {
        guard phases.isAutoHeld, speed > pause.machine.settings.resumeAboveMps, stillness.settings.enabled else { return false }
        return !stillness.positionsShowMovement(at: t)
    }

    /// The held steps' metres and moving seconds (an auto-resume's, or a set-off's a user's pause
    /// took over); a speed sensor's metres among them are the sensor's.
    mutating func heldTotals(_ held: [HeldCredit]) -> (m: Double, s: Double) {
        var m = 0.0, s = 0.0
        for h in held {
            m += h.distanceM
            s += h.movingS
            if h.bySensor { sensorM += h.distanceM }
        }
        return (m, s)
    }

    /// Resumes a flight auto-paused: moving since `since`, with the held steps the resume credits;
    /// the ground speed shown is the resuming sample's `speedMps` (NaN: unknown).
    mutating func autoResume(since: Double, held: [HeldCredit], at t: Double, speedMps: Double = .nan, _ events: inout [Event]) {
        odometer.beginLeg()   // (the held steps are the resumed leg's)
        for s in held { odometer.credit(distanceM: s.distanceM, movingS: s.movingS) }
        let (heldM, heldS) = heldTotals(held)
        // The held steps are one stretch, moved since `since`: its speed is their average.
        odometer.noteStretch(distanceM: heldM, movingS: heldS, capMps: stretchCapMps, at: clock.measuredNow)
        gaps.resumed(fastHoldSince: since)
        clock.autoResume(since: min(since, t))
        stillness.reset(still: false)
        track.restarted(countedM: heldM)
        pace.resumed(at: t, speedMps: speedMps)
        alerts.resetHolds()
        changePhase(to: .cruise, by: nil, at: t, &events)
        startSegment()
        if !shown.lat.isNaN { recorder.keep(shownPoint(at: t)) }
    }
}
