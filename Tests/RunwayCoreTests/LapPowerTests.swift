import Testing
@testable import RunwayCore

/// A lap's power figures are those of its own time, also for a lap cut after its end: an auto
/// lap whose boundary a GPS gap crossed is cut by the fix after the gap, and a manual lap pressed
/// in the gap waits for that fix too, while the power meter went on sending samples.
@Suite("A lap's power is that of its own time")
struct LapPowerTests {
    private static func value(_ key: String, _ values: [MetricValue]) -> Double {
        values.first { $0.key.description == key }?.value ?? .infinity
    }

    /// A meter integrated up to 200 s (1 Hz samples: 200 W before 100 s, 400 W after), its lap
    /// cut at 150 s: the lap has the power up to 150 s, the next lap the rest.
    @Test func aLapCutAfterItsEndHasThePowerUpToItsEnd() {
        var p = PowerMeter()
        for i in 0..<200 {
            let t = Double(i)
            p.advance(to: t, cruising: true)
            p.observe(.sample(.power(watts: i < 100 ? 200 : 400, t: t)), at: t, cruising: true)
        }
        p.advance(to: 200, cruising: true)
        let lap = p.endLap(at: 150)
        #expect(abs(Self.value("avg_power_w", lap) - (100 * 200 + 50 * 400) / 150.0) < 1e-9)
        #expect(Self.value("max_power_w", lap) == 400)
        let next = p.endLap(at: 200)
        #expect(abs(Self.value("avg_power_w", next) - 400) < 1e-9, "\(next)")
        #expect(abs(Self.value("avg_power_w", p.summary()) - 300) < 1e-9)
    }

    /// The meter keeps enough of what it took to go back to a lap's end after its log filled
    /// (1 Hz samples, two steps a second: 200 W up to the lap's end, 400 W after; the lap cut
    /// 20 s later, its end 8 s before the log would have started over from a full one).
    @Test func aLapEndBeforeTheLogFilledIsStillItsEnd() {
        var p = PowerMeter()
        let end = Double(PowerMeter.maxSteps / 2 - 8)
        for i in 0..<Int(end) + 12 {
            let t = Double(i)
            p.advance(to: t, cruising: true)
            p.observe(.sample(.power(watts: t < end ? 200 : 400, t: t)), at: t, cruising: true)
        }
        p.advance(to: end + 12, cruising: true)
        #expect(abs(Self.value("avg_power_w", p.endLap(at: end)) - 200) < 1e-9)
        #expect(abs(Self.value("avg_power_w", p.endLap(at: end + 12)) - 400) < 1e-9)
    }

    /// A ride at 5 m/s, 1 km auto laps, a power meter at 4 Hz (100 W before 150 s, 300 W after),
    /// fixes every second but none from 151 s to 239 s (a tunnel: the auto lap's boundary, 1000 m
    /// at 200 s, is in it), a manual lap pressed at 220.9 s in it. Before, the fix at 240 s cut
    /// both laps at once: the first had the power up to 240 s (175 W) and the manual one none.
    @Test func lapsCutByTheFixAfterAGapHaveThePowerOfTheirOwnTime() throws {
        var c = EngineConfig(activity: .ride)
        c.autoLapM = 1000
        c.autoPause.enabled = false
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0..<400 {
            let t = Double(i)
            if i <= 150 || i >= 240 { try d.fix(t, 31.2 + degreesNorth(5 * t), 121.5, speed: 5, hAcc: 4) }
            for q in 0..<4 {
                let at = t + Double(q) / 4
                try d.json("{\"type\":\"power\",\"watts\":\(at < 150 ? 100 : 300),\"t\":\(at)}")
            }
            if i == 220 { try d.core.lap(at: 220.9, wallClock: .nan, events: &d.events) }
        }
        try d.phase(.stop, 400)
        let laps = d.events.compactMap { e -> Lap? in if case .split(let l) = e.body { return l } else { return nil } }
        try #require(laps.count == 3, "\(laps.map { ($0.trigger, $0.endT) })")
        #expect(abs(laps[0].endT - 200) < 2, "\(laps[0].endT)")
        let firstW = (150 * 100 + (laps[0].endT - 150) * 300) / laps[0].endT
        #expect(abs(Self.value("avg_power_w", laps[0].metrics) - firstW) < 0.5, "\(laps[0].metrics), \(firstW) W expected")
        #expect(laps[1].trigger == .manual && laps[1].endT == 220.9)
        #expect(abs(Self.value("avg_power_w", laps[1].metrics) - 300) < 1e-9, "\(laps[1].metrics)")
        #expect(Self.value("max_power_w", laps[1].metrics) == 300)
        #expect(abs(Self.value("avg_power_w", laps[2].metrics) - 300) < 1e-9, "\(laps[2].metrics)")
    }

    /// A sample held across a lap's start (1 Hz samples: 400 W at 10 s, the lap at 10.5 s, then
    /// 100 W) counts toward the new lap's maximum as it does toward its average: the lap's
    /// average (175 W) is no more than its maximum (400 W), not above it (100 W before).
    @Test func aSampleHeldIntoALapCountsTowardItsMaximum() {
        var p = PowerMeter()
        for (t, w) in [(9.0, 200.0), (10, 400)] {
            p.advance(to: t, cruising: true)
            p.observe(.sample(.power(watts: w, t: t)), at: t, cruising: true)
        }
        p.advance(to: 10.5, cruising: true)
        _ = p.endLap(at: 10.5)
        for t in [11.0, 12] {
            p.advance(to: t, cruising: true)
            p.observe(.sample(.power(watts: 100, t: t)), at: t, cruising: true)
        }
        p.advance(to: 12.5, cruising: true)
        let lap = p.endLap(at: 12.5)
        #expect(abs(Self.value("avg_power_w", lap) - 175) < 1e-9)
        #expect(Self.value("max_power_w", lap) == 400, "\(lap)")
    }

    /// 1 Hz samples from `watts(t)` for `seconds` from `t0`, the meter advanced to the end.
    private static func ride(_ p: inout PowerMeter, from t0: Double, _ seconds: Int, _ watts: (Double) -> Double) {
        for i in 0..<seconds {
            let t = t0 + Double(i)
            p.advance(to: t, cruising: true)
            p.observe(.sample(.power(watts: watts(t), t: t)), at: t, cruising: true)
        }
        p.advance(to: t0 + Double(seconds), cruising: true)
    }

    /// A lap's normalised power is over its own samples: after 100 s at 400 W, a lap of 20 s at
    /// 100 W, fewer than the window's 30, has none (before, its rolling means took the 400 W of
    /// the lap before: 311 W, above its maximum), and the next, 60 s at 100 W, has 100 W (before:
    /// 115 W). The flight's is over all its seconds, as before.
    @Test func aLapsNormalisedPowerIsOverItsOwnSamples() {
        var p = PowerMeter()
        Self.ride(&p, from: 0, 100, { _ in 400 })
        #expect(Self.value("normalized_power_w", p.endLap(at: 100)) == 400)
        Self.ride(&p, from: 100, 20, { _ in 100 })
        let short = p.endLap(at: 120)
        #expect(Self.value("normalized_power_w", short).isNaN, "\(short)")
        #expect(Self.value("max_power_w", short) == 100)
        Self.ride(&p, from: 120, 60, { _ in 100 })
        let next = p.endLap(at: 180)
        #expect(Self.value("normalized_power_w", next) == 100, "\(next)")
        let whole = Array(repeating: 400.0, count: 100) + Array(repeating: 100.0, count: 80)
        var fourth = 0.0
        for end in 29..<whole.count {
            let mean = whole[(end - 29)...end].reduce(0, +) / 30
            fourth += mean * mean * mean * mean
        }
        let np = Self.value("normalized_power_w", p.summary())
        #expect(abs(np - (fourth / 151).squareRoot().squareRoot()) < 1e-6, "\(np)")
    }

    /// A lap cut after its end (integrated to 200 s, cut at 160 s: 100 W up to 120 s, where the
    /// lap before ended, 300 W to 160 s, 200 W after) has the normalised power of its own seconds
    /// up to its end, 300 W, and the next lap its own from there, 200 W: a window that starts
    /// empty at 160 s (before: 251 W and 243 W, rolling means reaching into the lap before).
    @Test func aLapCutAfterItsEndHasTheNormalisedPowerOfItsOwnSeconds() {
        var p = PowerMeter()
        Self.ride(&p, from: 0, 120, { _ in 100 })
        _ = p.endLap(at: 120)
        Self.ride(&p, from: 120, 80, { t in t < 160 ? 300 : 200 })
        let lap = p.endLap(at: 160)
        #expect(Self.value("normalized_power_w", lap) == 300, "\(lap)")
        let next = p.endLap(at: 200)
        #expect(Self.value("normalized_power_w", next) == 200, "\(next)")
    }
}
