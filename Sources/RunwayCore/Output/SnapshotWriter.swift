/// The `flight` snapshot (`FlightData`): each stage's figures at the latest time.
///
///     let data = fc.snapshot
///     data.distanceM, data.paceMinPerKm, data.pfd   // what the PFD shows
extension FlightComputer {
    /// The current FlightData.
    public var snapshot: FlightData {
        var d = FlightData()
        fill(&d)
        d.metrics = metrics.snapshot(at: now)
        return d
    }

    /// Writes the current FlightData into `d`, reusing the storage of its metric figures: with
    /// `d` held only by the caller, nothing is allocated once it has held a snapshot (so a
    /// library thread that keeps one to refill never calls malloc). `mutating` though it changes
    /// nothing, so that a caller keeping the core in a class lends it in place, not as a copy.
    public mutating func writeSnapshot(into d: inout FlightData) {
        var figures: [MetricValue] = []
        swap(&figures, &d.metrics)
        figures.removeAll(keepingCapacity: true)
        metrics.appendSnapshot(at: now, to: &figures)
        d = FlightData()
        fill(&d)
        d.metrics = figures
    }

    /// Every field but the metrics' figures. (The elevation figures through the stored path:
    /// `elevation` would copy the whole tracker, its trails held inline, for each.)
    private func fill(_ d: inout FlightData) {
        d.seq = flightSeq
        d.t = now
        d.phase = phase
        d.holdingBy = holdingBy?.rawValue
        d.lat = shown.lat; d.lon = shown.lon; d.hAccM = gate.accuracy.hAccM
        d.lastFixT = shown.t
        // A fix older than the pace window speaks for says nothing of now: its speed and
        // accuracy are unknown (its position stays, with its time); so is the pace measured
        // when no sample has measured it since.
        let fixSpeaks = pace.holds(from: shown.t, at: now)
        d.accuracy = gate.accuracy.reduced ? .reduced : (gate.accuracy.sawAccuracy && fixSpeaks ? .ok : .unknown)
        d.distanceM = distance
        d.points = route.count
        d.segments = route.segmentStarts.count
        d.fixes = fixes
        d.filteredBy = filtered
        d.filtered = filtered.total
        let ground = phase == .cruise && !pace.speaks(at: now) ? .nan : pace.groundSpeedMps
        // (Where a speed sensor measures the flight, positions silent, its sample's speed.)
        let deviceMps = shown.speedSensed ? (pace.holds(from: shown.sensedT, at: now) ? shown.sensedMps : .nan)
                                          : (fixSpeaks ? shown.speed : .nan)
        d.speedMps = config.filters ? deviceMps : ground
        d.groundSpeedMps = ground
        d.altitudeM = config.filters && !elevationStage.tracker.altitudeM.isNaN ? elevationStage.tracker.altitudeM : shown.alt
        d.headingDeg = shown.course.isNaN ? recorder.segmentBearing : shown.course
        d.elapsedS = elapsed
        d.movingS = movingS
        d.hrBpm = now.isNaN ? .nan : sensors.heartRate(at: now)
        d.cadenceSpm = now.isNaN ? .nan : sensors.cadence(at: now)
        d.gainM = elevationStage.tracker.gainM
        d.lossM = elevationStage.tracker.lossM
        // Grade needs motion: standing still, altitude drift over the last few metres is no slope.
        d.gradePct = ground >= track.settings.movingSpeedMps ? elevationStage.tracker.gradePct : .nan
        d.verticalSpeedMps = elevationStage.tracker.verticalSpeedMps
        d.lap = laps.laps.count + 1
        d.lapDistanceM = distance - laps.current.distanceM
        d.lapElapsedS = elapsed - laps.current.elapsedS
    }
}
