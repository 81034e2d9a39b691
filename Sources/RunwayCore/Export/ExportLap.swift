/// A lap as the lap-based exports (TCX, FIT) write it: the engine's figures for the lap (its
/// power, its max speed, heart-rate and cadence maxima too: over every sample of the lap) and
/// the route points that belong to it.
struct ExportLap: Sendable {
    /// 1-based.
    var index: Int
    var trigger: LapTrigger
    /// Unix seconds.
    var startT: Double
    var endT: Double
    var distanceM: Double
    /// Cruise seconds (pauses excluded): the timer time.
    var timerS: Double
    var avgHrBpm: Double
    var gainM: Double
    var lossM: Double
    /// The route points in the lap: those whose time falls in [startT, endT) (the last lap
    /// also takes everything after its start; the first, anything before it).
    var points: Range<Int> = 0..<0
    /// The speed sensor's points in the lap (`FlightRecord.sensed`), by the same rule.
    var sensed: Range<Int> = 0..<0
    /// The engine's max speed for the lap (`Lap.maxSpeedMps`: of the speeds the flight's max is
    /// taken from); unknown (NaN: the lap in progress of a flight in the air, a lap the engine
    /// noted no speed in), the largest speed of its points (the route's and the sensor's).
    var maxSpeedMps: Double = .nan
    /// The engine's maxima for the lap (`Lap.maxHrBpm`, `Lap.maxCadenceSpm`: over every sample the
    /// flight took in it, as the flight's are), not only those the route's kept points carry.
    /// Unknown (NaN: the lap in progress of a flight in the air, a lap not made by the engine),
    /// the largest of its points'.
    var maxHrBpm: Double = .nan
    var maxCadenceSpm: Double = .nan
    /// The lap's power (watts; NaN when unknown, not written): the engine's figures for the lap
    /// (`Lap.metrics`, as the summary's laps give them), over every sample of the lap, not only
    /// the route's kept points. A lap the engine has not finished (the lap in progress of a
    /// flight in the air) has no average or normalized power, and the largest power of its points.
    var maxPowerW: Double = .nan
    var avgPowerW: Double = .nan
    var normalizedPowerW: Double = .nan
    /// Whether the power figures are the engine's (else `maxPowerW` is read from the points).
    var enginePower = false

    /// Wall-clock seconds from start to end (pauses included); 0 when unknown.
    var wallS: Double {
        let s = endT - startT
        return s.isFinite && s > 0 ? s : 0
    }

    init(_ lap: Lap) {
        index = lap.index
        trigger = lap.trigger
        startT = lap.startT
        endT = lap.endT
        distanceM = lap.distanceM
        timerS = lap.elapsedS
        avgHrBpm = lap.avgHrBpm
        gainM = lap.gainM
        lossM = lap.lossM
        maxHrBpm = lap.maxHrBpm
        maxCadenceSpm = lap.maxCadenceSpm
        maxSpeedMps = lap.maxSpeedMps
        setPower(avg: lap.metrics.figure("avg_power_w"), max: lap.metrics.figure("max_power_w"),
                 normalized: lap.metrics.figure("normalized_power_w"))
    }

    /// Sets the lap's power to the engine's figures.
    mutating func setPower(avg: Double, max: Double, normalized: Double) {
        avgPowerW = avg
        maxPowerW = max
        normalizedPowerW = normalized
        enginePower = true
    }

    init(index: Int, trigger: LapTrigger, startT: Double, endT: Double, distanceM: Double, timerS: Double,
         avgHrBpm: Double, gainM: Double, lossM: Double) {
        self.index = index
        self.trigger = trigger
        self.startT = startT
        self.endT = endT
        self.distanceM = distanceM
        self.timerS = timerS
        self.avgHrBpm = avgHrBpm
        self.gainM = gainM
        self.lossM = lossM
    }
}
