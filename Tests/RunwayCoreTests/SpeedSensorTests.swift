import Testing
import Glibc
@testable import RunwayCore
import RunwaySim

/// Speed samples (a wheel sensor, a foot pod, a treadmill) measure a flight where positions are silent.
@Suite("Speed samples: a flight measured by a speed sensor where positions are silent")
struct SpeedSensorTests {
    static let t0 = 1_700_000_000.0

    /// A reproducible stream of speeds (a linear congruential generator; no test tunes on it).
    struct Speeds {
        var state: UInt64
        mutating func next(in range: ClosedRange<Double>) -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return range.lowerBound + Double(state >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
        }
    }

    func speed(_ d: inout Driver, _ t: Double, _ mps: Double) throws {
        try d.core.process(try ValidatedInput(.sample(.speed(mps: mps, t: t))), wallClock: .nan, events: &d.events)
    }

    /// A flight started at `t0`, auto-pause off (`distanceFilterM` nil: the default).
    func started(_ activity: Activity, filters: Bool = true, distanceFilterM: Double? = nil) throws -> Driver {
        var config = EngineConfig(activity: activity)
        config.autoPause.enabled = false
        config.filters = filters
        if let distanceFilterM { config.distanceFilterM = distanceFilterM }
        var d = Driver(config)
        try d.phase(.start, Self.t0)
        return d
    }

    /// Indoors (no fix at all): distance is each sample's speed over the time since the one before,
    /// moving time the samples at a walker's speed or more; standing samples add neither, and the
    /// time before the first sample of the flight counts from the start. Over seeds and profiles.
    @Test(arguments: [(Activity.run, UInt64(1)), (.walk, 2), (.ride, 3), (.run, 41), (.ride, 97)])
    func anIndoorFlightIsItsSamplesSpeedOverTime(_ activity: Activity, _ seed: UInt64) throws {
        var config = EngineConfig(activity: activity)
        config.autoPause.enabled = false
        config.autoLapM = 1000
        var d = Driver(config)
        try d.phase(.start, Self.t0)
        var rng = Speeds(state: seed)
        var t = Self.t0, distance = 0.0, moving = 0.0
        let top = min(activity.speedCapMps, 8)
        for k in 0..<900 {
            let dt = rng.next(in: 0.5...2)                    // a sensor's uneven intervals
            let v = (300..<360).contains(k) ? rng.next(in: 0...0.3) : rng.next(in: 1...top)   // a minute standing
            t += dt
            try speed(&d, t, v)
            if v >= config.stillness.movingDopplerMps { distance += v * dt; moving += dt }
        }
        try d.phase(.stop)
        let r = d.core.record
        #expect(abs(r.distanceM - distance) <= 1e-6 * distance, "\(r.distanceM) m, the samples' \(distance) m")
        #expect(abs(r.movingS - moving) <= 1e-6 * moving && r.movingS < r.elapsedS)
        #expect(r.elapsedS == t - Self.t0)
        #expect(r.route.count == 0)
        // Auto-laps at each kilometre, and the laps add up to the flight.
        #expect(r.laps.count == Int(distance / 1000) + 1)
        #expect(abs(r.laps.reduce(0) { $0 + $1.distanceM } - r.distanceM) <= 1e-6 * distance)
        #expect(abs(r.laps.reduce(0) { $0 + $1.elapsedS } - r.elapsedS) <= 1e-6 * r.elapsedS)
        #expect(r.maxSpeedMps <= top && r.maxSpeedMps > 1)
    }

    /// A ride whose GPS locks seven minutes after the start, its wheel sensor on throughout: the
    /// sensor measures until the first fix, the positions after it, and no stretch counts twice.
    @Test(arguments: [true, false])
    func theSensorMeasuresUntilTheFirstFixAndThePositionsAfterIt(_ doppler: Bool) throws {
        var config = EngineConfig(activity: .ride)
        config.autoPause.enabled = false
        var d = Driver(config)
        try d.phase(.start, Self.t0)
        let v = 6.0
        for k in 1...420 { try speed(&d, Self.t0 + Double(k), v) }
        #expect(abs(d.core.distance - 420 * v) < 1e-9 && d.core.movingS == 420)
        var north = 0.0
        for k in 420...1020 {
            try d.fix(Self.t0 + Double(k), 52 + degreesNorth(north), 4, speed: doppler ? v : .nan, hAcc: 4)
            if k > 420 { try speed(&d, Self.t0 + Double(k), v) }   // the wheel, after the fix: measures nothing
            north += v
        }
        try d.phase(.stop)
        let r = d.core.record
        let truth = 1020 * v
        #expect(abs(r.distanceM - truth) <= 0.0001 * truth, "\(r.distanceM) m of \(truth) m")
        #expect(abs(r.movingS - 1020) <= 5 && r.elapsedS == 1020)
        #expect(r.route.count > 0 && r.route.distanceM(0) >= 420 * v - 0.01, "the route begins where the sensor left off")
    }

    /// A fix before the start (a phone that had a position at the door) does not stop the sensor:
    /// it measures until the first fix in cruise, and positions take the leg up from where it
    /// left off (the leg's share of the line from the fix before the start begins there), so the
    /// stretch counts once. Indoors, where no fix follows, the sensor measures it all. Filters on
    /// and off, with Doppler speed and without.
    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aFixBeforeTheStartDoesNotStopTheSensor(_ filters: Bool, _ doppler: Bool) throws {
        var config = EngineConfig(activity: .run)
        config.autoPause.enabled = false
        config.filters = filters
        config.distanceFilterM = 0
        let v = 4.0
        var indoors = Driver(config)
        try indoors.fix(Self.t0 - 5, 52, 4, hAcc: 4)
        try indoors.phase(.start, Self.t0)
        for k in 1...600 { try speed(&indoors, Self.t0 + Double(k), v) }
        try indoors.phase(.stop)
        #expect(abs(indoors.core.distance - 600 * v) < 1e-6 && indoors.core.movingS == 600)

        // Out of the door: the sensor for 300 s, then fixes (the sensor still on) for 300 s.
        var d = Driver(config)
        try d.fix(Self.t0 - 5, 52, 4, speed: doppler ? 0 : .nan, hAcc: 4)
        try d.phase(.start, Self.t0)
        for k in 1...300 { try speed(&d, Self.t0 + Double(k), v) }
        for k in 300...600 {
            try d.fix(Self.t0 + Double(k), 52 + degreesNorth(v * Double(k)), 4, speed: doppler ? v : .nan, hAcc: 4)
            try speed(&d, Self.t0 + Double(k), v)
        }
        try d.phase(.stop)
        let r = d.core.record
        #expect(abs(r.distanceM - 600 * v) <= 0.0001 * 600 * v, "\(r.distanceM) m of \(600 * v) m")
        #expect(abs(d.core.sensorDistance - 300 * v) < 1e-6)
        #expect(abs(r.movingS - 600) <= 2 && r.elapsedS == 600)
    }

    /// A fix too inaccurate to measure by (filters on or off) does not stop the sensor: it is no
    /// fix positions measure the flight by.
    @Test(arguments: [true, false])
    func anInaccurateFixDoesNotStopTheSensor(_ filters: Bool) throws {
        var d = try started(.run, filters: filters)
        for k in 1...60 { try speed(&d, Self.t0 + Double(k), 3) }
        try d.fix(Self.t0 + 60.5, 52, 4, hAcc: 500)
        for k in 61...120 { try speed(&d, Self.t0 + Double(k), 3) }
        #expect(abs(d.core.distance - 360) < 1e-9 && abs(d.core.sensorDistance - 360) < 1e-9, "\(d.core.distance)")
    }

    /// A ride through a curved tunnel: fixes for 300 s, none for the 180 s of a half circle, fixes
    /// again for 300 s, the wheel sensor on throughout. While fixes come the samples wait; when
    /// positions fall silent (three of the receiver's intervals, 3 s here) the sensor takes the
    /// flight up from the last fix, and the
    /// fix after the tunnel takes it up from the sensor's last sample: the tunnel counts once, at
    /// its length (its straight line, which a gap credits without a sensor, is 2/π of it). Filters
    /// on and off, with Doppler speed and without.
    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aTunnelIsMeasuredByTheSensor(_ filters: Bool, _ doppler: Bool) throws {
        let v = 6.0, path = CurvedTunnel(v: v)
        var d = try started(.ride, filters: filters, distanceFilterM: 0)
        for k in 0...780 {
            let t = Self.t0 + Double(k)
            if !path.inTunnel(k) {
                let (lat, lon) = path.position(at: Double(k))
                try d.fix(t, lat, lon, speed: doppler ? v : .nan, hAcc: 4)
            }
            if k > 0 { try speed(&d, t, v) }
            if k == 302 { #expect(d.core.distance < 300 * v, "the samples wait while the fix may yet come: \(d.core.distance) m") }
            if k == 303 { #expect(d.core.distance > 302 * v, "the positions are silent, the sensor measures: \(d.core.distance) m") }
        }
        try d.phase(.stop)
        let r = d.core.record
        let truth = 780 * v
        #expect(abs(r.distanceM - truth) <= 0.001 * truth, "\(r.distanceM) m of \(truth) m")
        #expect(abs(d.core.sensorDistance - 180 * v) <= v, "\(d.core.sensorDistance) m measured by the sensor")
        #expect(abs(r.movingS - 780) <= 2 && r.elapsedS == 780)
    }

    /// The same tunnel with the sensor silent for its second half: the sensor measures the first
    /// half, and of the line across the gap only the share after its last sample counts, so the
    /// straight tunnel counts once (its line and its length agree), with Doppler speed and without.
    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aSensorThatFallsSilentInTheTunnelLeavesTheRestToTheLine(_ filters: Bool, _ doppler: Bool) throws {
        let v = 6.0
        var d = try started(.ride, filters: filters, distanceFilterM: 0)
        for k in 0...780 {
            let t = Self.t0 + Double(k)
            if !(300..<480).contains(k) { try d.fix(t, 52 + degreesNorth(v * Double(k)), 4, speed: doppler ? v : .nan, hAcc: 4) }
            if k > 0 && !(390..<480).contains(k) { try speed(&d, t, v) }
        }
        try d.phase(.stop)
        let r = d.core.record
        let truth = 780 * v, line = Geodesy.distance(lat1: 52, lon1: 4, lat2: 52 + degreesNorth(truth), lon2: 4)
        #expect(abs(r.distanceM - line) <= 0.001 * line, "\(r.distanceM) m of \(line) m")
        #expect(abs(d.core.sensorDistance - 90 * v) <= v, "\(d.core.sensorDistance) m measured by the sensor")
        #expect(abs(r.movingS - 780) <= 2)
    }

    /// While fixes come in the receiver's rhythm (one or two missed fixes included), the samples
    /// measure nothing: a foot pod that reads 10 % fast does not change the positions' distance.
    /// A dropout longer than three of the receiver's intervals is a silence that the pod
    /// measures, at its own reading, from the fix before it; the fix after it takes up only the
    /// rest: the flight reads the pod's 10 % over those 20 s, and counts no stretch twice.
    @Test(arguments: [true, false])
    func whileFixesComeTheSamplesMeasureNothing(_ filters: Bool) throws {
        var config = EngineConfig(activity: .run)
        config.autoPause.enabled = false
        config.filters = filters
        config.distanceFilterM = 0
        var without = Driver(config), with = Driver(config)
        try without.phase(.start, Self.t0)
        try with.phase(.start, Self.t0)
        func missed(_ k: Int) -> Bool { k % 40 == 10 || k % 40 == 30 || k % 40 == 31 }   // one or two missed fixes
        for k in 0...600 {
            let t = Self.t0 + Double(k)
            if k == 200 { #expect(with.core.distance == without.core.distance && with.core.movingS == without.core.movingS && with.core.sensorDistance == 0) }
            if !(500..<520).contains(k) && !missed(k) {
                try without.fix(t, 52 + degreesNorth(4 * Double(k)), 4, speed: 4, hAcc: 4)
                try with.fix(t, 52 + degreesNorth(4 * Double(k)), 4, speed: 4, hAcc: 4)
            }
            if k > 0 { try speed(&with, t, 4.4) }
        }
        #expect(abs(with.core.sensorDistance - 20 * 4.4) < 1e-9, "\(with.core.sensorDistance) m")
        #expect(abs(with.core.distance - (without.core.distance + 20 * 0.4)) < 0.05, "\(with.core.distance) m, positions alone \(without.core.distance) m")
        #expect(abs(with.core.movingS - without.core.movingS) < 1e-6)
    }

    /// Fixes, then none: the sensor takes the flight up from the last fix (an indoor leg after an
    /// outdoor one), in that leg and after a pause and resume.
    @Test func whenFixesStopTheSensorTakesTheFlightUpFromTheLastOne() throws {
        var config = EngineConfig(activity: .run)
        config.autoPause.enabled = false
        var d = Driver(config)
        try d.phase(.start, Self.t0)
        for k in 0...60 { try d.fix(Self.t0 + Double(k), 52 + degreesNorth(3 * Double(k)), 4, speed: 3, hAcc: 4) }
        let before = (d.core.distance, d.core.movingS)
        for k in 61...63 { try speed(&d, Self.t0 + Double(k), 3) }
        #expect(d.core.distance == before.0, "positions may yet measure these 3 s: one or two missed fixes")
        for k in 64...120 { try speed(&d, Self.t0 + Double(k), 3) }
        #expect(abs(d.core.distance - (before.0 + 180)) < 1e-9 && abs(d.core.movingS - (before.1 + 60)) < 1e-9)
        try d.phase(.pause, Self.t0 + 121)
        try d.phase(.resume, Self.t0 + 130)
        for k in 131...200 { try speed(&d, Self.t0 + Double(k), 3) }
        #expect(abs(d.core.distance - (before.0 + 180 + 210)) < 1e-9 && abs(d.core.sensorDistance - 390) < 1e-9)
    }

    /// A real ride whose wheel sensor measured 408 s before its GPS locked (`sample-activity.fit`,
    /// an Edge 500): analysed with its sport, it reads its device's own distance (the wheel's) and
    /// moving time within the device's timer. Before speed samples it read 85 336 m (−3.9 %) and
    /// 10 265 s (−4.1 %): the time and ground before the first position were lost.
    @Test(.enabled(if: SharedTracks.folder != nil, "../shared/tracks is not here"))
    func aRideWhoseWheelMeasuredBeforeTheGPSLockedReadsItsDevicesDistanceAndTimer() throws {
        let dir = try #require(SharedTracks.folder)
        let bytes = try #require(SharedTracks.read(dir + "/fitparse__sample-activity.fit"))
        let analysis = try bytes.withUnsafeBytes { (b) throws(RunwayError) in
            try RecordingAnalysis.run(b, options: try AnalysisOptions.parse("{}"))
        }
        let device = try #require(analysis.report.device)
        let r = analysis.flight.record
        #expect(r.activity == .ride && analysis.rejected == 0)
        #expect(abs(r.distanceM - device.distanceM) <= 0.005 * device.distanceM, "\(r.distanceM) m, the device's \(device.distanceM) m")
        #expect(r.movingS <= device.timerS && r.movingS >= 0.99 * device.timerS, "moving \(r.movingS) s, the device's timer \(device.timerS) s")
        #expect(analysis.flight.sensorDistance > 3000 && analysis.flight.sensorDistance < 4000, "\(analysis.flight.sensorDistance) m before the first fix")
    }

    /// JSON: `{"type":"speed","speed":S,"t":T}` through both decoders alike; a missing, negative or
    /// absurd speed is refused.
    @Test func theSpeedLineDecodesAndBadOnesAreRefused() throws {
        func decode(_ text: String) -> Result<FlightDriver.Request?, RunwayError> {
            var copy = text
            return copy.withUTF8 { buf in
                let bytes = UnsafeRawBufferPointer(buf)
                #expect(InputDecoder.difference(bytes) == nil, "\(text)")
                return Result { () throws(RunwayError) in try InputDecoder.decodeLine(bytes) }
            }
        }
        #expect(try decode(#"{"type":"speed","speed":3.25,"t":1700000000}"#).get() == .input(try ValidatedInput(.sample(.speed(mps: 3.25, t: 1_700_000_000)))))
        var line = #"{"type":"speed","speed":3.25,"t":1700000000}"#
        #expect(line.withUTF8 { InputDecoder.takesFastPath(UnsafeRawBufferPointer($0)) }, "a 1 Hz sensor's line takes the single pass")
        for bad in [#"{"type":"speed","t":1}"#, #"{"type":"speed","speed":-1,"t":1}"#, #"{"type":"speed","speed":101,"t":1}"#, #"{"type":"speed","speed":"3","t":1}"#] {
            guard case .failure(let e) = decode(bad) else { Issue.record("\(bad) accepted"); continue }
            #expect(e.status == .input)
        }
        var w = JSONWriter()
        Input.sample(.speed(mps: 3.25, t: 1_700_000_000)).write(to: &w)
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"{"type":"speed","speed":3.25,"t":1700000000.0}"#)
    }

    /// The invariants hold on sensor flights of every profile, with auto-pause and filters on or off.
    @Test func sensorFlightsKeepTheInvariants() throws {
        for activity in Activity.allCases {
            for (autoPause, filters) in [(true, true), (false, true), (false, false)] {
                var config = EngineConfig(activity: activity)
                config.autoPause.enabled = autoPause
                config.filters = filters
                var c = InvariantCheck("sensor \(activity) auto-pause \(autoPause) filters \(filters)", config: config)
                var rng = Speeds(state: 7)
                var t = Self.t0
                for k in 0..<1500 {
                    t += rng.next(in: 0.5...3)
                    let v = (k / 200) % 3 == 1 ? rng.next(in: 0...0.4) : rng.next(in: 0...activity.speedCapMps * 1.2)
                    if let input = try? ValidatedInput(.sample(.speed(mps: v, t: t))) { c.push(input) }
                    if k == 700 { c.command(.pause, at: t) }
                    if k == 760 { c.command(.resume, at: t) }
                    if k == 800 { c.lap(at: t) }
                }
                let problems = c.finish()
                #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
            }
        }
    }
}

/// A path at `v` m/s: `before` seconds north, `tunnelS` round a half circle (a tunnel: no fixes),
/// then south.
struct CurvedTunnel {
    let v: Double
    var before = 300.0, tunnelS = 180.0
    /// Metres a degree north and east near (52° N, 4° E), from the engine's own geodesy.
    let northM = Geodesy.distance(lat1: 52, lon1: 4, lat2: 52.001, lon2: 4) / 0.001
    let eastM = Geodesy.distance(lat1: 52, lon1: 4, lat2: 52, lon2: 4.001) / 0.001

    func inTunnel(_ k: Int) -> Bool { Double(k) >= before && Double(k) < before + tunnelS }

    /// The position `s` seconds along the path.
    func position(at seconds: Double) -> (lat: Double, lon: Double) {
        let s = seconds * v, straight = before * v, arc = tunnelS * v, r = arc / Double.pi
        let (north, east): (Double, Double)
        if s <= straight {
            (north, east) = (s, 0)
        } else if s <= straight + arc {
            let phi = (s - straight) / r
            (north, east) = (straight + r * sin(phi), r - r * cos(phi))
        } else {
            (north, east) = (straight - (s - straight - arc), 2 * r)
        }
        return (52 + north / northM, 4 + east / eastM)
    }
}
