/// The flight's distance, moving time and fastest speed.
///
/// Distance never decreases: steps and credits add to it, nothing takes away. A credit of
/// distance and moving time (movement confirmed after the runner seemed to stand, a gap's line,
/// the steps an auto-pause held, speed samples' stretch) is a stretch the runner covered at its
/// average speed: that speed counts toward the max (no faster than its caller's cap: a gap's line
/// between fixes with trusted Doppler speeds no faster than those), so a flight whose pace window
/// measured no speed has one, and each leg's average counts at its end: the max is never below
/// the flight's average moving speed.
///
/// Each speed is noted at a time (the flight's measured time, as the laps' progress is taken:
/// the input, command or lap that measured or credited it; a leg's average at the leg's end),
/// or over the span a stretch of track covered (a step longer than the pace window, a gap's
/// line: from its first fix to its last), and counts toward the max of each lap it falls in too
/// (`endLap(at:)`, also for a lap cut after its end). A lap's max is the largest of the flight's
/// speeds noted in it and at least the lap's own average speed, no faster than the flight's max
/// by then: the flight's max is the largest of its laps'.
///
///     var odo = Odometer()
///     odo.add(Step(distanceM: 3, moving: true), over: 1)
///     odo.noteSpeed(3.1, at: 1)
///     (odo.distanceM, odo.movingS, odo.maxSpeedMps)   // (3, 1, 3.1)
public struct Odometer: Sendable {
    public private(set) var distanceM = 0.0
    public private(set) var movingS = 0.0
    /// The fastest speed in cruise, m/s: of the ground speeds measured across the pace window and
    /// of the stretches credited afterwards (NaN before any).
    public private(set) var maxSpeedMps = Double.nan
    /// The distance and moving time when the current leg began (a start or a resume).
    private var legFromM = 0.0, legFromS = 0.0
    /// The distance and moving time of the leg that ended last (`endLeg`).
    private var lastLegM = 0.0, lastLegS = 0.0
    /// The speeds noted since the last lap's end, for the lap's max.
    private var lapPeak = LapPeak()

    public init() {}

    /// Adds a step that took `dt` seconds.
    @inline(__always)
    mutating func add(_ step: Step, over dt: Double) {
        distanceM += step.distanceM
        if step.moving { movingS += dt }
    }

    /// Adds distance and moving time measured earlier (a gap credit, an auto-pause's held steps).
    /// A credit that is a stretch of its own also notes its speed (`noteStretch`).
    mutating func credit(distanceM d: Double, movingS m: Double = 0) {
        distanceM += d
        movingS += m
    }

    /// A stretch the runner covered, `d` metres in `m` seconds of moving time (a credit: movement
    /// confirmed after the runner seemed to stand, a gap's line, the steps an auto-pause held, a
    /// speed sensor's; a step longer than the pace window; a leg): its average speed counts toward
    /// the max as a measured ground speed does, no faster than `capMps`. Without both distance and
    /// moving time it has no speed.
    /// `from`: where the stretch began, when it is one of track (its speed counts in every lap
    /// from there to `t`); NaN: noted at `t` alone.
    mutating func noteStretch(distanceM d: Double, movingS m: Double, capMps: Double, at t: Double, from: Double = .nan) {
        if d > 0, m > 0 { noteSpeed(min(d / m, capMps), at: t, from: from) }
    }

    /// Takes back moving time that turned out to be a hold's (an auto-pause backdated to the
    /// start of its slow hold); distance stays.
    mutating func withdraw(movingS m: Double) {
        movingS = max(0, movingS - m)
    }

    /// A leg begins (a start or a resume, manual or automatic): `endLeg` measures from here.
    mutating func beginLeg() {
        legFromM = distanceM
        legFromS = movingS
    }

    /// A leg ends (a pause, an auto-pause, a stop): its distance over its moving time is a speed
    /// the runner went, which counts toward the max (no faster than `capMps`). It covers what no
    /// pace window measured: a leg too short or its fixes too sparse for one, the distance a
    /// credit at its end adds.
    mutating func endLeg(capMps: Double, at t: Double) {
        lastLegM = distanceM - legFromM
        lastLegS = movingS - legFromS
        noteStretch(distanceM: lastLegM, movingS: lastLegS, capMps: capMps, at: t)
        beginLeg()
    }

    /// The leg that ended last gets its end after all (the share of a step across a user's pause
    /// before the pause, measured by the fix after it: `FlightComputer.takeLegEnd`): credited, and
    /// that leg's average with it counts toward the max; a leg begun since does not count it.
    mutating func creditLegEnd(distanceM d: Double, movingS m: Double, capMps: Double, at t: Double) {
        credit(distanceM: d, movingS: m)
        legFromM += d
        legFromS += m
        lastLegM += d
        lastLegS += m
        noteStretch(distanceM: lastLegM, movingS: lastLegS, capMps: capMps, at: t)
    }

    /// A leg of its own credited after it ended (a set-off while auto-paused that a user's pause
    /// took over, measured by the fix after it: `FlightComputer.takeLegEnd`): its average counts
    /// toward the max; a leg begun since does not count it.
    mutating func creditLeg(distanceM d: Double, movingS m: Double, capMps: Double, at t: Double) {
        credit(distanceM: d, movingS: m)
        legFromM += d
        legFromS += m
        noteStretch(distanceM: d, movingS: m, capMps: capMps, at: t)
    }

    /// A speed the runner went, noted at `t` (over `from`…`t` when `from` is earlier): it counts
    /// toward the flight's max and the lap's (each lap's the span reaches).
    @inline(__always)
    mutating func noteSpeed(_ v: Double, at t: Double, from: Double = .nan) {
        guard !v.isNaN else { return }
        if !(v <= maxSpeedMps) { maxSpeedMps = v }
        lapPeak.count(v, from: from < t ? from : t, to: t)   // (NaN `from`: at `t`)
    }

    /// Ends the lap at `t` (now, or before now: a lap cut after its end): the largest speed noted
    /// in it, and at least `average` (the lap's distance over its time: a lap whose speeds lagged
    /// its pace still went that fast) but no faster than the flight's max so far: an average
    /// above every speed the flight measured is the sign of distance counted in the lap after it
    /// was covered (a credit paid out after a lap's end), not of a speed. NaN when neither.
    /// Speeds noted after `t` are the next lap's.
    mutating func endLap(at t: Double, average: Double = .nan) -> Double {
        let peak = lapPeak.endLap(at: t)
        let floor = average <= maxSpeedMps ? average : maxSpeedMps   // (the lesser; NaN with no max yet)
        guard average > 0, floor > peak || peak.isNaN else { return peak }
        return floor
    }
}
