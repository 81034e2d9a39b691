/// Gaps and re-anchors: the gate's rarer verdicts on a fix (`measure`: a re-anchor, a new segment
/// after a gap, a fix that confirms a waiting gap, each out of line), and a gap's credit
/// (`GapCredit`, from `GapResolver`) applied to the other stages: distance and moving time, the
/// hold while auto-paused, the pace, the route and the laps.
extension FlightComputer {
    /// The gate re-anchored on `fix`: the previous anchor was junk, and the segment starts over.
    @inline(never)   // (rare: kept out of the fix path)
    mutating func reanchor(on fix: Fix, at t: Double, _ events: inout [Event]) -> Step {
        // The previous anchor was junk: alone on the route, it goes (a flight the user
        // paused or stopped keeps its route as it was).
        if phases.phase == .cruise || phases.isAutoHeld, let a = lastAccepted { recorder.dropJunkAnchor(at: Coordinate(lat: a.lat, lon: a.lon)) }
        if gapSetOff != nil { takeGapSetOff(toward: fix, at: t) }   // (the fix after its gap was junk)
        if let c = gaps.reanchored(on: fix, at: t) { credit(c, &events) }
        eventLog.note(.info, "gate re-anchored on consistent fixes; the previous anchor was an outlier")
        track.reset(at: dopplerCheck.trusted(fix), t: t)
        return .segmentStart
    }

    /// A gap or a jump precedes `fix` (the last accepted fix before it `last`): the gap stage's step.
    @inline(never)   // (rare: kept out of the fix path)
    mutating func segmentAfterGap(_ fix: Fix, last: GapResolver.LastFix, at t: Double, _ events: inout [Event]) -> Step {
        // (Another gap: its fix bears the one after the waiting gap out, which credits that
        // gap, and the set-off with it; else nothing bore that fix out, and the set-off goes.)
        if gapSetOff != nil { if gaps.bearsOut(fix, last: last) { takeGapSetOff() } else { gapSetOff = nil } }
        let start = gaps.gapEnded(at: fix, t: t, last: last, shownSpeed: shown.speed,
                                  waits: phases.phase == .cruise || phases.isAutoHeld, inRhythm: gate.gapInRhythm,
                                  speedDoubted: track.doubtsSpeed)
        if let c = start.credit { credit(c, &events) }
        if let j = start.junk, phases.phase == .cruise || phases.isAutoHeld { recorder.dropJunkFix(at: Coordinate(lat: j.lat, lon: j.lon), t: j.t) }
        gaps.wait(start, autoHeld: phases.isAutoHeld, sensedUntil: speedSensor.measuredUntil)   // after the credit, which may auto-pause
        if start.waiting != nil { gapSensed = speedSensor.measuredSincePositioned }
        track.reset(at: dopplerCheck.trusted(fix), t: t)
        return start.step
    }

    /// A fix that agrees with the one after the waiting gap confirms it (`GapResolver.confirmed`),
    /// a set-off that waited for it first (`takeGapSetOff`).
    @inline(never)   // once a gap, kept out of the fix path
    mutating func confirmGap(by fix: Fix, at t: Double, _ events: inout [Event]) {
        if gapSetOff != nil { takeGapSetOff() }
        if let c = gaps.confirmed(by: fix, at: t) { credit(c, &events) }
    }

    /// Applies a gap's credit: to the hold while auto-paused, else to distance, pace, route, laps.
    mutating func credit(_ gap: GapCredit, _ events: inout [Event]) {
        guard !gap.held else {
            if phases.isAutoHeld { pause.takeHeld(afterSensor(gap)) }
            return
        }
        let c = inLeg(gap)   // (outside cruise there is no leg: as it is)
        // Crossed below the auto-pause threshold (a device that records nothing while its rider
        // stands): the slow hold began before the gap, and the pause is decided now, backdated to
        // it, before the laps see the gap's time as cruise. The gap is then the hold's: its time is
        // no cruise, its line no distance and no moving time, as a hold's steps no resume credits.
        var standing = false
        // (Not across the sensor's stretch, nor into a lap already cut: a hold is no cruise time,
        // and that lap's split went out with the gap's time before its end in it.)
        let legSince = lapStage.lapSince > positionsSince ? lapStage.lapSince : positionsSince
        // (At the time of the input that credits the gap, a tick may have passed: the hold's
        // sample, and the phase event, are that input's, as they are without the tick.)
        if phases.phase == .cruise, let v = pause.crossedStanding(c, legSince: legSince) {
            autoPause(v, at: clock.measuredNow, &events)
            if phases.isAutoHeld { return }
            standing = true   // a hold began before it: its slow samples may still pause it
        }
        // (The points kept before now take the steps; the gap's own, kept at its end, too: a gap
        // credited as it is, by a command, is credited at that point's time.)
        var creditedM = 0.0
        if phases.phase == .cruise, let moved = stillness.crossed(c) { creditMovement(moved, before: max(now, c.at.nextUp)) }
        if let from = pause.crossed(c, autoHeld: phases.isAutoHeld) {
            clock.creditHold(from: from, to: c.at)
            lapStage.retimeWaiting(elapsedAt)   // (the laps waiting: their cruise seconds at their times)
        }
        if c.distanceM > 0 {
            // Distance and moving time describe the same movement: the line across a gap that the
            // runner crossed at a walker's speed or more is moving time too, as much of the gap's
            // time as was cruise; not when auto-pause judged it standing (a ride's 1.0 m/s). Of
            // the line, the cruise time's share counts (a gap across a pause: the walk while
            // holding is no distance). Crossed slower, `StillnessDetector.across` decides (while
            // standing, it holds the line with the stand's steps).
            // Of the gap's cruise time, what speed samples had not measured when it ended (by
            // its credit, a fix later, they may have measured the next silence, after it): they
            // may have measured only the part after a resume in it, not the stretch before the
            // pause, or a stand in a hold (no cruise). At least the cruise after their last sample.
            let cruise = unsensedCruise(from: c.lastT, to: c.at, sensed: gapSensed, until: c.sensedUntil)
            let distanceM = c.distanceM * FlightComputer.legShare(of: c.distanceM, speed: c.confirmingDopplerMps, legS: cruise, stepS: c.at - c.lastT)
            // (Standing by auto-pause's judgement: no moving time, held or not.)
            let across = stillness.across(c, lineM: distanceM, cruiseS: standing ? 0 : cruise, paceMps: odometer.distanceM / odometer.movingS)
            if across.counts {
                let moving = standing ? 0 : across.movingS
                odometer.credit(distanceM: distanceM, movingS: moving)
                // Toward the max no faster than the faster of its ends' Doppler speeds, when both
                // have one and the flight trusts them (not a standing speed the filter doubted):
                // the line over a few seconds carries its ends' position error (a walker's 10 s
                // dropout measured 5 m long reads 2.1 m/s between speeds of 1.6); their speeds do not.
                let trusted = c.endsDopplerMps.isFinite && config.filters && !dopplerCheck.prefersPositions
                odometer.noteStretch(distanceM: distanceM, movingS: moving, capMps: trusted ? min(stretchCapMps, c.endsDopplerMps) : stretchCapMps, at: clock.measuredNow, from: c.lastT)
                recorder.credit(distanceM, toPointAt: c.at)
                creditedM = distanceM
            }
        }
        if phases.phase == .cruise { pace.gapCredited(at: c.at, distanceM: distance, creditM: creditedM) }
        if phases.phase == .cruise && !lapsWaitForHeld { lapStage.cut(progress(at: c.at), now: now, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &eventLog, into: &events) }
    }

    /// The cruise seconds from `a` to `b` that speed samples did not measure: less the cruise in
    /// the stretches they measured (`sensed`, as the clock has it now), at least the cruise after
    /// the last of them (`until`). Of a gap's line and of a pause's leg end.
    func unsensedCruise(from a: Double, to b: Double, sensed: TimeSpans, until: Double) -> Double {
        let sensedS = sensed.sum { [clock] from, to in clock.cruiseTime(from: max(from, a), to: min(to, b)) }
        return max(clock.cruiseTime(from: a, to: b) - sensedS, clock.cruiseTime(from: max(a, until), to: b))
    }

    /// A gap that began before the current leg (a start or a resume while no fixes came), with
    /// its speed measured over the leg's share of its line (`legShare`: as far as the confirming
    /// fix's Doppler speed carried the runner since the command, else the time share), as a step
    /// across a resume counts: a rider who stood through the pause and set off at the resume
    /// crossed it moving. Any other gap as it is (and every gap outside cruise, where
    /// `cruiseSince` is NaN).
    func inLeg(_ c: GapCredit) -> GapCredit {
        let since = positionsSince
        guard c.fromT < since, c.confirmedT > since, c.speedAcrossMps.isFinite else { return c }
        let stepS = c.confirmedT - c.fromT, legS = c.confirmedT - since
        let lineM = c.speedAcrossMps * stepS
        var leg = c
        leg.speedAcrossMps = lineM * FlightComputer.legShare(of: lineM, speed: c.confirmingDopplerMps, legS: legS, stepS: stepS) / legS
        return leg
    }

    /// A gap that ended while auto-paused, less what speed samples measured of it (held steps of
    /// their own): the share of its line after their last sample, which its time begins at.
    func afterSensor(_ c: GapCredit) -> GapCredit {
        let until = c.sensedUntil
        guard until > c.lastT, c.at > c.lastT else { return c }
        var g = c
        g.lastT = min(until, c.at)
        g.fromT = max(c.fromT, g.lastT)
        g.distanceM *= FlightComputer.legShare(of: c.distanceM, speed: c.confirmingDopplerMps, legS: c.at - g.lastT, stepS: c.at - c.lastT)
        return g
    }
}
