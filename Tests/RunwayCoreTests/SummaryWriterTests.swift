import Testing
@testable import RunwayCore

@Suite("SummaryWriter: the flight record as JSON")
struct SummaryWriterTests {
    static let keys = ["kind", "phase", "end_reason", "activity", "filters", "start_t", "end_t", "elapsed_s", "moving_s",
                       "distance_m", "avg_pace_min_per_km", "avg_moving_pace_min_per_km", "avg_speed_mps",
                       "max_speed_mps", "gain_m", "loss_m", "min_altitude_m", "max_altitude_m", "avg_hr_bpm",
                       "max_hr_bpm", "hr_max_setting", "hr_zone_s", "avg_cadence_spm", "max_cadence_spm", "fixes",
                       "filtered", "profile_mismatch", "doppler_check", "points", "segments", "laps"]

    /// A 400 m run at 4 m/s with heart rate, 1 Hz, from t 1000.
    private func run(stop: Bool) throws -> Driver {
        var d = Driver()
        try d.phase(.start, 1_000)
        for s in 0...100 {
            try d.json(#"{"type":"hr","bpm":150,"t":\#(1_000 + s)}"#)
            try d.fix(1_000 + Double(s), 52 + degreesNorth(4 * Double(s)), 4, speed: 4, course: 0, hAcc: 4)
        }
        if stop { try d.phase(.stop, 1_100) }
        return d
    }

    @Test func beforeAnyInputEveryFieldIsPresentAndTheUnknownOnesAreNull() {
        let json = FlightComputer().summaryJSON(includeRoute: false)
        for key in Self.keys { #expect(jsonValue(json, key) != nil, "missing \(key)") }
        for key in ["end_reason", "start_t", "end_t", "avg_pace_min_per_km", "avg_speed_mps", "max_speed_mps",
                    "min_altitude_m", "max_altitude_m", "avg_hr_bpm", "max_hr_bpm", "avg_cadence_spm", "max_cadence_spm"] {
            #expect(jsonValue(json, key) == "null", "\(key) is \(jsonValue(json, key) ?? "missing")")
        }
        #expect(jsonValue(json, "kind") == "\"summary\"" && jsonValue(json, "phase") == "\"preflight\"")
        #expect(jsonValue(json, "laps") == "[]")
        #expect(jsonValue(json, "route") == nil)
    }

    @Test func aStoppedRunHasItsTimesTotalsAndFinalLap() throws {
        let d = try run(stop: true)
        let json = d.core.summaryJSON(includeRoute: false)
        #expect(jsonValue(json, "end_reason") == "\"stopped\"" && jsonValue(json, "phase") == "\"touchdown\"")
        #expect(jsonNumber(json, "start_t") == 1_000 && jsonNumber(json, "end_t") == 1_100)
        #expect(jsonNumber(json, "elapsed_s") == 100)
        let distance = try #require(jsonNumber(json, "distance_m"))
        #expect(abs(distance - 400) < 1)
        #expect(abs((jsonNumber(json, "avg_speed_mps") ?? 0) - distance / 100) < 1e-9)
        #expect(abs((jsonNumber(json, "max_speed_mps") ?? 0) - 4) < 0.05)
        #expect(jsonNumber(json, "avg_hr_bpm") == 150 && jsonNumber(json, "max_hr_bpm") == 150)
        #expect(jsonValue(json, "avg_cadence_spm") == "null")          // no cadence was given
        #expect(jsonValue(json, "min_altitude_m") == "null")           // nor any altitude
        #expect(jsonValue(json, "filters") == "\"on\"" && jsonValue(json, "activity") == "\"run\"")
        let laps = try #require(jsonValue(json, "laps"))
        #expect(jsonValue(laps, "trigger") == "\"final\"")
        #expect(jsonNumber(laps, "index") == 1)
    }

    @Test func beforeTheStopTheEndIsNull() throws {
        let json = try run(stop: false).core.summaryJSON(includeRoute: false)
        #expect(jsonValue(json, "end_reason") == "null" && jsonValue(json, "end_t") == "null")
        #expect(jsonNumber(json, "start_t") == 1_000)
    }

    @Test func theRouteIsWrittenOnlyWhenAskedFor() throws {
        let d = try run(stop: true)
        let with = d.core.summaryJSON(includeRoute: true)
        for key in ["simplify_m", "route_simplified", "segment_starts", "route"] {
            #expect(jsonValue(with, key) != nil, "missing \(key)")
        }
        #expect(jsonValue(with, "segment_starts") == "[0]")
        let without = d.core.summaryJSON(includeRoute: false)
        #expect(jsonValue(without, "route") == nil && jsonValue(without, "segment_starts") == nil)
        #expect(with.hasPrefix(String(without.dropLast())))             // the same record, then the route
    }

    @Test func withTheFiltersOffTheSummarySaysSo() throws {
        var d = Driver(Driver.config(filters: false))
        try d.phase(.start, 1_000)
        try d.fix(1_001, 52, 4)
        #expect(jsonValue(d.core.summaryJSON(includeRoute: false), "filters") == "\"off\"")
    }
}
