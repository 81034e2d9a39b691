/// The shorter pipeline (`"filters":"off"`): raw accumulation (`RawTrack`) measures each accurate
/// fix in cruise from the last kept route point, and a leg ends at its latest fix.
///
///     let measures = fc.applyRaw(fix, at: t, &events)   // whether positions measured the flight
extension FlightComputer {
    /// A fix through the shorter pipeline: the share before a user's pause of the line from the
    /// leg's last fix (`takeLegEnd`), then, in cruise, the step from the last kept point (from the
    /// leg's first point when a start or resume waited for this fix: `keepLegStart`). Returns
    /// whether the fix is one that positions measure the flight by (accurate, in cruise).
    @inline(never)   // the filters-off path: kept out of the composer's fix path
    mutating func applyRaw(_ fix: Fix, at t: Double, _ events: inout [Event]) -> Bool {
        let accurate = gate.raw(fix, log: &eventLog)
        shown.show(fix)
        // (The line from the last fix before a pause to this one: its share before the pause.
        // A leg resumed since takes its share after the resume, no more than the rest of it.)
        var endedShare = 0.0
        if accurate, let e = legEnd {
            let line = Geodesy.distance(lat1: e.lat, lon1: e.lon, lat2: fix.lat, lon2: fix.lon)
            let ended = takeLegEnd(lineM: line, toward: fix, at: t, &events)
            if line > 0 { endedShare = ended.m / line }
        }
        var keeps = false
        if phases.phase == .cruise && accurate {
            // A leg's first point is where the runner was at the command: the step from it
            // spans only cruise, whatever the hold without fixes before it, and continues the
            // segment that point began (a gap or not: raw accumulation counts its line).
            let legT = legStart == nil ? nil : keepLegStart(toward: fix, at: t, counted: endedShare)
            let m = raw.measure(fix, at: t, lastKept: recorder.lastKept, keptT: recorder.lastKeptT, previousT: legT ?? lastAccepted?.t,
                                cadence: gate.cadence)
            if m.step.newSegment && legT == nil { startSegment() }
            if m.step.newSegment { pace.reset() }   // no pace across a gap (the window keeps the point before it)
            addRaw(m, speed: fix.speed, at: t)
            keeps = m.keep
            pace.push(t: t, distanceM: distance)
        }
        pace.updateRaw(fixSpeedMps: fix.speed, cruising: phases.phase == .cruise, at: t)
        // The point once the pace has taken the fix: it carries this fix's speed, not the one before.
        if keeps { recorder.keep(point(of: fix, at: t)) }
        return phases.phase == .cruise && accurate
    }

    /// A raw step to a fix at `t` with its own `speed`: its distance (of a line from before a
    /// speed sensor's stretch, the share after it) and, when moving, its moving time.
    mutating func addRaw(_ m: RawTrack.Measure, speed: Double, at t: Double) {
        var step = m.step
        let measuredUntil = speedSensor.measuredUntil
        if measuredUntil > recorder.lastKeptT {   // a line from before the sensor's stretch: the share after it
            step.distanceM *= FlightComputer.legShare(of: step.distanceM, speed: speed, legS: t - measuredUntil, stepS: t - recorder.lastKeptT)
        }
        odometer.add(step, over: clock.cruiseTime(from: max(m.movingSince, measuredUntil), to: t))   // (counted when moving)
    }

    /// A leg ends in cruise (a pause or the stop), filters off: its latest fix, when accurate and
    /// the distance filter left it out, counts its step from the last kept point and ends the
    /// leg's route when the runner covered that stretch (`RawTrack.measureEnd`), as the route of a
    /// filtered leg ends at its latest fix (`keepLatestPosition`); not on a full route (a fix
    /// that would add a point is refused there). Before the speed sensor's stretch since that
    /// fix is measured: the fix's step is the positions'.
    mutating func endRawLeg() {
        guard !config.filters, !gate.accuracy.reduced, recorder.route.count < config.maxRoutePoints, let last = lastAccepted else { return }
        let m = raw.measureEnd(at: Coordinate(lat: last.lat, lon: last.lon), speed: shown.speed, t: last.t,
                               lastKept: recorder.lastKept, keptT: recorder.lastKeptT)
        guard m.keep else { return }
        addRaw(m, speed: shown.speed, at: last.t)
        distanceAtPosition = distance
        recorder.keep(latestFixPoint(last))
    }
}
