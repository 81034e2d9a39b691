/// Auto-pause in the pipeline: the `AutoPause` state machine, the steps measured while
/// auto-paused (credited when the resume's fast hold began before them), and how gaps count.
///
/// It takes the speed after each fix (`update`), the steps measured while auto-paused (`hold`)
/// and every `GapCredit` (`takeHeld`, `crossed`), and returns a `PauseDecision` that the
/// composer applies to the clock, the phase and the other stages.
///
/// - A gap confirmed at moving speed in cruise: no auto-pause is backdated across it.
/// - A gap confirmed at standing speed in cruise (below the pause threshold) starts the slow hold
///   at its beginning (or the leg's, when it began before the leg: nothing when less than the
///   hold lies in the leg), and its speed is a sample of the hold: the rider stood through it (a
///   device stops recording while its rider stands), so the pause is backdated to before it.
/// - A held gap (it ended while auto-paused) crossed at moving speed starts the fast hold at its
///   beginning (never before the pause itself), and its speed is a sample of the hold.
///
///     var stage = AutoPauseStage(settings: .defaults(for: .ride))
///     stage.update(speedMps: 0.1, at: 10, phases: phases, cruiseSince: 0, waiting: nil)  // .none
///     stage.update(speedMps: 0.1, at: 14, phases: phases, cruiseSince: 0, waiting: nil)  // .pause(from: 10, withdrawMovingS: 0)
public struct AutoPauseStage: Sendable {
    /// A step measured while auto-paused.
    struct HeldStep: Sendable, Equatable {
        var t: Double
        var d: Double
        var movingS: Double
        /// A speed sensor's (its distance is the samples').
        var bySensor = false
        /// Where the fixes themselves moved over the step, from and to (nil: not a fix's step).
        var from: Coordinate? = nil, to: Coordinate? = nil
        /// The fix's Doppler speed when it is the sample auto-pause judged at the step's end
        /// (NaN: it judged the filtered speed, or none).
        var dopplerMps = Double.nan

        /// How far the fixes moved over the step (NaN: not a fix's step).
        var fixesM: Double {
            guard let from, let to else { return .nan }
            return Geodesy.distance(lat1: from.lat, lon1: from.lon, lat2: to.lat, lon2: to.lon)
        }
    }

    public private(set) var machine: AutoPause
    /// Whether auto-pause is on (off, `update` decides nothing).
    var isEnabled: Bool { machine.settings.enabled }
    private var held: [HeldStep] = []
    /// The end of the last confirmed gap in cruise crossed at moving speed (NaN when none).
    private var lastMovingGapEnd = Double.nan
    /// When the current auto-pause took effect (NaN when none has).
    private var pausedSince = Double.nan
    /// A confirmed held gap's speed, a sample of the hold taken before the confirming fix's own.
    private var gapSpeedSample: Double? = nil

    public init(settings: AutoPause.Settings) { machine = AutoPause(settings: settings) }

    /// Steps measured while auto-paused, waiting for the resume (tests look at the count).
    var heldCount: Int { held.count }

    /// Moving time counted in cruise since the slow hold in progress began: an auto-pause
    /// backdated to the hold's start takes it back (it is the hold's, not cruise time).
    private var slowSteps: [HeldStep] = []

    /// A step counted in cruise (its moving time `movingS`, ending at `t`).
    @inline(__always)
    mutating func cruised(movingS: Double, at t: Double) {
        guard machine.slowSince != nil else {
            if !slowSteps.isEmpty { slowSteps.removeAll(keepingCapacity: true) }
            return
        }
        if movingS > 0 { slowSteps.append(HeldStep(t: t, d: 0, movingS: movingS)) }
    }

    /// A step measured while auto-paused (by a speed sensor: `bySensor`); a fix's step: where the
    /// fixes moved `from` and `to`, and the fix's Doppler speed when auto-pause judges it
    /// (`dopplerMps`, NaN when it judges the filtered speed).
    mutating func hold(_ step: Step, at t: Double, dt: Double, from: Coordinate? = nil, to: Coordinate? = nil,
                       dopplerMps: Double = .nan, bySensor: Bool = false) {
        held.append(HeldStep(t: t, d: step.distanceM, movingS: step.moving ? dt : 0, bySensor: bySensor,
                             from: from, to: to, dopplerMps: dopplerMps))
    }

    /// A user's phase command: holds in progress are forgotten; a pause drops the held steps.
    mutating func userCommand(_ command: PhaseCommand) {
        if command == .pause { held.removeAll(keepingCapacity: true) }
        machine.reset()
    }

    /// A credited gap that ended while auto-paused (`credit.held`), still auto-paused.
    mutating func takeHeld(_ credit: GapCredit) {
        let s = machine.settings
        // With Doppler speed the confirming fix must not say standing (a small junk fix a few
        // seconds after the one after the gap passes the gate, and its line can be fast).
        let doppler = credit.confirmingDopplerMps
        let moved = credit.speedAcrossMps > s.resumeAboveMps && (doppler.isNaN || doppler >= s.pauseBelowMps)
        // Crossed moving, the gap is moving time with its line once a resume credits it: its
        // time since it began, or since the pause when that came later (the resume's cruise
        // begins no later, below).
        let movingS = moved ? max(0, credit.at - notBeforePause(credit.lastT)) : 0
        if credit.distanceM > 0 { held.append(HeldStep(t: credit.at, d: credit.distanceM, movingS: movingS)) }
        guard moved else { return }
        machine.backdateFastHold(to: notBeforePause(credit.fromT))
        gapSpeedSample = credit.speedAcrossMps
    }

    /// `t`, or the time the pause took effect when that is later (known).
    private func notBeforePause(_ t: Double) -> Double { pausedSince.isNaN ? t : max(t, pausedSince) }

    /// A credited gap in cruise (or one that was not held). Returns the time from which an
    /// auto-pause backdated to before the gap moves to the gap's end (the runner moved across it).
    mutating func crossed(_ credit: GapCredit, autoHeld: Bool) -> Double? {
        guard credit.speedAcrossMps >= machine.settings.pauseBelowMps, credit.speedAcrossMps > 0 else { return nil }
        lastMovingGapEnd = credit.at
        guard let from = credit.pausedFrom, autoHeld else { return nil }
        pausedSince = credit.at
        return from
    }

    /// A credited gap in cruise crossed standing (below the pause threshold; NaN, unmeasured, is
    /// not): the slow hold begins at the gap's beginning at the latest, and the gap's speed is
    /// returned as the hold's next sample, which the composer feeds to `update` at once (at the
    /// confirming fix's time: the pause is backdated to the hold's start whatever that time).
    /// Nil when auto-pause is off or the gap was not crossed standing.
    ///
    /// Only the gap's time in the current leg (since `legSince`: the start, a resume, an
    /// auto-resume, or the start of the lap in progress when later) says the rider stood in
    /// cruise, and a gap with less of it than the hold needs is no sample: a hold never spans a
    /// change the user made, nor a lap already cut. (A device whose timer is stopped
    /// records nothing: its rider stood through the pause, which says nothing of the resume.)
    mutating func crossedStanding(_ credit: GapCredit, legSince: Double) -> Double? {
        guard machine.settings.enabled, credit.speedAcrossMps < machine.settings.pauseBelowMps else { return nil }
        var since = credit.fromT
        if since < legSince {   // (NaN: no leg known)
            since = legSince
            guard credit.at - since >= machine.settings.holdS else { return nil }
        }
        machine.backdateSlowHold(to: since)
        return credit.speedAcrossMps
    }

    /// A confirmed held gap's speed, once: the composer feeds it to `update` before the
    /// confirming fix's own speed.
    mutating func takeGapSample() -> Double? {
        defer { gapSpeedSample = nil }
        return gapSpeedSample
    }

    /// The track filter doubted the standing speeds of a stretch whose fixes moved from `from`
    /// (`TrackFilter.takeDoubt`), at the fix at `t`, while auto-paused, with `shortfallM` its steps
    /// missed. A pause those speeds decided (one that took effect at `from` or later) was none:
    /// the flight resumes at once, moving since the pause (its leg's time, the moving time the
    /// pause withdrew included, is moving time), with this fix's held step and the shortfall
    /// (which holds what the earlier held steps missed: `TrackFilter.heldBack`). A pause before
    /// `from` was a stop that the rider set off from: the resume is backdated to `from`.
    /// `.none` when auto-pause is off or not paused.
    mutating func doubted(from: Double, shortfallM: Double, at t: Double, phases: PhaseMachine) -> PauseDecision {
        guard machine.settings.enabled, phases.isAutoHeld, !pausedSince.isNaN, from.isFinite else { return .none }
        let since = max(from, pausedSince)
        guard since < t else { return .none }
        // (The held steps before this fix's are gone: what they measured is in the shortfall.)
        var credited = held.filter { $0.t > since && $0.bySensor }.map { HeldCredit(distanceM: $0.d, movingS: 0, bySensor: true) }
        let positionsM = held.reduce(0.0) { $0 + ($1.t >= t && !$1.bySensor ? $1.d : 0) }
        credited.append(HeldCredit(distanceM: positionsM + max(0, shortfallM), movingS: t - since))
        held.removeAll(keepingCapacity: true)
        machine.reset()
        return .resume(since: since, held: credited)
    }

    /// The speed after a fix at `t`: what auto-pause decides. A pause is backdated to the start of
    /// its slow hold, but not before `cruiseSince` (the leg's start) nor `lapSince` (the start of
    /// the lap in progress, NaN: none): the laps before it went out with their cruise time, and a
    /// pause backdated into them would leave them adding up to more than the flight. Nor, when
    /// that lap began in the hold, before the hold's last moving step since it (its metres count:
    /// without that step's time the lap would read them in no time).
    mutating func update(speedMps: Double, at t: Double, phases: PhaseMachine, cruiseSince: Double, lapSince: Double = .nan,
                         waiting: WaitingGap?, standingInDoubt: Bool = false, movementUnshown: Bool = false) -> PauseDecision {
        guard machine.settings.enabled, phases.phase == .cruise || phases.isAutoHeld else { return .none }
        switch machine.update(speedMps: speedMps, t: t, autoPaused: phases.phase == .holding, standingInDoubt: standingInDoubt,
                                   movementUnshown: movementUnshown) {
        case .none:
            // A resume credits only the steps after the start of its fast hold and the set-off
            // just before it (`setOff`): keep no others. A gap still waiting may yet start that
            // hold where the runner was before it.
            guard phases.phase == .holding else { return .none }
            var since = machine.fastSince
            if let from = waiting?.fromT { since = min(since ?? from, from) }
            held.removeFirst(setOff(before: since.map(firstHeld(after:)) ?? held.count))
            return .none
        case .pause(let at):
            var when = max(at, cruiseSince.isNaN ? at : cruiseSince)
            if when < lastMovingGapEnd { when = lastMovingGapEnd }   // not across a gap crossed moving (NaN: none)
            if when < lapSince {   // not into a lap already cut (NaN: none),
                when = lapSince
                // nor leave a lap cut in the hold its moving steps' metres in none of its time:
                // the pause then takes effect after the last of them.
                if let last = slowSteps.last, last.t > when { when = last.t }
            }
            pausedSince = when
            held.removeAll(keepingCapacity: true)
            var withdrawn = 0.0
            for step in slowSteps where step.t > when { withdrawn += min(step.movingS, step.t - when) }
            slowSteps.removeAll(keepingCapacity: true)
            return .pause(from: when, withdrawMovingS: withdrawn)
        case .resume(let at):
            let (since, credited) = resuming(at: at)
            held.removeAll(keepingCapacity: true)
            return .resume(since: since, held: credited)
        }
    }

    /// A resume whose fast hold began at `at`: since when the runner moved and the held steps it
    /// credits. The resumed leg starts with the set-off before the fast hold (`setOff`), else at
    /// `at`: a step's moving time counts from there. A set-off step counts no more than its
    /// fixes moved (a long one's filtered speed can run ahead of them).
    private func resuming(at: Double) -> (since: Double, held: [HeldCredit]) {
        let first = setOff(before: firstHeld(after: at))
        let since = first < held.count && held[first].t <= at ? held[first].t - held[first].movingS : at
        let credited = held[first...].map {
            HeldCredit(distanceM: $0.t <= at ? min($0.d, $0.fixesM) : $0.d, movingS: min($0.movingS, $0.t - since), bySensor: $0.bySensor)
        }
        return (since, credited)
    }

    /// The resume under way when a user's pause takes the hold over (before `userCommand` drops
    /// what it holds): the one the hold would make from its fast hold begun, or, with none, from
    /// the held steps that set off (`setOff`: the fixes moved faster than the threshold up to the
    /// last of them). Nil when neither, or auto-pause is off or not paused. Whether the runner
    /// moved on is for the fix after the pause to say (`FlightComputer.takeLegEnd`).
    func resumeUnderWay(phases: PhaseMachine) -> (since: Double, held: [HeldCredit])? {
        guard machine.settings.enabled, phases.isAutoHeld else { return nil }
        if let at = machine.fastSince { return resuming(at: at) }
        guard let last = held.last, setOff(before: held.count) < held.count else { return nil }
        return resuming(at: last.t)
    }

    /// The index of the first held step that ends after `t` (`held.count` when none does).
    private func firstHeld(after t: Double) -> Int { held.firstIndex(where: { $0.t > t }) ?? held.count }

    /// The first of the held steps before `end` that moved and whose fixes moved faster than the
    /// resume's threshold over them, without a break up to `end` (`end` when none): the set-off
    /// that a fast hold judged on a filtered speed lags. From positions alone the speed reaches
    /// the threshold a few fixes after the runner set off (a rider at 8 m/s from a stand: 0.75,
    /// 1.9, 3.2 m/s), while the fixes moved 8 m a second: the fast hold begins with those steps.
    /// A step the filter did not move, fixes slower than the threshold (creeping while
    /// auto-paused, a standing receiver's scatter), a gap's line or a sensor's step end them; so
    /// does a step whose Doppler speed auto-pause judged at or below the threshold (that speed
    /// does not lag: the runner was slow there), and one from whose start to the last of them the
    /// fixes moved slower than the threshold (a creep whose scatter moves each fix faster than
    /// the threshold, 1.2 m a second at 1 Hz for issue #19's receiver, does not add up to it).
    private func setOff(before end: Int) -> Int {
        let threshold = machine.settings.resumeAboveMps
        var first = end
        while first > 0 {
            let s = held[first - 1]
            guard s.movingS > 0, s.fixesM > threshold * s.movingS, !(s.dopplerMps <= threshold),
                  let from = s.from, let to = held[end - 1].to,
                  Geodesy.distance(lat1: from.lat, lon1: from.lon, lat2: to.lat, lon2: to.lon) > threshold * (held[end - 1].t - s.t + s.movingS)
            else { break }
            first -= 1
        }
        return first
    }
}

/// What auto-pause decided after a fix.
public enum PauseDecision: Sendable, Equatable {
    case none
    /// Auto-pause, in effect from `from`: the moving time counted after it is taken back.
    case pause(from: Double, withdrawMovingS: Double)
    /// Auto-resume, moving since `since`; the steps measured while held after it count, in order.
    case resume(since: Double, held: [HeldCredit])
}

/// A step measured while auto-paused that a resume credits.
public struct HeldCredit: Sendable, Equatable {
    public var distanceM: Double
    public var movingS: Double
    /// A speed sensor's step.
    public var bySensor = false
    /// Of `distanceM`, the lines of gaps crossed slower than a walker (`StillnessDetector.across`),
    /// and of `movingS` their time (taken at the runner's pace, not measured): no stretch's speed.
    public var lineM = 0.0
    public var lineS = 0.0
}
