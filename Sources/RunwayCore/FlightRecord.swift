/// Everything an export needs about a flight: totals, laps and the route with its per-point values.
///
/// Built from a `FlightComputer` (a live session, or a stored flight replayed from its journal).
public struct FlightRecord: Sendable {
    public var flightID: String = ""
    public var activity: Activity
    public var phase: FlightPhase
    public var endReason: String?
    public var startT: Double
    public var endT: Double
    public var elapsedS: Double
    public var movingS: Double
    public var distanceM: Double
    public var maxSpeedMps: Double
    public var gainM: Double
    public var lossM: Double
    public var avgHrBpm: Double
    public var maxHrBpm: Double
    public var avgCadenceSpm: Double
    public var maxCadenceSpm: Double
    public var laps: [Lap]
    public var route: Route
    /// Where a speed sensor measured the flight, without a position (`RouteRecorder.sensed`).
    public var sensed = Route()
    /// The cruise legs (start/resume to pause/auto-pause/stop), in order; their durations add up
    /// to `elapsedS`. Empty when unknown (the FIT export then times the whole flight).
    public var timerLegs: [TimerLeg] = []
    /// Power over the flight (watts; NaN when unknown), written by the exports when finite.
    public var avgPowerW: Double = .nan
    public var maxPowerW: Double = .nan
    public var normalizedPowerW: Double = .nan
    /// Where the route's altitudes came from: barometric when the session's `fix_altitude` is, or
    /// the flight took an altimeter sample (`PointAltitudes.source`), else GPS.
    public var altitudeSource: ElevationTracker.Source = .gps
    /// The route points before this time carry altitudes of another source than `altitudeSource`
    /// (GPS ones, before a flight's first altimeter sample: `PointAltitudes.sourceFromT`): the
    /// GPX, TCX and FIT exports, which say one source for the file, leave them out (`altitude`).
    public var altitudeSourceFromT: Double = -.infinity

    /// Route point `i`'s altitude as the GPX, TCX and FIT exports write it: of `altitudeSource`,
    /// else NaN (not written).
    func altitude(_ i: Int) -> Double { route.time(i) < altitudeSourceFromT ? .nan : route.altitude(i) }

    /// Average pace over elapsed time (min/km); NaN before any distance.
    public var avgPaceMinPerKm: Double { FlightData.averagePace(elapsedS: elapsedS, distanceM: distanceM) }
}

extension FlightComputer {
    /// The flight as a record for export. Laps include the running (unfinished) lap only once the
    /// flight has landed; before that, `laps` are the completed ones.
    public var record: FlightRecord {
        let summary = metrics.summary()   // (once: each call builds it)
        return FlightRecord(flightID: flightID ?? "", activity: config.activity, phase: phase, endReason: endReason, startT: clock.startT,
                            endT: phase == .touchdown ? clock.endT : now, elapsedS: elapsed, movingS: movingS,
                            distanceM: distance, maxSpeedMps: maxSpeed, gainM: elevation.gainM, lossM: elevation.lossM,
                            avgHrBpm: sensors.avgHrBpm, maxHrBpm: sensors.maxHrBpm,
                            avgCadenceSpm: sensors.avgCadenceSpm, maxCadenceSpm: sensors.maxCadenceSpm,
                            laps: laps.laps, route: route, sensed: recorder.sensed,
                            timerLegs: clock.legs.legs(current: phase == .cruise ? clock.cruiseSince : .nan, now: now,
                                                       autoResumed: clock.autoResumed),
                            avgPowerW: summary.figure("avg_power_w"), maxPowerW: summary.figure("max_power_w"),
                            normalizedPowerW: summary.figure("normalized_power_w"), altitudeSource: recorder.altitudes.source,
                            altitudeSourceFromT: recorder.altitudes.sourceFromT)
    }
}

/// One cruise leg of a flight: from a start or resume to the next pause, auto-pause or stop
/// (unix seconds).
public struct TimerLeg: Sendable, Equatable {
    public var start: Double
    public var end: Double
    /// Whether an auto-resume began the leg: backdated to the start of its fast hold, with the
    /// steps measured since then credited at the decision, where the leg's first route point is:
    /// the route has no point at `start` (a start or a user's resume begins the route's leg at
    /// its own time when it can; `FITTimeline`).
    public var autoResumed = false

    public init(start: Double, end: Double, autoResumed: Bool = false) {
        self.start = start
        self.end = end
        self.autoResumed = autoResumed
    }
}

/// The finished cruise legs of a flight, kept by the engine where a leg ends (a pause, an
/// auto-pause, a stop; an auto-pause moved later by a gap crossed moving moves its leg's end).
public struct CruiseLegs: Sendable, Equatable {
    public private(set) var finished: [TimerLeg] = []

    /// Ends the leg that began at `start` (by an auto-resume: `autoResumed`) at `end` (nothing
    /// when either is unknown).
    mutating func close(from start: Double, to end: Double, autoResumed: Bool) {
        guard start.isFinite, end.isFinite else { return }
        finished.append(TimerLeg(start: start, end: max(start, end), autoResumed: autoResumed))
    }

    /// A leg from `start` to `end` learnt of later, in its place among the finished legs (they do
    /// not overlap it).
    mutating func insert(from start: Double, to end: Double, autoResumed: Bool) {
        guard start.isFinite, end.isFinite else { return }
        let k = finished.firstIndex(where: { $0.start >= end }) ?? finished.count
        finished.insert(TimerLeg(start: start, end: max(start, end), autoResumed: autoResumed), at: k)
    }

    /// Moves the end of the last leg from `from` to `to` (an auto-pause that starts later).
    mutating func moveLastEnd(from: Double, to: Double) {
        guard let k = finished.indices.last, finished[k].end == from, to.isFinite else { return }
        finished[k].end = max(finished[k].start, to)
    }

    /// The finished legs plus the one in progress since `current` (NaN: none; by an auto-resume:
    /// `autoResumed`) up to `now`.
    func legs(current: Double, now: Double, autoResumed: Bool) -> [TimerLeg] {
        guard current.isFinite, now.isFinite else { return finished }
        return finished + [TimerLeg(start: current, end: max(current, now), autoResumed: autoResumed)]
    }
}
