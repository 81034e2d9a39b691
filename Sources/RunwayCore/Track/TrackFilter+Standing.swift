extension TrackFilter {
    /// A fix whose Doppler speed says standing: is that believed? A speed can drop out while its
    /// fixes move on (a wheel sensor's in a FIT record, a host that passes 0 for a missing
    /// speed); judged a step at a time, such a speed read as standing wherever one step moves less
    /// than a σ (a run at 1 Hz, anything at 2 Hz or with a coarse accuracy) and, with a course,
    /// held the filtered speed down. So the stretch is judged from where it began (the last fix
    /// where the speed said more): once `doubtFixes` consecutive fixes are further from there than
    /// standing explains (the moving speed over the time since, plus two position σ: a standing
    /// receiver's wander, and one fix's outlier is not enough), the stretch is doubted: its fixes
    /// update the filter without their speed and course, whose velocity starts again from the
    /// displacement over the stretch, and its steps are measured by the positions (`update`);
    /// what they missed until then is the shortfall (`takeShortfall`).
    /// Returns, when the stretch was just doubted, how far its fixes moved (what its steps should
    /// have counted); NaN otherwise.
    mutating func judgeStanding(_ fix: Fix, t: Double, dt: Double) -> Double {
        if standingT.isNaN { beginStanding(lat: lastFixLat, lon: lastFixLon, t: t - dt) }
        guard !standingDoubted else { return .nan }
        let since = t - standingT
        let moved = Geodesy.distance(lat1: standingLat, lon1: standingLon, lat2: fix.lat, lon2: fix.lon)
        if moved > settings.movingSpeedMps * since + 2 * positionSigma(fix) {
            if beyondStanding == 0 { firstBeyond = (moved, t) }
            beyondStanding += 1
        } else {
            beyondStanding = 0
        }
        // Moving on, not an outlier's offset that stays: the fixes beyond still move away at the
        // moving speed or more, and at half the pace at which the first of them got there or
        // more (an offset jumps there and stays).
        let reachedS = firstBeyond.t - standingT
        guard beyondStanding >= max(2, settings.doubtFixes), reachedS > 0,
              moved - firstBeyond.m >= max(settings.movingSpeedMps, firstBeyond.m / reachedS / 2) * (t - firstBeyond.t) else { return .nan }
        standingDoubted = true
        let k = scales()
        ve = Geodesy.wrappedDeltaLon(standingLon, fix.lon) * k.kx / since
        vn = (fix.lat - standingLat) * k.ky / since
        // Starts again at the fix, as unsure as at a start: held back by the zero speeds, the
        // estimate trails the fixes (what it would catch up is the shortfall, paid out) and had
        // stopped learning the velocity from them.
        lat = fix.lat; lon = fix.lon
        let sigma = positionSigma(fix)
        east = Axis(pp: sigma * sigma, vv: 1)
        north = Axis(pp: sigma * sigma, vv: 1)
        return moved
    }

    /// A stretch of standing speeds judged from the fix at `lat`, `lon`, `t`.
    mutating func beginStanding(lat: Double, lon: Double, t: Double) {
        standingLat = lat; standingLon = lon; standingT = t
        standingCountedM = 0; beyondStanding = 0; standingDoubted = false
    }
}
