/// The steps slower than a walker while moving, which wait for the standing decision.
extension StillnessDetector {
    /// A step while moving. One whose Doppler speed was under a walker's at both its fixes (and
    /// that the track filter counted: standing noise above its threshold, or a slow walk or
    /// climb) waits (`slow`): the window that decides standing needs `windowS` to see a stop,
    /// and until then a standing receiver's noisier Doppler speeds were counted as moving, 4 to
    /// 11 s and 1 to 5 m a stop. The waiting steps are credited by a step at a walker's speed,
    /// or once the slow stretch (since the last fix at a walker's speed) has lasted `endS` and is
    /// movement (`slowIsMovement`: a slow walk, which the window does not judge standing either,
    /// or positions that move on); a step that has waited `windowS` is credited in any case.
    /// When the window decides standing, the waiting steps are dropped, and so is the slow step
    /// that decided.
    ///
    /// Across a gap, the steps waiting are credited at the fix after it, as they waited for the
    /// fixes and the gap took them away; unless the slow stretch before it reads as a standing
    /// receiver's Doppler noise (`slowLooksStanding`) and the fix after it is slow too: a runner
    /// who stopped just before the receiver lost the sky (receiver flight 275: the first 12 s of
    /// a stand, then 28 s without fixes). Then they are carried across it (`carry`), with the
    /// gap's line (`across`), and wait for the fixes after it: credited by a step at a walker's
    /// speed, by a slow stretch after it that is movement, by fixes that lie beyond the wander
    /// of where the runner stood before it (`carriedMoved`), or once the window has seen
    /// `windowS` of fixes since without deciding standing (not by the clock: the gap's time is
    /// none of the window's); dropped when the window decides standing, unless the Doppler
    /// speeds before and after the gap together read as a slow walk (`carriedReadStanding`).
    ///
    /// A runner's every step (no gap, no slow step, no slow stretch, a window that does not look
    /// still) is counted as it is, here; any other goes on in `judgeSlow` (its own function, so
    /// that this stays small enough to be inlined in `judge`).
    @inline(__always)
    mutating func judgeMoving(_ step: Step, doppler: Double, before: Double, at t: Double, dt: Double) -> Judged {
        let slowStep = !step.newSegment && doppler < movingDoppler && before < movingDoppler
        let stillFrom = windowStillFrom(at: t)
        if stillFrom == nil, !slowStep, !step.newSegment, slowStretch.from.isNaN { return Judged(step: step, credit: nil) }
        return judgeSlow(step, doppler: doppler, slowStep: slowStep, stillFrom: stillFrom, at: t, dt: dt)
    }

    /// The rest of `judgeMoving`, with what it found: whether the step is slow (`slowStep`), and
    /// where the window's last `windowS` begin when its Doppler speeds do not rule out standing
    /// (`stillFrom`, `windowStillFrom`).
    @inline(never)
    private mutating func judgeSlow(_ step: Step, doppler: Double, slowStep: Bool, stillFrom: Int?, at t: Double, dt: Double) -> Judged {
        let moved = isCarrying && carriedMoved()
        if let lead = stillFrom, windowEndsLookStill(from: lead, at: t) {
            // (Unless the runner moved off since, or the Doppler speeds before and after the gap
            // together read as a slow walk: then the carried steps were movement.)
            let credit = moved || isCarrying && !carriedReadStanding() ? releaseSlow(before: carriedSince.nextUp) : nil
            enterStill(at: t)
            return Judged(step: slowStep ? still(step) : step, credit: credit)
        }
        if step.newSegment, doppler < movingDoppler, !slow.isEmpty, !moved, slowLooksStanding() {
            carry(at: t, doppler: doppler)
            return Judged(step: step, credit: nil)
        }
        guard slowStep else {
            guard !slowStretch.from.isNaN else { return Judged(step: step, credit: nil) }   // (a runner's every step)
            slowStretch = (.nan, 0, 0)
            carriedSince = .nan
            return Judged(step: step, credit: slow.isEmpty ? nil : releaseSlow(before: .infinity))
        }
        if slowStretch.from.isNaN { slowStretch = (t - max(0, dt), 0, 0) }
        slowStretch.dopplerSum += doppler
        slowStretch.fixes += 1
        if step.moving || step.distanceM > 0 { slow.append(Held(t: t, d: step.distanceM, movingS: step.moving ? max(0, dt) : 0, quiet: false, from: t - max(0, dt))) }
        guard !slow.isEmpty else { return Judged(step: still(step), credit: nil) }
        let waited = t - settings.windowS
        // (Carried steps wait for `windowS` of the window's fixes since the gap: none is older
        // than that before then.)
        let bound = slowIsMovement(at: t) ? .infinity : max(moved ? carriedSince.nextUp : -.infinity, isCarrying && waited < carriedSince ? -.infinity : waited)
        return Judged(step: still(step), credit: releaseSlow(before: bound))
    }

    /// Whether slow steps carried across a gap still wait (the first waiting is one of them).
    var isCarrying: Bool { carriedSince.isFinite && (slow.first.map { $0.t <= carriedSince } ?? false) }

    /// The steps waiting are carried across the gap whose fix (at `t`, Doppler `doppler`) this
    /// is; the slow stretch starts over at it, so that what follows is judged by the fixes after
    /// the gap. Where the runner stood is the one before the first gap carried across.
    private mutating func carry(at t: Double, doppler: Double) {
        if !isCarrying { carriedFrom = beforeGap; carriedDoppler = (0, 0) }
        carriedDoppler.sum += slowStretch.dopplerSum
        carriedDoppler.n += slowStretch.fixes
        carriedSince = t
        slowStretch = (t, doppler, 1)
    }

    /// Whether the slow stretch's Doppler speeds read as a standing receiver's noise
    /// (`dopplerLooksStanding`), over `confirmFixes` fixes or more (fewer tell nothing: a
    /// walker's slow fix or two between faster ones).
    func slowLooksStanding() -> Bool {
        slowStretch.fixes >= Double(settings.confirmFixes) && dopplerLooksStanding(sum: slowStretch.dopplerSum, n: slowStretch.fixes)
    }

    /// Whether `n` Doppler speeds summing to `sum` read as a standing receiver's noise: their mean
    /// under two standard errors above the mean speed of a standing receiver with the design
    /// noise (`designDopplerSigmaMps` σ an axis, the magnitude's mean σ√(π/2), its standard
    /// deviation σ√(2 − π/2): 0.25 ± 0.13 m/s), and under `stillDoppler`. The design noise, not
    /// the measured one (`dopplerScale`): a slow walk's speed above what its wandering positions
    /// show measures as noise, and the bound it raised read a 0.55 m/s walker as standing. A walker
    /// at 0.4 m/s (its Doppler's mean about 0.41) reads above it over ten fixes (0.33). Without
    /// Doppler speed (NaN), never.
    func dopplerLooksStanding(sum: Double, n: Double) -> Bool {
        guard n > 0 else { return false }
        let sigma = settings.designDopplerSigmaMps
        return sum / n < min(stillDoppler, sigma * (1.2533 + 2 * 0.6551 / n.squareRoot()))
    }

    /// Whether the Doppler speeds of the carried steps' stretches and of the window since the
    /// gap read together as a standing receiver's noise (`dopplerLooksStanding`): the window's
    /// standing threshold (`stillDoppler`) also passes a walker slower than it.
    func carriedReadStanding() -> Bool {
        var sum = carriedDoppler.sum, n = carriedDoppler.n
        for s in window.samples { sum += s.doppler; n += 1 }
        return dopplerLooksStanding(sum: sum, n: n)
    }

    /// Whether the fixes since the gap (the mean of the window's last `endS`) lie further from
    /// where the runner stood before the carried steps' first gap (`carriedFrom`) than a standing
    /// receiver wanders (`movedRadiusSigmas` σ): the carried steps were movement.
    func carriedMoved() -> Bool {
        guard carriedFrom.x.isFinite, let last = window.samples.last?.t, let m = window.mean(since: last - settings.endS) else { return false }
        let dx = m.x - carriedFrom.x, dy = m.y - carriedFrom.y
        return (dx * dx + dy * dy).squareRoot() > settings.movedRadiusSigmas * max(m.sigma, carriedFrom.sigma)
    }

    /// Whether the slow stretch is movement, not a standing receiver's noise: over `endS` or
    /// more (any length at the leg's end, `t` nil), its mean Doppler speed is `stillDoppler` or
    /// more (a slow walk), or the mean positions of its first and last `endS` seconds are
    /// further apart than a standing receiver wanders (`stillRadiusSigmas`; a speed that
    /// dropped out).
    func slowIsMovement(at t: Double?) -> Bool {
        guard let last = window.samples.last?.t, slowStretch.fixes > 0 else { return false }
        if let t, t - slowStretch.from < settings.endS { return false }
        if slowStretch.dopplerSum / slowStretch.fixes >= stillDoppler { return true }
        guard let ends = window.ends(at: last, endS: settings.endS, from: max(slowStretch.from, last - settings.windowS)) else { return false }
        return ends.distanceM > settings.stillRadiusSigmas * ends.meanSigmaM
    }

    /// Credits the slow steps that ended before `t` (nil when none).
    mutating func releaseSlow(before t: Double) -> HeldCredit? {
        guard let first = slow.first, first.t < t else { return nil }
        let n = slow.firstIndex { $0.t >= t } ?? slow.count
        defer { slow.removeFirst(n) }
        return credited(slow[..<n])
    }
}
