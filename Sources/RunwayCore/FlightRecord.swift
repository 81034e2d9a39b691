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

    /// Average pace over elapsed time (min/km); NaN before any distance.
    public var avgPaceMinPerKm: Double { FlightData.averagePace(elapsedS: elapsedS, distanceM: distanceM) }
}

extension FlightComputer {
    /// The flight as a record for export. Laps include the running (unfinished) lap only once the
    /// flight has landed; before that, `laps` are the completed ones.
    public var record: FlightRecord {
        FlightRecord(flightID: flightID ?? "", activity: config.activity, phase: phase, endReason: endReason, startT: clock.startT,
                     endT: phase == .touchdown ? clock.endT : now, elapsedS: elapsed, movingS: movingS,
                     distanceM: distance, maxSpeedMps: maxSpeed, gainM: elevation.gainM, lossM: elevation.lossM,
                     avgHrBpm: sensors.avgHrBpm, maxHrBpm: sensors.maxHrBpm,
                     avgCadenceSpm: sensors.avgCadenceSpm, maxCadenceSpm: sensors.maxCadenceSpm,
                     laps: laps.laps, route: route)
    }
}
