/// The flight's cumulative figures at one moment, all counted from the flight's start.
public struct LapProgress: Sendable, Equatable {
    /// Unix seconds.
    public var t: Double
    /// Horizontal (filtered) distance, metres.
    public var distanceM: Double
    /// Cruise seconds.
    public var elapsedS: Double
    /// Elevation gain and loss, metres.
    public var gainM: Double
    public var lossM: Double
    /// ∫ heart rate dt over cruise, bpm·s (`SensorStats.hrBeatsIntegral`).
    public var hrBeatsIntegral: Double
    /// Cruise seconds with a valid heart rate (`SensorStats.hrCoveredS`).
    public var hrCoveredS: Double

    public init(t: Double, distanceM: Double = 0, elapsedS: Double = 0, gainM: Double = 0, lossM: Double = 0,
                hrBeatsIntegral: Double = 0, hrCoveredS: Double = 0) {
        self.t = t
        self.distanceM = distanceM
        self.elapsedS = elapsedS
        self.gainM = gainM
        self.lossM = lossM
        self.hrBeatsIntegral = hrBeatsIntegral
        self.hrCoveredS = hrCoveredS
    }

    /// The progress a fraction `f` of the way from `self` to `other`, every field interpolated.
    func interpolated(to other: LapProgress, _ f: Double) -> LapProgress {
        func mix(_ a: Double, _ b: Double) -> Double { a + (b - a) * f }
        return LapProgress(t: mix(t, other.t), distanceM: mix(distanceM, other.distanceM),
                           elapsedS: mix(elapsedS, other.elapsedS), gainM: mix(gainM, other.gainM),
                           lossM: mix(lossM, other.lossM), hrBeatsIntegral: mix(hrBeatsIntegral, other.hrBeatsIntegral),
                           hrCoveredS: mix(hrCoveredS, other.hrCoveredS))
    }
}

/// Cuts a flight into laps: automatically every `autoLapM` metres, on request, and at the end.
///
/// Feed it the flight's cumulative `LapProgress` after every change (`update`); it returns the
/// auto laps that change completed. An auto lap ends exactly at its boundary: every cumulative
/// field (time, cruise seconds, elevation, heart-rate integrals) is interpolated linearly between
/// the previous update and this one at the point where the distance equals the boundary, so laps
/// of a steady run are equal however irregularly fixes arrive.
///
/// Auto boundaries are multiples of `autoLapM` counted from the flight's start, and a manual lap
/// does not move them: after a manual lap at 1500 m the next auto lap still ends at 2000 m (a
/// 500 m lap), so "km 2" means the same thing with or without manual laps, as on most watches
/// that split by distance.
///
/// The lap in progress starts at `current`. Before any progress, `current` is the flight's start
/// with every figure 0 and an unknown time; the first progress given sets that time to its own
/// time less its cruise seconds (feed the all-zero progress at the start so the first lap starts
/// exactly then).
///
/// ```swift
/// var laps = LapCounter(autoLapM: 1000)
/// laps.update(LapProgress(t: 0))
/// for lap in laps.update(LapProgress(t: 250, distanceM: 1040, elapsedS: 250)) {
///     print(lap.index, lap.endT, lap.paceMinPerKm)   // 1, 240.38…, 4.006…
/// }
/// ```
public struct LapCounter: Sendable {
    /// The auto-lap distance in metres; 0 means only manual and final laps.
    public let autoLapM: Double
    /// The laps finished so far, in order.
    public private(set) var laps: [Lap] = []
    /// Where the lap in progress started.
    public private(set) var current = LapProgress(t: .nan)
    /// True once `finish` has run; later calls change nothing.
    public private(set) var finished = false

    /// The latest progress seen (the interpolation's start for the next update).
    private var last = LapProgress(t: .nan)
    private var started = false
    /// Distance of the next auto-lap boundary.
    private var nextBoundaryM: Double

    /// The most laps a flight has, its final lap included: `RUNWAY_MAX_LAPS`. Once it has
    /// `maxLaps - 1`, auto laps stop (the rest of the flight becomes its final lap) and a manual
    /// lap is refused: the laps, the summary listing them and its exports stay bounded whatever
    /// the inputs (100 laps a fix of a jumping receiver would otherwise reach 10⁸), and a FIT
    /// export's 16-bit lap index and count (0xFFFF is FIT's "invalid") hold every lap.
    public static let maxLaps = 50_000

    /// Whether the flight has as many laps as it may have before its final one.
    public var isFull: Bool { laps.count >= Self.maxLaps - 1 }

    /// True once auto laps stopped at `maxLaps`.
    public private(set) var autoLapsStopped = false

    /// Gives the completed lap its figures from the metrics and sensors (`LapStage.emit`).
    mutating func setFigures(of lap: Lap) {
        if let i = laps.lastIndex(where: { $0.index == lap.index }) { laps[i] = lap }
    }

    /// The most auto laps one update cuts; boundaries beyond are skipped. Only a distance jump
    /// gets there (100 laps of the shortest configurable 10 m is a 1 km jump between two fixes),
    /// and this bounds the laps of a flight by its inputs, as its route points are.
    static let maxLapsPerUpdate = 100

    /// Creates a counter.
    ///
    /// - Parameter autoLapM: the auto-lap distance, metres (default 1000); 0, a negative or a
    ///   non-finite value turns auto laps off.
    public init(autoLapM: Double = 1000) {
        self.autoLapM = autoLapM.isFinite && autoLapM > 0 ? autoLapM : 0
        nextBoundaryM = self.autoLapM > 0 ? self.autoLapM : .infinity
    }

    /// Brings the counter up to `p`.
    ///
    /// - Returns: the auto laps completed between the previous progress and `p`, in order
    ///   (several when one update crosses several boundaries; none usually).
    @discardableResult
    public mutating func update(_ p: LapProgress) -> [Lap] {
        var done: [Lap] = []
        update(p, into: &done)
        return done
    }

    /// `update(_:)`, appending the laps completed to `done` (the pipeline's reused buffer: no
    /// array made and released on every fix).
    ///
    /// On nearly every fix no lap waits and no boundary is reached: only `last` moves. The
    /// cutting is out of line (`cutManual`, `cutAuto`), so that path carries none of its
    /// registers and stack (perf: ~150 instructions a fix before, most of them its frame).
    @inline(__always)
    mutating func update(_ p: LapProgress, into done: inout [Lap]) {
        guard !finished else { return }
        let p = accept(p)
        if !pendingManual.isEmpty, p.t >= pendingManual[0].t { cutManual(to: p, into: &done) }
        advance(to: p, into: &done)
    }

    /// The manual laps that wait and end inside the step to `p` (accepted), each in turn.
    @inline(never)
    private mutating func cutManual(to p: LapProgress, into done: inout [Lap]) {
        var cut = 0
        while cut < pendingManual.count, p.t >= pendingManual[cut].t {
            // A manual lap asked for since the previous update ends inside this update's step:
            // it takes the step's figures up to its time (`cutPoint`), so the laps keep the
            // step's pace (each in turn, when several fall in it).
            advance(to: cutPoint(pendingManual[cut], to: p), into: &done)
            if hasContent && !isFull { done.append(close(at: last, pendingTriggers[cut])) }
            cut += 1
        }
        if cut > 0 {
            pendingManual.removeFirst(cut)
            pendingTriggers.removeFirst(cut)
        }
    }

    /// Cuts the auto laps between `last` and `p` (accepted), and moves `last` to `p`.
    @inline(__always)
    private mutating func advance(to p: LapProgress, into done: inout [Lap]) {
        if p.distanceM >= nextBoundaryM { cutAuto(to: p, into: &done) }
        last = p
    }

    /// The auto laps between `last` and `p` (accepted; `p` reaches the next boundary).
    @inline(never)
    private mutating func cutAuto(to p: LapProgress, into done: inout [Lap]) {
        let before = done.count
        while p.distanceM >= nextBoundaryM {
            if isFull {
                autoLapsStopped = true
                nextBoundaryM = .infinity
                break
            }
            if done.count - before == Self.maxLapsPerUpdate {
                // A tiny auto-lap distance against a huge jump: skip ahead rather than hang.
                let skipped = ((p.distanceM - nextBoundaryM) / autoLapM).rounded(.down) + 1
                nextBoundaryM += skipped * autoLapM
                break
            }
            let span = p.distanceM - last.distanceM
            // last.distanceM < boundary ≤ p.distanceM, so span > 0 (guarded anyway).
            let f = span > 0 ? min(1, max(0, (nextBoundaryM - last.distanceM) / span)) : 1
            var cut = last.interpolated(to: p, f)
            cut.distanceM = nextBoundaryM
            done.append(close(at: cut, .auto))
            nextBoundaryM += autoLapM
        }
    }

    /// The manual laps asked for later than the latest update, in time order: each is cut by the
    /// first update at or after its time (`update`, `finish`), when the distance of the step it
    /// falls in is known (empty while none waits).
    public private(set) var pendingManual: [LapProgress] = []
    /// The trigger of each lap in `pendingManual` (`manual`, or a recording's device's).
    private var pendingTriggers: [LapTrigger] = []

    /// The most manual laps that wait at once (`askManual` refuses more): a host lapping
    /// thousands of times between two fixes would otherwise make each lap's check (which cuts
    /// the waiting ones on a copy) cost as much as all before it (8000 laps took 23 s).
    public static let maxWaitingLaps = 100

    /// The time of the latest update (NaN before the first).
    public var latestT: Double { last.t }

    /// Asks for a manual lap at `p` whose step is not measured yet (a lap later than the latest
    /// update, or while a gap's distance waits for the fix that confirms it): the lap is cut by the first update at or
    /// after `p.t`, at `p`'s time, with the share of that update's cruise time, distance, gain,
    /// loss and heart rate that its time before `p` makes (`cutPoint`): a lap asked for 4 s
    /// before the end of a 31 s gap takes 27 s of its line, not none of it. A lap asked for
    /// while others wait waits after them, and the step is shared among them in time order.
    ///
    /// - Returns: false, changing nothing, when the lap would be empty or the flight is full
    ///   (as `manualLap` returns nil, with the laps waiting cut at `p` as it is), or when `p` is
    ///   before the latest update or a lap waiting.
    public mutating func askManual(_ p: LapProgress, trigger: LapTrigger = .manual) -> Bool {
        guard !finished, started, p.t.isFinite, p.t >= (pendingManual.last ?? last).t,
              pendingManual.count < Self.maxWaitingLaps, probe(p).allows else { return false }
        pendingManual.append(p)
        pendingTriggers.append(trigger)
        return true
    }

    /// The counter as it would be with the laps waiting cut at `p` (a copy: nothing changes
    /// here), and whether a manual lap at `p` would then have content and room (`askManual`,
    /// `LapStage.checkManual`).
    func probe(_ p: LapProgress) -> (counter: LapCounter, allows: Bool) {
        var copy = self
        copy.update(p)
        return (copy, copy.hasContent(upTo: p) && !copy.isFull)
    }

    /// Ends the lap in progress at `p` on request.
    ///
    /// Brings the counter up to `p` first, so an auto boundary crossed since the last `update`
    /// still becomes its own lap (in `laps`; call `update(p)` first to receive it as a return
    /// value). The next auto boundary stays where it was (see the type's notes).
    ///
    /// - Returns: the manual lap, or nil when nothing happened since the last lap began (no
    ///   distance and no cruise time) or the flight has all its laps (`isFull`).
    public mutating func manualLap(_ p: LapProgress, trigger: LapTrigger = .manual) -> Lap? {
        guard !finished else { return nil }
        update(p)   // (the laps waiting are cut first)
        guard hasContent, !isFull else { return nil }
        return close(at: last, trigger)
    }

    /// Ends the flight's laps: the partial lap in progress at `p` becomes the final lap.
    ///
    /// Brings the counter up to `p` first, like `manualLap`. After it, every call is ignored.
    ///
    /// - Returns: the final lap, or nil when it would be empty (no distance and no cruise time,
    ///   as when the stop falls exactly on an auto-lap boundary).
    public mutating func finish(_ p: LapProgress) -> Lap? {
        guard !finished else { return nil }
        update(p)
        finished = true
        guard hasContent else { return nil }
        return close(at: last, .final)
    }

    /// The flight's cruise time went back to `elapsedS`: an auto-pause was backdated to the first
    /// slow sample of its hold after the laps had seen part of the hold as cruise time. The lap in
    /// progress then ends at that cruise time too, so the laps still add up to the flight (never
    /// before the lap began: a lap cut within the hold keeps what it was cut with).
    mutating func cruiseWithdrawn(to elapsedS: Double) {
        guard started, !finished, elapsedS.isFinite else { return }
        last.elapsedS = max(current.elapsedS, min(last.elapsedS, elapsedS))
    }

    // MARK: - Internals

    /// Whether the lap in progress has any distance or cruise time.
    private var hasContent: Bool {
        last.distanceM > current.distanceM || last.elapsedS > current.elapsedS
    }

    /// Whether the lap in progress would have any distance or cruise time if cut at `p`.
    func hasContent(upTo p: LapProgress) -> Bool {
        hasContent || (p.distanceM.isFinite && p.distanceM > current.distanceM) || (p.elapsedS.isFinite && p.elapsedS > current.elapsedS)
    }

    /// Where a manual lap asked for at `asked` ends in the step from `last` to `p` (accepted,
    /// `p.t ≥ asked.t`): at its own time, with the step's cruise seconds, distance, gain, loss
    /// and heart-rate integrals shared by its cruise seconds (`asked.elapsedS`: the flight's at
    /// the lap's time, `retimeWaiting` keeps them so), so both laps keep the step's pace, and a
    /// step across a pause shares out only its cruise: a lap asked while paused takes the share
    /// before the pause whole. A step with no cruise time is shared by time; one with no time
    /// either is the ending lap's whole.
    private func cutPoint(_ asked: LapProgress, to p: LapProgress) -> LapProgress {
        let cruise = p.elapsedS - last.elapsedS, span = p.t - last.t
        let f = cruise > 0 && asked.elapsedS.isFinite ? (asked.elapsedS - last.elapsedS) / cruise
            : span > 0 ? (asked.t - last.t) / span : 1
        var cut = last.interpolated(to: p, min(1, max(0, f)))
        cut.t = min(p.t, max(last.t, asked.t))
        return cut
    }

    /// `metres` credited after they were covered (held steps paid out when movement is confirmed:
    /// `steps`, oldest first, each with the time it ended): an auto boundary that a step the laps
    /// have passed (ended at or before the latest update) crosses is cut where the step crossed
    /// it (by distance within the step, at that time and the flight's cruise seconds then,
    /// `elapsedAt`), not at the credit's time, where the laps would read distance without time.
    /// The latest update takes those steps' metres. A step that ended after the latest update
    /// (the fix's own, a slow gap's line held to the fix after it) is the next update's, as
    /// any step is: its metres, and the rest of `metres`, are shared over the time from the
    /// latest update to that one, not put at the latest update's time. Steps from before the
    /// lap in progress began (a lap cut while they were held) have no place in it: the credit is
    /// then left to the next update, at the credit's time.
    mutating func credit(_ metres: Double, steps: CreditedSteps, elapsedAt: (Double) -> Double, into done: inout [Lap]) {
        guard started, !finished, metres > 0, let first = steps.times.first, first > current.t else { return }
        var before = last.distanceM, previousT = Double.nan
        for i in steps.times.indices {
            let stepT = steps.times[i]
            guard stepT <= last.t else { break }   // (this step and the later ones: the next update's)
            let d = min(steps.distances[i], last.distanceM + metres - before)
            // (From the step's start; not known, the step before it ended there.)
            let from = steps.starts[i] < stepT ? steps.starts[i] : previousT
            while d > 0, before + d >= nextBoundaryM {
                if isFull { autoLapsStopped = true; nextBoundaryM = .infinity; break }
                let f = (nextBoundaryM - before) / d
                let at = from.isNaN ? stepT : from + (stepT - from) * f
                var cut = last
                cut.t = min(last.t, max(current.t, at))   // (at or after `first`: in the lap in progress)
                cut.elapsedS = min(last.elapsedS, max(current.elapsedS, elapsedAt(cut.t)))
                cut.distanceM = nextBoundaryM
                done.append(close(at: cut, .auto))
                nextBoundaryM += autoLapM
            }
            before += max(0, d)
            previousT = stepT
        }
        last.distanceM = before
    }

    /// The flight's cruise seconds before now changed after laps were asked for (a hold
    /// credited as cruise: a gap crossed moving ends it before the gap): each waiting lap takes
    /// the flight's cruise seconds at its time (`elapsedAt`).
    mutating func retimeWaiting(_ elapsedAt: (Double) -> Double) {
        for i in pendingManual.indices { pendingManual[i].elapsedS = elapsedAt(pendingManual[i].t) }
    }

    /// `p` made safe: a non-finite field keeps its previous value, and distance, time and the
    /// other cumulative figures never go back (they are cumulative; a lap cannot be negative).
    @inline(__always)
    private mutating func accept(_ p: LapProgress) -> LapProgress {
        if !started {
            guard p.t.isFinite else { return p }   // (a start whose time is pending: not yet)
            started = true
            // The flight began `elapsedS` cruise seconds before the first progress (exact when
            // that progress is the all-zero one at the start, as it should be).
            let before = p.elapsedS.isFinite ? max(0, p.elapsedS) : 0
            current = LapProgress(t: p.t.isFinite ? p.t - before : 0)
            last = current
        }
        // (The greater of the two, `previous` when `v` is not finite: NaN and ±∞ compare false.)
        func keep(_ v: Double, _ previous: Double) -> Double { v > previous && v < .infinity ? v : previous }
        return LapProgress(t: keep(p.t, last.t), distanceM: keep(p.distanceM, last.distanceM),
                           elapsedS: keep(p.elapsedS, last.elapsedS), gainM: keep(p.gainM, last.gainM),
                           lossM: keep(p.lossM, last.lossM),
                           hrBeatsIntegral: keep(p.hrBeatsIntegral, last.hrBeatsIntegral),
                           hrCoveredS: keep(p.hrCoveredS, last.hrCoveredS))
    }

    /// Records the lap from `current` to `end` and starts the next one there.
    private mutating func close(at end: LapProgress, _ trigger: LapTrigger) -> Lap {
        let distance = end.distanceM - current.distanceM
        let elapsed = end.elapsedS - current.elapsedS
        let covered = end.hrCoveredS - current.hrCoveredS
        let lap = Lap(index: laps.count + 1, trigger: trigger, startT: current.t, endT: end.t,
                      distanceM: distance, elapsedS: elapsed,
                      paceMinPerKm: distance > 0 ? (elapsed / 60) / (distance / 1000) : .nan,
                      avgHrBpm: covered > 0 ? (end.hrBeatsIntegral - current.hrBeatsIntegral) / covered : .nan,
                      gainM: end.gainM - current.gainM, lossM: end.lossM - current.lossM)
        laps.append(lap)
        current = end
        return lap
    }
}
