import Testing
@testable import RunwayCore

/// A fix `north`/`east` metres from 52° N, 4° E, for the gate alone (it is given the time apart).
private func fix(north: Double, east: Double = 0, hAcc: Double = 5) -> Fix {
    Fix(t: 0, lat: 52 + degreesNorth(north), lon: 4 + degreesEast(east), alt: .nan, speed: .nan, course: .nan, hAcc: hAcc)
}

private func accepted(_ v: FixGate.Verdict) -> (newSegment: Bool, reanchored: Bool)? {
    if case .accept(let s, let r) = v { return (s, r) }
    return nil
}

@Suite("The fix gate at its limits (issue #4: 50 m, the speed caps, 30 s, 200 m, 10 s)")
struct FixGateLimitTests {
    @Test func accuracyOfExactly50mPassesAndWorseIsFiltered() {
        var g = FixGate()
        #expect(accepted(g.assess(fix(north: 0, hAcc: 50), at: 0)) != nil)
        #expect(g.assess(fix(north: 3, hAcc: 50.5), at: 1) == .filtered(.accuracy))
        #expect(accepted(g.assess(fix(north: 6, hAcc: 49), at: 2)) != nil)
    }

    @Test(arguments: [(Activity.run, 12.0), (.walk, 6.0), (.ride, 30.0)])
    func eachProfileFiltersOnlyWhatIsFasterThanItsCap(_ activity: Activity, _ cap: Double) throws {
        // Through the engine, so the profile's cap is the one the gate gets.
        var d = Driver(EngineConfig(activity: activity))
        try d.phase(.start, 0)
        try d.fix(0, 52, 4, hAcc: 5)
        try d.fix(1, 52 + degreesNorth(cap - 0.5), 4, hAcc: 5)          // just under the cap
        #expect(d.core.filtered[.speed] == 0)
        try d.fix(2, 52 + degreesNorth(cap - 0.5 + cap + 0.5), 4, hAcc: 5)  // just over it
        #expect(d.core.filtered[.speed] == 1)
    }

    @Test func aGapOfMoreThan30sStartsANewSegmentAndOneOf30sDoesNot() {
        var g = FixGate()
        _ = g.assess(fix(north: 0), at: 0)
        #expect(accepted(g.assess(fix(north: 90), at: 30))?.newSegment == false)
        #expect(accepted(g.assess(fix(north: 180), at: 60.5))?.newSegment == true)
    }

    @Test func aJumpOfMoreThan200mStartsANewSegmentWithoutAGap() {
        // 20 s apart, both under the run's 12 m/s cap, neither a gap.
        var g = FixGate()
        _ = g.assess(fix(north: 0), at: 0)
        #expect(accepted(g.assess(fix(north: 190), at: 20))?.newSegment == false)
        #expect(accepted(g.assess(fix(north: 400), at: 40))?.newSegment == true)
    }

    @Test func theGapAndJumpLimitsAreSettings() throws {
        let c = try EngineConfig.parse(#"{"gap_s":10,"jump_m":50,"required_accuracy_m":20}"#)
        var g = FixGate(settings: c.gateSettings)
        _ = g.assess(fix(north: 0), at: 0)
        #expect(accepted(g.assess(fix(north: 30), at: 11))?.newSegment == true)    // an 11 s gap
        #expect(accepted(g.assess(fix(north: 90), at: 21))?.newSegment == true)    // a 60 m jump
        #expect(g.assess(fix(north: 93, hAcc: 25), at: 22) == .filtered(.accuracy))
    }

    @Test func theReducedAccuracyWarningComesAfter10sOfBadFixesOnceAnEpisode() {
        var g = FixGate()
        _ = g.assess(fix(north: 0), at: 0)
        _ = g.assess(fix(north: 3, hAcc: 80), at: 100)
        let early = g.accuracyWarningDue(at: 109.9), due = g.accuracyWarningDue(at: 110), again = g.accuracyWarningDue(at: 111)
        #expect(!early && due && !again)
        _ = g.assess(fix(north: 6, hAcc: 5), at: 112)                // accuracy restored
        #expect(!g.accuracyIsBad)
        _ = g.assess(fix(north: 9, hAcc: 80), at: 113)               // a new episode
        let early2 = g.accuracyWarningDue(at: 122.9), due2 = g.accuracyWarningDue(at: 123)
        #expect(!early2 && due2)
    }

    @Test func theDefaultsAreTheIssues() {
        let c = EngineConfig()
        #expect(c.requiredAccuracyM == 50 && c.gapS == 30 && c.jumpM == 200 && c.countGaps)
        #expect(c.speedCapMps == 12 && EngineConfig(activity: .ride).speedCapMps == 30)
        #expect(c.paceWindowS == 10 && c.autoLapM == 1000 && c.hrMax == 190 && c.elevationHysteresisM == 3)
        #expect(c.activity == .run && c.filters && !c.autoPause.enabled)
    }
}

@Suite("Outliers the gate let through")
struct GateOutlierTests {
    @Test(arguments: [true, false])
    func aJunkFirstFixAfterAGapAddsNoDistanceOnceTheGateReanchors(_ countGaps: Bool) throws {
        // A tunnel: 60 s north at 3 m/s, 40 s without fixes, then the receiver's first fix is
        // 1 km east of the runner before it settles. After a gap any position is accepted; the
        // junk is judged an outlier when three consistent fixes re-anchor the gate, and the
        // total must be as if the gap had ended at the first good fix.
        var c = EngineConfig()
        c.countGaps = countGaps
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0) }
        try d.fix(100, 52 + degreesNorth(300), 4 + degreesEast(1000), speed: 3, course: 0)
        for i in 101...200 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0) }
        try d.phase(.stop, 200)
        // 600 m run, 120 m of it in the tunnel (counted only with count_gaps); the fixes the gate
        // held back before it re-anchored lose a few metres.
        let expected = countGaps ? 600.0 : 480.0
        #expect(abs(d.snapshot.distanceM - expected) < 15, "distance \(d.snapshot.distanceM), expected ~\(expected)")
        #expect(logMessages(d.events).contains { $0.contains("re-anchored") })
        // The junk is not on the route.
        let route = d.core.route
        #expect((0..<route.count).allSatisfy { abs(route.longitude($0) - 4) < degreesEast(50) })
    }

    @Test func aGapsDistanceIsNoBurstOfSpeed() throws {
        // Positions only: the pace comes from the distance window, which must not see the gap's
        // 120 m arrive within one second.
        var d = Driver()
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, hAcc: 5) }
        for i in 100...130 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, hAcc: 5) }
        // The gap's 120 m counted once (390 m in all; the track filter, restarted after the gap
        // with positions only, takes a few fixes to follow, as at the start).
        #expect(abs(d.snapshot.distanceM - 390) < 15, "distance \(d.snapshot.distanceM)")
        #expect(d.core.maxSpeed < 4, "max speed \(d.core.maxSpeed) m/s")
        #expect(abs(d.snapshot.groundSpeedMps - 3) < 0.3)
    }

    @Test func aLapCutInAGapSpansTheGapsTime() throws {
        // 900 m at 4 m/s, 100 s without fixes (400 m), then on: the 1 km boundary falls in the
        // gap, 25 s into it, not in the second after it.
        var d = Driver()
        try d.phase(.start, 0)
        for i in 0...225 { try d.fix(Double(i), 52 + degreesNorth(4 * Double(i)), 4, speed: 4, course: 0) }
        for i in 325...400 { try d.fix(Double(i), 52 + degreesNorth(4 * Double(i)), 4, speed: 4, course: 0) }
        let lap = try #require(d.events.lazy.compactMap { e -> Lap? in if case .split(let l) = e.body { return l } else { return nil } }.first)
        #expect(abs(lap.endT - 250) < 3 && abs(lap.elapsedS - 250) < 3, "lap 1 ends at \(lap.endT) after \(lap.elapsedS) s")
    }

    @Test func anAutoPauseAtTheFixAfterAGapLeavesTheLapsTimesWhole() throws {
        // A ride stops (the receiver loses the sky while it stands), and the fix after the gap
        // starts an auto-pause that began before the gap: the laps after it keep their time.
        var d = Driver(EngineConfig(activity: .ride))
        try d.phase(.start, 0)
        var north = 0.0
        for i in 0...200 { north += 8; try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: 8, course: 0) }
        for i in 201...203 { try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: 0, course: 0) }
        for i in 300...310 { try d.fix(Double(i), 52 + degreesNorth(north + 5), 4, speed: 0, course: 0) }
        for i in 311...700 { north += 8; try d.fix(Double(i), 52 + degreesNorth(north + 5), 4, speed: 8, course: 0) }
        let laps = d.events.compactMap { e -> Lap? in if case .split(let l) = e.body { return l } else { return nil } }
        #expect(laps.count >= 4)
        for lap in laps {
            // 1 km at 8 m/s is 125 s of riding; the lap with the stop in it is no shorter.
            #expect(lap.elapsedS >= 124, "lap \(lap.index): \(lap.elapsedS) s for \(lap.distanceM) m")
        }
    }

    /// The split events' laps, in order.
    private func splits(_ d: Driver) -> [Lap] {
        d.events.compactMap { e -> Lap? in if case .split(let l) = e.body { return l } else { return nil } }
    }

    @Test(arguments: ["stop", "pause", "lap"])
    func aGapStillWaitingWhenTheRunnerActsCutsItsLapsWithTheirSplits(_ action: String) throws {
        // 900 m, then a 60 s gap to 1300 m; before any further fix the runner stops, pauses or
        // laps: the gap is credited, and the auto lap in it comes as a split event, in order.
        var d = Driver()
        try d.phase(.start, 0)
        for i in 0...225 { try d.fix(Double(i), 52 + degreesNorth(4 * Double(i)), 4, speed: 4, course: 0) }
        try d.fix(285, 52 + degreesNorth(1300), 4, speed: 4, course: 0)
        switch action {
        case "stop": try d.phase(.stop, 286)
        case "pause": try d.phase(.pause, 286); try d.phase(.resume, 900); try d.phase(.stop, 901)
        default: try d.core.lap(at: 286, wallClock: .nan, events: &d.events); try d.phase(.stop, 287)
        }
        let split = splits(d)
        #expect(split.map(\.index) == Array(1...split.count), "\(split.map(\.index))")
        #expect(split.first?.trigger == .auto && abs((split.first?.distanceM ?? 0) - 1000) < 1e-6)
        #expect((split.first?.endT ?? 0) < 286, "the auto lap ends in the gap, at \(split.first?.endT ?? 0)")
        #expect(split.map(\.index) == d.core.laps.laps.map(\.index), "every lap the summary lists came as a split")
        #expect(abs(d.core.distance - 1300) < 2)
    }

    @Test func fixesFartherApartThanTheGapLimitStillGetTheirSplitsAsTheyGo() throws {
        // A sparse recorder: a fix every 40 s (each one a gap), 160 m apart.
        var d = Driver()
        try d.phase(.start, 0)
        for i in 0...20 { try d.fix(40 * Double(i), 52 + degreesNorth(160 * Double(i)), 4, hAcc: 5) }
        let before = splits(d).count
        try d.phase(.stop, 800)
        #expect(before >= 2, "\(before) splits before the stop, \(d.core.laps.laps.count) laps")
        #expect(abs(d.core.distance - 3200) < 5)
    }

    @Test func theRoutePointAfterAGapCarriesTheGapsDistance() throws {
        var d = Driver()
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0) }
        try d.fix(100, 52 + degreesNorth(300), 4, speed: 3, course: 0)
        try d.fix(101, 52 + degreesNorth(303), 4, speed: 3, course: 0)
        let route = d.core.route
        let gapPoint = try #require((0..<route.count).first { route.time($0) == 100 })
        #expect(route.segment(of: gapPoint) == 1)
        // Cumulative distance at the point is the distance before the gap plus the gap's 120 m.
        #expect(abs(route.distanceM(gapPoint) - route.distanceM(gapPoint - 1) - 120) < 0.5,
                "\(route.distanceM(gapPoint - 1)) m before, \(route.distanceM(gapPoint)) m at the fix after the gap")
    }

    @Test func aSpikeThatSlippedThroughDoesNotLockTheGateOut() throws {
        // 15 s without fixes (no gap), then a fix 150 m off to the side: within the cap from the
        // last fix, so it is accepted, and the runner's next fixes are too far from it. The gate
        // re-anchors on them and counting goes on.
        var d = Driver()
        try d.phase(.start, 0)
        for i in 0...30 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0) }
        try d.fix(45, 52 + degreesNorth(135), 4 + degreesEast(150), speed: 3, course: 0)
        let afterSpike = d.snapshot.distanceM
        for i in 46...120 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, course: 0) }
        #expect(logMessages(d.events).contains { $0.contains("re-anchored") })
        #expect(d.core.filtered[.speed] <= 3)
        // The 70-odd seconds after the re-anchor count (3 m/s).
        #expect(d.snapshot.distanceM - afterSpike > 200, "\(d.snapshot.distanceM - afterSpike) m after the spike")
        // 360 m run; the spike's 150 m detour is not counted, and the fixes held back before the
        // re-anchor lose a few metres.
        #expect(abs(d.snapshot.distanceM - 360) < 15, "\(d.snapshot.distanceM) m of 360")
    }
}

@Suite("Outliers the gate let through while auto-paused")
struct GateOutlierWhileHeldTests {
    /// A ride: 60 s north at 8 m/s (480 m), then standing at a light until `standUntil`, with
    /// Doppler speed or positions only. Returns the metres ridden north.
    private func rideToALight(_ d: inout Driver, standUntil: Int, doppler: Bool = true) throws -> Double {
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(8 * Double(i)), 4, speed: doppler ? 8 : .nan, hAcc: 5) }
        for i in 61...standUntil { try d.fix(Double(i), 52 + degreesNorth(480), 4, speed: doppler ? 0 : .nan, hAcc: 5) }
        return 480
    }

    private func east(_ route: Route) -> [Double] { (0..<route.count).map { (route.longitude($0) - 4) / degreesEast(1) } }

    private func autoPaused(_ d: Driver) -> Bool {
        d.events.contains { if case .phase(_, .holding, .auto) = $0.body { return true } else { return false } }
    }

    /// Whether the flight left a hold for cruise (by itself or by the user).
    private func resumed(_ d: Driver) -> Bool {
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

    @Test(arguments: ["stop", "pause"])
    func aReanchorAfterTheUserStopsOrPausesLeavesTheRouteAsItWas(_ action: String) throws {
        // The first fix after a tunnel is junk, and the user stops (or pauses) right then: the
        // fixes that re-anchor the gate afterwards change nothing the flight recorded.
        var d = Driver(EngineConfig(activity: .ride))
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(8 * Double(i)), 4, speed: 8, hAcc: 5) }
        try d.fix(100, 52 + degreesNorth(800), 4 + degreesEast(1000), speed: 8, hAcc: 5)
        try d.phase(action == "stop" ? .stop : .pause, 100)
        let before = (d.core.route.count, d.core.route.segmentStarts)
        for i in 101...104 {
            do { try d.fix(Double(i), 52 + degreesNorth(800 + 8 * Double(i - 100)), 4, speed: 8, hAcc: 5) } catch {
                #expect(action == "stop" && error.status == .state)   // (after stop, the record is complete)
            }
        }
        #expect(action == "stop" || logMessages(d.events).contains { $0.contains("re-anchored") })
        #expect(d.core.route.count == before.0 && d.core.route.segmentStarts == before.1)
    }

    @Test func aFiveSecondRecordersJunkFixWhileStandingNeitherResumesNorCounts() throws {
        // One fix every 5 s with Doppler, auto-paused from 65 s. After a 45 s gap the first fix
        // is junk 100 m east; the fix after it, back where the rider stands, is within the
        // gate's limits of it (the way back). The gap is confirmed from where the rider was
        // before it: no movement.
        var d = Driver(EngineConfig(activity: .ride))
        try d.phase(.start, 0)
        for t in stride(from: 0.0, through: 60, by: 5) { try d.fix(t, 52 + degreesNorth(8 * t), 4, speed: 8, hAcc: 5) }
        for t in stride(from: 65.0, through: 120, by: 5) { try d.fix(t, 52 + degreesNorth(480), 4, speed: 0, hAcc: 5) }
        try d.fix(165, 52 + degreesNorth(480), 4 + degreesEast(100), speed: 0, hAcc: 5)
        for t in stride(from: 170.0, through: 300, by: 5) { try d.fix(t, 52 + degreesNorth(480), 4, speed: 0, hAcc: 5) }
        try d.phase(.stop, 300)
        let resumed = resumed(d)
        let distance = d.core.distance, elapsed = d.core.elapsed
        #expect(!resumed)
        #expect(abs(distance - 480) < 30, "distance \(distance)")
        #expect(abs(elapsed - 65) < 5, "elapsed \(elapsed) s")
    }

    @Test func aJunkFixAfterASecondTunnelDoesNotCostTheFirst() throws {
        // Positions only, auto-paused at a light; the rider sets off at 80 s into a tunnel, a
        // good fix at 120 s 320 m on, a second tunnel, whose first fix (160 s) is junk 840 m
        // behind; 1 Hz fixes on the road from 161 s re-anchor the gate. That fix and the way
        // back from it cast doubt on the good one between the tunnels; the re-anchor's line, from
        // before the first tunnel, shows the rider moved all along.
        var d = Driver(EngineConfig(activity: .ride))
        try d.phase(.start, 0)
        for i in 0...60 { try d.fix(Double(i), 52 + degreesNorth(8 * Double(i)), 4, hAcc: 5) }
        for i in 61...80 { try d.fix(Double(i), 52 + degreesNorth(480), 4, hAcc: 5) }
        try d.fix(120, 52 + degreesNorth(800), 4, hAcc: 5)
        try d.fix(160, 52 + degreesNorth(280), 4, hAcc: 5)   // junk
        for i in 161...300 { try d.fix(Double(i), 52 + degreesNorth(480 + 8 * Double(i - 80)), 4, hAcc: 5) }
        try d.phase(.stop, 300)
        let distance = d.core.distance, elapsed = d.core.elapsed
        #expect(abs(distance - 2240) < 30, "distance \(distance)")
        #expect(abs(elapsed - 287) < 8, "elapsed \(elapsed) s")
    }

    /// A point `east` and `north` metres from 52° N 4° E.
    private func at(_ east: Double, _ north: Double) -> (lat: Double, lon: Double) {
        (52 + degreesNorth(north), 4 + degreesEast(east))
    }

    @Test func aResumeIsNeverBackdatedToBeforeThePause() throws {
        // A ride at 1 Hz, then one fix every 40 s in a zigzag whose fixes each look doubtful
        // (none lies on the way on): the slow hold starts at 100 s and the pause is decided at
        // 140 s; the line confirmed at 181 s is fast from the last place known before the
        // zigzag (60 s). The resume may go back to the pause's start, not to before it.
        var d = Driver(EngineConfig(activity: .ride))
        try d.phase(.start, 0)
        for i in 0...60 { let q = at(0, 8 * Double(i) - 480); try d.fix(Double(i), q.lat, q.lon, speed: 8, hAcc: 5) }
        var q = at(175, -400); try d.fix(100, q.lat, q.lon, speed: 0, hAcc: 5)
        q = at(350, 0); try d.fix(140, q.lat, q.lon, speed: 0, hAcc: 5)
        q = at(0, 300); try d.fix(180, q.lat, q.lon, speed: 8, hAcc: 5)
        for i in 181...300 { q = at(0, 300 + 8 * Double(i - 180)); try d.fix(Double(i), q.lat, q.lon, speed: 8, hAcc: 5) }
        try d.phase(.stop, 300)
        let elapsed = d.core.elapsed, laps = d.core.laps.laps
        #expect(elapsed <= 300, "elapsed \(elapsed) s in a 300 s flight")
        for lap in laps { #expect(lap.elapsedS <= lap.endT - lap.startT + 1e-9, "lap \(lap.index): \(lap.elapsedS) s from \(lap.startT) to \(lap.endT)") }
    }

    @Test func aRecorderWhoseEveryFixIsDoubtfulKeepsFewHeldSteps() throws {
        // Auto-paused and standing, a sparse recorder alternating 100 m east and west of the
        // rider: every fix is doubtful. The held steps must not grow by a fix.
        var d = Driver(EngineConfig(activity: .ride))
        _ = try rideToALight(&d, standUntil: 80)
        for k in 1...400 { let q = at(k % 2 == 0 ? -100 : 100, 480); try d.fix(80 + 31 * Double(k), q.lat, q.lon, speed: 0, hAcc: 5) }
        let held = d.core.pause.heldCount
        #expect(held < 10, "\(held) held steps after 400 fixes")
    }

    @Test(arguments: ["start", "resume"])
    func aJunkPointKeptByAStartOrResumeGoesWhenTheGateReanchors(_ command: String) throws {
        // The start (or a user's resume after a 40 s pause without fixes) keeps the latest fix,
        // junk 1 km east, as the leg's first point, at the command's time; the fixes on the road
        // re-anchor the gate and the junk point must go.
        var d = Driver()
        if command == "start" {
            try d.fix(0, 52 + degreesNorth(60), 4 + degreesEast(1000), speed: 3, hAcc: 5)
            try d.phase(.start, 2)
        } else {
            try d.phase(.start, 0)
            for i in 0...20 { try d.fix(Double(i), 52 + degreesNorth(3 * Double(i)), 4, speed: 3, hAcc: 5) }
            try d.phase(.pause, 20)
            try d.fix(60, 52 + degreesNorth(60), 4 + degreesEast(1000), speed: 3, hAcc: 5)
            try d.phase(.resume, 62)
        }
        let first = command == "start" ? 3 : 63
        for i in first...(first + 60) { try d.fix(Double(i), 52 + degreesNorth(60 + 3 * Double(i - first + 1)), 4, speed: 3, hAcc: 5) }
        let east = east(d.core.route)
        #expect(logMessages(d.events).contains { $0.contains("re-anchored") })
        #expect(east.allSatisfy { abs($0) < 50 }, "route points east of the road: \(east.filter { abs($0) >= 50 })")
    }

    @Test(arguments: [true, false])
    func aManualLapBeforeTheFixThatConfirmsAGapChangesNoTotal(_ held: Bool) throws {
        // A manual lap in the second between the fix after a gap and the fix that confirms it
        // waits for that fix: the flight's totals are those of the same fixes without the lap
        // (crediting the gap at the lap, unconfirmed, measured no movement across it: a held
        // tunnel was lost, 160 m, and a pause stayed backdated across a tunnel, 39 s). The lap
        // is cut at its own time, and the laps add up to the flight.
        func ride(lap: Bool) throws -> (distance: Double, elapsed: Double, splits: [Lap], splitsAtLap: Int) {
            var d = Driver(EngineConfig(activity: .ride))
            var north = try rideToALight(&d, standUntil: held ? 80 : 63)
            let lapT = held ? 120.5 : 100.5
            var splitsAtLap = 0
            func split() -> [Lap] { d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } } }
            if held {
                // Auto-paused at the light; the rider sets off at 100 s in a tunnel (80-120 s).
                north += 160
                try d.fix(120, 52 + degreesNorth(north), 4, speed: 8, hAcc: 5)
                if lap { try d.core.lap(at: lapT, wallClock: .nan, events: &d.events); splitsAtLap = split().count }
                for i in 121...200 { north += 8; try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: 8, hAcc: 5) }
            } else {
                // The rider brakes at 61 s, rides 296 m through a tunnel (63-100 s), stands until 130 s.
                north += 296
                try d.fix(100, 52 + degreesNorth(north), 4, speed: 0, hAcc: 5)
                if lap { try d.core.lap(at: lapT, wallClock: .nan, events: &d.events); splitsAtLap = split().count }
                for i in 101...129 { try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: 0, hAcc: 5) }
                for i in 130...200 { north += 8; try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: 8, hAcc: 5) }
            }
            try d.phase(.stop, 200)
            return (d.core.distance, d.core.elapsed, split(), splitsAtLap)
        }
        let plain = try ride(lap: false), lapped = try ride(lap: true)
        #expect(abs(lapped.distance - plain.distance) < 1, "distance \(lapped.distance) with the lap, \(plain.distance) without")
        #expect(abs(lapped.elapsed - plain.elapsed) < 1, "elapsed \(lapped.elapsed) s with the lap, \(plain.elapsed) s without")
        // The lap waited: no split when it was asked for; then the manual one at its time comes
        // first (before the auto laps of the kilometres after it) and the final lap last.
        #expect(lapped.splitsAtLap == 0)
        #expect(lapped.splits.first?.trigger == .manual && lapped.splits.first?.endT == (held ? 120.5 : 100.5), "\(lapped.splits)")
        #expect(lapped.splits.dropFirst().map(\.trigger) == plain.splits.map(\.trigger), "\(lapped.splits)")
        let sumD = lapped.splits.reduce(0) { $0 + $1.distanceM }, sumS = lapped.splits.reduce(0) { $0 + $1.elapsedS }
        #expect(abs(sumD - lapped.distance) < 1e-6 && abs(sumS - lapped.elapsed) < 1e-6, "laps \(sumD) m \(sumS) s, flight \(lapped.distance) m \(lapped.elapsed) s")
        if !held {
            // Cruising, the tunnel's 296 m are before the lap, in it.
            #expect((lapped.splits.first?.distanceM ?? 0) > 480 + 290, "\(lapped.splits)")
        }
    }

    @Test func aManualLapAfterAJunkFixWhileAutoPausedDoesNotResume() throws {
        // Standing at a light, auto-paused; after a tunnel the first fix is junk 1 km east and
        // the user laps right then. The lap takes the gap unconfirmed: no movement measured.
        var d = Driver(EngineConfig(activity: .ride))
        let north = try rideToALight(&d, standUntil: 80)
        try d.fix(120, 52 + degreesNorth(north), 4 + degreesEast(1000), speed: 0, hAcc: 5)
        try d.core.lap(at: 120.5, wallClock: .nan, events: &d.events)
        for i in 121...200 { try d.fix(Double(i), 52 + degreesNorth(north), 4, speed: 0, hAcc: 5) }
        try d.phase(.stop, 200)
        let resumed = resumed(d)
        let distance = d.core.distance
        #expect(!resumed)
        #expect(abs(distance - 480) < 30, "distance \(distance)")
    }

    @Test(arguments: [true, false])
    func twoJunkFixesInARowFromASparseRecorderMeasureNoMovement(_ doppler: Bool) throws {
        // Auto-paused and standing; one fix every 40 s, the 2nd and 3rd junk 1 km east and west.
        var d = Driver(EngineConfig(activity: .ride))
        let north = try rideToALight(&d, standUntil: 80, doppler: doppler)
        for (k, east) in [0.0, 1000, -1000, 0, 0, 0, 0].enumerated() {
            try d.fix(120 + 40 * Double(k), 52 + degreesNorth(north), 4 + degreesEast(east), speed: doppler ? 0 : .nan, hAcc: 5)
        }
        try d.phase(.stop, 400)
        let resumed = resumed(d)
        let distance = d.core.distance
        #expect(!resumed)
        #expect(abs(distance - 480) < 30, "distance \(distance)")
    }

    @Test(arguments: [(5.0, 140.0), (10.0, 190.0)])
    func aSmallJunkFixThatConfirmsATunnelWhileStandingDoesNotResume(_ step: Double, _ junkM: Double) throws {
        // A watch recording every `step` s with Doppler, auto-paused at a light; after a 45 s
        // tunnel the first fix is good, the next is junk `junkM` east (within the gate's
        // limits), and it is the one that confirms the gap: its Doppler says standing. The
        // flight must be as if that fix had been where the rider stands.
        func ride(junk: Bool) throws -> (resumed: Bool, distance: Double, elapsed: Double) {
            var d = Driver(EngineConfig(activity: .ride))
            try d.phase(.start, 0)
            for t in stride(from: 0.0, through: 60, by: step) { try d.fix(t, 52 + degreesNorth(8 * t), 4, speed: 8, hAcc: 5) }
            for t in stride(from: 60 + step, through: 120, by: step) { try d.fix(t, 52 + degreesNorth(480), 4, speed: 0, hAcc: 5) }
            try d.fix(165, 52 + degreesNorth(480), 4, speed: 0, hAcc: 5)
            try d.fix(165 + step, 52 + degreesNorth(480), 4 + degreesEast(junk ? junkM : 0), speed: 0, hAcc: 5)
            for t in stride(from: 165 + 2 * step, through: 400, by: step) { try d.fix(t, 52 + degreesNorth(480), 4, speed: 0, hAcc: 5) }
            try d.phase(.stop, 400)
            let resumed = resumed(d)
            return (resumed, d.core.distance, d.core.elapsed)
        }
        let junk = try ride(junk: true), clean = try ride(junk: false)
        #expect(!clean.resumed && !junk.resumed)
        #expect(abs(junk.distance - clean.distance) < 1, "distance \(junk.distance) with the junk fix, \(clean.distance) without")
        #expect(abs(junk.elapsed - clean.elapsed) < 1, "elapsed \(junk.elapsed) s with the junk fix, \(clean.elapsed) s without")
    }

    @Test(arguments: [(1.0, 166.0), (5.0, 170.0), (10.0, 180.0), (40.0, 200.0)])
    func aTunnelCrossedWhileAutoPausedCountsWhenTheConfirmingFixIsInACorner(_ step: Double, _ slowAt: Double) throws {
        // Auto-paused at a light until 120 s, the rider sets off at 125 s into a tunnel, comes out
        // at 165 s and rides on; fixes every `step` s with Doppler. The fix that confirms the
        // tunnel reports 1.5 m/s (a corner: slow, not standing). The tunnel counts as when it
        // reports 8 m/s; only that fix's own slower speed may cost distance.
        func ride(slowAt: Double?) throws -> Double {
            var d = Driver(EngineConfig(activity: .ride))
            func north(_ t: Double) -> Double { t <= 60 ? 8 * t : (t <= 125 ? 480 : 480 + 8 * (t - 125)) }
            try d.phase(.start, 0)
            for t in stride(from: 0.0, through: 300, by: step) where t <= 120 || t >= 165 {
                let v = t <= 60 ? 8.0 : (t <= 120 ? 0 : (t == slowAt ? 1.5 : 8))
                try d.fix(t, 52 + degreesNorth(north(t)), 4, speed: v, hAcc: 5)
            }
            try d.phase(.stop, 300)
            return d.core.distance
        }
        let corner = try ride(slowAt: slowAt), clean = try ride(slowAt: nil)
        #expect(corner >= clean - 6.5 * step - 1, "\(corner) m with the corner, \(clean) m without")
    }
}

