import Testing
@testable import RunwayCore

// Junk fixes, tunnels and commands around a hold (the suite and its helpers are in
// GateOutlierWhileHeldTests.swift).

extension GateOutlierWhileHeldTests {
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

    @Test(arguments: [Activity.walk, .run], [UInt64(1), 2, 3, 4, 5])
    func aJunkFixAfterAGapThatTheGateStaysOnIsNoDistance(_ activity: Activity, _ seed: UInt64) throws {
        // A walker stands, the receiver loses the sky for 45 s, its first fix after is junk 600 m
        // off (out of reach: 13 m/s); the walker then walks at 1.4 m/s, every fix too far from the
        // junk one for the gate, and too noisy (±4 m) to agree on a re-anchor, until `gap_s` (8 s)
        // passes. The junk fix goes: its line and the line back from it counted about 1240 m.
        var c = EngineConfig(activity: activity)
        c.gapS = 8
        c.distanceFilterM = 0
        var d = Driver(c)
        var rng = SeededRandom(seed: seed)
        func noise() -> Double { 4 * (Double(rng.next() % 2001) / 1000 - 1) }
        try d.phase(.start, 0)
        for i in 0...25 { try d.fix(Double(i), 52 + degreesNorth(noise()), 4 + degreesEast(noise()), speed: 0.1, hAcc: 5) }
        try d.fix(70, 52 + degreesNorth(600), 4, speed: .nan, hAcc: 5)                       // the junk fix
        var north = 0.0
        for i in 71...200 where i < 75 || i >= 80 {
            north = 1.4 * Double(i - 70)
            try d.fix(Double(i), 52 + degreesNorth(north + noise()), 4 + degreesEast(noise()), speed: 1.4, hAcc: 5)
        }
        try d.phase(.stop, 200)
        #expect(abs(d.core.distance - north) < 20, "\(d.core.distance) m for \(north) m")
        let junkLat = 52 + degreesNorth(600)
        #expect((0..<d.core.route.count).allSatisfy { abs(d.core.route.latitude($0) - junkLat) > degreesNorth(100) },
                "the junk fix is on the route")
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
