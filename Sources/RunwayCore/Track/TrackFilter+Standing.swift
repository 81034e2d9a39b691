extension TrackFilter {
    /// A fix whose Doppler speed says standing: is that believed? A speed can drop out while its
    /// fixes move on (a wheel sensor's in a FIT record, a host that passes 0 for a missing
    /// speed); judged a step at a time, such a speed read as standing wherever one step moves less
    /// than a σ (a run at 1 Hz, anything at 2 Hz or with a coarse accuracy) and, with a course,
    /// held the filtered speed down. So the stretch is judged over time: once `doubtFixes`
    /// consecutive fixes are further from a reference than standing explains (the moving speed
    /// over the time since, plus two position σ: a standing receiver's wander, and one fix's
    /// outlier is not enough), the stretch is doubted: its fixes update the filter without their
    /// speed and course, whose velocity starts again from the fixes' pace, and its steps are
    /// measured by the positions (`update`); what they missed of the displacement since the
    /// stretch began (the last fix where the speed said more) is the shortfall (`takeDoubt`).
    /// The reference is where the stretch began, moved on to the latest fix every
    /// `standingWindowS` while the fixes stand: a speed that stays out from a stop on into the
    /// ride is judged against where the rider stood lately, not against a radius that grew
    /// with the whole stop.
    /// Returns, when the stretch was just doubted, how far its fixes moved since it began (what
    /// its steps should have counted); NaN otherwise.
    mutating func judgeStanding(_ fix: Fix, t: Double, dt: Double) -> Double {
        if standingT.isNaN { beginStanding(lat: lastFixLat, lon: lastFixLon, t: t - dt) }
        guard !standingDoubted else { return .nan }
        let since = t - reference.t
        let fromReference = Geodesy.distance(lat1: reference.lat, lon1: reference.lon, lat2: fix.lat, lon2: fix.lon)
        if fromReference > settings.movingSpeedMps * since + 2 * positionSigma(fix) {
            if beyondStanding == 0 { firstBeyond = (fromReference, t) }
            beyondStanding += 1
        } else {
            beyondStanding = 0
            if since >= Self.standingWindowS { reference = (fix.lat, fix.lon, t); standingStillS = 0 }
        }
        // Moving on, not an outlier's offset that stays: the fixes beyond still move away at the
        // moving speed or more, and at half the pace at which the first of them got there since
        // the stretch began or more (an offset jumps there and stays). Since the stretch began,
        // not since the reference moved on: the fixes stood meanwhile, and a fix beyond a second
        // after it moved, two σ of wander away, looked like a jump of 10 m/s (a run that set off
        // then was never doubted).
        let reachedS = firstBeyond.t - standingT
        let pace = (fromReference - firstBeyond.m) / (t - firstBeyond.t)
        guard beyondStanding >= max(2, settings.doubtFixes), reachedS > 0,
              pace >= max(settings.movingSpeedMps, firstBeyond.m / reachedS / 2) else { return .nan }
        standingDoubted = true
        // Since when the fixes moved: from the first fix beyond back to no displacement from the
        // reference, as a set-off from a stop gets there: speeding up at a steady rate to about
        // the pace since, so over twice the time that pace would take (it came out seconds late
        // at a ride's set-off). Never before the reference: a speed that dropped out while
        // moving is beyond it at the next fix. On a bend the displacement understates the path,
        // and the time comes out later.
        // (`takenBack(k)`: the first fix beyond, taken back over `k` times the time the pace
        // takes to its displacement, clamped to the reference.)
        func takenBack(_ k: Double) -> Double { min(firstBeyond.t, max(reference.t, firstBeyond.t - k * firstBeyond.m / pace)) }
        let from = takenBack(2)
        // (The velocity is that pace: the displacement over the time the pace takes to cover it,
        // or over the time since the reference when that is shorter.)
        let paceS = max(t - takenBack(1), dt)
        let movedM = Geodesy.distance(lat1: standingLat, lon1: standingLon, lat2: fix.lat, lon2: fix.lon)
        doubt = Doubt(from: from, stillS: max(0, standingStillS - (from - reference.t)), movedM: movedM, shortfallM: 0)
        let k = scales()
        ve = Geodesy.wrappedDeltaLon(reference.lon, fix.lon) * k.kx / paceS
        vn = (fix.lat - reference.lat) * k.ky / paceS
        // Starts again at the fix, as unsure as at a start: held back by the zero speeds, the
        // estimate trails the fixes (what it would catch up is the shortfall, paid out) and had
        // stopped learning the velocity from them.
        lat = fix.lat; lon = fix.lon
        let sigma = positionSigma(fix)
        east = Axis(pp: sigma * sigma, vv: 1)
        north = Axis(pp: sigma * sigma, vv: 1)
        return movedM
    }

    /// A step of a doubted stretch, measured by the positions (`update`). Once its filtered
    /// speed has fallen below the moving speed, the stretch stands: its standing is judged anew
    /// from this fix. The filtered speed lags a stop and ran on past it (about 12 m from a run's
    /// pace, 28 m from a ride's): what the steps counted since the fixes stopped (the earliest of
    /// the latest fixes from which all lie within two position σ of this one), beyond how far
    /// they moved since, is owed by the new stretch (its shortfall, what its fixes move beyond
    /// what its steps counted, leaves it out), not counted twice.
    @inline(never)
    mutating func doubtedStep(_ fix: Fix, t: Double, justDoubted: Bool) {
        if justDoubted { doubtedFixes.removeAll(keepingCapacity: true) }
        if doubtedFixes.count >= Self.doubtedFixesKept { doubtedFixes.removeFirst() }
        doubtedFixes.append((fix.lat, fix.lon, standingCountedM))
        guard speedMps < settings.movingSpeedMps else { return }
        let near = 2 * positionSigma(fix)
        var stopped = (lat: fix.lat, lon: fix.lon, countedM: standingCountedM), since = 0.0
        for f in doubtedFixes.reversed() {
            let d = Geodesy.distance(lat1: f.lat, lon1: f.lon, lat2: fix.lat, lon2: fix.lon)
            if d > near { break }
            stopped = f; since = d
        }
        let overrunM = max(0, standingCountedM - stopped.countedM - since)
        beginStanding(lat: fix.lat, lon: fix.lon, t: t)
        standingCountedM = overrunM
        doubtedFixes.removeAll(keepingCapacity: true)
    }

    /// How many of a doubted stretch's latest fixes are kept to find where they stopped.
    static let doubtedFixesKept = 64

    /// How long the fixes of a stretch of standing speeds stand before its reference moves on.
    static let standingWindowS = 60.0

    /// A stretch of standing speeds judged from the fix at `lat`, `lon`, `t`.
    mutating func beginStanding(lat: Double, lon: Double, t: Double) {
        standingLat = lat; standingLon = lon; standingT = t
        reference = (lat, lon, t)
        standingStillS = 0
        standingCountedM = 0; beyondStanding = 0; standingDoubted = false
    }
}
