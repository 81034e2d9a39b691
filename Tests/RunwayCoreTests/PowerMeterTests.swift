import Testing
@testable import RunwayCore
import RunwaySim
#if canImport(Glibc)
import Glibc
#endif

/// Feeds a power meter one sample a second (NaN: no sample that second) while cruising.
private func meter(_ watts: [Double], from t0: Double = 0, cruising: Bool = true) -> PowerMeter {
    var p = PowerMeter()
    for (i, w) in watts.enumerated() {
        let t = t0 + Double(i)
        p.advance(to: t, cruising: cruising)
        if !w.isNaN { p.observe(.sample(.power(watts: w, t: t)), at: t, cruising: cruising) }
    }
    p.advance(to: t0 + Double(watts.count), cruising: cruising)
    return p
}

private func value(_ key: String, _ values: [MetricValue]) -> Double {
    values.first { $0.key.description == key }?.value ?? .infinity
}

/// Normalised power by its definition, from a whole-second series: the 30 s rolling mean from
/// the 30th second on, the mean of its fourth powers, the fourth root.
private func normalisedByDefinition(_ w: [Double]) -> Double {
    guard w.count >= 30 else { return .nan }
    var fourth = 0.0, n = 0
    for end in 29..<w.count {
        let mean = w[(end - 29)...end].reduce(0, +) / 30
        fourth += pow(mean, 4)
        n += 1
    }
    return pow(fourth / Double(n), 0.25)
}

@Suite("Power")
struct PowerMeterTests {
    @Test func aSteadyEffortIsItsOwnAverageMaximumAndNormalisedPower() {
        let p = meter(Array(repeating: 200, count: 600))
        let s = p.summary()
        #expect(abs(value("avg_power_w", s) - 200) < 1e-9)
        #expect(value("max_power_w", s) == 200)
        #expect(abs(value("normalized_power_w", s) - 200) < 1e-9)
        #expect(value("power_w", p.snapshot(at: 599)) == 200)
    }

    /// Intervals (30 s at 400 W, 30 s coasting at 0 W): the average is 200 W, normalised power
    /// the definition's, near the triangle wave's 400·5^(−1/4) = 267.5 W.
    @Test func intervalsGiveTheNormalisedPowerOfTheDefinition() {
        var series: [Double] = []
        for i in 0..<1800 { series.append((i / 30) % 2 == 0 ? 400 : 0) }
        let s = meter(series).summary()
        #expect(abs(value("avg_power_w", s) - 200) < 1e-9)
        #expect(value("max_power_w", s) == 400)
        let np = value("normalized_power_w", s)
        #expect(abs(np - normalisedByDefinition(series)) < 1e-6)
        #expect(abs(np - 400 * pow(0.2, 0.25)) / np < 0.01)
    }

    @Test(arguments: [UInt64(3), 8, 21])
    func aRandomProfileMatchesTheDefinition(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let series = (0..<900).map { _ in Double(Int.random(in: 0...600, using: &rng)) }
        let s = meter(series).summary()
        #expect(abs(value("avg_power_w", s) - series.reduce(0, +) / Double(series.count)) < 1e-6)
        #expect(value("max_power_w", s) == series.max())
        #expect(abs(value("normalized_power_w", s) - normalisedByDefinition(series)) < 1e-6)
    }

    @Test func zeroWattsWhileCoastingCountButAMissingSampleDoesNot() {
        let coasting = meter(Array(repeating: 300, count: 100) + Array(repeating: 0, count: 100))
        #expect(abs(value("avg_power_w", coasting.summary()) - 150) < 1e-9)
        // The sensor drops out for 100 s: its last sample holds 5 s, then nothing counts.
        let dropout = meter(Array(repeating: 300, count: 100) + Array(repeating: .nan, count: 100))
        #expect(abs(value("avg_power_w", dropout.summary()) - 300) < 1e-9)
        #expect(value("power_w", dropout.snapshot(at: 199)).isNaN)
    }

    @Test func nothingIsKnownWithoutSamplesAndHoldingDoesNotCount() {
        let none = meter(Array(repeating: .nan, count: 60))
        #expect(none.summary().allSatisfy { $0.value.isNaN })
        let held = meter(Array(repeating: 250, count: 60), cruising: false)
        #expect(value("avg_power_w", held.summary()).isNaN)
        #expect(value("max_power_w", held.summary()).isNaN)
    }

    @Test func eachLapHasItsOwnFigures() {
        var p = PowerMeter()
        var t = 0.0
        func ride(_ seconds: Int, _ w: Double) {
            for _ in 0..<seconds {
                p.advance(to: t, cruising: true)
                p.observe(.sample(.power(watts: w, t: t)), at: t, cruising: true)
                t += 1
            }
            p.advance(to: t, cruising: true)
        }
        ride(120, 150)
        let first = p.endLap(at: .nan)
        ride(120, 250)
        let second = p.endLap(at: .nan)
        #expect(abs(value("avg_power_w", first) - 150) < 1e-9 && value("max_power_w", first) == 150)
        #expect(abs(value("avg_power_w", second) - 250) < 1e-9 && value("max_power_w", second) == 250)
        #expect(abs(value("avg_power_w", p.summary()) - 200) < 1e-9)
    }

    /// End to end through the engine: power on fixes and as samples reaches the snapshot, each
    /// split and the summary; a paused stretch does not count.
    @Test func powerReachesTheSnapshotSplitsAndSummary() throws {
        var c = EngineConfig(activity: .ride)
        c.autoLapM = 1000
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 1...400 {   // 5 m/s: 2 km, two auto laps
            let t = Double(i), w: Double = i <= 200 ? 180 : 220
            let f = Fix(t: t, lat: 31.2 + degreesNorth(5 * t), lon: 121.5, speed: 5, power: i % 2 == 0 ? w : .nan)
            try d.core.process(.fix(f), wallClock: .nan, events: &d.events)
            if i % 2 == 1 { try d.json("{\"type\":\"power\",\"watts\":\(w),\"t\":\(t)}") }
        }
        try d.phase(.pause, 400.5)
        try d.json("{\"type\":\"power\",\"watts\":1000,\"t\":401}")   // while paused: not counted
        try d.phase(.stop, 402)
        // The current power is the mean of the last 3 s of samples (220 W at 400 s, 1000 W at
        // 401 s): shown while paused, though not counted.
        #expect(d.snapshotJSON.contains("\"power_w\":610.0"))
        let summary = d.core.summaryJSON(includeRoute: false)
        #expect(summary.contains("\"max_power_w\":220.0"))
        let avg = jsonNumber(summary, "avg_power_w") ?? 0
        #expect(abs(avg - 200) < 0.6, "\(avg)")
        let splits = d.events.compactMap { e -> Lap? in if case .split(let l) = e.body { return l } else { return nil } }
        #expect(splits.count >= 2)
        #expect(abs(value("avg_power_w", splits[0].metrics) - 180) < 0.6)
        #expect(abs(value("avg_power_w", splits[1].metrics) - 220) < 0.6)
        #expect(d.core.laps.laps.allSatisfy { !$0.metrics.isEmpty })   // the record's laps have them too
    }

    @Test func badPowerIsRefusedWithAMessage() {
        #expect(throws: RunwayError.self) { try ValidatedInput(.sample(.power(watts: -3, t: 0))) }
        #expect(throws: RunwayError.self) { try ValidatedInput(.sample(.power(watts: 9000, t: 0))) }
        #expect(throws: RunwayError.self) { try ValidatedInput(.fix(Fix(t: 0, lat: 1, lon: 1, power: .infinity))) }
        do {
            _ = try ValidatedInput(.sample(.power(watts: .nan, t: 0)))
            Issue.record("a power sample without watts was accepted")
        } catch {
            #expect(error.message.contains("watts"))
        }
    }
}

@Suite("Power on a real ride")
struct PowerOnARealRideTests {
    /// The 79 km ELEMNT ride in ../shared/tracks (power in every record, 54 auto-pause segments):
    /// its session message says avg 102 W, max 668 W, normalised 157 W. Its records' highest power
    /// is 648 W (Garmin's SDK reads the same): the device's maximum comes from readings it did
    /// not record, so the flight's maximum is the records' own. Average and normalised power are
    /// within 5 % of the device's (measured: 106.1 W, +4.0 %, and 155.2 W, −1.1 %; the engine's
    /// auto-pause and the device's differ a little in what counts as riding).
    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"))
    func theElemntRideMatchesItsOwnSessionFigures() throws {
        guard let dir = SharedTracks.folder,
              let bytes = SharedTracks.read(dir + "/fitdecode__2019-02-17-062644-ELEMNT-297E-195-0.fit") else {
            Issue.record("the ride is missing"); return
        }
        let inputs = try bytes.withUnsafeBytes { (b) throws(RunwayError) in try Importer.read(b, as: .fit) }
        var d = Driver(EngineConfig(activity: .ride))
        var started = false
        for input in inputs {
            if !started { try d.phase(.start, input.t); started = true }
            try? d.core.process(input, wallClock: .nan, events: &d.events)
            d.events.removeAll(keepingCapacity: true)
        }
        try d.phase(.stop)
        let s = d.core.metrics.summary()
        let avg = value("avg_power_w", s), max = value("max_power_w", s), np = value("normalized_power_w", s)
        print("ELEMNT ride: avg \(avg) W, max \(max) W, normalised \(np) W")
        let recorded = inputs.compactMap { input -> Double? in
            if case .fix(let f) = input, !f.power.isNaN { return f.power }
            if case .sample(.power(let w, _)) = input { return w }
            return nil
        }
        #expect(max == recorded.max() && max <= 668)
        #expect(abs(avg - 102) / 102 < 0.05, "avg \(avg) W")
        #expect(abs(np - 157) / 157 < 0.05, "normalised \(np) W")
    }
}
