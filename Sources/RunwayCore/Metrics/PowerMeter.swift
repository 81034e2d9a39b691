/// Power from a power meter: current (3 s), 10 s, average, maximum and normalised power, for the
/// flight and each lap (the lap in progress in the snapshot, a lap that ended in its split).
///
/// Samples come as `{"type":"power","watts":245,"t":…}` or as `power` on a fix (FIT records carry
/// it). Each sample holds until the next one, for at most `staleAfterS` (5 s): zero watts while
/// coasting count, a missing sample does not (a dropout of the sensor leaves its seconds out).
/// Only cruise counts toward the averages.
///
/// - Average: energy over the seconds covered by samples (time-weighted, so irregular samples
///   weigh by their duration).
/// - Normalised power, as cyclists' tools compute it (`NormalisedPower`): the power of each
///   covered second, its 30 s rolling mean (once 30 s are in the window), the mean of the fourth
///   powers of those, and its fourth root. The window runs over covered seconds only: across a
///   pause or a dropout it joins the seconds before to those after (no zeros filled in). It is
///   given for any duration from the 30th covered second on (Coggan's definition assumes 20
///   minutes or more). A lap's is its own, as TrainingPeaks and Garmin compute it: a window that
///   starts empty at the lap's start, over the lap's own covered seconds (none from the lap
///   before), so a lap with fewer than 30 covered seconds has none (NaN), and a lap's is never
///   above its maximum.
/// - Current: the mean of the samples of the last 3 s.
/// - 10 s: the mean of the covered power of the last 10 s (time-weighted, each sample held until
///   the next for at most `staleAfterS`, a dropout's seconds left out, whatever the phase, as the
///   current power); a sample that has just come, with nothing covered yet, is its own mean.
/// - The lap in progress: the snapshot's `lap_*` figures are those its split would give if the
///   lap ended at the latest input, by the same code (`lapFigures`); a tick moves the clock, not
///   the meter.
/// - Laps: a lap's figures are those of the time up to its end, also when it is cut later (a lap
///   that waited for the step it falls in, an auto lap whose boundary a gap crossed): the meter
///   goes back to the lap's end (it keeps what it took since the last lap, up to `maxSteps`) and
///   what came after goes to the next lap.
///
///     var p = PowerMeter()
///     p.observe(.sample(.power(watts: 200, t: 0)), at: 0, cruising: true)
///     p.advance(to: 60, cruising: true)   // 5 s covered: the sample went stale after that
public struct PowerMeter: Metric {
    static let staleAfterS = 5.0
    static let currentWindowS = 3.0
    static let tenSecondWindowS = 10.0
    /// The samples `recent` keeps at most: those that may still cover a second of the 10 s window
    /// (the last 15 s) at 16 Hz and below; the 10 s window alone up to 25 Hz; a faster meter's
    /// 10 s power is of its last 256 samples.
    static let maxRecent = 256
    static let rollingS = 30

    /// The latest sample.
    private var lastW = Double.nan, lastT = -Double.infinity
    /// How far the integrals have been taken.
    private var integratedTo = Double.nan
    private var energyJ = 0.0, coveredS = 0.0, maxW = Double.nan
    /// Normalised power: the flight's, and the current lap's own.
    private var normalised = NormalisedPower(), lapNormalised = NormalisedPower()
    /// The last samples (of the last 15 s, at most `maxRecent`), for the 3 s and 10 s power.
    private var recent: [(t: Double, w: Double)] = []
    /// The totals when the current lap began.
    private var lapStart = Totals()
    private var lapMaxW = Double.nan
    /// The meter as it was at the last lap's end (or, once `steps` filled, at the oldest step it
    /// keeps), and what it took since: to go back to a lap's end it has integrated past
    /// (`endLap(at:)`). Kept once a sample has come (a flight without power keeps nothing).
    private var base: [PowerMeter] = []
    /// The steps, in chunks of `chunkSize` (all full but the last): a copy of the meter that
    /// takes a step copies one chunk, not the log (`FlightComputer.processOnFullRoute` runs every
    /// fix on a copy of the computer once the route is full).
    private var steps: [[Step]] = []
    private var stepCount = 0
    private var replaying = false
    /// A full log forgets its older half: it keeps at least the last `maxSteps / 2` steps (about
    /// 6 min of 4 Hz samples among 1 Hz fixes and heart-rate and cadence samples).
    static let maxSteps = 8192
    static let chunkSize = 128   // (`maxSteps / 2` a multiple of it)

    enum Step: Sendable {
        case advance(t: Double, cruising: Bool)
        case sample(w: Double, t: Double, cruising: Bool)
    }

    struct Totals: Sendable {
        var energyJ = 0.0, coveredS = 0.0
    }

    public init() {}

    @inline(__always)   // every input: nearly always one without power
    public mutating func observe(_ input: Input, at t: Double, cruising: Bool) {
        observed(input, at: t, cruising: cruising)
    }

    /// `observe`, saying whether the input carried power (a sample was recorded): the composer
    /// notes the sample's time for the power alerts on that branch alone (`FlightComputer.judgePower`
    /// judges it once its second is over).
    @inline(__always) @discardableResult
    mutating func observed(_ input: Input, at t: Double, cruising: Bool) -> Bool {
        switch input {
        case .fix(let f) where !f.power.isNaN: record(f.power, at: t, cruising: cruising)
        case .sample(.power(let watts, _)): record(watts, at: t, cruising: cruising)
        default: return false
        }
        return true
    }

    @inline(never)   // (a sample's path, kept out of every input's: inlined, it made each fix pay ~10 instructions of spills)
    private mutating func record(_ w: Double, at t: Double, cruising: Bool) {
        keep(.sample(w: w, t: t, cruising: cruising))
        lastW = w
        lastT = t
        remember(w, at: t)
        if cruising {
            if !(w <= maxW) { maxW = w }
            if !(w <= lapMaxW) { lapMaxW = w }
        }
    }

    @inline(__always)   // every input: nearly always with no power held
    public mutating func advance(to t: Double, cruising: Bool) {
        if !lastW.isNaN {
            keep(.advance(t: t, cruising: cruising))
            if cruising, !integratedTo.isNaN, t > integratedTo { integrate(to: t) }
        }
        integratedTo = t
    }

    /// Keeps a sample for the 3 s and 10 s power; forgets those that cover nothing of the 10 s
    /// window any more (from the front, once the oldest is stale: at 1 Hz one at a time).
    private mutating func remember(_ w: Double, at t: Double) {
        recent.append((t, w))
        let horizon = t - (Self.tenSecondWindowS + Self.staleAfterS)
        guard recent[0].t <= horizon || recent.count > Self.maxRecent else { return }
        var drop = 0
        while drop < recent.count - 1, recent[drop].t <= horizon || recent.count - drop > Self.maxRecent { drop += 1 }
        recent.removeFirst(drop)
    }

    /// Keeps what the meter takes, to replay it from `base`.
    private mutating func keep(_ step: Step) {
        if replaying { return }
        if base.isEmpty { rebase() } else if stepCount >= Self.maxSteps { forget(Self.maxSteps / 2) }
        if !steps.isEmpty && steps[steps.count - 1].count < Self.chunkSize {
            steps[steps.count - 1].append(step)
        } else {
            var chunk: [Step] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunk.append(step)
            steps.append(chunk)
        }
        stepCount += 1
    }

    /// The base moves past the oldest `n` steps (replayed onto it; whole chunks: `n` a multiple
    /// of `chunkSize`); the log keeps the rest.
    private mutating func forget(_ n: Int) {
        let chunks = n / Self.chunkSize
        var moved = base[0]
        moved.replaying = true
        for chunk in steps[..<chunks] { for step in chunk { moved.replay(step) } }
        moved.replaying = false
        base = [moved]
        steps.removeFirst(chunks)
        stepCount -= chunks * Self.chunkSize
    }

    private mutating func rebase() {
        var now = self
        now.base = []
        now.steps = []
        now.stepCount = 0
        base = [now]
        steps.removeAll(keepingCapacity: true)
        stepCount = 0
    }

    private mutating func replay(_ step: Step) {
        switch step {
        case .advance(let t, let cruising): advance(to: t, cruising: cruising)
        case .sample(let w, let t, let cruising): record(w, at: t, cruising: cruising)
        }
    }

    /// Integrates the held sample from `integratedTo` to `t` (cruising, after it).
    private mutating func integrate(to t: Double) {
        // The held sample covers up to `staleAfterS` after it.
        let end = min(t, lastT + Self.staleAfterS)
        let dt = end - max(integratedTo, lastT)
        guard dt > 0 else { return }
        // (A sample held into the lap, or past a resume, counts toward the maxima it is averaged into.)
        if !(lastW <= lapMaxW) { lapMaxW = lastW }
        if !(lastW <= maxW) { maxW = lastW }
        energyJ += lastW * dt
        coveredS += dt
        normalised.add(lastW, for: dt)
        lapNormalised.add(lastW, for: dt)
    }

    /// The mean of the samples of the last 3 s before `t`; NaN when none.
    func current(at t: Double) -> Double {
        var first = recent.count   // (the window's first sample, found from the end; summed in time order)
        while first > 0, recent[first - 1].t > t - Self.currentWindowS { first -= 1 }
        var sum = 0.0, n = 0
        for s in recent[first...] where s.t <= t { sum += s.w; n += 1 }
        return n > 0 ? sum / Double(n) : .nan
    }

    /// The mean covered power of the 10 s up to `t`: each sample held until the next one, for at
    /// most `staleAfterS`, over the part of (t − 10, t] it covers; NaN when none covers any of it
    /// (but a sample at `t` with nothing covered yet: its own watts).
    func tenSecond(at t: Double) -> Double {
        let from = t - Self.tenSecondWindowS
        var energy = 0.0, covered = 0.0, end = t, justCame = Double.nan
        for s in recent.reversed() {
            if s.t > t { continue }
            if s.t == t && justCame.isNaN { justCame = s.w }
            let dt = min(end, s.t + Self.staleAfterS) - max(s.t, from)
            if dt > 0 { energy += s.w * dt; covered += dt }
            if s.t <= from { break }
            end = s.t
        }
        return covered > 0 ? energy / covered : justCame
    }

    /// The lap in progress so far: its average, maximum and normalised power, as its split
    /// would give them if it ended now (`cut` gives these).
    var lapFigures: (avg: Double, max: Double, normalised: Double) {
        let e = energyJ - lapStart.energyJ, s = coveredS - lapStart.coveredS
        return (s > 0 ? e / s : .nan, lapMaxW, lapNormalised.value)
    }

    public func snapshot(at t: Double) -> [MetricValue] {
        var values: [MetricValue] = []
        values.reserveCapacity(8)
        appendSnapshot(at: t, to: &values)
        return values
    }

    public func appendSnapshot(at t: Double, to values: inout [MetricValue]) {
        values.append(MetricValue("power_w", current(at: t)))
        values.append(MetricValue("power_10s_w", tenSecond(at: t)))
        values.append(MetricValue("avg_power_w", average))
        values.append(MetricValue("max_power_w", maxW))
        values.append(MetricValue("normalized_power_w", normalised.value))
        let lap = lapFigures
        values.append(MetricValue("lap_avg_power_w", lap.avg))
        values.append(MetricValue("lap_max_power_w", lap.max))
        values.append(MetricValue("lap_normalized_power_w", lap.normalised))
    }

    /// The flight's average power so far (NaN before a covered second).
    private var average: Double { coveredS > 0 ? energyJ / coveredS : .nan }

    public func summary() -> [MetricValue] {
        [MetricValue("avg_power_w", average), MetricValue("max_power_w", maxW), MetricValue("normalized_power_w", normalised.value)]
    }

    /// Ends the lap at `t`. A lap the meter has integrated past (cut after its end) is cut at its
    /// end: the meter goes back to its `base`, replays what it took up to `t`, is cut there, and
    /// replays the rest into the next lap. One whose end is before the base (more than the
    /// steps kept ago), or NaN, is cut as the meter is.
    public mutating func endLap(at t: Double) -> [MetricValue] {
        guard t < integratedTo, let from = base.first, !(t < from.integratedTo) else { return cut() }
        let taken = Array(steps.joined())
        self = from
        replaying = true   // (up to the lap's end nothing is logged: the cut starts the log over)
        var i = 0
        while i < taken.count {
            if case .advance(let at, let cruising) = taken[i], at > t {
                advance(to: t, cruising: cruising)
                break
            }
            if case .sample(_, let at, _) = taken[i], at > t { break }
            replay(taken[i])
            i += 1
        }
        replaying = false
        let out = cut()
        while i < taken.count { replay(taken[i]); i += 1 }
        return out
    }

    private mutating func cut() -> [MetricValue] {
        let lap = lapFigures
        let out = [MetricValue("avg_power_w", lap.avg), MetricValue("max_power_w", lap.max),
                   MetricValue("normalized_power_w", lap.normalised)]
        lapStart = Totals(energyJ: energyJ, coveredS: coveredS)
        lapMaxW = .nan
        lapNormalised.reset()
        if !lastW.isNaN { rebase() }
        return out
    }

    public func routeValue(at t: Double) -> Double {
        t - lastT <= Self.staleAfterS ? lastW : .nan
    }
}
