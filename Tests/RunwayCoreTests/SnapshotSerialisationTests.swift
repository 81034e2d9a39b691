import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import RunwayCore

/// `FlightData.write` stores its fields in one run (one `reserve`, then capacity checks only,
/// keys and enum names as literals). Its bytes must be exactly those of the field-by-field writer
/// it replaced (`reference` below, through JSONWriter's public calls, each reserving its room),
/// for any values, with the buffer growing in the middle of the run, and into a copied writer.
@Suite("Snapshot serialisation: one run of writes, the same bytes")
struct SnapshotSerialisationTests {
    /// The snapshot as the public writer calls write it (the former FlightData.write).
    static func reference(_ d: FlightData, to w: inout JSONWriter) {
        w.beginObject()
        w.field("kind", "flight")
        w.field("seq", d.seq)
        w.field("t", d.t)
        w.field("phase", d.phase.rawValue)
        w.key("holding_by"); if let h = d.holdingBy { w.string(h) } else { w.null() }
        w.field("lat", d.lat)
        w.field("lon", d.lon)
        w.field("h_acc_m", d.hAccM)
        w.field("accuracy", d.accuracy.rawValue)
        w.field("last_fix_t", d.lastFixT)
        w.field("distance_m", d.distanceM)
        w.field("points", d.points)
        w.field("segments", d.segments)
        w.field("fixes", d.fixes)
        w.field("filtered", d.filtered)
        w.key("filtered_by")
        w.beginObject()
        w.field("accuracy", d.filteredBy.accuracy)
        w.field("null_island", d.filteredBy.nullIsland)
        w.field("speed", d.filteredBy.speed)
        w.field("repeated_time", d.filteredBy.repeatedTime)
        w.endObject()
        w.field("speed_mps", d.speedMps)
        w.field("ground_speed_mps", d.groundSpeedMps)
        w.field("pace_min_per_km", d.paceMinPerKm)
        w.field("avg_pace_min_per_km", d.avgPaceMinPerKm)
        w.field("altitude_m", d.altitudeM)
        w.field("heading_deg", d.headingDeg)
        w.field("elapsed_s", d.elapsedS)
        w.field("moving_s", d.movingS)
        w.field("gain_m", d.gainM)
        w.field("loss_m", d.lossM)
        w.field("grade_pct", d.gradePct)
        w.field("vertical_speed_mps", d.verticalSpeedMps)
        w.field("lap", d.lap)
        w.field("lap_distance_m", d.lapDistanceM)
        w.field("lap_elapsed_s", d.lapElapsedS)
        w.field("hr_bpm", d.hrBpm)
        w.field("cadence_spm", d.cadenceSpm)
        for m in d.metrics { w.field(m.key, m.value) }
        w.key("pfd")
        w.beginObject()
        w.field("pace", PFD.pace(d.paceMinPerKm))
        w.key("pace_tape"); w.strings(PFD.paceTape(d.paceMinPerKm))
        w.field("direction", PFD.direction(d.headingDeg))
        w.key("heading_tape"); w.strings(PFD.headingTape(d.headingDeg))
        w.field("time", PFD.time(d.elapsedS))
        w.field("distance", PFD.distance(d.distanceM))
        w.field("altitude", PFD.altitude(d.altitudeM))
        w.field("avg_pace", PFD.averagePace(d.avgPaceMinPerKm))
        w.field("hr", PFD.whole(d.hrBpm))
        w.field("cadence", PFD.whole(d.cadenceSpm))
        w.endObject()
        w.endObject()
    }

    static func randomValue(_ rng: inout some RandomNumberGenerator) -> Double {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return [.nan, .infinity, -.infinity, 0, -0.0, .greatestFiniteMagnitude, -.leastNonzeroMagnitude,
                        1e-7, 1e300, 5e15].randomElement(using: &rng) ?? .nan
        case 1: return Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng))
        case 2: return Double(Int.random(in: -100_000...100_000, using: &rng))
        case 3: return Double(Int.random(in: -100_000...100_000, using: &rng)) / 100
        default: return Double.random(in: -20_000...20_000, using: &rng)
        }
    }

    static func randomFlight(_ rng: inout some RandomNumberGenerator, metrics: Int) -> FlightData {
        var d = FlightData()
        d.seq = UInt64.random(in: 0...UInt64.max, using: &rng)
        d.phase = FlightPhase.allCases.randomElement(using: &rng) ?? .cruise
        d.holdingBy = [nil, "user", "auto", "q\"b\\\n\u{01}é"].randomElement(using: &rng) ?? nil
        d.accuracy = [.ok, .reduced, .unknown].randomElement(using: &rng) ?? .ok
        d.t = randomValue(&rng); d.lat = randomValue(&rng); d.lon = randomValue(&rng); d.hAccM = randomValue(&rng); d.lastFixT = randomValue(&rng)
        d.distanceM = randomValue(&rng)
        d.points = Int.random(in: Int.min...Int.max, using: &rng)
        d.segments = Int.random(in: 0...1000, using: &rng)
        d.fixes = Int.random(in: -1...Int.max, using: &rng)
        d.filtered = Int.random(in: 0...99, using: &rng)
        d.filteredBy = FilterCounts(accuracy: Int.random(in: 0...9, using: &rng), nullIsland: Int.min,
                                    speed: Int.max, repeatedTime: Int.random(in: 0...1_000_000, using: &rng))
        d.speedMps = randomValue(&rng); d.groundSpeedMps = Double.random(in: 0...8, using: &rng)
        if Bool.random(using: &rng) { d.groundSpeedMps = randomValue(&rng) }
        d.altitudeM = randomValue(&rng); d.headingDeg = randomValue(&rng)
        if Bool.random(using: &rng) { d.headingDeg = Double.random(in: 0..<360, using: &rng) }
        d.elapsedS = randomValue(&rng); d.movingS = randomValue(&rng)
        d.gainM = randomValue(&rng); d.lossM = randomValue(&rng); d.gradePct = randomValue(&rng)
        d.verticalSpeedMps = randomValue(&rng)
        d.lap = Int.random(in: 1...500, using: &rng)
        d.lapDistanceM = randomValue(&rng); d.lapElapsedS = randomValue(&rng)
        d.hrBpm = randomValue(&rng); d.cadenceSpm = randomValue(&rng)
        let keys: [StaticString] = ["power_w", "avg_power_w", "max_power_w", "normalized_power_w"]
        d.metrics = (0..<metrics).map { i in MetricValue(keys[i % keys.count], randomValue(&rng)) }
        return d
    }

    @Test func theSnapshotIsTheFieldByFieldWritersBytes() {
        var rng = SystemRandomNumberGenerator()
        for i in 0..<3000 {
            // Up to 300 metrics: the run outgrows the first reserve and any capacity given.
            let d = Self.randomFlight(&rng, metrics: i % 7 == 0 ? Int.random(in: 0...300, using: &rng) : i % 5)
            var expected = JSONWriter(capacity: 1)
            Self.reference(d, to: &expected)
            for capacity in [1, 64, 1536, 1 << 16] {
                var w = JSONWriter(capacity: capacity)
                d.write(to: &w)
                #expect(w.bytes == expected.bytes, "capacity \(capacity): \(w.text) != \(expected.text)")
            }
        }
    }

    @Test func aSnapshotWrittenIntoACopiedWriterLeavesTheOriginalAlone() {
        var rng = SystemRandomNumberGenerator()
        let d = Self.randomFlight(&rng, metrics: 4)
        var a = JSONWriter(capacity: 1 << 16)
        a.beginArray(); a.integer(1)
        var b = a                        // shares a's buffer until one of them writes
        d.write(to: &b)
        b.endArray()
        a.integer(2); a.endArray()
        var expected = JSONWriter()
        expected.beginArray(); expected.integer(1)
        Self.reference(d, to: &expected)
        expected.endArray()
        #expect(a.text == "[1,2]")
        #expect(b.text == expected.text)
    }

    /// FilterCounts spells its four fields out; they must be every reason, in order, under its key.
    @Test func filterCountsAreEveryReasonInOrder() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            var c = FilterCounts()
            for reason in FixGate.Reason.allCases { c[reason] = Int.random(in: Int.min...Int.max, using: &rng) >> Int.random(in: 0...63, using: &rng) }
            var expected = JSONWriter(capacity: 1)
            expected.beginObject()
            for reason in FixGate.Reason.allCases { expected.key(reason.jsonKey); expected.integer(c[reason]) }
            expected.endObject()
            var w = JSONWriter(capacity: 1)
            c.write(to: &w)
            #expect(w.text == expected.text)
        }
    }

    /// runway_snapshot_json hands the writer's own block to C (`takeCString`): the text with its
    /// NUL, and the writer empty after; a writer sharing its block with a copy hands over its own
    /// copy of the bytes, and the copy keeps them.
    @Test func takeCStringHandsOverTheTextOnlyWhenTheBlockIsTheWritersOwn() {
        var w = JSONWriter(capacity: 4)
        w.beginArray(); w.number(1.5); w.string("é"); w.endArray()
        let text = w.text
        guard let p = w.takeCString() else { Issue.record("not handed over"); return }
        #expect(String(cString: p) == text)
        free(p)
        #expect(w.text.isEmpty)
        w.beginArray(); w.integer(7); w.endArray()      // the writer grows a new block
        #expect(w.text == "[7]")

        var a = JSONWriter()
        a.beginArray(); a.integer(1); a.endArray()
        var b = a                                       // shares a's block
        guard let q = a.takeCString() else { Issue.record("not handed over"); return }
        #expect(String(cString: q) == "[1]")
        free(q)
        #expect(a.text.isEmpty && b.text == "[1]")
        b.integer(2)
        a.integer(3)
        #expect(a.text == "3" && b.text == "[1],2")
    }

    @Test func enumNamesAreTheirRawValues() {
        for p in FlightPhase.allCases { #expect(p.jsonName.description == p.rawValue) }
        for a in [FlightData.Accuracy.ok, .reduced, .unknown] { #expect(a.jsonName.description == a.rawValue) }
    }
}
