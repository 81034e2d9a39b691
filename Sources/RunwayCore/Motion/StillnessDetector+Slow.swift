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
    @inline(__always)
    mutating func judgeMoving(_ step: Step, doppler: Double, before: Double, at t: Double, dt: Double) -> Judged {
        let slowStep = !step.newSegment && doppler < movingDoppler && before < movingDoppler
        if windowLooksStill(at: t) {
            enterStill(at: t)
            return Judged(step: slowStep ? still(step) : step, credit: nil)
        }
        guard slowStep else {
            guard !slowStretch.from.isNaN else { return Judged(step: step, credit: nil) }   // (a runner's every step)
            slowStretch = (.nan, 0, 0)
            return Judged(step: step, credit: slow.isEmpty ? nil : releaseSlow(before: .infinity))
        }
        if slowStretch.from.isNaN { slowStretch = (t - max(0, dt), 0, 0) }
        slowStretch.dopplerSum += doppler
        slowStretch.fixes += 1
        if step.moving || step.distanceM > 0 { slow.append(Held(t: t, d: step.distanceM, movingS: step.moving ? max(0, dt) : 0, quiet: false, from: t - max(0, dt))) }
        guard !slow.isEmpty else { return Judged(step: still(step), credit: nil) }
        return Judged(step: still(step), credit: releaseSlow(before: slowIsMovement(at: t) ? .infinity : t - settings.windowS))
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
