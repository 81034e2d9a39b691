import Testing
@testable import RunwayCore
import RunwaySim

func logMessages(_ events: [Event]) -> [String] {
    events.compactMap { e in if case .log(let l) = e.body { return l.message } else { return nil } }
}

@Suite("The fix gate inside a flight")
struct GateInFlightTests {
    @Test func filteredFixesStillSucceedAndAreCountedWithTheirReasonInTheLogAndSnapshot() throws {
        var d = Driver()
        try d.phase(.start, 0)
        try d.fix(0, 52, 4, hAcc: 5)
        try d.fix(1, 52 + degreesNorth(3), 4, hAcc: 5)
        try d.fix(1, 52 + degreesNorth(6), 4, hAcc: 5)        // repeated timestamp
        try d.fix(2, 0, 0, hAcc: 5)                            // null island
        try d.fix(3, 52 + degreesNorth(400), 4, hAcc: 5)      // 400 m in 2 s
        try d.fix(4, 52 + degreesNorth(9), 4, hAcc: 80)       // accuracy
        #expect(d.core.filtered == FilterCounts(accuracy: 1, nullIsland: 1, speed: 1, repeatedTime: 1))
        #expect(d.snapshot.filtered == 4)
        #expect(d.snapshot.filteredBy == d.core.filtered)
        #expect(d.snapshotJSON.contains(#""filtered":4,"filtered_by":{"accuracy":1,"null_island":1,"speed":1,"repeated_time":1}"#))
        #expect(d.snapshot.fixes == 6)
        let messages = logMessages(d.events)
        for reason in ["repeated_time", "null_island", "speed", "accuracy"] {
            #expect(messages.contains { $0.contains("filtered fix") && $0.contains(reason) }, "\(reason)")
        }
        #expect(d.snapshot.distanceM < 10)
    }

    @Test func reducedAccuracyForTenSecondsRaisesOneWarning() throws {
        var d = Driver()
        try d.phase(.start, 0)
        try d.fix(0, 52, 4, hAcc: 5)
        for i in 1...9 { try d.fix(Double(i), 52, 4, hAcc: 80) }
        #expect(!logMessages(d.events).contains { $0.contains("reduced accuracy") })
        #expect(d.snapshot.accuracy == .reduced)
        for i in 10...15 { try d.fix(Double(i), 52, 4, hAcc: 80) }
        #expect(logMessages(d.events).filter { $0.contains("reduced accuracy") }.count == 1)
        try d.fix(16, 52, 4, hAcc: 5)
        #expect(d.snapshot.accuracy == .ok)
        #expect(logMessages(d.events).contains { $0.contains("accuracy restored") })
    }

    @Test(arguments: [true, false])
    func aGapStartsANewSegmentAndItsDistanceCountsOnlyWhenConfigured(_ countGaps: Bool) throws {
        var c = EngineConfig()
        c.countGaps = countGaps
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...10 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0) }
        let before = d.snapshot.distanceM
        // 60 s without fixes, 200 m further on. The gap's distance waits for the next fix that
        // agrees with the one after the gap (that one may be a receiver's junk).
        try d.fix(70, 52 + degreesNorth(230), 4, speed: 3, course: 0)
        #expect(d.snapshot.segments == 2)
        #expect(d.snapshot.distanceM == before)
        try d.fix(71, 52 + degreesNorth(233), 4, speed: 3, course: 0)
        let jump = d.snapshot.distanceM - before
        if countGaps { #expect(abs(jump - 203) < 1, "gap and step \(jump) m") } else { #expect(abs(jump - 3) < 1) }
        #expect(d.core.route.segmentStarts.count == 2)
    }

    /// A gap that auto-pause judges standing (a ride's 0.9 m/s across it, under its 1.0 m/s) is no
    /// moving time, though a walker's speed: with `gap_s` 1 the pause comes two fixes later,
    /// backdated to before the gap, and a gap credited as moving would outlast the cruise.
    @Test func aGapAutoPauseJudgesStandingIsNoMovingTimeWhenThePauseComesLater() throws {
        var c = EngineConfig(activity: .ride)
        c.gapS = 1
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...100 { try d.fix(Double(i), 52 + degreesNorth(8 * Double(i)), 4) }
        try d.fix(101.6, 52 + degreesNorth(801.44), 4)
        try d.fix(102, 52 + degreesNorth(801.8), 4)
        for i in 103...110 { try d.fix(Double(i), 52 + degreesNorth(801.8), 4) }
        try d.phase(.stop)
        #expect(d.core.movingS <= d.core.elapsed, "moving \(d.core.movingS) s of \(d.core.elapsed) s")
    }

    /// A ride auto-paused at a stop that sets off into a tunnel: the resume credits the tunnel's
    /// line from its beginning, and its time with it (it had the 960 m and none of the 120 s:
    /// 119 s moving for 1927 m, 16 m/s).
    @Test(arguments: [true, false])
    func aRideThatSetsOffIntoATunnelFromAStopHasTheTunnelsTimeAsMovingTime(_ doppler: Bool) throws {
        var d = Driver(EngineConfig(activity: .ride))
        try d.phase(.start, 0)
        let v = 8.0, speed = doppler ? v : .nan
        for i in 0..<60 { try d.fix(Double(i), 52 + degreesNorth(v * Double(i)), 4, speed: speed) }
        for i in 60..<120 { try d.fix(Double(i), 52 + degreesNorth(v * 59), 4, speed: doppler ? 0 : .nan) }
        #expect(d.core.holdingBy == .auto)
        for i in 0..<60 { try d.fix(240 + Double(i), 52 + degreesNorth(v * (59 + 121 + Double(i))), 4, speed: speed) }
        try d.phase(.stop)
        let moving = d.core.movingS, distance = d.core.distance
        #expect(abs(distance - v * 240) < 40, "\(distance) m")
        #expect(moving >= 230 && moving <= d.core.elapsed, "moving \(moving) s of \(d.core.elapsed) s")
        #expect(abs(distance / moving - v) < 0.3, "moving speed \(distance / moving) m/s")
    }

    /// Distance and moving time describe the same movement: a gap crossed at 3 m/s (a tunnel, a
    /// recorder restarted between tracks) is moving time with its line, so the moving pace stays
    /// the runner's (it read 10.5 m/s when the line counted and its 300 s did not); one crossed
    /// standing (15 m in 300 s) adds no moving time. With and without auto-pause, which the
    /// standing gap pauses.
    @Test(arguments: [(3.0, false), (0.05, false), (3.0, true), (0.05, true)])
    func aGapsTimeIsMovingTimeWhenItsLineWasCoveredAtAWalkersSpeed(_ speedAcross: Double, _ autoPause: Bool) throws {
        var c = EngineConfig()
        c.autoPause.enabled = autoPause
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4) }
        let out = 180 + speedAcross * 300
        for i in 0...60 { try d.fix(360 + Double(i), 52 + degreesNorth(out + 3 * Double(i)), 4) }
        try d.phase(.stop)
        let moving = d.core.movingS, distance = d.core.distance
        let moved = speedAcross >= 0.8
        // A standing gap auto-paused is the hold's: its line is no distance either.
        #expect(abs(distance - (autoPause && !moved ? 360 : out + 180)) < 10, "\(distance) m")
        if moved {
            #expect(moving >= 415 && moving <= d.core.elapsed, "moving \(moving) s of \(d.core.elapsed) s")
            #expect(abs(distance / moving - 3) < 0.06, "moving speed \(distance / moving) m/s")
        } else {
            #expect(moving >= 110 && moving <= 125, "moving \(moving) s")
        }
    }
}

@Suite("Auto-pause, moving time, laps, alerts and elevation inside a flight")
struct FlightFeaturesTests {
    @Test func aRideAutoPausesAtAStopAndMovingTimeExcludesIt() throws {
        let run = sim(seed: 3) { $0.paceMinPerKm = 2.0; $0.stops = [SimStop(atDistanceM: 2000, durationS: 60)] }
        var events: [Event] = []
        var core = FlightComputer(config: EngineConfig(activity: .ride))
        try core.command(.start, at: run.fixes[0].t, wallClock: .nan, events: &events)
        var sawAutoHold = false
        for f in run.fixes {
            try core.process(.fix(Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, speed: f.speed, course: f.course, hAcc: f.hAcc)),
                             wallClock: .nan, events: &events)
            if core.phase == .holding && core.holdingBy == .auto { sawAutoHold = true }
        }
        #expect(sawAutoHold)
        let phases = events.compactMap { e -> String? in
            if case .phase(_, let to, let by) = e.body { return "\(to.rawValue)\(by.map { ":\($0.rawValue)" } ?? "")" }
            return nil
        }
        #expect(phases == ["cruise", "holding:auto", "cruise"])
        // Elapsed (cruise) time leaves the stop out, and so does moving time, within a few seconds.
        let total = run.fixes[run.fixes.count - 1].t - run.fixes[0].t
        #expect(abs(core.elapsed - (total - 60)) < 8, "elapsed \(core.elapsed) of \(total)")
        #expect(abs(core.movingS - run.truthMovingS) / run.truthMovingS < 0.01, "moving \(core.movingS) vs \(run.truthMovingS)")
        // Distance is unharmed by the pause.
        #expect(abs(core.distance - run.truthDistanceM) / run.truthDistanceM < 0.005)
    }

    @Test(arguments: [true, false])
    func aRideThatEndsStandingHasLapsAddingUpToItsElapsedTime(_ doppler: Bool) throws {
        // 150 s at 8 m/s with 500 m auto laps, then standing to 200 s: the auto-pause is backdated
        // to the first slow sample, after the laps saw part of its hold as cruise time.
        var config = EngineConfig(activity: .ride)
        config.autoLapM = 500
        var d = Driver(config)
        try d.phase(.start, 0)
        var north = 0.0
        for i in 0..<200 {
            let v = i < 150 ? 8.0 : 0
            try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: doppler ? v : .nan, hAcc: 5)
            north += v
        }
        try d.phase(.stop, 199)
        let laps = d.core.laps.laps, elapsed = d.core.elapsed
        #expect(laps.count == 3)
        #expect(abs(laps.reduce(0) { $0 + $1.elapsedS } - elapsed) < 1e-6, "laps \(laps.map(\.elapsedS)), flight \(elapsed) s")
        #expect(abs(elapsed - 150) < 10, "elapsed \(elapsed) s")   // positions only: the filter's speed lags the stop
    }

    @Test func aLongAutoPauseKeepsOnlyTheStepsAResumeCanCredit() throws {
        // An hour parked with the receiver on: the steps kept for the resume's credit stay within
        // the resume's hold instead of growing by one a fix, and the figures are unharmed.
        let run = sim(seed: 3) { $0.paceMinPerKm = 2.0; $0.stops = [SimStop(atDistanceM: 2000, durationS: 3600)] }
        var events: [Event] = []
        var core = FlightComputer(config: EngineConfig(activity: .ride))
        try core.command(.start, at: run.fixes[0].t, wallClock: .nan, events: &events)
        var held = 0, mostKept = 0
        for f in run.fixes {
            try core.process(.fix(Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, speed: f.speed, course: f.course, hAcc: f.hAcc)),
                             wallClock: .nan, events: &events)
            if core.phase == .holding && core.holdingBy == .auto { held += 1; mostKept = max(mostKept, core.pause.heldCount) }
        }
        #expect(held > 3000)
        #expect(mostKept <= Int(core.config.autoPause.holdS) + 2, "kept \(mostKept) steps while auto-paused")
        let total = run.fixes[run.fixes.count - 1].t - run.fixes[0].t
        #expect(abs(core.elapsed - (total - 3600)) < 8, "elapsed \(core.elapsed) of \(total)")
        #expect(abs(core.movingS - run.truthMovingS) / run.truthMovingS < 0.01, "moving \(core.movingS) vs \(run.truthMovingS)")
        #expect(abs(core.distance - run.truthDistanceM) / run.truthDistanceM < 0.005)
    }

    @Test func aRunDoesNotAutoPauseButReportsMovingTimeBesideElapsed() throws {
        let run = sim(seed: 3) { $0.stops = [SimStop(atDistanceM: 2000, durationS: 120)] }
        let replay = try Replay(run)
        #expect(replay.core.holdingBy == nil)
        #expect(replay.core.elapsed > replay.core.movingS + 100)
        #expect(abs(replay.core.movingS - run.truthMovingS) / run.truthMovingS < 0.01,
                "moving \(replay.core.movingS) vs truth \(run.truthMovingS)")
    }

    @Test func autoLapsAreCutExactlyAtEveryKilometreAndStopAddsTheFinalLap() throws {
        var d = Driver()
        try d.phase(.start, 0)
        // 2.5 km north at 4 m/s, fixes carrying Doppler speed.
        for i in 0...625 { try d.fix(Double(i), 52 + degreesNorth(4 * Double(i)), 4, speed: 4, course: 0) }
        try d.phase(.stop, 625)
        let splits = d.events.compactMap { e -> Lap? in if case .split(let l) = e.body { return l } else { return nil } }
        #expect(splits.map(\.trigger) == [.auto, .auto, .final])
        #expect(abs(splits[0].distanceM - 1000) < 1e-6 && abs(splits[1].distanceM - 1000) < 1e-6)
        #expect(abs(splits[0].elapsedS - 250) < 2)
        #expect(abs(splits[0].paceMinPerKm - splits[0].elapsedS / 60) < 1e-9)
        #expect(d.core.summaryJSON().contains("\"laps\":[{\"index\":1,\"trigger\":\"auto\""))
    }

    @Test func aManualLapSplitsNowAndIsRefusedBeforeStart() throws {
        var d = Driver()
        do { try d.core.lap(at: 0, wallClock: .nan, events: &d.events); Issue.record("lap before start") } catch {
            #expect(error.status == .state)
        }
        try d.phase(.start, 0)
        for i in 0...100 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0) }
        try d.core.lap(at: .nan, wallClock: .nan, events: &d.events)
        let lap = d.events.compactMap { e -> Lap? in if case .split(let l) = e.body { return l } else { return nil } }.last
        #expect(lap?.trigger == .manual && abs((lap?.distanceM ?? 0) - 300) < 3)
        #expect(d.snapshot.lap == 2)
    }

    @Test func gpwsFiresWhenCurrentPaceLeavesTheTargetBand() throws {
        var c = EngineConfig()
        c.alerts.targetPaceMin = 4.0
        c.alerts.targetPaceMax = 4.5
        var d = Driver(c)
        try d.phase(.start, 0)
        // 3 m/s = 5:33 min/km, slower than the band.
        for i in 0...40 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0) }
        let alerts = d.events.compactMap { e -> AlertMonitor.Alert? in if case .alert(let a) = e.body { return a } else { return nil } }
        #expect(alerts.map(\.code) == ["GPWS_PACE_SLOW"])
        #expect(d.events.contains { $0.kind == .alert && $0.cString().count > 0 })
    }

    @Test func minimumsCallOutTheMarksAndTheGoal() throws {
        var c = EngineConfig()
        c.alerts.goalM = 1500
        c.alerts.marksM = [1000, 400]
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...420 { try d.fix(Double(i), 52 + degreesNorth(4 * Double(i)), 4, speed: 4, course: 0) }
        let codes = d.events.compactMap { e -> String? in if case .alert(let a) = e.body { return a.code } else { return nil } }
        #expect(codes == ["MINIMUMS", "MINIMUMS", "MINIMUMS_GOAL"])
    }

    @Test func missingAltitudesAreSkippedNeverReadAsZero() throws {
        var withGaps = Driver(), without = Driver()
        try withGaps.phase(.start, 0); try without.phase(.start, 0)
        for i in 0...300 {
            let lat = 52 + degreesNorth(3 * Double(i)), alt = 100 + Double(i) * 0.1
            try without.fix(Double(i), lat, 4, speed: 3, course: 0, alt: alt)
            try withGaps.fix(Double(i), lat, 4, speed: 3, course: 0, alt: i % 3 == 0 ? .nan : alt)
        }
        #expect(abs(withGaps.snapshot.gainM - without.snapshot.gainM) < 1.5)
        #expect(withGaps.snapshot.lossM < 1)
        #expect(withGaps.snapshot.altitudeM > 100)
    }

    @Test func aJunkAltitudeBurstIsRefused() throws {
        var d = Driver()
        try d.phase(.start, 0)
        let alts: [Double] = [55, 142.4, 142.4, 142.4, 56, 56.2, 56.2, 56, 56, 55.8]
        for (i, a) in alts.enumerated() { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0, alt: a) }
        for i in 10...60 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0, alt: 55.5) }
        #expect(d.snapshot.gainM < 3)
        #expect(abs(d.snapshot.altitudeM - 55.5) < 2)
    }

    @Test func aSettlingAltimetersJumpToANewLevelIsNoClimb() throws {
        // As in a real recording: the first altitude is 1257 m, the next ones climb to 2254 m
        // within 8 s and stay there. The gate re-anchors on the new level; the jump is not
        // a 1000 m climb, nor a vertical speed no one could reach.
        var d = Driver()
        try d.phase(.start, 0)
        let settling: [Double] = [1257.6, 1913.2, 2032.2, 2144.6, 2201, 2229, 2243.4, 2250.6, 2254.2]
        var fastest = 0.0
        for i in 0...300 {
            // After settling, a real 20 m climb over the 300 s.
            let alt = i < settling.count ? settling[i] : 2254.2 + 20 * Double(i - settling.count) / Double(300 - settling.count)
            try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0, alt: alt)
            if d.snapshot.verticalSpeedMps.isFinite { fastest = max(fastest, abs(d.snapshot.verticalSpeedMps)) }
        }
        #expect(fastest < 1, "vertical speed up to \(fastest) m/s")
        #expect(abs(d.snapshot.altitudeM - 2274.2) < 3)
        #expect(d.core.elevation.minAltitudeM > 2250, "the junk level is no minimum: \(d.core.elevation.minAltitudeM) m")
        // The climb counts (at the stop: live, the means lag by half their 300 s), the jump not.
        try d.phase(.stop)
        #expect(d.core.elevation.gainM > 15 && d.core.elevation.gainM <= 20.5, "gain \(d.core.elevation.gainM) m")
    }

    @Test func aSettlingGPSAltitudeLeavesTheBarometersClimbAlone() throws {
        // With a barometer in use, the GPS altitude is not: its re-anchoring must not restart
        // the barometric smoothing (its gain, grade and vertical speed go on unbroken).
        var d = Driver()
        try d.phase(.start, 0)
        let settling: [Double] = [1257.6, 1913.2, 2032.2, 2144.6, 2201, 2229, 2243.4, 2250.6, 2254.2]
        var unknownVerticalSpeed: [Double] = []
        for i in 0...120 {
            let t = Double(i)
            try d.json("{\"type\":\"altimeter\",\"alt\":\(300 + t / 6),\"t\":\(t)}")
            try d.fix(t, 52 + degreesNorth(3 * t), 4, speed: 3, course: 0, alt: i < settling.count ? settling[i] : 2254.2)
            if t >= 5 && d.snapshot.verticalSpeedMps.isNaN { unknownVerticalSpeed.append(t) }
        }
        #expect(d.snapshot.gainM > 14 && d.snapshot.gainM <= 20, "gain \(d.snapshot.gainM) m of the barometer's 20")
        #expect(unknownVerticalSpeed.isEmpty, "vertical speed lost at \(unknownVerticalSpeed)")
    }

    @Test func aBarometricAltimeterIsPreferredOverGPSAltitude() throws {
        var d = Driver()
        try d.phase(.start, 0)
        for i in 0...120 {
            let t = Double(i)
            // GPS altitude swings ±8 m; the barometer climbs a steady 20 m.
            try d.fix(t, 52 + degreesNorth(3 * t), 4, speed: 3, course: 0, alt: 100 + (i % 2 == 0 ? 8 : -8))
            try d.json("{\"type\":\"altimeter\",\"alt\":\(100 + t / 6),\"t\":\(t)}")
        }
        // The true climb is 20 m; smoothing and the 3 m hysteresis hold back the last few metres,
        // and none of the GPS swings (which would add ~1900 m) count.
        #expect(d.snapshot.gainM > 14 && d.snapshot.gainM <= 20, "gain \(d.snapshot.gainM)")
    }
}

@Suite("Refused calls change nothing")
struct RefusedCallsTests {
    @Test func aRefusedManualLapLeavesTheClockAndTheLapsAlone() throws {
        var d = Driver()
        try d.phase(.start, 0)
        try d.phase(.pause, 0)
        let before = d.snapshotJSON
        // Holding since the start: no cruise time, no distance, so nothing to lap at 50.
        do { try d.core.lap(at: 50, wallClock: .nan, events: &d.events); Issue.record("lapped nothing") } catch {
            #expect(error.status == .state)
        }
        // The refused call did not move the clock to 50.
        #expect(d.core.now == 0)
        #expect(d.snapshotJSON == before)
    }
}
