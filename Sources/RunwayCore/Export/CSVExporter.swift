/// Comma-separated values: a header row, then one row per route point, LF line ends.
///
/// The rows are the route's *kept* points — the accepted fixes the distance filter stored
/// while cruising (every accepted fix with `distance_filter_m` 0), plus the point a resume
/// starts its segment with — not every fix pushed:
///
/// ```text
/// t,time_iso,lat,lon,alt_m,distance_m,speed_mps,pace_min_per_km,hr_bpm,cadence_spm,segment,power_w
/// 1700000000,2023-11-14T22:13:20Z,52.37,4.89,3.5,0,,,148,172,1,
/// ```
///
/// `t` unix seconds (up to ms); `lat`, `lon` degrees as stored (up to 7 decimals); `alt_m`;
/// `distance_m` the flight's cumulative distance at the point; `speed_mps` the engine's ground
/// speed there and `pace_min_per_km` the same as pace; `hr_bpm` and `cadence_spm` the samples
/// in force at the point (cadence in steps per minute on foot, rpm on a bike); `segment` the
/// route segment, 1 for the first (a new one after a gap, a jump or a pause); `power_w` the
/// power at the point in watts. An unknown value is an empty cell.
enum CSVExporter {
    static let header: StaticString =
        "t,time_iso,lat,lon,alt_m,distance_m,speed_mps,pace_min_per_km,hr_bpm,cadence_spm,segment,power_w\n"

    static func export(_ r: FlightRecord) -> [UInt8] {
        var out = TextBuffer(capacity: 128 + r.route.count * 110)
        out.write(header)
        let route = r.route
        for (n, segment) in route.segmentRanges.enumerated() {
            for i in segment { row(route, i, segment: n + 1, &out) }
        }
        return out.bytes
    }

    static func row(_ route: Route, _ i: Int, segment: Int, _ out: inout TextBuffer) {
        let t = route.time(i)
        out.write(fixed: t, 3); out.write(",")
        if let iso = ISOTime.string(t) { out.write(iso) }
        out.write(",")
        out.write(degreesE7: route.latE7(i)); out.write(",")
        out.write(degreesE7: route.lonE7(i)); out.write(",")
        out.write(fixed: route.altitude(i), 2); out.write(",")
        out.write(fixed: route.distanceM(i), 2); out.write(",")
        let speed = route.speedMps(i)
        if speed >= 0 { out.write(fixed: speed, 3) }
        out.write(",")
        out.write(fixed: FlightData.pace(speedMps: speed), 3); out.write(",")
        out.write(fixed: route.heartRate(i), 0); out.write(",")
        out.write(fixed: route.cadence(i), 0); out.write(",")
        out.write(int: segment); out.write(",")
        out.write(fixed: route.power(i), 0)
        out.write("\n")
    }
}
