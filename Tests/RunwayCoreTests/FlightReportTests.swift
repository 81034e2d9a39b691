import Testing
@testable import RunwayCore
import RunwaySim

/// An event or snapshot as JSON, parsed back (the library's own JSON reader, cJSON).
private func parsed(_ e: Event) throws -> [String: JSONValue] {
    let bytes = e.cString()
    return try object(String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self))
}

private func object(_ text: String) throws -> [String: JSONValue] {
    Dictionary(try JSONInput.object(text), uniquingKeysWith: { a, _ in a })
}

private extension JSONValue {
    var dict: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }
    var string: String? { if case .string(let s) = self { return s } else { return nil } }
    var isNull: Bool { self == .null }
}

/// `n` fixes one a second from `t0`, north at `speed` m/s from `north0` metres, with Doppler speed.
private func run(_ d: inout Driver, from t0: Int, seconds n: Int, speed: Double, north0: Double,
                 alt: (Double) -> Double = { _ in .nan }) throws -> Double {
    var north = north0
    for i in 0..<n {
        north += i == 0 ? 0 : speed
        try d.fix(Double(t0 + i), 52 + degreesNorth(north), 4, speed: speed, course: 0, alt: alt(north))
    }
    return north
}

@Suite("What a flight reports: events and snapshots as JSON (issue #4)")
struct FlightReportTests {
    @Test func gpwsJudgesCurrentPaceNotTheAverage() throws {
        // Five minutes at 4:10 min/km inside a 4:00–4:30 band, then a slowdown to 5:33 min/km:
        // the average stays inside the band for minutes, the current pace leaves it at once.
        var c = EngineConfig()
        c.alerts.targetPaceMin = 4.0
        c.alerts.targetPaceMax = 4.5
        var d = Driver(c)
        try d.phase(.start, 0)
        let north = try run(&d, from: 0, seconds: 300, speed: 4.0, north0: 0)
        _ = try run(&d, from: 300, seconds: 40, speed: 3.0, north0: north + 3)
        let alerts = d.events.filter { $0.kind == .alert }
        #expect(alerts.count == 1)
        let alert = try #require(alerts.first)
        // 5 s of hold after the window's pace crosses 4:30, which a 10 s window does within ~8 s.
        #expect(alert.t > 300 && alert.t <= 320, "fired at \(alert.t)")
        let avgPaceThen = (alert.t / 60) / (d.core.distance / 1000)
        #expect(avgPaceThen < 4.5, "the average (\(avgPaceThen) min/km) is still inside the band")
        // The event as a host sees it: code, message, and the values that triggered it.
        let json = try parsed(alert)
        #expect(json["kind"]?.string == "alert")
        #expect(json["code"]?.string == "GPWS_PACE_SLOW")
        #expect(json["message"]?.string?.contains("4:30") == true, "\(json["message"] ?? .null)")
        let values = try #require(json["values"]?.dict)
        #expect(values["target_max_min_per_km"]?.finiteNumber == 4.5)
        #expect((values["pace_min_per_km"]?.finiteNumber ?? 0) > 4.5)
        #expect((values["held_s"]?.finiteNumber ?? 0) >= 5)
    }

    @Test(arguments: [true, false])
    func gpwsDoesNotCallTheStartFromAStandstillSlow(_ doppler: Bool) throws {
        // Running at 5:00 min/km inside a 4:30–5:30 band: the first seconds from a standstill are
        // slower, and a pace window still holding them is no current pace to judge (without
        // Doppler speed, nor is one whose distance holds the track filter's lag at the start).
        // Two minutes; without Doppler the first (later, its drift can leave a ±10% band for 5 s).
        for seed: UInt64 in 1...3 {
            let run = sim(seed: seed, speed: doppler) { $0.paceVariation = 0 }
            var c = EngineConfig()
            c.alerts.targetPaceMin = 4.5
            c.alerts.targetPaceMax = 5.5
            var d = Driver(c)
            try d.phase(.start, run.fixes[0].t)
            for f in run.fixes.prefix(doppler ? 120 : 60) { try d.fix(f.t, f.lat, f.lon, speed: f.speed, course: f.course, hAcc: f.hAcc, alt: f.alt) }
            let codes = d.events.compactMap { e -> String? in if case .alert(let a) = e.body { return a.code } else { return nil } }
            #expect(codes.isEmpty, "seed \(seed): \(codes)")
        }
    }

    @Test func withTheFiltersOffGpwsJudgesOnceTheWindowHasFilled() throws {
        // Raw distance has no track filter to lag the start: one window is enough there. At
        // 3 m/s (5:33 min/km) against a 4:00–4:30 band, SINK RATE after 10 s and a 5 s hold.
        var c = Driver.config(filters: false)
        c.alerts.targetPaceMin = 4.0
        c.alerts.targetPaceMax = 4.5
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4) }
        let first = d.events.first { if case .alert(let a) = $0.body { return a.code == "GPWS_PACE_SLOW" } else { return false } }
        #expect(first?.t == 15, "first SINK RATE at \(first.map { "\($0.t)" } ?? "none")")
    }

    @Test func minimumsAndHeartRateAlertsCarryTheirValuesThroughAFlight() throws {
        let c = try EngineConfig.parse(#"{"goal_m":1500,"minimums_m":[1000,400],"hr_ceiling":170}"#)
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...400 {
            try d.json("{\"type\":\"hr\",\"bpm\":\(i < 200 ? 150 : 178),\"t\":\(i)}")
            try d.fix(Double(i), 52 + degreesNorth(4 * Double(i)), 4, speed: 4, course: 0)
        }
        let alerts = try d.events.filter { $0.kind == .alert }.map(parsed)
        #expect(alerts.compactMap { $0["code"]?.string } == ["MINIMUMS", "GPWS_HR_HIGH", "MINIMUMS", "MINIMUMS_GOAL"])
        let first = try #require(alerts.first?["values"]?.dict)
        #expect(first["mark_m"]?.finiteNumber == 1000 && first["goal_m"]?.finiteNumber == 1500)
        #expect(abs((first["remaining_m"]?.finiteNumber ?? 0) - 1000) <= 4)
        let hr = try #require(alerts.first { $0["code"]?.string == "GPWS_HR_HIGH" }?["values"]?.dict)
        #expect(hr["hr_bpm"]?.finiteNumber == 178 && hr["ceiling_bpm"]?.finiteNumber == 170 && (hr["held_s"]?.finiteNumber ?? 0) >= 5)
    }

    @Test func aSplitEventCarriesTheLapsDistanceTimePaceHeartRateAndElevation() throws {
        var d = Driver()
        try d.phase(.start, 0)
        // 1 km at 4 m/s climbing a steady 2% (20 m), heart rate 150 throughout.
        for i in 0...260 {
            try d.json("{\"type\":\"hr\",\"bpm\":150,\"t\":\(i)}")
            try d.fix(Double(i), 52 + degreesNorth(4 * Double(i)), 4, speed: 4, course: 0, alt: 100 + 0.08 * Double(i))
        }
        let split = try #require(d.events.first { $0.kind == .split })
        let lap = try #require(try parsed(split)["lap"]?.dict)
        #expect(lap["index"]?.finiteNumber == 1)
        #expect(lap["trigger"]?.string == "auto")
        #expect(abs((lap["distance_m"]?.finiteNumber ?? 0) - 1000) < 1e-6)
        #expect(abs((lap["elapsed_s"]?.finiteNumber ?? 0) - 250) < 2)
        #expect(abs((lap["pace_min_per_km"]?.finiteNumber ?? 0) - 250.0 / 60) < 0.05)
        #expect(lap["avg_hr_bpm"]?.finiteNumber == 150)
        // 20 m of climb over the lap; the gain is counted on means of the last 300 s, which lag
        // by half their window (here the 250 s since the start: 125 s, 10 m): the lap has 10 m,
        // the rest counts in the next lap, and the flight has all 20 m at the stop.
        let gain = lap["gain_m"]?.finiteNumber ?? 0
        #expect(abs(gain - 10) < 0.5, "gain \(gain)")
        #expect(lap["loss_m"]?.finiteNumber == 0)
        try d.phase(.stop)
        let laps = try d.events.filter { $0.kind == .split }.map { try #require(try parsed($0)["lap"]?.dict) }
        let lapGains = laps.compactMap { $0["gain_m"]?.finiteNumber }
        #expect(lapGains.count == 2 && abs(lapGains.reduce(0, +) - d.core.elevation.gainM) < 1e-9)
        // (To the quickly smoothed altitude, 10 s behind the last fix's: 0.08 m/s × 250 s.)
        #expect(abs(d.core.elevation.gainM - 0.08 * 250) < 0.5, "flight gain \(d.core.elevation.gainM)")
    }

    @Test func gradeAndVerticalSpeedAreInTheSnapshotOnceThereIsAStretchToJudge() throws {
        var d = Driver()
        try d.phase(.start, 0)
        // A steady 5% climb at 3 m/s: 0.15 m/s up.
        for i in 0...5 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0, alt: 50 + 0.15 * Double(i)) }
        var snap = try object(d.snapshotJSON)
        #expect(snap["grade_pct"]?.isNull == true, "15 m is shorter than the engine's 30 m stretch for a grade")
        for i in 6...120 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0, alt: 50 + 0.15 * Double(i)) }
        snap = try object(d.snapshotJSON)
        let grade = try #require(snap["grade_pct"]?.finiteNumber)
        let vs = try #require(snap["vertical_speed_mps"]?.finiteNumber)
        #expect(abs(grade - 5) < 0.5, "grade \(grade)%")
        #expect(abs(vs - 0.15) < 0.03, "vertical speed \(vs) m/s")
    }

    @Test func aUserPauseAndAnAutoPauseAreToldApart() throws {
        // A ride (auto-pause on) stops at a light: an auto hold; the rider then pauses by hand,
        // which makes the hold the user's, and riding on no longer resumes it.
        var d = Driver(EngineConfig(activity: .ride))
        try d.phase(.start, 0)
        var north = try run(&d, from: 0, seconds: 60, speed: 8, north0: 0)
        _ = try run(&d, from: 60, seconds: 20, speed: 0, north0: north)
        var snap = try object(d.snapshotJSON)
        #expect(snap["phase"]?.string == "holding" && snap["holding_by"]?.string == "auto")
        try d.phase(.pause, 80)
        snap = try object(d.snapshotJSON)
        #expect(snap["holding_by"]?.string == "user")
        north = try run(&d, from: 81, seconds: 30, speed: 8, north0: north + 8)
        #expect(d.core.phase == .holding && d.core.holdingBy == .user, "moving does not end a user's hold")
        try d.phase(.resume, 111)
        #expect(d.core.phase == .cruise)
        let phases = try d.events.filter { $0.kind == .phase }.map { e -> String in
            let j = try parsed(e)
            return "\(j["to"]?.string ?? "?"):\(j["by"]?.string ?? "-")"
        }
        #expect(phases == ["cruise:-", "holding:auto", "holding:user", "cruise:-"])
    }

    @Test func aRunAutoPausesWhenTheConfigSaysSo() throws {
        for (config, pauses) in [(nil, false), (#"{"auto_pause":true}"#, true)] as [(String?, Bool)] {
            var d = Driver(try EngineConfig.parse(config))
            try d.phase(.start, 0)
            let north = try run(&d, from: 0, seconds: 60, speed: 3, north0: 0)
            _ = try run(&d, from: 60, seconds: 20, speed: 0, north0: north)
            #expect((d.core.holdingBy == .auto) == pauses, "config \(config ?? "default")")
        }
    }

    @Test func theSummaryCountsFilteredFixesByReason() throws {
        var d = Driver()
        try d.phase(.start, 0)
        try d.fix(0, 52, 4, hAcc: 5)
        try d.fix(1, 52 + degreesNorth(3), 4, hAcc: 5)
        try d.fix(1, 52 + degreesNorth(6), 4, hAcc: 5)        // repeated time
        try d.fix(2, 0, 0, hAcc: 5)                            // null island
        try d.fix(3, 0, 0, hAcc: 5)                            // null island
        try d.fix(4, 52 + degreesNorth(400), 4, hAcc: 5)      // speed
        try d.fix(5, 52 + degreesNorth(9), 4, hAcc: 80)       // accuracy
        let summary = try object(d.core.summaryJSON())
        let filtered = try #require(summary["filtered"]?.dict)
        #expect(filtered == ["accuracy": .number(1), "null_island": .number(2), "speed": .number(1), "repeated_time": .number(1)])
        let snap = try object(d.snapshotJSON)
        #expect(snap["filtered"]?.finiteNumber == 5)
        #expect(snap["filtered_by"]?.dict == filtered, "the snapshot counts by reason as the summary does")
    }

    @Test func theElevationHysteresisAndHRmaxSettingsReachTheirTrackers() throws {
        // An 8 m climb: counted with the default 3 m hysteresis, not with 10 m.
        for (config, counted) in [(nil, true), (#"{"elevation_hysteresis_m":10}"#, false)] as [(String?, Bool)] {
            var d = Driver(try EngineConfig.parse(config))
            try d.phase(.start, 0)
            for i in 0...200 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0, alt: 100 + min(8, 0.1 * Double(i))) }
            #expect((d.snapshot.gainM > 3) == counted, "gain \(d.snapshot.gainM) m with \(config ?? "defaults")")
        }
        // 150 bpm is zone 3 of HRmax 190 (79%) and zone 5 of HRmax 160 (94%).
        for (config, zone) in [(nil, 3), (#"{"hr_max":160}"#, 5)] as [(String?, Int)] {
            var d = Driver(try EngineConfig.parse(config))
            try d.phase(.start, 0)
            for i in 0...60 {
                try d.json("{\"type\":\"hr\",\"bpm\":150,\"t\":\(i)}")
                try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0)
            }
            let zones = try #require(try object(d.core.summaryJSON())["hr_zone_s"])
            guard case .array(let seconds) = zones else { Issue.record("hr_zone_s is not an array"); continue }
            let busiest = seconds.indices.max { (seconds[$0].finiteNumber ?? 0) < (seconds[$1].finiteNumber ?? 0) }
            #expect(busiest == zone, "\(config ?? "defaults"): \(seconds)")
        }
    }
}
