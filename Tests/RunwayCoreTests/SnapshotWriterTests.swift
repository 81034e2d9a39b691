import Testing
@testable import RunwayCore

/// The text of the first `"key":` value in compact JSON (a scalar: up to the next `,` or `}`;
/// an object or array: up to its matching bracket); nil when the key is missing.
func jsonValue(_ json: String, _ key: String) -> String? {
    guard let r = json.firstRange(of: "\"\(key)\":") else { return nil }
    var depth = 0, inString = false, escaped = false
    var end = r.upperBound
    while end < json.endIndex {
        let c = json[end]
        if inString {
            if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
        } else if c == "\"" {
            inString = true
        } else if c == "{" || c == "[" {
            depth += 1
        } else if c == "}" || c == "]" {
            if depth == 0 { break }
            depth -= 1
            if depth == 0 { end = json.index(after: end); break }
        } else if c == "," && depth == 0 {
            break
        }
        end = json.index(after: end)
    }
    return String(json[r.upperBound..<end])
}

/// The number at `key`, NaN for null; nil when missing or not a number.
func jsonNumber(_ json: String, _ key: String) -> Double? {
    guard let v = jsonValue(json, key) else { return nil }
    return v == "null" ? .nan : Double(v)
}

@Suite("SnapshotWriter: the flight snapshot, each stage's figures")
struct SnapshotWriterTests {
    static let keys = ["kind", "seq", "t", "phase", "holding_by", "lat", "lon", "h_acc_m", "accuracy", "last_fix_t", "distance_m",
                       "points", "segments", "fixes", "filtered", "filtered_by", "speed_mps", "ground_speed_mps",
                       "pace_min_per_km", "avg_pace_min_per_km", "altitude_m", "heading_deg", "elapsed_s", "moving_s",
                       "gain_m", "loss_m", "grade_pct", "vertical_speed_mps", "lap", "lap_distance_m", "lap_elapsed_s",
                       "hr_bpm", "cadence_spm", "pfd"]

    @Test func beforeAnyFixEveryFieldIsPresentAndTheUnknownOnesAreNull() throws {
        var d = Driver()
        try d.phase(.start, 1_000)
        let json = d.snapshotJSON
        for key in Self.keys { #expect(jsonValue(json, key) != nil, "missing \(key)") }
        for key in ["holding_by", "lat", "lon", "h_acc_m", "last_fix_t", "speed_mps", "ground_speed_mps", "pace_min_per_km",
                    "altitude_m", "heading_deg", "grade_pct", "vertical_speed_mps", "hr_bpm", "cadence_spm"] {
            #expect(jsonValue(json, key) == "null", "\(key) is \(jsonValue(json, key) ?? "missing")")
        }
        #expect(jsonValue(json, "accuracy") == "\"unknown\"")
        #expect(jsonValue(json, "phase") == "\"cruise\"")
        #expect(jsonNumber(json, "distance_m") == 0 && jsonNumber(json, "lap") == 1)
        #expect(jsonNumber(json, "seq") == Double(d.core.flightSeq))
    }

    @Test func aShortRunFillsTheFieldsFromEachStage() throws {
        var d = Driver()
        try d.phase(.start, 1_000)
        for s in 0...40 {
            try d.json(#"{"type":"hr","bpm":150,"t":\#(1_000 + s)}"#)
            try d.fix(1_000 + Double(s), 52 + degreesNorth(3 * Double(s)), 4, speed: 3, course: 0, hAcc: 5, alt: 10 + Double(s) * 0.1)
        }
        try d.fix(1_041, 0, 0)                                        // null island: filtered
        let json = d.snapshotJSON
        let distance = try #require(jsonNumber(json, "distance_m"))
        #expect(abs(distance - 120) < 2)
        #expect(abs((jsonNumber(json, "lat") ?? 0) - (52 + degreesNorth(120))) < 1e-6)
        #expect(jsonNumber(json, "h_acc_m") == 5 && jsonValue(json, "accuracy") == "\"ok\"")
        #expect(jsonNumber(json, "hr_bpm") == 150)
        #expect(abs((jsonNumber(json, "ground_speed_mps") ?? 0) - 3) < 0.05)
        #expect(abs((jsonNumber(json, "pace_min_per_km") ?? 0) - 1000 / 3 / 60) < 0.1)
        #expect(jsonNumber(json, "heading_deg") == 0)
        #expect(jsonNumber(json, "fixes") == 42 && jsonNumber(json, "filtered") == 1)
        #expect(jsonNumber(jsonValue(json, "filtered_by") ?? "", "null_island") == 1)
        #expect(jsonNumber(json, "elapsed_s") == 41 && jsonNumber(json, "moving_s") == 40)
        #expect(jsonNumber(json, "lap_distance_m") == distance)
        #expect((jsonNumber(json, "points") ?? 0) > 20)
        #expect(jsonValue(json, "cadence_spm") == "null")
    }

    @Test func aUsersHoldIsShownAsTheUsers() throws {
        var d = Driver()
        try d.phase(.start, 1_000)
        try d.fix(1_001, 52, 4, speed: 3, course: 0)
        try d.fix(1_002, 52 + degreesNorth(3), 4, speed: 3, course: 0)
        try d.phase(.pause, 1_002)
        try d.fix(1_003, 52 + degreesNorth(6), 4, speed: 3, course: 0)
        let json = d.snapshotJSON
        #expect(jsonValue(json, "phase") == "\"holding\"" && jsonValue(json, "holding_by") == "\"user\"")
        #expect(jsonNumber(json, "ground_speed_mps") == 0)
    }

    /// The snapshot a pause emits shows the runner holding: no speed, no pace (the pace estimator
    /// followed only fixes, and showed the last cruise pace until the next one).
    @Test
    func theSnapshotAUserPauseEmitsShowsNoPace() throws {
        var d = Driver()
        try d.phase(.start, 1_000)
        for s in 0...20 { try d.fix(1_000 + Double(s), 52 + degreesNorth(3 * Double(s)), 4, speed: 3, course: 0) }
        try d.phase(.pause, 1_020)
        let json = d.snapshotJSON
        #expect(jsonValue(json, "phase") == "\"holding\"")
        #expect(jsonNumber(json, "ground_speed_mps") == 0)
        #expect(jsonValue(json, "pace_min_per_km") == "null")
    }
}
