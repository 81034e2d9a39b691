/// Laps in the pipeline: auto laps cut as the flight's progress passes each `auto_lap_m`, manual
/// laps, and the final lap at touchdown, each a `split` event.
///
/// Auto laps wait while a gap's distance waits for confirmation (the composer does not call `cut`
/// then): a lap ending in a gap is cut when the gap is credited, as of the fix after it. A manual
/// lap asked for after the latest progress waits in the same way for the step it falls in.
///
///     var laps = LapStage(autoLapM: 1000)
///     laps.cut(progress, now: t, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)   // a split event per lap completed
public struct LapStage: Sendable {
    public private(set) var counter: LapCounter
    /// The laps one `cut` completes (kept empty between calls, its storage reused).
    private var completed: [Lap] = []
    /// Whether the log has said that auto laps stopped at the limit (a credit may stop them
    /// between two cuts: `credited`).
    private var warnedStopped = false

    public init(autoLapM: Double) { counter = LapCounter(autoLapM: autoLapM) }

    /// When the lap in progress began (the start, the end of the last lap, or the time of the
    /// latest manual lap that waits; NaN before the start): the laps before it went out in `split`
    /// events with their figures, or will (a lap that waits was accepted: a pause backdated
    /// before it would leave it nothing, and it would never go out).
    var lapSince: Double { counter.pendingManual.last?.t ?? counter.current.t }

    /// The laps are timed from here (the start).
    mutating func begin(_ p: LapProgress) { _ = counter.update(p) }

    /// Cuts the auto laps `p` completes.
    @inline(__always)
    mutating func cut(_ p: LapProgress, now: Double, metrics: inout Metrics, sensors: inout SensorStats, odometer: inout Odometer, log: inout EventLog, into events: inout [Event]) {
        counter.update(p, into: &completed)
        if !completed.isEmpty { emitCompleted(metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events) }   // (no call on a fix that cuts none)
        if counter.autoLapsStopped && !warnedStopped { warnStopped(now: now, log: &log, into: &events) }   // (once a flight: out of line)
    }

    /// Says once in the log that auto laps stopped at the limit.
    @inline(never)
    private mutating func warnStopped(now: Double, log: inout EventLog, into events: inout [Event]) {
        warnedStopped = true
        log.append(.warning, "auto laps stopped: the flight has \(counter.laps.count) laps, one less than the limit of \(LapCounter.maxLaps) (RUNWAY_MAX_LAPS); the rest of the flight is its final lap",
                   at: now, into: &events)
    }

    /// Ends the current lap at `p` (a manual lap); false when there is nothing to lap.
    ///
    /// With `waits` (the step `p` falls in is not measured yet: a lap between two fixes, or
    /// while a gap waits), the lap is asked for (`LapCounter.askManual`): its `split` goes out
    /// with the next `cut` at or after its time, with the share of that step's distance its time
    /// makes, or with `settle`.
    mutating func manual(_ p: LapProgress, trigger: LapTrigger = .manual, waits: Bool = false, metrics: inout Metrics, sensors: inout SensorStats, odometer: inout Odometer, log: inout EventLog, into events: inout [Event]) -> Bool {
        if waits { return counter.askManual(p, trigger: trigger) }
        // (The laps `p` completes first, each in its own split: the laps that wait, the auto laps
        // a credit completed, and those whose boundary the distance crossed since the last cut.)
        cut(p, now: p.t, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        guard let lap = counter.manualLap(p, trigger: trigger) else { return false }
        emit(lap, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        return true
    }

    /// Distance credited after it was covered (`LapCounter.credit`): the auto laps it completes
    /// go out with the next `cut` or `settle`.
    mutating func credited(_ metres: Double, steps: CreditedSteps, elapsedAt: (Double) -> Double) {
        counter.credit(metres, steps: steps, elapsedAt: elapsedAt, into: &completed)
    }

    /// The flight's cruise seconds before now changed (`LapCounter.retimeWaiting`).
    mutating func retimeWaiting(_ elapsedAt: (Double) -> Double) {
        if hasWaitingLap { counter.retimeWaiting(elapsedAt) }
    }

    /// The time of the first manual lap that waits (+∞ when none does).
    var lapSinceFirstWaiting: Double { counter.pendingManual.first?.t ?? .infinity }

    /// Whether a manual lap waits for the step it falls in (`manual` with `waits`).
    var hasWaitingLap: Bool { !counter.pendingManual.isEmpty }

    /// Cuts the manual laps that wait, if any, with the progress `p` as it is (the flight leaves
    /// cruise, or it stops: nothing more will be credited to the time before now), and emits the
    /// auto laps a credit completed (`credited`).
    mutating func settle(_ p: LapProgress, metrics: inout Metrics, sensors: inout SensorStats, odometer: inout Odometer, log: inout EventLog, into events: inout [Event]) {
        guard hasWaitingLap || !completed.isEmpty else { return }
        cut(p, now: p.t, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
    }

    /// Emits the laps `completed` holds and empties it.
    @inline(never)   // (a lap's: kept off the fix path, `cut`)
    private mutating func emitCompleted(metrics: inout Metrics, sensors: inout SensorStats, odometer: inout Odometer, log: inout EventLog, into events: inout [Event]) {
        guard !completed.isEmpty else { return }
        for lap in completed { emit(lap, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events) }
        completed.removeAll(keepingCapacity: true)
    }

    /// The flight's cruise time went back to `elapsedS` (an auto-pause backdated into time the
    /// laps saw as cruise; see `LapCounter.cruiseWithdrawn`).
    mutating func cruiseWithdrawn(to elapsedS: Double) { counter.cruiseWithdrawn(to: elapsedS) }

    /// The final lap at touchdown, after the laps `p` completes (an auto lap whose boundary a
    /// credit at the stop crossed goes out in its own `split`, as any other). With nothing left
    /// to lap, the last lap takes the maxima noted after its end (`lastLapTakesTheRest`).
    mutating func finish(_ p: LapProgress, metrics: inout Metrics, sensors: inout SensorStats, odometer: inout Odometer, log: inout EventLog, into events: inout [Event]) {
        cut(p, now: p.t, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        if let lap = counter.finish(p) {
            emit(lap, metrics: &metrics, sensors: &sensors, odometer: &odometer, log: &log, into: &events)
        } else {
            lastLapTakesTheRest(sensors: &sensors, odometer: &odometer)
        }
    }

    /// The flight stops with no final lap (nothing since the last lap's end), yet speeds, heart
    /// rates or cadences were noted after that end (a leg's average noted at the fix after an
    /// auto-pause backdated to a manual lap's end; a sample in the cruise such a pause took
    /// back): the last lap takes them, so the flight's maxima stay the largest of its laps'. Its
    /// `split` went out before: the record's lap (the summary's) has them.
    private mutating func lastLapTakesTheRest(sensors: inout SensorStats, odometer: inout Odometer) {
        guard var lap = counter.laps.last else { return }
        let speed = odometer.endLap(at: .nan), (hr, cadence) = sensors.endLap(at: .nan)   // (NaN: all noted)
        lap.maxSpeedMps = FlightRecord.larger(lap.maxSpeedMps, speed)
        lap.maxHrBpm = FlightRecord.larger(lap.maxHrBpm, hr)
        lap.maxCadenceSpm = FlightRecord.larger(lap.maxCadenceSpm, cadence)
        counter.setFigures(of: lap)
    }

    /// Whether a manual lap at `p` is allowed (after the laps that wait, when any do); `waits`:
    /// whether it would wait for the step it falls in.
    /// - Throws: `.limit` when the laps are full or `LapCounter.maxWaitingLaps` laps already wait,
    ///   `.state` when there is nothing to lap.
    func checkManual(_ p: LapProgress, waits: Bool = false) throws(RunwayError) {
        if waits && counter.pendingManual.count >= LapCounter.maxWaitingLaps {
            throw .limit("lap refused: \(LapCounter.maxWaitingLaps) laps already wait for the fix that measures the step they fall in")
        }
        let (probe, allows) = counter.probe(p)   // (the laps waiting, cut)
        if allows { return }
        if probe.isFull {   // full already, or an auto lap due before this one fills it
            throw .limit("lap refused: the flight has \(probe.laps.count) laps, and the limit of \(LapCounter.maxLaps) (RUNWAY_MAX_LAPS) keeps the last for its final lap")
        }
        throw .state("nothing to lap: no time or distance since the last lap")
    }

    /// A lap's split event, with the metrics' figures for it, its sensor maxima and its max
    /// speed (all up to its end, also when it is cut later).
    mutating func emit(_ lap: Lap, metrics: inout Metrics, sensors: inout SensorStats, odometer: inout Odometer, log: inout EventLog, into events: inout [Event]) {
        var lap = lap
        lap.metrics = metrics.endLap(at: lap.endT)
        (lap.maxHrBpm, lap.maxCadenceSpm) = sensors.endLap(at: lap.endT)
        // (Capped by the flight's max by then, itself no faster than the profile's cap.)
        let average = lap.elapsedS > 0 ? lap.distanceM / lap.elapsedS : .nan
        lap.maxSpeedMps = odometer.endLap(at: lap.endT, average: average)
        counter.setFigures(of: lap)
        events.append(Event(seq: log.next(), t: lap.endT, body: .split(lap)))
    }
}
