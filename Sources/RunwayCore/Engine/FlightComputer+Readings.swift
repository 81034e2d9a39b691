/// The flight's figures as the hosts, the outputs and the store read them (each from its stage).
extension FlightComputer {
    /// The flight phase, for readers outside the engine. The engine's own mutating methods read
    /// `phases.phase`: at -Onone a read of a computed property of the whole `FlightComputer`
    /// inside a mutating method copies all of it (perf: copies, memmove and retain/release were
    /// up to ~40 % of a debug replay before; the optimiser removes them in release).
    public var phase: FlightPhase { phases.phase }
    /// Why the flight is holding (nil unless `phase == .holding`).
    public var holdingBy: HoldReason? { phases.holdingBy }
    /// The sequence number of the latest event.
    public var seq: UInt64 { eventLog.seq }
    /// The sequence number of the latest `flight` event: the snapshot's `seq`.
    public var flightSeq: UInt64 { eventLog.flightSeq }
    /// The latest time seen (an input's, a phase change's or a tick's); NaN before any.
    public var now: Double { clock.now }
    public var route: Route { recorder.route }
    public var log: LogRing { eventLog.ring }
    /// (Inlined: out of line, a caller in the middle of a step copied the computer to read it.)
    public var distance: Double {
        @inline(__always) get { odometer.distanceM }
    }
    public var movingS: Double { odometer.movingS }
    /// Metres the speed samples measured (where positions were silent: `SpeedSensorStage`); 0 when none.
    public var sensorDistance: Double { sensorM }
    public var maxSpeed: Double { odometer.maxSpeedMps }
    public var filtered: FilterCounts { gate.filtered }
    /// Cruise seconds so far.
    public var elapsed: Double { clock.elapsed(in: phases.phase) }
    public var laps: LapCounter { lapStage.counter }
    public var elevation: ElevationTracker { elevationStage.tracker }
    public var endReason: String? { clock.endReason }

    @inline(__always)   // (a call would copy the whole computer to read it)
    var lapProgress: LapProgress {
        // Stored paths, not the computed readings: each of those copies a stage.
        // (As of the input, command or lap being applied: an input stamped before a tick is
        // measured at its own time, with the cruise seconds then, not the tick's.)
        LapProgress(t: clock.measuredNow, distanceM: odometer.distanceM, elapsedS: clock.measuredElapsed(in: phases.phase),
                    gainM: elevationStage.tracker.gainM, lossM: elevationStage.tracker.lossM,
                    hrBeatsIntegral: sensors.hrBeatsIntegral, hrCoveredS: sensors.hrCoveredS)
    }

    /// The lap progress as it will be at `time` (only the clock moves; a waiting gap is credited first).
    func progress(at time: Double) -> LapProgress {
        var p = lapProgress
        if let gap = gaps.waiting, !gap.held { p.distanceM += gap.distanceM }
        guard !time.isNaN else { return p }
        p.t = time
        p.elapsedS = clock.elapsed(at: time, in: phases.phase)
        return p
    }

    /// Lands an unfinished flight at its latest time with an end reason of its own (a flight
    /// recovered after its host died is finished as "recovered").
    public mutating func land(reason: String, events: inout [Event]) {
        if phases.phase != .touchdown && phases.phase != .preflight {
            try? command(.stop, at: .nan, wallClock: now, events: &events)
        }
        clock.endReason = reason
    }

    /// Records in the log that replaying a journal refused some of its entries (run state is
    /// unchanged): the flight then differs from the one recorded.
    public mutating func logReplayRefusals(_ count: Int, of total: Int, first: RunwayError, events: inout [Event]) {
        eventLog.append(.warning, "replay: \(count) of \(total) journaled entries were refused (the first: \(Self.clipped(first.message, 160))); this flight differs from the one recorded (another config, or another build)", at: now, into: &events)
    }

    /// Records a rejected input in the log (run state is unchanged).
    public mutating func logRejection(_ error: RunwayError, events: inout [Event]) {
        eventLog.append(.error, "rejected input: " + Self.clipped(error.message, 200), at: now, into: &events)
    }

    /// Records a warning about an input in the log (run state is unchanged): a key no line
    /// reads (`UnknownKeyWarnings`).
    public mutating func logWarning(_ message: String, events: inout [Event]) {
        eventLog.append(.warning, message, at: now, into: &events)
    }

    /// `message`, cut to `limit` characters with an ellipsis when longer (a log line stays short).
    static func clipped(_ message: String, _ limit: Int) -> String {
        message.count > limit ? String(message.prefix(limit)) + "…" : message
    }
}
