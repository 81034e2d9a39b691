/// The flight record as JSON: times, totals, averages, laps and (optionally) the route.
///
///     let json = fc.summaryJSON(includeRoute: false)   // {"kind":"summary",...}
extension FlightComputer {
    /// The flight record so far: times, totals, averages, laps and (optionally) the route.
    ///
    /// `routePoints` false (with `includeRoute`) leaves out the `"route"` array alone, for a
    /// caller that hands the points over another way (`runway_analyse_route`): `simplify_m`,
    /// `route_simplified` and `segment_starts` are still written.
    public func writeSummary(to w: inout JSONWriter, includeRoute: Bool = true, routePoints: Bool = true) {
        let elapsedS = elapsed
        w.beginObject()
        w.field("kind", "summary")
        if let flightID { w.field("flight_id", flightID) }
        w.field("phase", phase.rawValue)
        w.key("end_reason"); if let endReason { w.string(endReason) } else { w.null() }
        w.field("activity", config.activity.rawValue)
        w.field("filters", config.filters ? "on" : "off")
        w.field("start_t", clock.startT)
        w.field("end_t", clock.endT)
        w.field("elapsed_s", elapsedS)
        w.field("moving_s", movingS)
        w.field("distance_m", distance)
        w.field("avg_pace_min_per_km", FlightData.averagePace(elapsedS: elapsedS, distanceM: distance))
        w.field("avg_moving_pace_min_per_km", FlightData.averagePace(elapsedS: movingS, distanceM: distance))
        w.field("avg_speed_mps", elapsedS > 0 ? distance / elapsedS : .nan)
        w.field("max_speed_mps", maxSpeed)
        w.field("gain_m", elevation.gainM)
        w.field("loss_m", elevation.lossM)
        w.field("min_altitude_m", elevation.minAltitudeM)
        w.field("max_altitude_m", elevation.maxAltitudeM)
        w.field("avg_hr_bpm", sensors.avgHrBpm)
        w.field("max_hr_bpm", sensors.maxHrBpm)
        w.field("hr_max_setting", config.hrMax)
        w.key("hr_zone_s"); w.beginArray(); for z in sensors.zoneSeconds { w.number(z) }; w.endArray()
        w.field("avg_cadence_spm", sensors.avgCadenceSpm)
        w.field("max_cadence_spm", sensors.maxCadenceSpm)
        w.fields(metrics.summary())
        w.field("fixes", fixes)
        w.key("filtered"); filtered.write(to: &w)
        w.key("profile_mismatch")
        if let s = gate.profile.suggested {
            w.beginObject(); w.field("suggested", s.rawValue); w.field("refused", gate.profile.refused); w.endObject()
        } else { w.null() }
        w.key("doppler_check")
        if let d = dopplerCheck.disagreement {
            w.beginObject(); w.field("preferred", "positions"); w.field("doppler_m", d.dopplerM)
            w.field("positions_m", d.positionsM); w.field("at_t", d.t); w.endObject()
        } else { w.null() }
        w.field("sensor_distance_m", sensorDistance)
        w.field("points", route.count)
        w.field("segments", route.segmentStarts.count)
        w.key("laps")
        w.beginArray()
        for lap in laps.laps { lap.write(to: &w) }
        w.endArray()
        if includeRoute {
            let simple = Simplify.indices(of: route, toleranceM: config.simplifyM)
            w.field("simplify_m", config.simplifyM)
            w.key("route_simplified")
            w.beginArray()
            for i in simple {
                w.beginArray()
                w.number(route.latitude(i)); w.number(route.longitude(i))
                w.number(route.altitude(i)); w.number(route.time(i))
                w.endArray()
            }
            w.endArray()
            w.key("segment_starts")
            w.beginArray(); for s in route.segmentStarts { w.integer(s) }; w.endArray()
            if routePoints {
                w.key("route")
                w.beginArray()
                for i in 0..<route.count {
                    w.beginArray()
                    w.number(route.latitude(i)); w.number(route.longitude(i))
                    w.number(route.altitude(i)); w.number(route.time(i))
                    w.endArray()
                }
                w.endArray()
            }
        }
        w.endObject()
    }

    public func summaryJSON(includeRoute: Bool = true) -> String {
        var w = JSONWriter()
        writeSummary(to: &w, includeRoute: includeRoute)
        return w.text
    }
}

extension FixGate.Reason {
    /// The key in JSON (a StaticString, as the writer takes).
    var jsonKey: StaticString {
        switch self {
        case .accuracy: return "accuracy"
        case .nullIsland: return "null_island"
        case .speed: return "speed"
        case .repeatedTime: return "repeated_time"
        }
    }
}

extension Lap {
    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("index", index)
        w.field("trigger", trigger.rawValue)
        w.field("start_t", startT)
        w.field("end_t", endT)
        w.field("distance_m", distanceM)
        w.field("elapsed_s", elapsedS)
        w.field("pace_min_per_km", paceMinPerKm)
        w.field("max_speed_mps", maxSpeedMps)
        w.field("avg_hr_bpm", avgHrBpm)
        w.field("max_hr_bpm", maxHrBpm)
        w.field("max_cadence_spm", maxCadenceSpm)
        w.field("gain_m", gainM)
        w.field("loss_m", lossM)
        w.fields(metrics)
        w.endObject()
    }
}

