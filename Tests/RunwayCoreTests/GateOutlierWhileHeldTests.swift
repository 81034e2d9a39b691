import Testing
@testable import RunwayCore

// Gaps around a hold here; junk fixes, tunnels and commands in GateOutlierWhileHeldTests+JunkFixes.swift
// (its helpers below are internal for that file).
@Suite("Outliers the gate let through while auto-paused")
struct GateOutlierWhileHeldTests {
    /// A ride: 60 s north at 8 m/s (480 m), then standing at a light until `standUntil`, with
    /// Doppler speed or positions only. Returns the metres ridden north.
    func rideToALight(_ d: inout Driver, standUntil: Int, doppler: Bool = true) throws -> Double {
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(8 * Double(i)), 4, speed: doppler ? 8 : .nan, hAcc: 5) }
        for i in 61...standUntil { try d.fix(Double(i), 52 + degreesNorth(480), 4, speed: doppler ? 0 : .nan, hAcc: 5) }
        return 480
    }

    func east(_ route: Route) -> [Double] { (0..<route.count).map { (route.longitude($0) - 4) / degreesEast(1) } }

    func autoPaused(_ d: Driver) -> Bool {
        d.events.contains { if case .phase(_, .holding, .auto) = $0.body { return true } else { return false } }
    }

    /// Whether the flight left a hold for cruise (by itself or by the user).
    func resumed(_ d: Driver) -> Bool {
        d.events.contains { if case .phase(.holding, .cruise, _) = $0.body { return true } else { return false } }
    }

    @Test(arguments: [120.0, 102.0])
    func theJunkFixIsNotOnTheRouteAndAddsNoDistance(_ resume: Double) throws {
        // The rider stops at 61 s and the receiver loses the sky until 100 s. Its first fix then
        // is 1 km east (it completes the auto-pause), the rest are where the rider is; three of
        // them re-anchor the gate. At 120 s the rider sets off long after the re-anchor; at 102 s
        // the fast hold that resumes the ride begins among the fixes the gate holds back.
        var d = Driver(EngineConfig(activity: .ride))
        var north = try rideToALight(&d, standUntil: 63)
        try d.fix(100, 52 + degreesNorth(north), 4 + degreesEast(1000), speed: 0, hAcc: 5)
        for i in 101...400 {
            let v = Double(i) >= resume ? 8.0 : 0
            north += v
            try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: v, hAcc: 5)
        }
        try d.phase(.stop, 400)
        #expect(logMessages(d.events).contains { $0.contains("re-anchored") })
        let paused = autoPaused(d)
        #expect(paused)
        let east = east(d.core.route)
        #expect(east.allSatisfy { abs($0) < 50 }, "route points east of the road: \(east.filter { abs($0) >= 50 })")
        // 480 m, then 8 m/s from `resume` to 400 s; the fixes the gate held back may lose a few.
        let expected = 480 + 8 * (400 - resume)
        #expect(abs(d.core.distance - expected) < 30, "distance \(d.core.distance), expected ~\(expected)")
        // The rider stood through the tunnel (the junk's speed says otherwise): the pause is from
        // 61 s, the first slow fix; the ride resumes within a few seconds of setting off.
        let elapsed = d.core.elapsed
        #expect(abs(elapsed - (61 + 400 - resume)) < 5, "elapsed \(elapsed) s")
    }

    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aGapThatEndsAnAutoPauseCountsToTheFixesAfterIt(_ junk: Bool, _ doppler: Bool) throws {
        // Auto-paused from 61 s, the rider sets off at 70 s and rides into a tunnel at 72 s. The
        // first fix out of it, at 110 s, is where the rider is, or (`junk`) 1 km east, and then
        // three fixes re-anchor the gate. With Doppler speed that fix completes the fast hold
        // begun at 70 s; with positions only the filter, restarted after the gap, takes a fix or
        // two. Either way the tunnel counts (count_gaps is on by default) to where the rider came
        // out, and a junk fix neither counts nor stays on the route.
        var d = Driver(EngineConfig(activity: .ride))
        let speed = { (v: Double) in doppler ? v : .nan }
        var north = try rideToALight(&d, standUntil: 69, doppler: doppler)
        for i in 70...72 { north += 8; try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: speed(8), hAcc: 5) }
        north += 8 * 38
        try d.fix(110, 52 + degreesNorth(north), 4 + (junk ? degreesEast(1000) : 0), speed: speed(8), hAcc: 5)
        for i in 111...300 { north += 8; try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: speed(8), hAcc: 5) }
        try d.phase(.stop, 300)
        #expect(logMessages(d.events).contains { $0.contains("re-anchored") } == junk)
        let paused = autoPaused(d)
        #expect(paused)
        let east = east(d.core.route)
        #expect(east.allSatisfy { abs($0) < 50 }, "route points east of the road: \(east.filter { abs($0) >= 50 })")
        // Ridden: 480 m before the stop, then from 70 s to 300 s at 8 m/s; fixes the gate held
        // back, and the track filter's restarts without Doppler, may lose a few.
        let expected = 480 + 8 * 230.0
        #expect(abs(d.core.distance - expected) < 30, "distance \(d.core.distance), expected ~\(expected)")
    }

    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aGapWhileAutoPausedCountsWhenTheRiderMovedAcrossIt(_ sets: Bool, _ doppler: Bool) throws {
        // Auto-paused at a light from 61 s, the receiver loses the sky at 80 s and gets it back
        // at 120 s. The rider either set off in the gap (at 100 s, 160 m by 120 s) and rides on,
        // or stood, and the first fix back is junk 1 km east. The gap's own speed says which:
        // the first counts from 100 s on; the second neither resumes nor adds distance.
        var d = Driver(EngineConfig(activity: .ride))
        let speed = { (v: Double) in doppler ? v : .nan }
        var north = try rideToALight(&d, standUntil: 80, doppler: doppler)
        if sets {
            north += 160
            for i in 120...200 { try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: speed(8), hAcc: 5); north += 8 }
        } else {
            try d.fix(120, 52 + degreesNorth(north), 4 + degreesEast(1000), speed: speed(0), hAcc: 5)
            for i in 121...200 { try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: speed(0), hAcc: 5) }
        }
        try d.phase(.stop, 200)
        let paused = autoPaused(d)
        #expect(paused)
        let resumed = resumed(d)
        #expect(resumed == sets)
        let expected = sets ? 480 + 8 * 100.0 : 480
        #expect(abs(d.core.distance - expected) < 30, "distance \(d.core.distance), expected ~\(expected)")
    }

    @Test(arguments: [true, false])
    func aSparseRecorderResumesFromALightAndCountsEveryGap(_ doppler: Bool) throws {
        // Auto-paused at a light until 80 s; the rider sets off then, and the recorder keeps one
        // fix every 40 s (each a gap, 320 m apart). The gaps' own speeds resume the ride, and
        // every gap from the first one on counts.
        var d = Driver(EngineConfig(activity: .ride))
        var north = try rideToALight(&d, standUntil: 80, doppler: doppler)
        for k in 1...10 {
            north += 320
            try d.fix(80 + 40 * Double(k), 52 + degreesNorth(north), 4, speed: doppler ? 8 : .nan, hAcc: 5)
        }
        try d.phase(.stop, 480)
        let paused = autoPaused(d)
        #expect(paused)
        let expected = 480 + 3200.0
        #expect(abs(d.core.distance - expected) < 30, "distance \(d.core.distance), expected ~\(expected)")
    }

    @Test(arguments: [(true, true), (true, false), (false, true), (false, false)])
    func aDeviceThatStopsRecordingWhileItsRiderStandsIsAutoPausedThroughTheGap(_ autoPause: Bool, _ doppler: Bool) throws {
        // A bike computer with its own auto-pause records nothing while its rider stands: the
        // last fix at 60 s, then 20 minutes without fixes, then the rider rides on from where
        // the fixes stopped. The gap was crossed standing: with auto-pause on, the flight is
        // paused from the gap's beginning (elapsed is the riding time, as the device's timer);
        // with it off the gap is elapsed time. Moving time is the riding either way.
        var config = EngineConfig(activity: .ride)
        config.autoPause.enabled = autoPause
        var d = Driver(config)
        let speed = { (v: Double) in doppler ? v : .nan }
        try d.phase(.start, 0)
        var north = 0.0
        for i in 0...60 { north = 8 * Double(i); try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: speed(8), hAcc: 5) }
        for i in 1260...1560 { try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: speed(8), hAcc: 5); north += 8 }
        try d.phase(.stop, 1560)
        let elapsed = d.core.elapsed, moving = d.core.movingS, distance = d.core.distance
        #expect(autoPaused(d) == autoPause)
        #expect(abs(distance - (480 + 2400)) < 30, "distance \(distance)")
        #expect(moving <= elapsed && abs(moving - 360) < 10, "moving \(moving) s, elapsed \(elapsed) s")
        #expect(abs(elapsed - (autoPause ? 360 : 1560)) < 10, "elapsed \(elapsed) s")
    }

    @Test(arguments: [(1260.0, true, true), (1260.0, false, true), (1200.0, true, true), (1200.0, true, false)])
    func aGapAcrossAUsersPauseIsNoStandingAfterTheResume(_ resumeT: Double, _ doppler: Bool, _ filters: Bool) throws {
        // Fixes to 60 s, a pause at 60 s, no fixes while paused, then the rider rides on at 8 m/s
        // from the resume and from where the fixes stopped; the first fix comes at 1260 s.
        // - Resumed at 1260 s: a bike computer whose timer was stopped (by its rider or its own
        //   auto-pause) records nothing until it runs again. The gap's line is short for its 20
        //   minutes, but the rider stood through a pause, not through cruise: a hold never spans
        //   a change the user made.
        // - Resumed at 1200 s: a phone host that stops location updates while paused, whose first
        //   fix comes a minute after the resume, 480 m on. The line measures 480 m in the leg's
        //   60 s, as the fix's Doppler speed says.
        // Either way no auto-pause, every metre and second of the two legs counts, and no route
        // segment is one point.
        var config = EngineConfig(activity: .ride)
        config.filters = filters
        var d = Driver(config)
        let speed = { (v: Double) in doppler ? v : .nan }
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(8 * Double(i)), 4, speed: speed(8), hAcc: 5) }
        try d.phase(.pause, 60)
        try d.phase(.resume, resumeT)
        for i in 1260...1560 { try d.fix(Double(i), 52 + degreesNorth(480 + 8 * (Double(i) - resumeT)), 4, speed: speed(8), hAcc: 5) }
        try d.phase(.stop, 1560)
        let elapsed = d.core.elapsed, moving = d.core.movingS, distance = d.core.distance
        let paused = autoPaused(d)
        #expect(!paused)
        #expect(elapsed == 60 + 1560 - resumeT, "elapsed \(elapsed) s")
        #expect(moving <= elapsed && moving >= elapsed - 10, "moving \(moving) s")
        #expect(abs(distance - (480 + 8 * (1560 - resumeT))) < 30, "distance \(distance) m")
        let r = d.core.route, starts = r.segmentStarts
        let sizes = starts.indices.map { (($0 + 1 < starts.count ? starts[$0 + 1] : r.count) - starts[$0]) }
        #expect(!sizes.contains(1), "segments \(sizes)")
    }

    @Test func aSparseRecordersStandingGapThenARiddenGapPauseAndResumeWithTheLapsAddingUp() throws {
        // Positions only. The rider stands from 60 s to 200 s (fixes at 61 and 200 s where the
        // rider stands), rides 2 400 m in the next 300 s with no fix, then 1 Hz fixes to 700 s. The
        // fix at 500 s confirms the standing gap (the flight pauses from 61 s) and starts a gap
        // that ends while paused: crossed riding, it resumes the flight from its beginning.
        var d = Driver(EngineConfig(activity: .ride))
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(8 * Double(i)), 4, hAcc: 5) }
        try d.fix(61, 52 + degreesNorth(480), 4, hAcc: 5)
        try d.fix(200, 52 + degreesNorth(480), 4, hAcc: 5)
        for i in 500...700 { try d.fix(Double(i), 52 + degreesNorth(480 + 2400 + 8 * Double(i - 500)), 4, hAcc: 5) }
        try d.phase(.stop, 700)
        let elapsed = d.core.elapsed, distance = d.core.distance, laps = d.core.laps.laps
        #expect(autoPaused(d) && resumed(d))
        #expect(abs(distance - 4480) < 40, "distance \(distance)")
        #expect(abs(elapsed - (61 + 500)) < 10, "elapsed \(elapsed) s")
        #expect(abs(laps.reduce(0) { $0 + $1.elapsedS } - elapsed) < 1e-6 && abs(laps.reduce(0) { $0 + $1.distanceM } - distance) < 1e-6)
        for lap in laps { #expect(lap.distanceM / lap.elapsedS < 10, "lap \(lap.index): \(lap.distanceM) m in \(lap.elapsedS) s") }
    }

    @Test(arguments: [true, false])
    func aGapCrossedAtRidingSpeedIsNotPaused(_ doppler: Bool) throws {
        // The same ride through a 300 s tunnel at 8 m/s: the line across it is fast, no pause.
        var d = Driver(EngineConfig(activity: .ride))
        let speed = { (v: Double) in doppler ? v : .nan }
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(8 * Double(i)), 4, speed: speed(8), hAcc: 5) }
        for i in 360...600 { try d.fix(Double(i), 52 + degreesNorth(8 * Double(i)), 4, speed: speed(8), hAcc: 5) }
        try d.phase(.stop, 600)
        let elapsed = d.core.elapsed
        #expect(!autoPaused(d))
        #expect(elapsed == 600, "elapsed \(elapsed) s")
    }

    @Test(arguments: [true, false])
    func aStopRightAfterATunnelPausesFromTheTunnelsEndNotFromBeforeIt(_ doppler: Bool) throws {
        // The rider brakes at 61 s (slow for 2 s, not yet an auto-pause), rides 296 m through a
        // tunnel from 63 s to 100 s, and stands at a light after it until 130 s. The rider moved
        // in the tunnel: the pause should be from 100 s, not backdated across the tunnel.
        var d = Driver(EngineConfig(activity: .ride))
        let speed = { (v: Double) in doppler ? v : .nan }
        var north = try rideToALight(&d, standUntil: 63, doppler: doppler)
        north += 296
        for i in 100...129 { try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: speed(0), hAcc: 5) }
        for i in 130...200 { north += 8; try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: speed(8), hAcc: 5) }
        try d.phase(.stop, 200)
        let paused = autoPaused(d), elapsed = d.core.elapsed, distance = d.core.distance
        #expect(paused)
        #expect(abs(distance - (480 + 296 + 560)) < 30, "distance \(distance)")
        // Cruise from 0 to ~100 s and from ~130 s (the resume's fast hold) to 200 s.
        #expect(abs(elapsed - 170) < 5, "elapsed \(elapsed) s")
    }

    @Test(arguments: [1000.0, 200.0, 100.0])
    func aSparseRecordersJunkFixWhileStandingNeitherResumesNorCounts(_ junkM: Double) throws {
        // Positions only, auto-paused at a light, one fix every 40 s where the rider stands; the
        // third is junk `junkM` east. The lines to it and back are fast, but the fix after it is
        // back where the one before it was: the junk confirms no movement.
        var d = Driver(EngineConfig(activity: .ride))
        let north = try rideToALight(&d, standUntil: 80, doppler: false)
        for k in 1...6 { try d.fix(80 + 40 * Double(k), 52 + degreesNorth(north), 4 + (k == 3 ? degreesEast(junkM) : 0), hAcc: 5) }
        try d.phase(.stop, 320)
        let resumed = resumed(d)
        let distance = d.core.distance
        #expect(!resumed)
        #expect(abs(distance - 480) < 30, "distance \(distance)")
    }

    @Test(arguments: [123.0, 124.0])
    func aJunkFixAfterATunnelWhileStandingDoesNotBackdateTheResume(_ resume: Double) throws {
        // Positions only, auto-paused from ~67 s, a tunnel from 80 s to 120 s, the first fix out
        // of it 1 km east, three more re-anchor the gate at 123 s; the rider stood through the
        // tunnel and sets off at `resume`. The junk's line must not start the fast hold at 80 s.
        var d = Driver(EngineConfig(activity: .ride))
        var north = try rideToALight(&d, standUntil: 80, doppler: false)
        try d.fix(120, 52 + degreesNorth(north), 4 + degreesEast(1000), hAcc: 5)
        for i in 121...400 {
            let v = Double(i) >= resume ? 8.0 : 0
            north += v
            try d.fix(Double(i), 52 + degreesNorth(north), 4, hAcc: 5)
        }
        try d.phase(.stop, 400)
        let elapsed = d.core.elapsed
        // Cruise to the slow hold's start (~67 s), then from about `resume` to 400 s.
        #expect(abs(elapsed - (67 + 400 - resume)) < 8, "elapsed \(elapsed) s")
    }

    @Test(arguments: [true, false])
    func aRiderWhoBrakesUntilTheSlowHoldBeginsBeforeATunnelIsNotPausedAcrossIt(_ doppler: Bool) throws {
        // As above, but the rider stands before the tunnel until the slow hold has begun (with
        // positions only the filter's speed takes a few fixes to fall below 1 m/s); the pause is
        // then decided only after the fix that confirms the tunnel's line.
        var d = Driver(EngineConfig(activity: .ride))
        let speed = { (v: Double) in doppler ? v : .nan }
        var north = try rideToALight(&d, standUntil: 61, doppler: doppler)
        var i = 62
        while d.core.pause.machine.slowSince == nil && i < 80 {
            try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: speed(0), hAcc: 5)
            i += 1
        }
        let braked = Double(i - 1)
        #expect(d.core.pause.machine.slowSince != nil && d.core.phase == .cruise)
        north += 296
        for j in 0..<30 { try d.fix(braked + 37 + Double(j), 52 + degreesNorth(north), 4, speed: speed(0), hAcc: 5) }
        for j in 0..<70 { north += 8; try d.fix(braked + 67 + Double(j), 52 + degreesNorth(north), 4, speed: speed(8), hAcc: 5) }
        try d.phase(.stop, braked + 137)
        let elapsed = d.core.elapsed
        // Cruise to the tunnel's end, paused from there, and 70 s after the light.
        #expect(abs(elapsed - (braked + 37 + 70)) < 6, "elapsed \(elapsed) s")
    }
}
