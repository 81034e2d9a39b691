import Testing
@testable import RunwayCore

/// The live screen's power: the 10 s power and the lap in progress's average, maximum and
/// normalised power in the snapshot (a bike computer's 10 s, lap avg, lap max and lap NP).
@Suite("Live power: 10 s and the lap so far")
struct LivePowerTests {
    private static func value(_ key: String, _ values: [MetricValue]) -> Double {
        values.first { $0.key.description == key }?.value ?? .infinity
    }

    /// A meter at `hz` samples a second, 250 W before `step`, 150 W from it on, read at `t`.
    private static func stepMeter(hz: Int, step: Double, until end: Double) -> PowerMeter {
        var p = PowerMeter()
        var i = 0
        while Double(i) / Double(hz) <= end {
            let t = Double(i) / Double(hz)
            p.advance(to: t, cruising: true)
            p.observe(.sample(.power(watts: t < step ? 250 : 150, t: t)), at: t, cruising: true)
            i += 1
        }
        return p
    }

    /// 250 W then 150 W from 100 s: `k` seconds after the step the 10 s power is
    /// (250·(10 − k) + 150·k) / 10, a straight ramp down to 150 W at 10 s, at 1, 2 and 4 Hz
    /// (each sample held until the next); the 3 s power is 150 W from 3 s after it.
    @Test(arguments: [1, 2, 4]) func tenSecondPowerFollowsAStepChange(hz: Int) {
        for k in 0...12 {
            let t = 100 + Double(k)
            let p = Self.stepMeter(hz: hz, step: 100, until: t)
            let expected = k >= 10 ? 150 : (250 * Double(10 - k) + 150 * Double(k)) / 10
            #expect(abs(p.tenSecond(at: t) - expected) < 1e-9, "\(hz) Hz, \(k) s after the step: \(p.tenSecond(at: t)) W, \(expected) expected")
            #expect(Self.value("power_10s_w", p.snapshot(at: t)) == p.tenSecond(at: t))
            if k >= 3 { #expect(p.current(at: t) == 150) }
        }
    }

    /// A dropout is no power: 200 W at 1 Hz up to 50 s, then no sample until 70 s, 100 W from
    /// there. The last sample before the dropout holds for 5 s (to 55 s), so the 10 s power stays
    /// 200 W while that covers any of the window (up to 65 s), then is unknown; after it, the new samples alone
    /// count (the dropout's seconds count for nothing, not as zeros).
    @Test func aDropoutIsLeftOutOfTheTenSecondPower() {
        var p = PowerMeter()
        var readings: [Double: Double] = [:]
        for i in 0...800 {
            let t = Double(i) / 10
            p.advance(to: t, cruising: true)
            if i % 10 == 0 && (t <= 50 || t >= 70) {
                p.observe(.sample(.power(watts: t <= 50 ? 200 : 100, t: t)), at: t, cruising: true)
            }
            readings[t] = p.tenSecond(at: t)
        }
        for t in [52.0, 55, 60, 64.9] { #expect(readings[t] == 200, "\(t): \(readings[t] ?? -1)") }
        for t in [65.0, 67.5, 69.9] { #expect(readings[t]?.isNaN == true, "\(t): the last sample went stale at 55 s") }
        #expect(readings[70] == 100, "a sample that has just come is its own mean")
        for t in [72.5, 75, 80] { #expect(readings[t] == 100, "\(t): \(readings[t] ?? -1)") }
    }

    /// The lap so far in the snapshot is what the split gives for the lap ended then, also when
    /// the lap is cut later (a lap that waited for its step: the meter goes back to its end):
    /// 1 Hz samples, 180 W then 300 W from 40 s, laps ended at 25.5 s, 70 s and 140 s (the second
    /// and third with 30 covered seconds and more: a normalised power), each read at its end and
    /// cut 7 s later.
    @Test func theSnapshotsLapFiguresAreTheSplits() {
        var p = PowerMeter()
        var t = 0.0
        func ride(to end: Double) {
            while t <= end {
                p.advance(to: t, cruising: true)
                p.observe(.sample(.power(watts: t < 40 ? 180 : 300, t: t)), at: t, cruising: true)
                t += 1
            }
            p.advance(to: end, cruising: true)
        }
        for end in [25.5, 70, 140] {
            ride(to: end)
            let shown = p.snapshot(at: end)
            ride(to: end + 7)
            let split = p.endLap(at: end)
            for (lapKey, key) in [("lap_avg_power_w", "avg_power_w"), ("lap_max_power_w", "max_power_w"),
                                  ("lap_normalized_power_w", "normalized_power_w")] {
                #expect(Self.value(lapKey, shown).bitPattern == Self.value(key, split).bitPattern,
                        "lap to \(end) s: \(lapKey) \(Self.value(lapKey, shown)), the split's \(Self.value(key, split))")
            }
            #expect(!Self.value("avg_power_w", split).isNaN && (end == 25.5) == Self.value("normalized_power_w", split).isNaN)
        }
        // A lap just begun has no figures yet.
        var fresh = PowerMeter()
        fresh.advance(to: 0, cruising: true)
        fresh.observe(.sample(.power(watts: 200, t: 0)), at: 0, cruising: true)
        fresh.advance(to: 3, cruising: true)
        _ = fresh.endLap(at: 3)
        let now = fresh.snapshot(at: 3)
        #expect(Self.value("lap_avg_power_w", now).isNaN && Self.value("lap_max_power_w", now).isNaN)
        #expect(Self.value("lap_normalized_power_w", now).isNaN && Self.value("avg_power_w", now) == 200)
    }
}
