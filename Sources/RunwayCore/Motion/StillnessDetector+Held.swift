/// The held steps (movement not yet confirmed while still): credited when a gap is crossed at a
/// walker's speed, when the leg ends having moved, or when they moved without a break long enough.
extension StillnessDetector {
    /// A gap credited in cruise: crossed at a walker's speed or more (`walked`), the runner moves
    /// (the held steps before it are credited, as at any confirmation; while moving, the slow
    /// steps carried across it, `carry`, and any waiting after them). Nil when nothing changes.
    public mutating func crossed(_ gap: GapCredit) -> Judged? {
        guard settings.enabled, !gap.held, walked(gap) else { return nil }
        guard isStill else {
            guard isCarrying else { return nil }
            slowStretch = (.nan, 0, 0)
            carriedSince = .nan
            return Judged(step: Step(distanceM: 0, moving: false), credit: releaseSlow(before: .infinity))
        }
        return confirmMoving()
    }

    /// Whether the runner crossed `gap` at a walker's speed (`movingDopplerMps`) or more, measured
    /// (NaN, unconfirmed, is not): then it moved, and the gap's time is moving time as its line
    /// is distance.
    public func walked(_ gap: GapCredit) -> Bool { gap.speedAcrossMps >= settings.movingDopplerMps }

    /// What a gap's line (`lineM`, over `cruiseS` of cruise) counts now: crossed at a walker's
    /// speed, the line and its time (`walked`). Crossed slower while moving (or with the stage
    /// off), the line and, unless it was crossed at standing noise's speed (`stillDopplerMps`:
    /// the runner stood through it), the time it takes at the runner's own pace (`paceMps`: the
    /// flight's average moving speed; a walker's before it has one), no more than its cruise
    /// time: the runner may have stood in part of it, or turned (a walker's 8 s dropout across a
    /// turn reads slower than a walker by its chord; a hiker's logger saving a fix a minute at
    /// 0.7 m/s), and a line counted without any time is a stretch faster than any pace measured
    /// (a walk's max speed at the profile's cap: receiver flight 1630). A recorder stopped for
    /// half an hour between two tracks, its line crossed at 0.3 m/s, adds the line without its
    /// time: the runner's moving pace stays the tracks'. Crossed slower while the runner stands,
    /// nothing now: a standing receiver's wander across the gap (a metre or more across 10 s
    /// counted as distance). Its line is then held as the step to the fix after it, as a step
    /// while still is: movement confirmed with no quiet stretch since (a runner who set off in a
    /// tunnel after standing at a light, a hiker's sparse logger at the start of a leg) credits
    /// it with the held steps, with that time; otherwise it is dropped with them. Crossed at
    /// standing noise's speed (`stillDopplerMps`) it is quiet. Crossed slower while moving with
    /// the slow steps before it carried across it (`carry`: they read as a stand's), the line
    /// waits with them (`waitLine`).
    mutating func across(_ gap: GapCredit, lineM: Double, cruiseS: Double, paceMps: Double) -> (counts: Bool, movingS: Double) {
        if walked(gap) { return (true, cruiseS) }
        let pace = paceMps > 0 && paceMps.isFinite ? paceMps : settings.movingDopplerMps
        let lineS = lineM > 0 && pace > 0 && gap.speedAcrossMps >= stillDoppler ? min(max(0, cruiseS), lineM / pace) : 0
        guard settings.enabled else { return (true, lineS) }
        guard isStill else {
            guard isCarrying, gap.at <= carriedSince else { return (true, lineS) }
            waitLine(of: gap, distanceM: lineM, movingS: lineS)
            return (false, 0)
        }
        holdLine(of: gap, distanceM: lineM, movingS: lineS)
        return (false, 0)
    }

    /// Keeps a slow gap's line waiting with the slow steps carried across it (`across`):
    /// credited with them, with its time, when the fixes after it show movement; dropped with
    /// them when the window decides standing (receiver flight 275: a stand's 9.6 m of wander
    /// across a 28 s dropout).
    private mutating func waitLine(of gap: GapCredit, distanceM: Double, movingS: Double) {
        guard distanceM > 0 else { return }
        var i = slow.count
        while i > 0, slow[i - 1].t > gap.at { i -= 1 }
        slow.insert(Held(t: gap.at, d: distanceM, movingS: movingS, quiet: false, lineM: distanceM, lineS: movingS, from: gap.lastT), at: i)
    }

    /// Holds a slow gap's line with the stand's steps (`across`), with its moving time.
    private mutating func holdLine(of gap: GapCredit, distanceM: Double, movingS: Double) {
        guard distanceM > 0 else { return }
        let quiet = gap.speedAcrossMps < stillDoppler
        var i = held.count
        while i > 0, held[i - 1].t > gap.at { i -= 1 }
        if i > 0, held[i - 1].t == gap.at {
            held[i - 1].d += distanceM
            held[i - 1].movingS += movingS
            held[i - 1].lineM += distanceM
            held[i - 1].lineS += movingS
            held[i - 1].from = min(held[i - 1].from, gap.lastT)
            held[i - 1].quiet = quiet
        } else {
            held.insert(Held(t: gap.at, d: distanceM, movingS: movingS, quiet: quiet, lineM: distanceM, lineS: movingS, from: gap.lastT), at: i)
        }
    }

    /// The leg ends (a pause or a stop) with movement unconfirmed: the held steps after the last
    /// quiet stretch are credited when they moved at a walker's speed (`movingDopplerMps`) or
    /// more on average over the time they took (`heldSpan`: a leg's lone step too) — a flight
    /// stopped seconds after its runner set off keeps its metres;
    /// standing noise, far slower, is not credited. Nil when nothing is credited.
    /// While moving, the slow steps waiting (`judgeMoving`) are credited when their stretch is
    /// movement (`slowIsMovement`), else dropped (a runner who stopped, then the flight); those
    /// carried across a gap (`carry`) are credited, as they were at the gap before they waited
    /// for the fixes after it: the leg ended before those could tell.
    public mutating func endLeg() -> Judged? {
        guard settings.enabled else { return nil }
        guard isStill else {
            defer { slow.removeAll(keepingCapacity: true); slowStretch = (.nan, 0, 0); carriedSince = .nan }
            guard !slow.isEmpty else { return nil }
            let bound = slowIsMovement(at: nil) ? .infinity : isCarrying ? carriedSince.nextUp : -.infinity
            guard let credit = releaseSlow(before: bound) else { return nil }
            return Judged(step: Step(distanceM: 0, moving: false), credit: credit)
        }
        guard let last = held.last else { return nil }
        let from = onsetIndex()
        guard from < held.count else { return nil }
        let span = heldSpan(from: from, to: last.t)
        var d = 0.0
        for h in held[from...] { d += h.d }
        guard span > 0, d / span >= movingDoppler else { return nil }
        return confirmMoving()
    }

    /// The held steps after the last quiet stretch, credited; the runner is moving from now.
    mutating func confirmMoving() -> Judged {
        let credit = credited(held[onsetIndex()...])
        isStill = false
        held.removeAll(keepingCapacity: true)
        anchor = nil
        farFixes = 0
        return Judged(step: Step(distanceM: 0, moving: false), credit: credit)
    }

    /// `steps` credited: their sums, and each in `creditedSteps` (for the route and pace window).
    mutating func credited(_ steps: ArraySlice<Held>) -> HeldCredit {
        var credit = HeldCredit(distanceM: 0, movingS: 0)
        creditedSteps.removeAll()
        creditedStretchS = 0
        for h in steps {
            credit.distanceM += h.d
            credit.movingS += h.movingS
            credit.lineM += h.lineM
            credit.lineS += h.lineS
            // (A step with a slow gap's line: the gap is its time, and the line's time is the pace's.)
            creditedStretchS += h.lineM > 0 ? h.movingS - h.lineS : max(h.movingS, h.from.isNaN ? 0 : h.t - h.from)
            creditedSteps.append(t: h.t, d: h.d, movingS: h.movingS, from: h.from)
        }
        return credit
    }

    /// Since when steps the detector holds may still be credited (`+∞` when none may): while
    /// still, from where the first held step after the last quiet stretch began (`onsetIndex`);
    /// while moving, the first slow step waiting. A manual lap later than this waits until they
    /// are credited or dropped (`FlightComputer.lapsWaitForHeld`), so their metres go to the lap
    /// they were covered in.
    public var creditableSince: Double {
        guard settings.enabled else { return .infinity }
        guard isStill else { return slow.first.map { $0.from.isFinite ? $0.from : $0.t } ?? .infinity }
        let from = onsetIndex()
        guard from < held.count else { return .infinity }
        return held[from].from.isFinite ? held[from].from : held[max(from - 1, 0)].t
    }

    /// The first held step after the last `quietS` seconds without a moving step (0 when there
    /// is none; `held.count` when no step has moved since).
    func onsetIndex() -> Int {
        var lastQuiet = -1   // the latest step of the quiet run being walked back over
        var i = held.count - 1
        while i > 0 {
            if !held[i].quiet {
                lastQuiet = -1
            } else {
                if lastQuiet < 0 { lastQuiet = i }
                if held[lastQuiet].t - held[i - 1].t >= settings.quietS { return lastQuiet + 1 }
            }
            i -= 1
        }
        return 0
    }

    /// Whether the held steps have moved, with no quiet stretch, for `movingRunS`, at a mean
    /// speed of at least `movingDopplerMps` (noise that passes the track filter's threshold
    /// now and then is slower), and their fixes moved beyond what their stated accuracy explains
    /// since they began (`positionsMoved`: a receiver whose fixes hop within a coarse accuracy
    /// draws a filtered track of metres a second standing).
    func movedWithoutBreak(at t: Double) -> Bool {
        let from = onsetIndex()
        guard from < held.count, !held.isEmpty else { return false }
        let span = heldSpan(from: from, to: t)
        guard span >= settings.movingRunS else { return false }
        var d = 0.0
        for h in held[from...] { d += h.d }
        return d / span >= movingDoppler && positionsMoved(since: t - span, at: t)
    }

    /// The seconds the held steps from `from` on took, up to `t`: from where the first of them
    /// began (the fix before it, or the leg's start or resume when it crossed one), as their
    /// metres count that step too. (Not from the first step's own fix: a leg's lone step, after
    /// its resume and before a pause, took no time then, and its metres never counted.)
    func heldSpan(from: Int, to t: Double) -> Double {
        let begin = held[from].from
        return t - (begin.isFinite ? begin : held[max(from - 1, 0)].t)
    }

    /// Held steps more than a quiet stretch and a moving run old (or the time fixes of accuracy
    /// `sigma` take to show a walker, when longer: `evidenceS`) can no longer be credited.
    mutating func trimHeld(at t: Double, sigma: Double) {
        let keep = settings.quietS + max(settings.movingRunS, evidenceS(sigma: sigma)) + settings.windowS
        if held.count > 64, let first = held.firstIndex(where: { $0.t >= t - keep }), first > 0 { held.removeFirst(first) }
    }
}
