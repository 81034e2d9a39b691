import Testing
@testable import RunwayCore

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
