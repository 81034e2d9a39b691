/// A lap as the lap-based exports (TCX, FIT) write it: the engine's figures for the lap, the
/// route points that belong to it, and the maxima read from those points.
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
    /// Maxima over the lap's points (the route's and the sensor's); NaN when no point has the value.
    var maxSpeedMps: Double = .nan
    var maxHrBpm: Double = .nan
    var maxCadenceSpm: Double = .nan
    /// The largest power of the lap's points (watts; NaN when no point has it). The lap's average
    /// and normalized power are the engine's to give (unknown here: NaN, not written).
    var maxPowerW: Double = .nan
    var avgPowerW: Double = .nan
    var normalizedPowerW: Double = .nan

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
