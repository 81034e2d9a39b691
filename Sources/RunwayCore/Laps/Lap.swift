/// What ended a lap: the engine's own (`auto`, `manual`, `final`), or a recording's device's,
/// carried by a `device_lap` line (`LapTrigger+Device.swift`; docs/formats.md "Laps").
public enum LapTrigger: String, Sendable, CaseIterable {
    /// The distance reached the next multiple of the auto-lap distance.
    case auto
    /// The runner asked for a lap (`runway_lap`), or a device's lap says so (FIT `manual`, TCX
    /// `Manual`) or says nothing.
    case manual
    /// The flight stopped: the partial lap at the end.
    case final
    /// A device's lap ended by its lap time (FIT `time`, TCX `Time`).
    case time
    /// A device's lap ended by its lap distance (FIT `distance`, TCX `Distance`).
    case distance
    /// A device's lap ended at a position (FIT `position_start`, `position_lap`,
    /// `position_waypoint`, `position_marked`; TCX `Location`: `position_lap`).
    case positionStart = "position_start", positionLap = "position_lap"
    case positionWaypoint = "position_waypoint", positionMarked = "position_marked"
    /// A device's lap ended by the end of its session (FIT `session_end`).
    case sessionEnd = "session_end"
    /// A device's lap ended by fitness equipment (FIT `fitness_equipment`).
    case fitnessEquipment = "fitness_equipment"
    /// A device's lap ended by a heart-rate rule (TCX `HeartRate`).
    case heartRate = "heart_rate"
}

/// One finished lap (a split).
public struct Lap: Sendable, Equatable {
    /// 1-based position in the flight.
    public var index: Int
    public var trigger: LapTrigger
    /// Start and end times, unix seconds (interpolated at an auto-lap boundary).
    public var startT: Double
    public var endT: Double
    /// Horizontal distance, metres.
    public var distanceM: Double
    /// Cruise seconds in the lap (pauses excluded).
    public var elapsedS: Double
    /// Pace over cruise time, min/km; NaN when the lap has no distance.
    public var paceMinPerKm: Double
    /// Time-weighted average heart rate, bpm; NaN when the lap had no valid heart rate.
    public var avgHrBpm: Double
    /// Elevation gain and loss, metres.
    public var gainM: Double
    public var lossM: Double
    /// The registered metrics' figures for the lap (power…).
    public var metrics: [MetricValue] = []
    /// The highest heart rate (bpm) and cadence (steps/min) of the lap, over every sample the
    /// flight took in it, as the flight's maxima are (`SensorStats.endLap`); NaN when none (or
    /// unknown: a lap not made by the engine).
    public var maxHrBpm = Double.nan
    public var maxCadenceSpm = Double.nan
    /// The fastest speed of the lap, m/s: the largest of the speeds the flight's max is taken
    /// from (`Odometer`) that were noted in the lap, and at least the lap's own average speed
    /// (distance over cruise time) unless that is above the flight's max by the lap's end: no
    /// lap's is above the flight's and the flight's is the largest of its laps'; NaN when none (or unknown: a lap not made by the engine).
    public var maxSpeedMps = Double.nan

    public init(index: Int, trigger: LapTrigger, startT: Double, endT: Double, distanceM: Double,
                elapsedS: Double, paceMinPerKm: Double, avgHrBpm: Double, gainM: Double, lossM: Double) {
        self.index = index
        self.trigger = trigger
        self.startT = startT
        self.endT = endT
        self.distanceM = distanceM
        self.elapsedS = elapsedS
        self.paceMinPerKm = paceMinPerKm
        self.avgHrBpm = avgHrBpm
        self.gainM = gainM
        self.lossM = lossM
    }

    /// Equal field by field; the maxima bit for bit (as `MetricValue`'s figures: a lap with a
    /// heart rate and no cadence equals itself), the other figures as numbers.
    public static func == (a: Lap, b: Lap) -> Bool {
        a.index == b.index && a.trigger == b.trigger && a.startT == b.startT && a.endT == b.endT
            && a.distanceM == b.distanceM && a.elapsedS == b.elapsedS && a.paceMinPerKm == b.paceMinPerKm
            && a.avgHrBpm == b.avgHrBpm && a.gainM == b.gainM && a.lossM == b.lossM && a.metrics == b.metrics
            && a.maxHrBpm.bitPattern == b.maxHrBpm.bitPattern && a.maxCadenceSpm.bitPattern == b.maxCadenceSpm.bitPattern
            && a.maxSpeedMps.bitPattern == b.maxSpeedMps.bitPattern
    }
}
