import Testing
import Glibc
@testable import RunwayCore

/// A bike computer's or a runner's watch's live screen through a GPS loss (a tunnel): 1 Hz fixes,
/// a speed sensor (a wheel sensor, a foot pod) at 1 Hz between them, the display read on each
/// second's tick. The sensor carries the speed and the distance while the fixes are gone, the
/// fixes take them up again without a jump, and the flight's totals count the loss once.
@Suite("A speed sensor carries the live numbers through a GPS loss")
struct SensorThroughGPSLossTests {
    static let t0 = 1_700_000_000.0

    /// What the screen showed each second, and the flight.
    struct Ride {
        var distance: [Double] = [], speed: [Double] = [], ground: [Double] = []
        var record: FlightRecord
        var sensorM: Double
        var truthM: Double
        /// The largest rise of the distance from one second to the next over `seconds`, and the
        /// longest run of seconds in which it did not rise at all (the rider moves throughout).
        func maxStepM(_ seconds: ClosedRange<Int>) -> Double {
            seconds.dropFirst().map { distance[$0] - distance[$0 - 1] }.max() ?? 0
        }
        func longestStallS(_ seconds: ClosedRange<Int>) -> Int {
            var run = 0, longest = 0
            for k in seconds.dropFirst() { run = distance[k] > distance[k - 1] ? 0 : run + 1; longest = max(longest, run) }
            return longest
        }
    }

    /// A flight of `seconds` at `v` with the loss, auto-pause off; the sensor reads `scale` times
    /// the true speed.
    func ride(_ activity: Activity, v: Double, lossS: Double, doppler: Bool, filters: Bool = true,
              scale: Double = 1, seconds: Int = 600) throws -> Ride {
        var config = EngineConfig(activity: activity)
        config.autoPause.enabled = false
        config.filters = filters
        var d = Driver(config)
        // 240 s north, the loss round a half circle (its chord 2/π of its length), then south:
        // fixes at 240 s and at 240 s + the loss, none between.
        let path = CurvedTunnel(v: v, before: 240, tunnelS: lossS)
        try d.phase(.start, Self.t0)
        var r = Ride(record: d.core.record, sensorM: 0, truthM: Double(seconds) * v)
        for k in 0...seconds {
            let t = Self.t0 + Double(k)
            if k > 0 {
                let s = try ValidatedInput(.sample(.speed(mps: v * scale, t: t - 0.5)))
                try d.core.process(s, wallClock: .nan, events: &d.events)
            }
            if !path.inTunnel(k) || k == 240 {
                let (lat, lon) = path.position(at: Double(k))
                try d.fix(t, lat, lon, speed: doppler ? v : .nan, hAcc: 4)
            }
            try d.core.tick(at: t, wallClock: .nan, events: &d.events)
            let s = d.snapshot
            r.distance.append(s.distanceM); r.speed.append(s.speedMps); r.ground.append(s.groundSpeedMps)
        }
        try d.phase(.stop)
        r.record = d.core.record
        r.sensorM = d.core.sensorDistance
        return r
    }

    static let cases: [(Activity, Double, Double, Bool)] = [
        (.ride, 8, 60, true), (.ride, 8, 60, false), (.ride, 8, 20, true), (.ride, 8, 20, false),
        (.run, 3.3, 60, true), (.run, 3.3, 60, false), (.run, 3.3, 20, true), (.run, 3.3, 20, false),
    ]

    /// Through the loss the screen keeps the sensor's speed and its distance: the distance
    /// stands no longer than three of the receiver's intervals (while the fix may yet come) and
    /// never rises by more than the sensor measured in the seconds it stood, when the sensor
    /// takes the loss up and when the fixes come back. The flight counts the loss once, at its
    /// length: within 0.1 % of the truth (the loss's straight line alone is 2/π of it).
    @Test(arguments: cases)
    func theSensorCarriesTheScreenThroughTheLoss(_ activity: Activity, _ v: Double, _ lossS: Double, _ doppler: Bool) throws {
        let r = try ride(activity, v: v, lossS: lossS, doppler: doppler)
        let start = 240, end = 240 + Int(lossS), around = start - 10...end + 10
        let err = (r.record.distanceM - r.truthM) / r.truthM * 100
        print("loss \(activity) \(v) m/s \(Int(lossS)) s doppler \(doppler): distance \(r.record.distanceM) m of \(r.truthM) m (\(err) %), sensor \(r.sensorM) m; around it the largest rise a second \(r.maxStepM(around)) m, the longest stand \(r.longestStallS(around)) s (all flight \(r.maxStepM(1...r.distance.count - 1)) m, \(r.longestStallS(1...r.distance.count - 1)) s); screen around the loss (distance/speed/ground):")
        print((start - 2...end + 2).map { k in "  \(k): \(r.distance[k]) / \(r.speed[k]) / \(r.ground[k])" }.joined(separator: "\n"))
        #expect(r.longestStallS(around) <= 3, "the distance stood \(r.longestStallS(around)) s")
        #expect(r.maxStepM(around) <= 4 * v + 1e-6, "the distance rose \(r.maxStepM(around)) m in a second")
        for k in 1...r.distance.count - 1 {
            #expect(r.distance[k] >= r.distance[k - 1])
            if k <= end - 1 { #expect(!r.ground[k].isNaN && (!doppler || !r.speed[k].isNaN), "no speed shown at \(k) s") }
            if (start + 4..<end).contains(k) {
                #expect(abs(r.speed[k] - v) < 1e-9 && abs(r.ground[k] - v) < 1e-3 * v, "at \(k) s: \(r.speed[k]), \(r.ground[k])")
            }
            if (start + 5..<end).contains(k) {
                #expect(abs(r.distance[k] - r.distance[k - 1] - v) < 1e-6, "at \(k) s the sensor's \(v) m")
            }
        }
        #expect(abs(err) <= 0.1, "\(r.record.distanceM) m of \(r.truthM) m")
        #expect(abs(r.sensorM - lossS * v) <= v + 1e-6, "the sensor measured \(r.sensorM) m of the \(lossS * v) m loss")
        #expect(r.record.movingS <= r.record.elapsedS && r.record.movingS >= r.record.elapsedS - 3)
    }

    /// A pause and a resume inside a loss, a sample after the resume (the sensor measures the
    /// resumed leg), then fixes: the fix after the loss credits the share of its line before the
    /// pause (the leg's end), which lies before the sample; the pace window counts it there, so
    /// no pace or maximum runs faster than the runner (with the sample counted as the stretch
    /// after it, the window read 8.4 m/s for a runner at 4.1 in a random flight).
    @Test(arguments: [true, false])
    func aLegEndCreditedAfterTheSensorsSampleIsNoBurstOfPace(_ doppler: Bool) throws {
        var config = EngineConfig(activity: .run)
        config.autoPause.enabled = false
        var d = Driver(config)
        let v = 4.0
        try d.phase(.start, Self.t0)
        for k in 0...200 {
            let t = Self.t0 + Double(k)
            if k == 106 { try d.phase(.pause, t - 0.5) }
            if k == 115 { try d.phase(.resume, t - 0.5) }
            if k == 116 { try d.core.process(try ValidatedInput(.sample(.speed(mps: v, t: t - 0.25))), wallClock: .nan, events: &d.events) }
            if !(101...115).contains(k) { try d.fix(t, 52 + degreesNorth(v * Double(k)), 4, speed: doppler ? v : .nan, hAcc: 4) }
            #expect(d.core.distance >= 0)
        }
        try d.phase(.stop)
        let r = d.core.record
        #expect(r.maxSpeedMps <= 1.05 * v, "max \(r.maxSpeedMps) m/s")
        #expect(abs(r.distanceM - v * (200 - 9)) <= 0.02 * v * 200, "\(r.distanceM) m")
    }

    /// Auto-paused at a stop, the rider sets off inside a 10 s dropout, a sample at its end (a
    /// sensor that reports rarely). While auto-paused the samples wait `gap_s`, so the fix after
    /// the dropout measures the set-off, as without a sensor: when the sample was a step of the
    /// hold from three intervals on, it began the resume's fast hold, and the fix's step (47 m)
    /// was credited over the quarter second after it: a max of 20.3 m/s for a rider at 6 (as in
    /// the receiver fuzz's flight 1564, 13.2 m/s for 9.0).
    @Test(arguments: [true, false])
    func aSetOffInADropoutWhileAutoPausedIsNoBurst(_ doppler: Bool) throws {
        var d = Driver(EngineConfig(activity: .ride))   // (auto-pause on: the ride's default)
        let v = 6.0, setOff = 162.0
        func north(_ k: Int) -> Double { Double(k) <= 100 ? v * Double(k) : Double(k) <= setOff ? 600 : 600 + v * (Double(k) - setOff) }
        try d.phase(.start, Self.t0)
        for k in 0...300 {
            let t = Self.t0 + Double(k)
            if k == 170 { try d.core.process(try ValidatedInput(.sample(.speed(mps: v, t: t - 0.25))), wallClock: .nan, events: &d.events) }
            if (161...169).contains(k) { continue }
            let moving = k <= 100 || Double(k) > setOff
            try d.fix(t, 52 + degreesNorth(north(k)), 4, speed: doppler ? (moving ? v : 0) : .nan, hAcc: 4)
        }
        try d.phase(.stop)
        let r = d.core.record
        // The sample claims its speed since the last fix at 160 s: 12 m more than the way from 162 s.
        let truth = north(300), claimed = v * (169.75 - 160) - v * (169.75 - setOff)
        print("held silence doppler \(doppler): \(r.distanceM) m, truth \(truth) m (+\(claimed) m claimed by the sample), moving \(r.movingS) s, max \(r.maxSpeedMps) m/s")
        #expect(r.distanceM <= truth + claimed + 10, "\(r.distanceM) m of \(truth) m")
        #expect(r.distanceM >= truth - 20, "\(r.distanceM) m of \(truth) m")
        #expect(r.movingS <= r.elapsedS)
        #expect(r.maxSpeedMps <= 1.05 * v, "max \(r.maxSpeedMps) m/s")
    }
}
