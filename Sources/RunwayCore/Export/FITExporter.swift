/// A FIT activity file, laid out as Garmin devices write one: file_id, device_info, the records
/// (one per route point and per speed sensor's point, and one where a leg an auto-resume began
/// has no point: `FITTimeline`) with the timer events among them in time order, the laps, one
/// session and the activity (summaries last).
///
/// Timer events: a `start` at the start and at each resume, a `stop_all` at each pause (the
/// user's or auto-pause) and at the stop, from the flight's cruise legs (`timerLegs`), so a
/// reader that sums the start → stop_all intervals (as Garmin's tools do) gets the session's
/// `total_timer_time` (to FIT's whole seconds). `total_moving_time` ≤ `total_timer_time` ≤
/// `total_elapsed_time`; a lap's timer time is its cruise time. A start comes before the
/// records at its time, a stop after them. A route point's record lies in the timer period
/// its distance belongs to: the points an auto-pause's backdated hold leaves after their leg's
/// end with metres the leg counted are written at the leg's end (`FITTimeline`), so no position
/// record in a stopped period has more distance than the record before it.
///
/// Field numbers, base types, scales and offsets are the FIT profile's (checked against
/// Garmin's SDK profile 21.x; the Python tests decode the file with Garmin's own decoder):
/// times in the FIT epoch (unix − 631 065 600 s, whole seconds, rounded down), positions in
/// semicircles (degrees × 2³¹/180), altitude `uint16` (m + 500) × 5, distance `uint32` m × 100,
/// speed `uint16` m/s × 1000 (a record's: the speed its fix came with, the device's, which the
/// import reads back as the fix's speed; the laps' and session's figures are the engine's),
/// durations `uint32` s × 1000. Unknown values are FIT's invalid values. Running and walking
/// cadence is written the FIT way, in strides (cycles) per minute: `cadence` = steps/min ÷ 2
/// and `fractional_cadence` the half stride (a reader gets the engine's steps per minute back as
/// (cadence + fractional_cadence) × 2); a ride's cadence is rpm as it is. `local_timestamp` of
/// the activity is UTC (the engine knows no time zone).
enum FITExporter {
    /// unix seconds − FIT seconds: FIT counts from 1989-12-31T00:00:00Z.
    static let epochOffset = 631_065_600.0
    /// The profile version written in the header (major · 1000 + minor): 21.100.
    static let profileVersion: UInt16 = 21_100
    /// `manufacturer` development (255) and our product number.
    static let manufacturer: Int64 = 255
    static let product: Int64 = 1
    static let productName = "librunway"

    // Global message numbers (FIT profile `mesg_num`).
    enum Mesg {
        static let fileID: UInt16 = 0
        static let session: UInt16 = 18
        static let lap: UInt16 = 19
        static let record: UInt16 = 20
        static let event: UInt16 = 21
        static let deviceInfo: UInt16 = 23
        static let activity: UInt16 = 34
    }

    /// Field 253, `timestamp`, common to every message that has one; 254, `message_index`.
    static let timestamp = FITField(253, .uint32)
    static let messageIndex = FITField(254, .uint16)

    static func export(_ r: FlightRecord) -> [UInt8] {
        var fit = FITWriter(capacity: 512 + (r.route.count + r.sensed.count) * 32)
        let start = time(r.exportStartT), end = time(r.exportEndT)
        let onFoot = r.activity != .ride
        fit.message(global: Mesg.fileID, local: 0, [
            (FITField(0, .enumeration), .number(4)),        // type: activity
            (FITField(1, .uint16), .number(manufacturer)),
            (FITField(2, .uint16), .number(product)),
            (FITField(4, .uint32), .number(start)),         // time_created
            (FITField(8, .string, size: 16), .text(productName)),
        ])
        fit.message(global: Mesg.deviceInfo, local: 1, [
            (timestamp, .number(start)),
            (FITField(0, .uint8), .number(0)),              // device_index: creator
            (FITField(2, .uint16), .number(manufacturer)),
            (FITField(4, .uint16), .number(product)),
            (FITField(25, .enumeration), .number(5)),       // source_type: local
            (FITField(27, .string, size: 16), .text(productName)),
        ])
        // The local sensors, as devices list theirs: the positions' GPS and, when the altitudes
        // are a barometer's (`FlightRecord.altitudeSource`), the barometer (an import reads the
        // altitudes by them). The records' altitudes are of that source (`FlightRecord.altitude`;
        // a speed sensor's point, without a position, has the altimeter's when it was current).
        let sensors: [Int64] = r.altitudeSource == .barometric ? [0, 4] : [0]   // local_device_type: gps, barometer
        for (k, type) in sensors.enumerated() {
            fit.message(global: Mesg.deviceInfo, local: 1, [
                (timestamp, .number(start)),
                (FITField(0, .uint8), .number(Int64(k + 1))),  // device_index
                (FITField(1, .uint8), .number(type)),          // device_type (local_device_type)
                (FITField(25, .enumeration), .number(5)),      // source_type: local
            ])
        }
        let route = r.route
        // Timer events at each leg's ends among the records, in time order (`FITTimeline`).
        let timeline = FITTimeline(r)
        let events = timeline.events
        // The route's points, the legs' starts it has no point for and the speed sensor's points
        // (records without a position), in time order (at the same time in that order).
        let sensed = r.sensed, starts = timeline.legStarts
        var next = 0, i = 0, j = 0, x = 0
        while i < route.count || j < sensed.count || x < starts.count {
            let tx = x < starts.count ? starts.time(x) : .infinity
            let ti = i < route.count ? timeline.recordT[i] : .infinity
            let bySensor = j < sensed.count && (sensed.time(j) < min(tx, ti) || (i == route.count && x == starts.count))
            let byRoute = !bySensor && i < route.count && (ti < tx || x == starts.count)
            let t = bySensor ? sensed.time(j) : byRoute ? ti : tx
            while next < events.count, FITTimeline.precedes(events[next], recordAt: t) {
                timerEvent(&fit, at: time(events[next].t), starts: events[next].starts)
                next += 1
            }
            if bySensor {
                record(&fit, sensed, j, onFoot: onFoot, positioned: false)
                j += 1
            } else if byRoute {
                record(&fit, route, i, at: t, onFoot: onFoot, altitude: r.altitude(i))
                i += 1
            } else {
                record(&fit, starts, x, onFoot: onFoot)
                x += 1
            }
        }
        while next < events.count {
            timerEvent(&fit, at: time(events[next].t), starts: events[next].starts)
            next += 1
        }
        let laps = r.exportLaps
        for (k, lap) in laps.enumerated() { self.lap(&fit, lap, index: k, route, r.activity, onFoot: onFoot) }
        session(&fit, r, laps: laps.count, start: start, end: end, onFoot: onFoot)
        let timer = scaled(r.elapsedS, 1000)
        fit.message(global: Mesg.activity, local: 6, [
            (timestamp, .number(end)),
            (FITField(0, .uint32), .number(timer)),         // total_timer_time
            (FITField(1, .uint16), .number(1)),             // num_sessions
            (FITField(2, .enumeration), .number(0)),        // type: manual
            (FITField(3, .enumeration), .number(26)),       // event: activity
            (FITField(4, .enumeration), .number(1)),        // event_type: stop
            (FITField(5, .uint32), .number(end)),           // local_timestamp (UTC: no time zone known)
        ])
        return fit.file(profileVersion: profileVersion)
    }

    static func timerEvent(_ fit: inout FITWriter, at t: Int64?, starts: Bool) {
        fit.message(global: Mesg.event, local: 2, [
            (timestamp, .number(t)),
            (FITField(0, .enumeration), .number(0)),        // event: timer
            (FITField(1, .enumeration), .number(starts ? 0 : 4)),   // event_type: start, stop_all
            (FITField(3, .uint32), .number(0)),             // data: timer_trigger manual
        ])
    }

    /// A record of point `i` at `t` (its own time when NaN): `positioned` false for a speed
    /// sensor's point (no position; the altimeter's altitude when it was current). `altitude`: the point's as the export writes it
    /// (`FlightRecord.altitude`), its own when not given.
    static func record(_ fit: inout FITWriter, _ route: Route, _ i: Int, at t: Double = .nan, onFoot: Bool, positioned: Bool = true,
                       altitude: Double? = nil) {
        let cadence = route.cadence(i)
        var fields: [(FITField, FITValue)] = [
            (timestamp, .number(time(t.isNaN ? route.time(i) : t))),
            (FITField(0, .sint32), .number(positioned ? semicircles(route.latE7(i)) : nil)),   // position_lat
            (FITField(1, .sint32), .number(positioned ? semicircles(route.lonE7(i)) : nil)),   // position_long
            (FITField(2, .uint16), .number(scaled(altitude ?? route.altitude(i), 5, offset: 500))),   // altitude
            (FITField(3, .uint8), .number(whole(route.heartRate(i)))),    // heart_rate
            (FITField(4, .uint8), .number(whole(onFoot ? (cadence / 2).rounded(.down) : cadence))),  // cadence
            (FITField(5, .uint32), .number(scaled(route.distanceM(i), 100))),   // distance
            (FITField(6, .uint16), .number(scaled(route.deviceSpeedMps(i), 1000))),   // speed: the fix's own
            (FITField(7, .uint16), .number(whole(route.power(i)))),             // power (W)
        ]
        if onFoot {
            // fractional_cadence (scale 128): the half stride of an odd step count.
            let half = cadence.isNaN ? nil : whole((cadence / 2 - (cadence / 2).rounded(.down)) * 128)
            fields.append((FITField(53, .uint8), .number(half)))
        }
        fit.message(global: Mesg.record, local: 3, fields)
    }

    static func lap(_ fit: inout FITWriter, _ lap: ExportLap, index: Int, _ route: Route, _ activity: Activity, onFoot: Bool) {
        let first = lap.points.first, last = lap.points.last
        fit.message(global: Mesg.lap, local: 4, [
            (messageIndex, .number(Int64(index))),          // 0, 1, 2 … in file order
            (timestamp, .number(time(lap.endT))),
            (FITField(0, .enumeration), .number(9)),        // event: lap
            (FITField(1, .enumeration), .number(1)),        // event_type: stop
            (FITField(2, .uint32), .number(time(lap.startT))),   // start_time
            (FITField(3, .sint32), .number(first.map { semicircles(route.latE7($0)) })),   // start_position_lat
            (FITField(4, .sint32), .number(first.map { semicircles(route.lonE7($0)) })),   // start_position_long
            (FITField(5, .sint32), .number(last.map { semicircles(route.latE7($0)) })),    // end_position_lat
            (FITField(6, .sint32), .number(last.map { semicircles(route.lonE7($0)) })),    // end_position_long
            (FITField(7, .uint32), .number(scaled(lap.wallS, 1000))),      // total_elapsed_time
            (FITField(8, .uint32), .number(scaled(lap.timerS, 1000))),     // total_timer_time
            (FITField(9, .uint32), .number(scaled(lap.distanceM, 100))),   // total_distance
            (FITField(13, .uint16), .number(scaled(speed(lap.distanceM, lap.timerS), 1000))),   // avg_speed
            (FITField(14, .uint16), .number(scaled(lap.maxSpeedMps, 1000))),                     // max_speed
            (FITField(15, .uint8), .number(whole(lap.avgHrBpm))),          // avg_heart_rate
            (FITField(16, .uint8), .number(whole(lap.maxHrBpm))),          // max_heart_rate
            (FITField(18, .uint8), .number(whole(onFoot ? (lap.maxCadenceSpm / 2).rounded(.down) : lap.maxCadenceSpm))),   // max_cadence
            (FITField(19, .uint16), .number(whole(lap.avgPowerW))),        // avg_power
            (FITField(20, .uint16), .number(whole(lap.maxPowerW))),        // max_power
            (FITField(21, .uint16), .number(whole(lap.gainM))),            // total_ascent
            (FITField(22, .uint16), .number(whole(lap.lossM))),            // total_descent
            (FITField(23, .enumeration), .number(0)),                      // intensity: active
            (FITField(24, .enumeration), .number(lapTrigger(lap.trigger))),
            (FITField(25, .enumeration), .number(sport(activity))),
            (FITField(33, .uint16), .number(whole(lap.normalizedPowerW))), // normalized_power
        ])
    }

    static func session(_ fit: inout FITWriter, _ r: FlightRecord, laps: Int, start: Int64?, end: Int64?, onFoot: Bool) {
        let route = r.route
        let first = route.count > 0 ? 0 : nil, last = route.count > 0 ? route.count - 1 : nil
        let wall = r.exportEndT - r.exportStartT
        fit.message(global: Mesg.session, local: 5, [
            (messageIndex, .number(0)),
            (timestamp, .number(end)),
            (FITField(0, .enumeration), .number(9)),        // event: lap (as devices write it)
            (FITField(1, .enumeration), .number(1)),        // event_type: stop
            (FITField(2, .uint32), .number(start)),         // start_time
            (FITField(3, .sint32), .number(first.map { semicircles(route.latE7($0)) })),
            (FITField(4, .sint32), .number(first.map { semicircles(route.lonE7($0)) })),
            (FITField(5, .enumeration), .number(sport(r.activity))),
            (FITField(6, .enumeration), .number(0)),        // sub_sport: generic
            (FITField(7, .uint32), .number(scaled(wall.isFinite ? max(0, wall) : 0, 1000))),   // total_elapsed_time
            (FITField(8, .uint32), .number(scaled(r.elapsedS, 1000))),     // total_timer_time
            (FITField(9, .uint32), .number(scaled(r.distanceM, 100))),     // total_distance
            (FITField(14, .uint16), .number(scaled(speed(r.distanceM, r.elapsedS), 1000))),   // avg_speed
            (FITField(15, .uint16), .number(scaled(r.maxSpeedMps, 1000))),  // max_speed
            (FITField(16, .uint8), .number(whole(r.avgHrBpm))),             // avg_heart_rate
            (FITField(17, .uint8), .number(whole(r.maxHrBpm))),             // max_heart_rate
            (FITField(18, .uint8), .number(whole(onFoot ? r.avgCadenceSpm / 2 : r.avgCadenceSpm))),   // avg_cadence
            (FITField(19, .uint8), .number(whole(onFoot ? (r.maxCadenceSpm / 2).rounded(.down) : r.maxCadenceSpm))),   // max_cadence
            (FITField(20, .uint16), .number(whole(r.avgPowerW))),           // avg_power
            (FITField(21, .uint16), .number(whole(r.maxPowerW))),           // max_power
            (FITField(22, .uint16), .number(whole(r.gainM))),               // total_ascent
            (FITField(23, .uint16), .number(whole(r.lossM))),               // total_descent
            (FITField(25, .uint16), .number(0)),                            // first_lap_index
            (FITField(26, .uint16), .number(Int64(laps))),                  // num_laps
            (FITField(28, .enumeration), .number(0)),                       // trigger: activity_end
            (FITField(34, .uint16), .number(whole(r.normalizedPowerW))),    // normalized_power
            (FITField(38, .sint32), .number(last.map { semicircles(route.latE7($0)) })),   // end_position_lat
            (FITField(39, .sint32), .number(last.map { semicircles(route.lonE7($0)) })),   // end_position_long
            // total_moving_time: never above the timer (FIT's moving ≤ timer ≤ elapsed; the engine's
            // moving time can exceed its timer by the step into a resume).
            (FITField(59, .uint32), .number(scaled(min(r.movingS, max(0, r.elapsedS)), 1000))),
        ])
    }

    // MARK: - Conversions (nil = invalid; the writer also turns out-of-range values invalid)

    /// Unix seconds to FIT seconds, rounded down.
    static func time(_ t: Double) -> Int64? { whole((t - epochOffset).rounded(.down)) }

    /// (v + offset) × scale, rounded; nil when not finite or negative.
    static func scaled(_ v: Double, _ scale: Double, offset: Double = 0) -> Int64? {
        let x = ((v + offset) * scale).rounded()
        return x >= 0 ? whole(x) : nil
    }

    /// `v` rounded to an integer; nil when not finite or beyond any FIT field (±1e15).
    static func whole(_ v: Double) -> Int64? {
        let x = v.rounded()
        guard x.isFinite, x.magnitude < 1e15 else { return nil }
        return Int64(x)
    }

    /// 1e-7° to semicircles (× 2³¹ / 180°), rounded; +180° wraps to −180° (the same meridian)
    /// and the one value that would be sint32's invalid marker moves a semicircle west.
    static func semicircles(_ e7: Int32) -> Int64 {
        let num = Int64(e7) << 31                         // |e7| ≤ 1.8e9 < 2³¹: no overflow
        let den: Int64 = 1_800_000_000
        var s = (num + (num >= 0 ? den / 2 : -den / 2)) / den
        if s >= 0x8000_0000 { s -= 0x1_0000_0000 }
        if s == 0x7FFF_FFFF { s -= 1 }
        return s
    }

    /// distance / time, NaN when there is no time.
    static func speed(_ d: Double, _ t: Double) -> Double { t > 0 ? d / t : .nan }

    static func sport(_ a: Activity) -> Int64 {
        switch a {
        case .run: 1       // running
        case .ride: 2      // cycling
        case .walk: 11     // walking
        }
    }

    static func lapTrigger(_ t: LapTrigger) -> Int64 { t.fitValue }
}
