/// A speed that drops out (0 m/s while the fixes move on): what the flight does when the track
/// filter doubts a stretch of standing speeds (`TrackFilter.judgeStanding`). Rare paths, kept
/// out of line so that the fix's common path stays small.
extension FlightComputer {
    /// Takes the filter's doubt, if any, and owes what the flight missed of the fixes' movement
    /// in cruise (while auto-paused, `doubted` credits it instead, with the hold's time as
    /// cruise: the pause is undone). Of a stretch across a user's pause, the walk while paused
    /// (the share of its time neither cruise nor that hold) is no distance; outside cruise this
    /// step counts nothing, and the shortfall had left it out as counted (auto-held, the held
    /// step is credited as such). Returns the doubt with the shortfall the flight missed.
    @inline(never)
    mutating func settleDoubt(_ step: Step, at t: Double) -> TrackFilter.Doubt? {
        guard var d = track.takeDoubt() else { return nil }
        if d.shortfallM > 0 {
            var counted = clock.cruiseTime(from: d.from, to: t)
            if phases.isAutoHeld, let held = clock.legs.finished.last?.end { counted += t - max(d.from, held) }
            let paused = max(0, 1 - counted / (t - d.from))
            d.shortfallM = max(0, d.shortfallM + (phases.phase == .cruise || phases.isAutoHeld ? 0 : step.distanceM) - paused * d.movedM)
            if !phases.isAutoHeld { owed += d.shortfallM }
        }
        return d
    }

    /// In cruise, the time the doubted stretch's steps missed as moving (since its set-off, in
    /// cruise, not yet moving; this step's time is its own, moving now or when the stillness
    /// detector credits it).
    /// Never more than the cruise time not yet moving (as of this fix: a tick may have moved the
    /// clock past it, `measuredElapsed`), nor what the stillness detector's waiting steps will
    /// claim when it credits them.
    @inline(never)
    mutating func creditStill(_ doubt: TrackFilter.Doubt, step: Step, cruiseDt: Double, at t: Double) {
        let missedS = min(doubt.stillS, clock.cruiseTime(from: doubt.from, to: t) - (step.moving ? cruiseDt : 0),
                          clock.measuredElapsed(in: phases.phase) - odometer.movingS - stillness.waitingMovingS)
        if missedS > 0 { odometer.credit(distanceM: 0, movingS: missedS); pause.cruised(movingS: missedS, at: t) }
    }

    /// A step partly or wholly outside cruise (before a start or resume, paused or auto-paused):
    /// its time is no stretch's missed moving time, and a step outside cruise no distance the
    /// flight counted; but for its share before a user's pause (`ended`, `takeLegEnd`).
    @inline(never)
    mutating func outsideCruise(_ step: Step, dt: Double, cruiseDt: Double, ended: (m: Double, s: Double)) {
        track.notCruising((phases.phase == .cruise ? dt - cruiseDt : dt) - ended.s)
        if phases.phase != .cruise { track.heldBack(step.distanceM - ended.m) }
    }

    /// The track filter doubted the standing speeds from `from` on (`TrackFilter.takeDoubt`), with
    /// `shortfallM` missed: an auto-pause they decided is undone (`AutoPauseStage.doubted`).
    mutating func doubted(from: Double, shortfallM: Double, at t: Double, _ events: inout [Event]) {
        guard case .resume(let since, var held) = pause.doubted(from: from, shortfallM: shortfallM, at: t, phases: phases) else { return }
        // The stretch's first steps, which the stillness detector held back as slow before the
        // pause (zeros at both fixes), moved too; their time is the resume's.
        if let slow = stillness.releaseSlow(before: .infinity) { held.append(HeldCredit(distanceM: slow.distanceM, movingS: 0)) }
        autoResume(since: since, held: held, at: t, &events)
    }
}
