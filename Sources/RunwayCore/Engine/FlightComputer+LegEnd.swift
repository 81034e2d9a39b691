/// A user's pause that ends a leg after its last fix, and the set-off a pause takes over while
/// auto-paused: what the leg end keeps (`LegEnd`, `SetOff`, `GapSetOff`) and what the next fix's
/// step credits of the line to it (`takeLegEnd`, `takeSetOff`, `takeGapSetOff`).
extension FlightComputer {
    /// Where a leg a user's pause ended lies when the pause came after the leg's last fix: that
    /// fix, its speed (as the Doppler check trusts it; NaN: none) and its time, and the pause's
    /// time (the latest, when a resume and a pause came before the next fix too). The cruise
    /// time after the fix, up to the pause, waits for the next fix's step (`takeLegEnd`), and so
    /// do the manual laps asked for meanwhile (`lapWaits`).
    struct LegEnd: Sendable, Equatable {
        var lat: Double, lon: Double, alt: Double
        var speed: Double, t: Double
        var pausedAt: Double
        /// Up to when speed samples had measured the flight at the pause (they may measure after
        /// a resume too, before the next fix; what they measured since the leg's last fix:
        /// `legEndSensed`).
        var sensedUntil: Double
        /// Whether a resume has begun a new leg since (the pause's point then goes unkept).
        var resumed = false
        /// The resume that began a leg with no fix of its own (resumed after `t`'s fix, paused
        /// before the next one); NaN when the leg had its fixes (`noFixLegShare`).
        var from = Double.nan
    }

    /// A set-off while auto-paused that a user's pause took over before anything judged it: the
    /// resume under way (`AutoPauseStage.resumeUnderWay`: since when, the held steps it credits),
    /// the pause's time and the seconds from the last fix to it that speed samples had not
    /// measured then.
    struct SetOff: Sendable, Equatable {
        var since: Double
        var held: [HeldCredit]
        var pausedAt: Double
        var unsensedS: Double
    }

    /// The last fix's speed as a leg end keeps it: none once positions are preferred; a
    /// standing speed the positions belie is the filtered speed, as the stillness detector
    /// judges the step (a host that passes 0 for every speed).
    var legEndSpeed: Double { dopplerCheck.prefersPositions ? .nan : track.doubtsSpeed ? track.speedMps : shown.speed }

    /// A user's pause while auto-paused, with the auto-resume under way (its fast hold begun, or
    /// held steps that set off: `AutoPauseStage.resumeUnderWay`): the pause makes the hold the
    /// user's, and the fixes that would have completed the resume may never come (a dropout
    /// from the set-off on). So the leg end waits at the last fix, with the resume, for the next
    /// fix, which judges it (`takeLegEnd`), as a no-fix leg's does: nothing judged whether the
    /// runner moved on.
    mutating func keepSetOffLegEnd(pausedAt t: Double) {
        guard legEnd == nil, config.filters, let last = lastAccepted, last.t <= t,
              let r = pause.resumeUnderWay(phases: phases) else { return }
        let speed = legEndSpeed
        let unsensed = max(0, t - max(last.t, speedSensor.measuredUntil))
        legEnd = LegEnd(lat: last.lat, lon: last.lon, alt: shown.alt, speed: speed, t: last.t, pausedAt: t,
                        sensedUntil: speedSensor.measuredUntil)
        legEndSetOff = SetOff(since: r.since, held: r.held, pausedAt: t, unsensedS: unsensed)
        legEndSensed = speedSensor.measuredSincePositioned
    }

    /// The fix after a pause that took over a set-off (`legEndSetOff`), its step's line `lineM` from
    /// the last fix before the pause: when the line was crossed faster than auto-pause resumes
    /// at (no faster than the speed cap: a junk end), the runner moved on, and the resume comes
    /// after all, backdated to where it was under way: its leg, from then to the pause, is cruise
    /// time, its held steps count, and so does the line's share before the pause, as a no-fix
    /// leg's (`noFixLegShare`, from the last fix: the cruise seconds `cruiseAfterS` of a resumed
    /// leg paused again before this fix too), its time moving time. Slower, the runner stood:
    /// nothing (nil). Returns the line's metres and the seconds credited, as `takeLegEnd` does,
    /// and the fraction of the line where the credited share ends (at the leg's pause).
    mutating func takeSetOff(_ o: SetOff, _ e: LegEnd, lineM: Double, toward fix: Fix, at t: Double, cruiseAfterS: Double) -> (m: Double, s: Double, ends: Double)? {
        let dt = t - e.t, lineMps = lineM / dt
        guard dt > 0, lineMps > pause.machine.settings.resumeAboveMps, lineMps <= config.speedCapMps else { return nil }
        let legS = clock.creditLeg(from: o.since, to: o.pausedAt)
        lapStage.retimeWaiting(elapsedAt)   // (the laps waiting: their cruise seconds at their times)
        let (heldM, heldS) = heldTotals(o.held)
        var leg = e
        leg.from = e.t   // (from the last fix: no hold before it)
        let s = o.unsensedS + cruiseAfterS
        let share = s > 0 ? noFixLegShare(leg, lineM: lineM, toward: fix, at: t, cruiseS: s).share : 0
        let m = share > 0 ? lineM * share : 0, lineS = share > 0 ? min(s, max(0, legS - heldS) + cruiseAfterS) : 0
        // One leg: its held steps and the line's share, its average toward the max.
        odometer.creditLeg(distanceM: heldM + m, movingS: min(heldS, legS) + lineS, capMps: stretchCapMps, at: o.pausedAt)
        if !e.resumed && e.pausedAt < t {
            startSegment()
            recorder.keep(point(e.lat, e.lon, e.alt, at: e.t))
            if share > 0 {
                let b = FlightComputer.along(e.lat, e.lon, fix.lat, fix.lon, min(1, share))
                recorder.keepLast(point(b.lat, b.lon, e.alt, at: e.pausedAt))
            }
        }
        return share > 0 ? (m, s, min(1, share)) : (0, 0, 0)
    }

    /// A user's pause in cruise at `t`: when the leg's last fix is older and the runner was
    /// moving (the stillness detector's judgement, when it judges; filters off, unless that fix's
    /// own speed says 0), the cruise time after that fix waits for the next fix (`legEnd`). A
    /// leg with no fix of its own (resumed after the last fix: `legStart`) waits for it too, and
    /// its step judges whether the runner moved (`noFixLegShare`): nothing judged the leg yet.
    /// A flight that stops waits for none: nothing comes after it.
    mutating func keepLegEnd(pausedAt t: Double) {
        if legEnd != nil {   // (a leg with no fix of its own since)
            legEnd?.pausedAt = t
            legEnd?.sensedUntil = speedSensor.measuredUntil
            legEndSensed = speedSensor.measuredSincePositioned
            return
        }
        let speed = legEndSpeed
        if let s = legStart, let last = lastAccepted, last.t <= s.t {   // (no fix since: not one while auto-paused)
            legEnd = LegEnd(lat: s.lat, lon: s.lon, alt: s.alt, speed: speed, t: s.t, pausedAt: t,
                            sensedUntil: speedSensor.measuredUntil, from: s.at)
            legEndSensed = speedSensor.measuredSincePositioned
            return
        }
        // (Filters off, nothing judges standing but the fix's own speed, as for a raw step's
        // moving time; and the latest fix, when too inaccurate to count, measures no line.)
        let standing = config.filters ? stillness.settings.enabled && stillness.isStill : shown.speed == 0
        guard !standing, config.filters || !gate.accuracy.reduced, let last = lastAccepted, last.t < t else { return }
        legEnd = LegEnd(lat: last.lat, lon: last.lon, alt: shown.alt, speed: speed, t: last.t, pausedAt: t,
                        sensedUntil: speedSensor.measuredUntil)
        legEndSensed = speedSensor.measuredSincePositioned
    }

    /// The share of the step's line, `lineM` long from the last fix before a leg with no fix of
    /// its own (`e`, `LegEnd.from`) to `fix` at `t`, that lies in the leg: the line less what the
    /// two fixes' own speeds carried the runner through the holds on either side (one who rode
    /// on through both counts the leg's time at that speed), no faster over the leg's time
    /// (`cruiseS`) than the faster of those speeds and the line's own average (one who stood at
    /// both fixes, or set off after the first: the speeds say nothing of when the line was
    /// covered); without a speed at either fix, the leg's share of the step's time. Nothing
    /// when the stillness detector judges (filters on) and the leg's metres are what a standing
    /// receiver's wander explains: under `stillRadiusSigmas` position σ, or slower than its
    /// moving threshold over the leg's time. Also where the leg begins on the line (a fraction
    /// of it).
    func noFixLegShare(_ e: LegEnd, lineM: Double, toward fix: Fix, at t: Double, cruiseS: Double) -> (share: Double, begins: Double) {
        let dt = t - e.t, before = max(0, e.from - e.t), after = max(0, t - e.pausedAt)
        let v1 = dopplerCheck.prefersPositions ? Double.nan : fix.speed
        let speeds = e.speed >= 0 && v1 >= 0, lineMps = lineM / dt
        let legM = min(lineM, max(0, speeds ? min(lineM - e.speed * before - v1 * after, max(e.speed, v1, lineMps) * cruiseS)
                                            : lineMps * cruiseS))
        let begins = min(1, speeds ? e.speed * before / lineM : before / dt)
        if config.filters && stillness.settings.enabled && stillness.wanderExplains(legM, over: cruiseS, at: fix) { return (0, begins) }
        return (legM / lineM, begins)
    }

    /// The first fix after a user's pause that came after the last fix (`legEnd`; filters off,
    /// the first accurate one): the step between them, `lineM` long (the track filter's step; the
    /// geodesic, filters off), counts the share of its line that lies in cruise before the pause (pauses,
    /// when a resume and a pause came between them too), as far as the last fix's own speed
    /// carried the runner in that time (`legShare`; without a speed the time share), as moving
    /// time the time it took at that speed: the mirror of a step across a resume, which counts
    /// its share after the resume (at most the rest of the line, then). While still paused, the
    /// leg's route ends at that point, at the pause's time. Not a gap that waits in cruise (its
    /// credit counts the cruise time on both sides of the pause, and the laps wait for it; but a
    /// set-off the pause took over, whose time before the pause was no cruise, is judged on the
    /// gap's line: `takeGapSetOff`), nor a step while auto-paused (the hold's). The manual laps
    /// that waited are cut: those up to the pause with the share,
    /// as of the pause; after a resume, the laps' progress is the resume's (as the resume makes
    /// it when nothing waits). Returns the metres and seconds credited.
    @inline(never)   // once a pause, kept out of the fix path
    mutating func takeLegEnd(lineM: Double, toward fix: Fix, at t: Double, _ events: inout [Event]) -> (m: Double, s: Double) {
        guard let e = legEnd else { return (0, 0) }
        let setOff = legEndSetOff
        legEnd = nil
        legEndSetOff = nil
        let dt = t - e.t
        // The cruise time up to the pause that speed samples had not measured at the pause (they
        // may have measured part of it, and more after a resume: not the stretch before the
        // pause), at least the cruise after their last sample, as a gap's line counts it.
        // (A leg with no fix of its own begins at its resume: the cruise before an earlier pause
        // after the fix was judged standing, or had none, when that pause kept no leg end.)
        let end = phases.phase == .cruise ? clock.cruiseSince : t
        let s = unsensedCruise(from: e.from.isNaN ? e.t : e.from, to: end, sensed: legEndSensed, until: e.sensedUntil)
        // (A gap that waits: its credit counts both sides of the pause, and cuts the laps; a
        // set-off is judged when the gap is credited: `takeGapSetOff`.)
        if phases.phase == .cruise && gaps.waitingAt == t {
            if let o = setOff, let gap = gaps.waiting, gap.distanceM > 0 { gapSetOff = GapSetOff(setOff: o, legEnd: e, cruiseAfterS: s, fix: fix, at: t) }
            return (0, 0)
        }
        var credited = (m: 0.0, s: 0.0)
        if let o = setOff {
            if !phases.isAutoHeld, lineM > 0, let c = takeSetOff(o, e, lineM: lineM, toward: fix, at: t, cruiseAfterS: s) { credited = (c.m, c.s) }
        } else if !phases.isAutoHeld, dt > 0, s > 0, lineM > 0 {
            // A leg with its fixes: its share, as moving time the time it took at the last fix's
            // speed (a speed of 0: the rider stood, no metres and no moving time). One with no
            // fix of its own: its share when it moved, and its time is moving time; its route
            // begins at the resume, at the flight's distance before it.
            let share: Double, begins: Double, movingS: Double
            if e.from.isNaN {
                share = FlightComputer.legShare(of: lineM, speed: e.speed, legS: s, stepS: dt)
                begins = .nan
                movingS = e.speed >= 0 ? min(s, e.speed > 0 ? lineM * share / e.speed : 0) : s
            } else {
                (share, begins) = noFixLegShare(e, lineM: lineM, toward: fix, at: t, cruiseS: s)
                movingS = s
            }
            if e.from.isNaN || share > 0 {
                let route = !e.resumed && e.pausedAt < t
                if route && !begins.isNaN {
                    let a = FlightComputer.along(e.lat, e.lon, fix.lat, fix.lon, begins)
                    recorder.keep(point(a.lat, a.lon, e.alt, at: e.from))
                }
                credited = (lineM * share, s)
                odometer.creditLegEnd(distanceM: credited.m, movingS: movingS, capMps: stretchCapMps, at: e.pausedAt)
                if route {
                    let b = FlightComputer.along(e.lat, e.lon, fix.lat, fix.lon, min(1, (begins.isNaN ? 0 : begins) + share))
                    recorder.keepLast(point(b.lat, b.lon, e.alt, at: e.pausedAt))
                }
            }
        }
        // (Speed samples since a resume are in the pace window, after the stretch credited.)
        if credited.m > 0 { pace.shift(by: credited.m, after: e.pausedAt) }
        var p = lapProgress
        p.elapsedS = clock.elapsed(in: .holding)   // (the cruise time before the current leg)
        p.t = e.pausedAt
        lapStage.cut(p, now: now, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &eventLog, into: &events)
        if phases.phase == .cruise, clock.cruiseSince > e.pausedAt {
            p.t = clock.cruiseSince
            lapStage.cut(p, now: now, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &eventLog, into: &events)
        }
        return credited
    }

    /// A set-off a user's pause took over (`takeSetOff`) whose fix after the pause came in cruise
    /// (resumed before it) and ended a gap that waits (`takeLegEnd`): the fix after the gap, the
    /// leg end, and the cruise seconds of a resumed leg paused again before that fix.
    struct GapSetOff: Sendable, Equatable {
        var setOff: SetOff, legEnd: LegEnd
        var cruiseAfterS: Double
        var fix: Fix, at: Double
    }

    /// That set-off is judged when its gap is credited, as the gap's line is trusted: on the line
    /// from the leg end's fix to the fix after the gap once a fix bears that fix out (the next
    /// one, or the one after another gap: `GapResolver.bearsOut`) or a command credits the gap
    /// as it is; to the fix the gate re-anchored on (`fix` at `t`) when it was junk; not when
    /// another gap's fix does not bear it out, nor when the gap's line counts nothing. Its credit (the held steps, the line's share up to the pause, the leg's
    /// time as cruise) comes before the gap's, which waits from where that share ends, at the
    /// pause: its credit, the line's rest, counts the cruise after the pause (the resumed leg's),
    /// as a gap across a pause does; neither the line nor the leg's time counts twice. The runner
    /// stood: the gap's credit counts the cruise after the resume, the set-off nothing.
    @inline(never)
    mutating func takeGapSetOff(toward fix: Fix? = nil, at t: Double = .nan) {
        guard let w = gapSetOff else { return }
        gapSetOff = nil
        guard gaps.waitingAt == w.at, let gap = gaps.waiting, !gap.held, gap.distanceM > 0 else { return }
        let end = fix ?? w.fix, endT = fix == nil ? w.at : t, e = w.legEnd
        let lineM = Geodesy.distance(lat1: e.lat, lon1: e.lon, lat2: end.lat, lon2: end.lon)
        guard lineM > 0, let c = takeSetOff(w.setOff, e, lineM: lineM, toward: end, at: endT, cruiseAfterS: w.cruiseAfterS) else { return }
        let b = FlightComputer.along(e.lat, e.lon, end.lat, end.lon, c.ends)
        gaps.waits(from: Coordinate(lat: b.lat, lon: b.lon), at: e.pausedAt)
    }
}
