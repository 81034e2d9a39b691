import Testing
import Glibc
@testable import RunwayCore
import RunwaySim

// The sensor around pauses and holds: the user's, auto-pause by the sensor, and what it measured
// while held (the suite and its helpers are SpeedSensorTests.swift's).

extension SpeedSensorTests {
    /// Fixes stop (a runner going indoors) and the user pauses 16 s later, before positions have
    /// been silent for `gap_s`: the samples since the last fix are the sensor's, counted at the
    /// pause (no line will cross it), and after the resume the sensor measures the leg. With the
    /// distance filter leaving the last fix out of the route, the point kept for it at the pause
    /// carries the distance at that fix, so the FIT's records (the route's and the sensor's, in
    /// time order) never go back in distance, and the last is the flight's.
    @Test(arguments: [5.0, 0])
    func aPauseSoonAfterTheLastFixKeepsTheSensorsStretch(_ distanceFilterM: Double) throws {
        var d = try started(.run, distanceFilterM: distanceFilterM)
        for k in 0...99 { try d.fix(Self.t0 + Double(k), 52 + degreesNorth(3 * Double(k)), 4, speed: 3, hAcc: 4) }
        for k in 100...115 { try speed(&d, Self.t0 + Double(k), 3) }
        try d.phase(.pause, Self.t0 + 115)
        try d.phase(.resume, Self.t0 + 120)
        for k in 121...300 { try speed(&d, Self.t0 + Double(k), 3) }
        try d.phase(.stop)
        let r = d.core.record
        let positions = 3 * 99.0, sensor = 3 * (16.0 + 180)
        #expect(abs(r.distanceM - (positions + sensor)) <= 0.002 * (positions + sensor), "\(r.distanceM) m")
        #expect(abs(d.core.sensorDistance - sensor) < 1e-9, "\(d.core.sensorDistance) m by the sensor")
        #expect(abs(r.movingS - 295) <= 1 && r.elapsedS == 295)
        let fit = try ExportFITReader.read(Exporter.export(r, as: .fit))
        let distances = fit.all(20).compactMap { $0[5] }
        #expect(distances == distances.sorted(), "FIT record distances go back")
        #expect(abs(Double(distances.last ?? 0) / 100 - r.distanceM) <= 0.01)
    }

    /// A ride stops in a tunnel (auto-paused by its sensor) and sets off again just before its
    /// fixes come back, while still auto-paused: the gap that ends then is the hold's, less what
    /// the sensor measured of it, so the tunnel counts once and the stop stays paused. (Before,
    /// the gap's whole line was held again and credited at the resume: +16 %, and no pause.)
    @Test(arguments: [464, 466, 468, 469])
    func aGapThatEndsWhileAutoPausedCountsOnlyWhatTheSensorDidNot(_ setsOff: Int) throws {
        var d = Driver(EngineConfig(activity: .ride))
        let v = 6.0
        try d.phase(.start, Self.t0)
        var north = 0.0
        for k in 0...700 {
            let t = Self.t0 + Double(k), standing = (400..<setsOff).contains(k)
            if k > 0 && !standing { north += v }
            if !(300..<470).contains(k) { try d.fix(t, 52 + degreesNorth(north), 4, speed: standing ? 0 : v, hAcc: 4) }
            if k > 0 { try speed(&d, t, standing ? 0 : v) }
        }
        try d.phase(.stop)
        let r = d.core.record
        // Less only the interval of the sample that resumes it (the hold's, as a fix's step is).
        #expect(r.distanceM <= north + 1e-6 && r.distanceM >= north - v - 1e-6, "\(r.distanceM) m of \(north) m")
        #expect(r.elapsedS < 700 - 50 && r.movingS <= r.elapsedS, "\(r.movingS) s moving, \(r.elapsedS) s")
    }

    /// A ride auto-paused at a light; the GPS loses its lock and the rider wheels the bike ten
    /// seconds before pausing (the hold becomes the user's, and what was held goes with it), then
    /// resumes five minutes later indoors: the samples wheeled while held are not the new leg's.
    @Test(arguments: [true, false])
    func whatTheSensorMeasuredWhileHeldGoesWithAUsersPause(_ samplesWhilePaused: Bool) throws {
        var d = Driver(EngineConfig(activity: .ride))
        let v = 6.0
        try d.phase(.start, Self.t0)
        for k in 0...259 {
            let t = Self.t0 + Double(k), moving = k <= 200
            try d.fix(t, 52 + degreesNorth(v * Double(min(k, 200))), 4, speed: moving ? v : 0, hAcc: 4)
            if k > 0 { try speed(&d, t, moving ? v : 0) }
        }
        #expect(d.core.phase == .holding, "auto-paused at the light")
        let before = (d.core.distance, d.core.movingS)
        for k in 260...270 { try speed(&d, Self.t0 + Double(k), 1.5) }   // wheeled, no fix
        try d.phase(.pause, Self.t0 + 271)
        if samplesWhilePaused { for k in 272...599 { try speed(&d, Self.t0 + Double(k), 1.5) } }
        try d.phase(.resume, Self.t0 + 600)
        for k in 601...700 { try speed(&d, Self.t0 + Double(k), v) }
        try d.phase(.stop)
        let r = d.core.record
        #expect(abs(r.distanceM - (before.0 + 100 * v)) < 1e-6, "\(r.distanceM) m, \(before.0) m before the light")
        #expect(abs(d.core.sensorDistance - 100 * v) < 1e-6, "\(d.core.sensorDistance) m by the sensor")
        #expect(abs(r.movingS - (before.1 + 100)) < 1e-6, "\(r.movingS) s moving")
    }

    /// A foot pod at 4 Hz after the last fix, then a pause, with the route's cap at 40 points: the
    /// backlog keeps the first 40 samples' points (its sums count all 80), and each carries the
    /// flight's distance up to its own interval, from the distance at the last fix. (Before,
    /// they were worked back from the flight's distance as if they were the last 40: 30 m high.)
    @Test func aCappedBacklogsPointsCarryTheirOwnDistances() throws {
        var config = EngineConfig(activity: .run)
        config.autoPause.enabled = false
        config.maxRoutePoints = 40
        var d = Driver(config)
        try d.phase(.start, Self.t0)
        for k in 0...20 { try d.fix(Self.t0 + Double(k), 52 + degreesNorth(3 * Double(k)), 4, speed: 3, hAcc: 4) }
        let atLastFix = d.core.distance
        for k in 1...80 { try speed(&d, Self.t0 + 20 + Double(k) / 4, 3) }
        try d.phase(.pause, Self.t0 + 40)
        let sensed = d.core.record.sensed
        #expect(sensed.count == 40 && abs(d.core.sensorDistance - 60) < 1e-9)
        for k in 0..<sensed.count {
            #expect(abs(sensed.distanceM(k) - (atLastFix + 0.75 * Double(k + 1))) < 1e-6, "point \(k): \(sensed.distanceM(k)) m")
        }
    }

    /// The sensor measured up to the end of the last interval it counted: a sample that ends a
    /// silence longer than `gap_s` pays the backlog out, and the silence is no one's yet (a gap's
    /// line from the last fix counts its share from there).
    @Test func theSensorMeasuredUpToItsLastIntervalNotAcrossASilence() {
        var s = SpeedSensorStage(movingMps: 0.8, maxIntervalS: 30)
        s.positioned(at: 0)
        #expect(s.step(mps: 3, at: 1, since: 0, silentAfterS: 30) == nil, "waits while positions may measure")
        let m = s.step(mps: 3, at: 40, since: 0, silentAfterS: 30)
        #expect(m == SpeedSensorStage.Measured(movingM: 3, movingS: 1, standingS: 0) && s.measuredUntil == 1)
        #expect(s.step(mps: 3, at: 41, since: 0, silentAfterS: 30) == SpeedSensorStage.Measured(movingM: 3, movingS: 1, standingS: 0) && s.measuredUntil == 41)
    }

    /// A ride that stops for two minutes in a tunnel: the sensor's standing samples auto-pause it
    /// there, and its moving ones resume it; the stop is neither distance nor moving time.
    @Test func aStopInTheTunnelAutoPausesTheRide() throws {
        let v = 6.0, path = CurvedTunnel(v: v)
        var d = Driver(EngineConfig(activity: .ride))
        try d.phase(.start, Self.t0)
        var truth = 0.0, s = 0.0
        for k in 0...900 {
            let t = Self.t0 + Double(k)
            let stopped = (400..<520).contains(k)   // in the tunnel (300..<600 here)
            if !(300..<600).contains(k) {
                let (lat, lon) = path.position(at: s / v)
                try d.fix(t, lat, lon, speed: v, hAcc: 4)
            }
            if k > 0 {
                try speed(&d, t, stopped ? 0 : v)
                if !stopped { s += v; truth += v }
            }
        }
        try d.phase(.stop)
        let r = d.core.record
        #expect(d.events.contains { if case .phase(_, .holding, .auto) = $0.body { true } else { false } })
        #expect(abs(r.distanceM - truth) <= 0.002 * truth, "\(r.distanceM) m of \(truth) m")
        #expect(r.movingS <= 780 + 2 && r.movingS >= 780 - 5, "\(r.movingS) s moving")
        #expect(r.elapsedS < 900 - 100, "auto-paused through most of the stop: \(r.elapsedS) s")
    }

    /// Samples count only in cruise: not before the start, nor while the user holds; after the
    /// resume they measure from it. One faster than the profile's cap measures nothing, with one
    /// warning however many come.
    @Test func samplesCountInCruiseOnlyAndNothingFasterThanTheCap() throws {
        var config = EngineConfig(activity: .run)
        config.autoPause.enabled = false
        var d = Driver(config)
        for k in 0...9 { try speed(&d, Self.t0 - 10 + Double(k), 3) }
        try d.phase(.start, Self.t0)
        for k in 1...100 { try speed(&d, Self.t0 + Double(k), 3) }         // 300 m
        try d.phase(.pause, Self.t0 + 100)
        for k in 101...160 { try speed(&d, Self.t0 + Double(k), 3) }       // held: nothing
        try d.phase(.resume, Self.t0 + 160.5)
        for k in 161...200 { try speed(&d, Self.t0 + Double(k), 3) }       // 0.5 s + 39 s at 3 m/s
        for k in 201...230 { try speed(&d, Self.t0 + Double(k), 20) }      // over the run's 12 m/s
        try d.phase(.stop)
        let r = d.core.record
        #expect(abs(r.distanceM - 3 * 139.5) < 1e-9, "\(r.distanceM)")
        #expect(abs(r.movingS - 139.5) < 1e-9)
        #expect(d.core.log.lines.filter { $0.level == .warning && $0.message.contains("faster than the run profile's cap") }.count == 1)
    }

    /// With auto-pause (a ride on a trainer that stops for two minutes), the sensor's standing
    /// samples pause the flight and its moving ones resume it: elapsed time leaves most of the stop
    /// out, and the distance is the moving samples'.
    @Test func aSensorsStandstillAutoPausesARide() throws {
        var d = Driver(EngineConfig(activity: .ride))
        try d.phase(.start, Self.t0)
        for k in 1...1200 {
            let v = (400..<520).contains(k) ? 0.0 : 7.0
            try speed(&d, Self.t0 + Double(k), v)
        }
        try d.phase(.stop)
        let r = d.core.record
        // Less only the interval of the sample that resumes it: the fast hold begins at that
        // sample, and the interval ending there is the hold's (as a fix's step is).
        #expect(r.distanceM >= 7 * 1079 - 1e-6 && r.distanceM <= 7 * 1080 + 1e-6, "\(r.distanceM)")
        #expect(r.elapsedS < 1200 - 100, "auto-paused through most of the stop: \(r.elapsedS) s")
        #expect(r.movingS <= r.elapsedS && r.movingS >= 1079 - 1e-6 && r.movingS <= 1080 + 1e-6, "\(r.movingS)")
        // All of it the sensor's, the held steps the resume credited too.
        #expect(abs(d.core.sensorDistance - r.distanceM) < 1e-9, "\(d.core.sensorDistance) m of \(r.distanceM) m")
    }

    /// Positions fall silent while the rider rides on (9 m/s) without samples, then a wheel sensor
    /// measures a stand that auto-pauses the ride and the ride on that resumes it, before the
    /// fixes come back: the gap's line counts the cruise time the sensor left unmeasured, the
    /// ride before the stand included; the sensor's seconds in the hold are no cruise (they were
    /// taken off the gap's cruise time: 1 s of its line counted instead of 40, -351 m).
    @Test func aStandTheSensorMeasuredInAHoldIsNoCruiseTheGapsLineMisses() throws {
        var config = EngineConfig(activity: .ride)
        config.autoLapM = 0
        var d = Driver(config)
        try d.phase(.start, Self.t0)
        let v = 9.0
        for k in 0...60 { try d.fix(Self.t0 + Double(k), 52 + degreesNorth(v * Double(k)), 4, speed: v, hAcc: 4) }
        for k in 100...129 { try speed(&d, Self.t0 + Double(k), 0) }     // standing (moved 40 s since the last fix)
        for k in 130...160 { try speed(&d, Self.t0 + Double(k), v) }     // riding on
        for k in 161...200 {
            let moved = v * (Double(k) - 30)   // 60 + 40 s before the stand, then from 130
            try d.fix(Self.t0 + Double(k), 52 + degreesNorth(moved), 4, speed: v, hAcc: 4)
        }
        try d.phase(.stop)
        let truth = v * (200 - 30)
        #expect(abs(d.snapshot.distanceM - truth) <= 0.01 * truth, "\(d.snapshot.distanceM) m, truth \(truth) m")
        #expect(abs(d.snapshot.movingS - 170) <= 3, "moving \(d.snapshot.movingS) s of 170")
    }
}
