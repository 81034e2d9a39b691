import Testing
@testable import RunwayCore

/// A set-off from a stop while auto-paused: the fast hold that resumes the flight is judged on a
/// speed that, from positions alone, is filtered and lags the set-off by a few fixes, while the
/// steps measured it; the resume begins with those steps (`AutoPauseStage.setOff`).
@Suite("A set-off while auto-paused counts from where the runner set off")
struct SetOffTests {
    /// A driver with the profile's speed cap and own auto-pause thresholds (a ride's 2.0 m/s),
    /// no auto laps.
    static func driver(_ activity: Activity, autoPause: Bool) -> Driver {
        var c = Driver.config()
        c.activity = activity
        c.autoLapM = 0
        c.autoPause = .defaults(for: activity)
        c.autoPause.enabled = autoPause
        c.speedCapMps = activity.speedCapMps
        return Driver(c)
    }

    /// Clean fixes due north at 1 Hz: `v` m/s for 60 s, a stand of `standS`, `v` m/s for 60 s.
    static func fly(_ activity: Activity, autoPause: Bool, doppler: Bool, standS: Double) throws -> FlightData {
        var d = SetOffTests.driver(activity, autoPause: autoPause)
        let v = activity == .ride ? 8.0 : 4.0
        try d.phase(.start, 0)
        let end = 120 + Int(standS)
        for i in 0...end {
            let t = Double(i)
            let standing = t > 60 && t <= 60 + standS
            let moved = (min(t, 60) + max(0, t - 60 - standS)) * v
            try d.fix(t, 52 + degreesNorth(moved), 4, speed: doppler ? (standing ? 0 : v) : .nan, hAcc: 5)
        }
        try d.phase(.stop, Double(end))
        return d.snapshot
    }

    /// With auto-pause on, the run or ride measures as with it off: the stop is paused, and the
    /// set-off counts whole (positions only it lost 12.7 m and 3 s of moving time a set-off at
    /// 4 m/s, 15.5 m and 2 s at 8 m/s: the steps before the filtered speed passed the threshold).
    @Test(arguments: [Activity.run, .ride])
    func aSetOffCountsAsWithoutAutoPause(_ activity: Activity) throws {
        for doppler in [false, true] {
            let on = try SetOffTests.fly(activity, autoPause: true, doppler: doppler, standS: 60)
            let off = try SetOffTests.fly(activity, autoPause: false, doppler: doppler, standS: 60)
            #expect(abs(on.distanceM - off.distanceM) < 0.5, "\(activity), Doppler \(doppler): \(on.distanceM) m, \(off.distanceM) m without auto-pause")
            #expect(abs(on.movingS - off.movingS) <= 1, "\(activity), Doppler \(doppler): moving \(on.movingS) s, \(off.movingS) s without auto-pause")
            #expect(abs(on.movingS - 120) <= 1, "\(activity), Doppler \(doppler): moving \(on.movingS) s of 120")
            #expect(on.elapsedS < off.elapsedS - 30, "\(activity), Doppler \(doppler): the stop was not paused")
        }
    }

    /// Fixes due north at 1 Hz: `go` m/s for 60 s, a stand of 30 s, a creep at `creep` m/s (in
    /// the profile's band: auto-paused, but at the filter's moving speed or more) for `creepS`
    /// whose fixes lie 0.6 m either side of the line in turn (a receiver's scatter: each moves
    /// 1.2 m across), then `go` m/s for 60 s; the profile's own auto-pause.
    static func creep(_ activity: Activity, go: Double, creep: Double, creepS: Int, doppler: Bool) throws -> FlightData {
        var d = SetOffTests.driver(activity, autoPause: true)
        try d.phase(.start, 0)
        var north = 0.0
        let end = 90 + creepS + 60
        for i in 1...end {
            let creeping = i > 90 && i <= 90 + creepS
            let v = i <= 60 ? go : i <= 90 ? 0 : creeping ? creep : go
            north += v
            let east = creeping ? (i % 2 == 0 ? 0.6 : -0.6) : 0
            try d.fix(Double(i), 52 + degreesNorth(north), 4 + degreesEast(east), speed: doppler ? v : .nan, hAcc: 5)
        }
        try d.phase(.stop, Double(end))
        return d.snapshot
    }

    /// A creep while auto-paused is no set-off, though its scatter moves each fix faster than
    /// the resume threshold: its Doppler speed says slow, and its fixes do not add up to the
    /// threshold. The resume counts the 120 s moving, not the creep, and a creep 100 s longer
    /// adds no distance (under 5 m: the filter's state at the set-off; the whole creep was
    /// credited as the set-off: 240 s and 75–170 m more, every profile, with Doppler and
    /// positions only).
    @Test(arguments: [(Activity.walk, 1.4, 0.75), (.run, 3.0, 0.85), (.ride, 6.0, 1.7)])
    func aCreepWhoseFixesScatterIsNoSetOff(_ k: (activity: Activity, go: Double, creep: Double)) throws {
        for doppler in [true, false] {
            let short = try SetOffTests.creep(k.activity, go: k.go, creep: k.creep, creepS: 20, doppler: doppler)
            let long = try SetOffTests.creep(k.activity, go: k.go, creep: k.creep, creepS: 120, doppler: doppler)
            let what = "\(k.activity), Doppler \(doppler)"
            for s in [short, long] {
                #expect(abs(s.movingS - 120) <= 1, "\(what): moving \(s.movingS) s of 120")
                #expect(s.elapsedS < 135, "\(what): elapsed \(s.elapsedS) s: the creep was not held")
            }
            #expect(abs(long.distanceM - short.distanceM) < 5, "\(what): \(long.distanceM) m, \(short.distanceM) m with a creep 100 s shorter")
        }
    }

    /// Auto-paused standing for 60 s, then a set-off (1 m/s² for a ride, 0.5 for a run, fixes at
    /// 61–64: the fast hold begins, and is not yet complete) straight into a dropout (no fixes
    /// 65–119); inside it the user pauses (112.5); the first fix after it (120) comes while
    /// paused; resume at 141.5; fixes at 1 Hz to the stop at 200. `moves`: the runner goes on to
    /// `v` (6 or 3 m/s) and keeps it, through the pause too; else the runner stops at 66 and
    /// stands until the resume, then rides on at `v`. Returns the flight and the truth: metres
    /// and seconds moving in cruise (from the set-off to the pause, and after the resume).
    /// (`pauseAt`, `resumeAt`: other times for the pause and the resume; `lapAt`: a manual lap,
    /// whose distance, and the laps', comes back too; `junkAt`: that fix lies 0.01° east, junk;
    /// `dropouts`: the seconds without fixes.)
    static func setOffIntoADropout(_ activity: Activity, moves: Bool, doppler: Bool,
                                   pauseAt: Double = 112.5, resumeAt: Double = 141.5, lapAt: Double = .nan,
                                   junkAt: Double = .nan, dropouts: [Range<Double>] = [65..<120]) throws -> (FlightData, truthM: Double, truthS: Double, laps: [Lap]) {
        var d = SetOffTests.driver(activity, autoPause: true)
        let a = activity == .ride ? 1.0 : 0.5, v = activity == .ride ? 6.0 : 3.0
        let rampS = v / a, end = 200.0
        // Where the runner is at `t` when moving on from the set-off at 60, and the speed there.
        func moving(_ t: Double) -> (m: Double, v: Double) {
            let s = max(0, t - 60)
            return s <= rampS ? (a * s * s / 2, a * s) : (v * rampS / 2 + v * (s - rampS), v)
        }
        // Stopping at 66 (0.5 s braking) and standing until the resume.
        let stopAt = 66.0
        func standing(_ t: Double) -> (m: Double, v: Double) {
            if t <= stopAt { return moving(t) }
            if t < resumeAt { return (moving(stopAt).m, 0) }
            return (moving(stopAt).m + v * (t - resumeAt), v)
        }
        func at(_ t: Double) -> (m: Double, v: Double) { moves ? moving(t) : standing(t) }
        try d.phase(.start, 0)
        var paused = false, resumed = false, lapped = lapAt.isNaN
        var events: [Event] = []
        for i in 0...Int(end) {
            let t = Double(i)
            if !paused && t >= pauseAt { try d.phase(.pause, pauseAt); paused = true }
            if !resumed && t >= resumeAt { try d.phase(.resume, resumeAt); resumed = true }
            if !lapped && t >= lapAt { try d.core.lap(at: lapAt, wallClock: .nan, events: &events); lapped = true }
            if dropouts.contains(where: { $0.contains(t) }) { continue }   // the dropout
            let p = at(t)
            try d.fix(t, 52 + degreesNorth(p.m), 4 + (t == junkAt ? 0.01 : 0), speed: doppler ? p.v : .nan, hAcc: 5)
        }
        try d.phase(.stop, end)
        let after = at(end).m - at(resumeAt).m, laps = d.core.lapStage.counter.laps
        if moves { return (d.snapshot, moving(pauseAt).m + after, pauseAt - 60 + end - resumeAt, laps) }
        return (d.snapshot, moving(stopAt).m + after, stopAt - 60 + end - resumeAt, laps)
    }

    /// A user's pause that takes over an auto-pause with a resume under way: the fix after the
    /// dropout, while paused, shows the runner crossed it moving, so the resume comes after all,
    /// backdated to where it was under way, and the stretch up to the pause counts (within 6 m
    /// and 4 s: the fast hold begins a second or two after the set-off). Before, it counted none
    /// of it: 297 m and 52.5 s short for the ride, 148 m and 52.5 s for the run (receiver flight
    /// 613). (Positions only, four fixes of a set-off start no fast hold, nor a set-off the
    /// filter's steps move in: nothing is under way, and the stretch still counts nothing.)
    /// `resumedInside`: paused inside the dropout (100) and resumed inside it too (110), so the
    /// fix after the dropout (120) comes in cruise and ends a gap that waits for its
    /// confirmation: the set-off counts as when the fix comes while paused (its held steps, the
    /// line's share up to the pause), and the gap's credit the cruise after the resume, once
    /// each. Before, the gap's credit counted the 10 s after the resume and the set-off was
    /// dropped: the ride counted 540 m of 762 m, the run 270 m of 381 m (moving 90 s of 130).
    @Test(arguments: [Activity.run, .ride], [false, true])
    func aSetOffIntoADropoutPausedInsideItCounts(_ activity: Activity, resumedInside: Bool) throws {
        let (s, truthM, truthS, _) = resumedInside
            ? try SetOffTests.setOffIntoADropout(activity, moves: true, doppler: true, pauseAt: 100, resumeAt: 110)
            : try SetOffTests.setOffIntoADropout(activity, moves: true, doppler: true)
        let what = "\(activity), resumed inside \(resumedInside)"
        #expect(abs(s.distanceM - truthM) < 6, "\(what): \(s.distanceM) m of \(truthM)")
        #expect(abs(s.movingS - truthS) <= 4, "\(what): moving \(s.movingS) s of \(truthS)")
        #expect(s.movingS <= s.elapsedS, "\(what): moving \(s.movingS) s, elapsed \(s.elapsedS) s")
    }

    /// The same, with a manual lap asked for after the resume, inside the dropout (115): the lap
    /// waits for the gap's credit, and takes the set-off before it and the gap's line up to its
    /// time (within 6 m); the laps add up to the flight. Before, its cruise seconds were those
    /// before the set-off's leg was credited: the ride's lap took 29 m of 252 m.
    @Test(arguments: [Activity.run, .ride])
    func aSetOffIntoADropoutResumedInsideItCountsInTheLapBefore(_ activity: Activity) throws {
        let (s, truthM, _, laps) = try SetOffTests.setOffIntoADropout(activity, moves: true, doppler: true, pauseAt: 100, resumeAt: 110, lapAt: 115)
        let v = activity == .ride ? 6.0 : 3.0, lapTruthM = truthM - v * (200 - 115)
        let what = "\(activity)"
        try #require(laps.count == 2, "\(what): \(laps.count) laps")
        #expect(abs(laps[0].distanceM - lapTruthM) < 6, "\(what): lap 1 \(laps[0].distanceM) m of \(lapTruthM)")
        #expect(abs(laps[0].distanceM + laps[1].distanceM - s.distanceM) < 0.01, "\(what): laps \(laps.map(\.distanceM)) m, flight \(s.distanceM) m")
    }

    /// The same, but the fix after the dropout (120) is junk, 0.01° east: the set-off waits with
    /// the gap and is judged on the fix the gate re-anchored on, not on the junk one: never long
    /// (6 m), and short by no more than 4 s at `v` (the re-anchor's: 20 m and 5 s moving for the
    /// ride, 10 m for the run). Judged on the junk fix, the ride counted 1019 m of 762 m; with
    /// the set-off dropped, 522 m.
    @Test(arguments: [Activity.run, .ride])
    func aSetOffIntoADropoutResumedInsideItIsNotJudgedOnAJunkFix(_ activity: Activity) throws {
        let (s, truthM, truthS, _) = try SetOffTests.setOffIntoADropout(activity, moves: true, doppler: true, pauseAt: 100, resumeAt: 110, junkAt: 120)
        let v = activity == .ride ? 6.0 : 3.0
        let what = "\(activity)"
        #expect(s.distanceM < truthM + 6 && s.distanceM > truthM - 4 * v, "\(what): \(s.distanceM) m of \(truthM)")
        #expect(abs(s.movingS - truthS) <= 5, "\(what): moving \(s.movingS) s of \(truthS)")
        #expect(s.movingS <= s.elapsedS, "\(what): moving \(s.movingS) s, elapsed \(s.elapsedS) s")
    }

    /// The same, but the receiver loses the sky again for 34 s after the fix after the dropout
    /// (120; no fixes 121–154): the fix after that second gap (155) lies on the way on, bears
    /// the one at 120 out, and credits the first gap: the set-off that waited with it counts
    /// then (within 6 m and 4 s, as above). Before, the second gap dropped the set-off: the ride
    /// counted 540 m of 762 m, the run 270 m of 381 m (moving 90 s of 130).
    @Test(arguments: [Activity.run, .ride])
    func aSetOffIntoADropoutResumedInsideItCountsWhenASecondGapBearsItOut(_ activity: Activity) throws {
        let (s, truthM, truthS, _) = try SetOffTests.setOffIntoADropout(activity, moves: true, doppler: true, pauseAt: 100, resumeAt: 110,
                                                                        dropouts: [65..<120, 121..<155])
        let what = "\(activity)"
        #expect(abs(s.distanceM - truthM) < 6, "\(what): \(s.distanceM) m of \(truthM)")
        #expect(abs(s.movingS - truthS) <= 4, "\(what): moving \(s.movingS) s of \(truthS)")
        #expect(s.movingS <= s.elapsedS, "\(what): moving \(s.movingS) s, elapsed \(s.elapsedS) s")
    }

    /// The same set-off, but the runner stopped a few seconds later, inside the dropout, and
    /// stood through the pause: the fix after it says so, and the stretch adds nothing (neither
    /// the line nor the hold's time: the resume never came).
    @Test(arguments: [Activity.run, .ride], [true, false])
    func aSetOffThatStoppedInsideTheDropoutAddsNothing(_ activity: Activity, doppler: Bool) throws {
        let (s, truthM, _, _) = try SetOffTests.setOffIntoADropout(activity, moves: false, doppler: doppler)
        let afterResumeM = (activity == .ride ? 6.0 : 3.0) * (200 - 141.5)
        let what = "\(activity), Doppler \(doppler)"
        #expect(s.distanceM < afterResumeM + 3, "\(what): \(s.distanceM) m, \(afterResumeM) m after the resume (\(truthM) m in all)")
        #expect(s.elapsedS < 200 - 141.5 + 10, "\(what): elapsed \(s.elapsedS) s: the stand was no hold")
    }

    /// The snapshot of the fix that auto-resumes a ride shows the speed that resumed it (the
    /// fix's Doppler speed, or the positions' filtered speed), not the hold's 0.
    @Test(arguments: [true, false])
    func theResumingFixShowsItsSpeedNotTheHolds(doppler: Bool) throws {
        var d = SetOffTests.driver(.ride, autoPause: true)
        try d.phase(.start, 0)
        var moved = 0.0, resumedAt: Double? = nil
        for i in 0...150 {
            let t = Double(i), standing = t > 60 && t <= 100
            if !standing && i > 0 { moved += 8 }
            let wasHolding = d.snapshot.phase == .holding
            try d.fix(t, 52 + degreesNorth(moved), 4, speed: doppler ? (standing ? 0 : 8) : .nan, hAcc: 5)
            guard wasHolding, d.snapshot.phase == .cruise else { continue }
            resumedAt = t
            #expect(d.snapshot.groundSpeedMps > 2, "Doppler \(doppler): ground speed \(d.snapshot.groundSpeedMps) m/s at the resume, t \(t)")
        }
        #expect(resumedAt != nil, "Doppler \(doppler): no auto-resume")
    }
}
