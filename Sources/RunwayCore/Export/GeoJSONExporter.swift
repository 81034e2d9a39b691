/// A GeoJSON Feature (RFC 7946): the route as geometry, the flight's summary as properties.
///
/// Geometry: a `LineString` when the route has one segment of two or more points, a
/// `MultiLineString` (one line per route segment: a gap or a jump starts one, as a pause does,
/// where GPX and TCX break only at pauses) when it has several; segments of a single point
/// cannot be lines and are left out (a route of one point is a `Point`, an empty route `null`).
/// Positions are `[lon, lat, ele]` (`[lon, lat]` when the altitude is unknown).
///
/// Properties: `flight_id`, `activity`, `phase`, `end_reason`, `start_time` / `end_time` (ISO
/// 8601 UTC) and `start_t` / `end_t` (unix s), `distance_m`, `elapsed_s`, `moving_s`,
/// `avg_pace_min_per_km`, `max_speed_mps`, `gain_m`, `loss_m`, `avg_hr_bpm`, `max_hr_bpm`,
/// `avg_cadence_spm`, `max_cadence_spm`, `avg_power_w`/`max_power_w`/`normalized_power_w` (when
/// known), `points`, `segments`, and `laps` (the summary's lap
/// objects). Unknown numbers are `null`.
enum GeoJSONExporter {
    static func export(_ r: FlightRecord) -> [UInt8] {
        var w = JSONWriter(capacity: 1024 + r.route.count * 40)
        w.beginObject()
        w.field("type", "Feature")
        w.key("geometry")
        geometry(r.route, &w)
        w.key("properties")
        properties(r, &w)
        w.endObject()
        return w.bytes
    }

    static func geometry(_ route: Route, _ w: inout JSONWriter) {
        let lines = route.segmentRanges.filter { $0.count >= 2 }
        if lines.isEmpty {
            guard route.count > 0 else { w.null(); return }
            w.beginObject()
            w.field("type", "Point")
            w.key("coordinates")
            position(route, 0, &w)
            w.endObject()
            return
        }
        w.beginObject()
        w.field("type", lines.count == 1 ? "LineString" : "MultiLineString")
        w.key("coordinates")
        if lines.count > 1 { w.beginArray() }
        for line in lines {
            w.beginArray()
            for i in line { position(route, i, &w) }
            w.endArray()
        }
        if lines.count > 1 { w.endArray() }
        w.endObject()
    }

    static func position(_ route: Route, _ i: Int, _ w: inout JSONWriter) {
        w.beginArray()
        w.number(route.longitude(i))
        w.number(route.latitude(i))
        // Centimetres: the stored Float's noise digits would only add bytes.
        let alt = route.altitude(i)
        if alt.isFinite { w.number((alt * 100).rounded() / 100) }
        w.endArray()
    }

    static func properties(_ r: FlightRecord, _ w: inout JSONWriter) {
        w.beginObject()
        w.field("flight_id", r.flightID)
        w.field("activity", r.activity.rawValue)
        w.field("phase", r.phase.rawValue)
        w.key("end_reason"); if let reason = r.endReason { w.string(reason) } else { w.null() }
        w.key("start_time"); time(r.exportStartT, &w)
        w.key("end_time"); time(r.exportEndT, &w)
        w.field("start_t", r.exportStartT)
        w.field("end_t", r.exportEndT)
        w.field("distance_m", r.distanceM)
        w.field("elapsed_s", r.elapsedS)
        w.field("moving_s", r.movingS)
        w.field("avg_pace_min_per_km", r.avgPaceMinPerKm)
        w.field("max_speed_mps", r.maxSpeedMps)
        w.field("gain_m", r.gainM)
        w.field("loss_m", r.lossM)
        w.field("avg_hr_bpm", r.avgHrBpm)
        w.field("max_hr_bpm", r.maxHrBpm)
        w.field("avg_cadence_spm", r.avgCadenceSpm)
        w.field("max_cadence_spm", r.maxCadenceSpm)
        if r.avgPowerW.isFinite { w.field("avg_power_w", r.avgPowerW) }
        if r.maxPowerW.isFinite { w.field("max_power_w", r.maxPowerW) }
        if r.normalizedPowerW.isFinite { w.field("normalized_power_w", r.normalizedPowerW) }
        w.field("points", r.route.count)
        w.field("segments", r.route.segmentRanges.count)
        w.key("laps")
        w.beginArray()
        for lap in r.laps { lap.write(to: &w) }
        w.endArray()
        w.endObject()
    }

    static func time(_ t: Double, _ w: inout JSONWriter) {
        if let s = ISOTime.string(t) { w.string(s) } else { w.null() }
    }
}
