/// The flight's times: when it started and ended, its cruise legs and elapsed time, and the latest
/// time seen; and how the time of an input or command is resolved.
///
/// Elapsed time counts cruise only: each leg runs from a start or resume (`cruiseSince`) to a pause,
/// an auto-pause or the stop, and `elapsedBefore` holds the legs before the current one. A command
/// given without a time under the replay clock takes the time of the next input (`timePending`).
///
///     var clock = FlightClock()
///     clock.start(at: 100)
///     clock.advance(to: 160, phase: .cruise)
///     clock.elapsed(in: .cruise)   // 60
public struct FlightClock: Sendable, Equatable {
    /// The latest time seen (an input's, a command's or a tick's); NaN before any.
    public private(set) var now = Double.nan
    /// The latest time of an input, a command or a lap (not a tick's), or a command time a tick
    /// filled in; NaN before any: an input may not be earlier (`resolve`). A tick measures
    /// nothing, so an input that comes after it stamped before it (a phone's location delivered
    /// late, a GPS time a second behind the live clock's wall clock) is still taken, at its own
    /// time; `now` stays where the tick moved it.
    public private(set) var inputFloor = Double.nan
    public private(set) var startT = Double.nan
    public private(set) var endT = Double.nan
    /// Cruise seconds before the current leg.
    public private(set) var elapsedBefore = 0.0
    /// The start of the current cruise leg (NaN: not cruising, or its time is pending).
    public private(set) var cruiseSince = Double.nan
    /// Whether an auto-resume began the current cruise leg (`TimerLeg.autoResumed`).
    public private(set) var autoResumed = false
    /// Why the flight ended ("stopped", "recovered"); nil before.
    public var endReason: String? = nil
    /// The finished cruise legs (for the FIT timer events).
    public private(set) var legs = CruiseLegs()
    /// A command came without a time under the replay clock: the next input's time fills it in.
    public private(set) var timePending = false

    public init() {}

    /// Cruise seconds so far, in `phase`.
    @inline(__always)
    public func elapsed(in phase: FlightPhase) -> Double {
        guard phase == .cruise, !cruiseSince.isNaN, !now.isNaN else { return elapsedBefore }
        return elapsedBefore + max(0, now - cruiseSince)
    }

    /// The time of the latest input, command or lap (`inputFloor`; `now` before any): while an
    /// input is applied, its own time, which a tick may have passed (`now` stays at the tick's).
    /// The laps' progress is as of this time (`FlightComputer.lapProgress`).
    @inline(__always)
    var measuredNow: Double { inputFloor.isNaN ? now : inputFloor }

    /// Cruise seconds as of `measuredNow` (`elapsed(in:)` when no tick has passed it).
    @inline(__always)
    func measuredElapsed(in phase: FlightPhase) -> Double {
        guard phase == .cruise, !cruiseSince.isNaN, !now.isNaN else { return elapsedBefore }
        return elapsedBefore + max(0, measuredNow - cruiseSince)
    }

    /// Cruise seconds between `a` and `b` (a gap's span): their overlap with the legs, the current
    /// one up to `now`.
    func cruiseTime(from a: Double, to b: Double) -> Double {
        guard a < b else { return 0 }   // (NaN fails)
        func overlap(_ start: Double, _ end: Double) -> Double { max(0, min(end, b) - max(start, a)) }
        var s = cruiseSince.isNaN || now.isNaN ? 0 : overlap(cruiseSince, now)
        for leg in legs.finished.reversed() {
            if leg.end <= a { break }   // legs are in time order
            s += overlap(leg.start, leg.end)
        }
        return s
    }

    /// Cruise seconds as they will be at `time` (only the clock moves).
    func elapsed(at time: Double, in phase: FlightPhase) -> Double {
        guard phase == .cruise, !cruiseSince.isNaN else { return elapsed(in: phase) }
        return elapsedBefore + max(0, time - cruiseSince)
    }

    /// The time of an input or command: its own, the wall clock (live), or the latest (replay).
    ///
    /// - Throws: `.input` for a time out of range or before `notBefore` (the latest time, `now`,
    ///   for all but inputs: `inputFloor`), or a missing one under the replay clock unless
    ///   `optional` (then the latest time, NaN before any).
    func resolve(_ t: Double, wallClock: Double, live: Bool, what: String, optional: Bool = false,
                 notBefore latest: Double) throws(RunwayError) -> Double {
        if t.isNaN {
            if live { return now.isNaN ? wallClock : max(now, wallClock) }
            if optional { return now }
            throw .input("\(what) needs \"t\" (unix seconds) with the replay clock")
        }
        try ValidatedInput.time(t)
        if !latest.isNaN && t < latest {
            throw .input("time going backwards: t \(t) is before the latest \(latest)")
        }
        return t
    }

    /// Moves the clock to `t` (never back: an input stamped before a tick leaves it), filling in
    /// phase times that were pending. `measured`: an input's, a command's or a lap's time, which
    /// a later input may not precede (a tick's is not, but the pending times it fills in are).
    @inline(__always)
    mutating func advance(to t: Double, phase: FlightPhase, measured: Bool = true) {
        if !(t <= now) { now = t }   // (NaN before any: t)
        if measured && !(t <= inputFloor) { inputFloor = t }
        guard timePending else { return }
        inputFloor = now
        timePending = false
        if phase != .preflight && startT.isNaN { startT = t }
        if phase == .cruise && cruiseSince.isNaN { cruiseSince = t }
        if phase == .touchdown && endT.isNaN { endT = t }
    }

    /// A phase command at `time` (NaN: pending on the next input).
    mutating func apply(_ command: PhaseCommand, at time: Double, phase: FlightPhase) {
        switch command {
        case .start:
            startT = time
            cruiseSince = time
            autoResumed = false
        case .pause:
            elapsedBefore = elapsed(in: phase)
            legs.close(from: cruiseSince, to: now, autoResumed: autoResumed)
            cruiseSince = .nan
        case .resume:
            cruiseSince = time
            autoResumed = false
        case .stop:
            elapsedBefore = elapsed(in: phase)
            legs.close(from: cruiseSince, to: now, autoResumed: autoResumed)
            cruiseSince = .nan
            endT = time
            endReason = "stopped"
        }
        if time.isNaN { timePending = true }
    }

    /// An auto-pause that took effect at `when`: the leg ends there.
    mutating func autoPause(from when: Double) {
        elapsedBefore += cruiseSince.isNaN ? 0 : max(0, when - cruiseSince)
        legs.close(from: cruiseSince, to: when, autoResumed: autoResumed)
        cruiseSince = .nan
    }

    /// An auto-resume: the leg begins at `since`.
    mutating func autoResume(since: Double) {
        cruiseSince = since
        autoResumed = true
    }

    /// A leg an auto-resume began at `from` that a user's pause at `to` ended, learnt of later
    /// (`FlightComputer.takeLegEnd`: the hold the pause took over was a set-off): its time is
    /// cruise, before the leg in progress if any; not before the legs that ended already.
    /// Returns its seconds.
    @discardableResult
    mutating func creditLeg(from: Double, to: Double) -> Double {
        let start = max(from, legs.finished.last(where: { $0.start < to })?.end ?? from)
        guard start < to else { return 0 }
        elapsedBefore += to - start
        legs.insert(from: start, to: to, autoResumed: true)
        return to - start
    }

    /// An auto-pause moved from `from` to `to` (later): the time between was cruise.
    mutating func creditHold(from: Double, to: Double) {
        elapsedBefore += to - from
        legs.moveLastEnd(from: from, to: to)
    }
}
