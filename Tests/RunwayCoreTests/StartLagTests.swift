import Testing
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

@Suite("StartLag: the distance the positions-only filter misses while it converges")
struct StartLagTests {
    /// Feeds `fixes` through a TrackFilter and the StartLag stage; returns (steps' total, credit).
    func run(_ fixes: [Fix], cruising: Bool = true) -> (steps: Double, credit: Double, credits: Int) {
        var filter = TrackFilter(), lag = StartLag()
        var steps = 0.0, credit = 0.0, credits = 0
        for f in fixes {
            let step = filter.update(f, t: f.t)
            steps += step.distanceM
            let c = lag.take(step, fix: f, at: f.t, filter: filter.estimate, cruising: cruising)
            if c > 0 { credit += c; credits += 1 }
        }
        return (steps, credit, credits)
    }

    func straight(_ v: Double, n: Int = 120, speed: Bool = false) -> [Fix] {
        (0..<n).map { i in
            Fix(t: Double(i), lat: 52 + degreesNorth(v * Double(i)), lon: 4, speed: speed ? v : .nan, course: speed ? 0 : .nan)
        }
    }

    @Test(arguments: [2.0, 3.3, 8.0])
    func aCleanStraightTrackIsCreditedWhatTheFilterMissedOnce(_ v: Double) {
        let fixes = straight(v)
        let truth = Geodesy.distance(lat1: fixes[0].lat, lon1: 4, lat2: fixes[fixes.count - 1].lat, lon2: 4)
        let r = run(fixes)
        #expect(truth - r.steps > 0.5 * v, "the filter misses about 0.9 s of running: \(truth - r.steps) m")
        #expect(r.credits == 1)
        #expect(abs(r.steps + r.credit - truth) < 0.05, "\(r.steps) + \(r.credit) m against \(truth) m")
    }

    /// A runner who stands 60 s at the first fix and then sets off: the set-off's lag is
    /// credited once, and the track measures within 0.05 % of its length, the figure for
    /// a clean track (measured: 0.04 %, long). Before, the origin's 20 s found the filter
    /// standing and nothing was credited: the steps ran 4.8 s short at 1.4 m/s, 4.1 s at 3.3 m/s
    /// and 4.0 s at 8 m/s.
    @Test(arguments: [1.4, 3.3, 8.0])
    func aStandingStartIsCreditedTheSetOffsLag(_ v: Double) {
        let fixes = (0..<180).map { i in Fix(t: Double(i), lat: 52 + degreesNorth(v * Double(max(0, i - 60))), lon: 4) }
        let truth = Geodesy.distance(lat1: 52, lon1: 4, lat2: fixes[fixes.count - 1].lat, lon2: 4)
        let r = run(fixes)
        #expect(truth - r.steps > 1.5 * v, "the filter misses its lag: \(truth - r.steps) m")
        #expect(r.credits == 1)
        #expect(abs(r.steps + r.credit - truth) < 0.0005 * truth, "\(r.steps) + \(r.credit) m against \(truth) m")
    }

    @Test func withDopplerSpeedNothingIsCredited() {
        #expect(run(straight(3.3, speed: true)).credit == 0)
    }

    @Test func outsideCruiseNothingIsCredited() {
        #expect(run(straight(3.3), cruising: false).credit == 0)
    }

    @Test func aReceiverStandingStillIsCreditedNothing() {
        // Scatter of a few metres around one point: the filter does not move when it has converged.
        var rng = SeededRandom(seed: 3)
        let fixes = (0..<120).map { i in
            Fix(t: Double(i), lat: 52 + degreesNorth(Double.random(in: -3...3, using: &rng)),
                lon: 4 + degreesEast(Double.random(in: -3...3, using: &rng)))
        }
        #expect(run(fixes).credit == 0)
    }

    @Test func theCreditIsBoundedByWhatALagCanBe() {
        // A first fix 40 m behind the runner: the chord from it is 40 m too long, the credit is
        // at most 5 s at the filtered speed.
        var fixes = straight(3)
        fixes[0].lat = 52 - degreesNorth(40)
        let r = run(fixes)
        #expect(r.credit <= 5 * 3 * 1.01)
    }

    @Test func aNewSegmentIsANewOrigin() {
        var lag = StartLag(), filter = TrackFilter()
        let a = Fix(t: 0, lat: 52, lon: 4)
        _ = lag.take(filter.update(a, t: 0), fix: a, at: 0, filter: filter.estimate, cruising: true)
        #expect(lag.origin?.t == 0 && lag.open)
        let b = Fix(t: 40, lat: 52.01, lon: 4)
        filter.reset(at: b, t: 40)
        _ = lag.take(.segmentStart, fix: b, at: 40, filter: filter.estimate, cruising: true)
        #expect(lag.origin?.t == 40 && lag.steps == 0)
    }
}

extension StartLagTests {
    /// A positions-only ride (auto-pause on, clean fixes at 1 Hz due north): 100 s at 6 m/s, then
    /// it stands, auto-paused; a dropout in the hold (no fix from 201 to 259 s: a new segment,
    /// which waits for its set-off); from 300 s the rider walks the bike 30 m at 1 m/s, still
    /// auto-paused (no distance), stands again, and rides off at 420 s at 6 m/s to 600 s. The
    /// stillness detector judges nothing while auto-paused (its judgement is the moving one of
    /// the ride before the stop): the walk's set-off is no credit, and the ride's is, as without
    /// the walk: the flight reads within 1 m of the ride's 1680 m. (Before, the walk's filter
    /// was credited 5.0 m in the hold and the ride's set-off lag, 22 m, was lost: 1662.8 m.)
    @Test func aWalkWhileAutoPausedIsNoSetOff() throws {
        let c = StartLagTests.autoPaused(.ride)
        var d = Driver(c)
        try d.phase(.start, 0)
        for i in 0...600 where !(i > 200 && i < 260) {
            let t = Double(i)
            let north = t < 100 ? 6 * t : 600 + min(30, max(0, t - 300)) + 6 * max(0, t - 420)
            try d.fix(t, 52 + degreesNorth(north), 4, hAcc: 5)
        }
        try d.phase(.stop, 600)
        #expect(abs(d.snapshot.distanceM - 1680) < 1, "\(d.snapshot.distanceM) m of the ride's 1680 m")
    }
}

extension StartLagTests {
    /// A clean run at 3.3 m/s that stands its first 60 s (the segment waits for its set-off),
    /// sets off, is paused by the user 10 s into it (the credit closes: its stretch is not all
    /// cruise), resumed, then stops 60 s at a light and sets off again: the segment had set off
    /// before the pause, so the light's set-off is no start and nothing is credited (its lag is
    /// balanced by the stop's run-on). Before, the pause left the segment waiting for a set-off
    /// and the light's was credited (13.7 m).
    @Test func aUserPauseWhileMovingEndsTheWaitForASetOff() {
        var filter = TrackFilter(), lag = StartLag()
        var credited = 0.0, north = 0.0
        for i in 0...500 {
            let t = Double(i)
            let moving = t > 60 && !(t > 300 && t <= 360)
            if moving { north += 3.3 }
            let f = Fix(t: t, lat: 52 + degreesNorth(north), lon: 4)
            let step = filter.update(f, t: t)
            credited += lag.take(step, fix: f, at: t, filter: filter.estimate, cruising: !(t >= 70 && t <= 80))
        }
        #expect(credited == 0, "\(credited) m credited")
    }
}

extension StartLagTests {
    /// A positions-only flight (auto-pause on, clean fixes at 1 Hz, `h_acc` 5 m) that stands 60 s,
    /// auto-paused, then sets off (a ride at 1 m/s² to 6 m/s, a run at 1.5 m/s² to 3.5 m/s) and
    /// turns 90° on a bend of 30 m radius 10 or 30 m into the set-off, on to 180 s. The set-off's
    /// lag is measured along the filter's track from where it stood, not by the chord across the
    /// bend: the flight reads within 4 m of the path (measured: ride +1.3 m, run −3.8 and −3.2 m;
    /// a run without the bend reads −1.1 m). Before, the chord's shortcut across the bend came off
    /// the credit: ride −14.3 and −16.6 m, run −7.2 and −3.2 m (receiver flight 977, a ride that
    /// turned as it set off from an auto-paused stand, lost 12.7 m so).
    @Test(arguments: [Activity.ride, .run])
    func aSetOffIntoABendIsCreditedItsLagAlongTheTrack(_ activity: Activity) throws {
        let (v, accel) = activity == .ride ? (6.0, 1.0) : (3.5, 1.5)
        let c = StartLagTests.autoPaused(activity)
        for bendAfterM in [10.0, 30.0] {
            let radius = 30.0, bendEnd = bendAfterM + radius * .pi / 2
            var d = Driver(c)
            try d.phase(.start, 0)
            var path = 0.0, speed = 0.0, east = 0.0, north = 0.0, heading = 0.0
            for i in 0...180 {
                if i > 60 {
                    for _ in 0..<10 {   // (tenths of a second)
                        speed = min(v, speed + accel * 0.1)
                        let m = speed * 0.1
                        if path >= bendAfterM && path < bendEnd { heading += m / radius }
                        east += m * sin(heading)
                        north += m * cos(heading)
                        path += m
                    }
                }
                try d.fix(Double(i), 52 + degreesNorth(north), 4 + degreesEast(east), hAcc: 5)
            }
            try d.phase(.stop, 180)
            #expect(abs(d.snapshot.distanceM - path) < 4, "\(activity), bend \(bendAfterM) m into the set-off: \(d.snapshot.distanceM) m of \(path) m")
        }
    }
}

extension StartLagTests {
    /// A positions-only flight (auto-pause on, a fix a second, `h_acc` 5 m) that stands 60 s,
    /// auto-paused, sets off (a ride at 1 m/s² to 6 m/s, a run at 1.5 m/s² to 3.5 m/s) and is
    /// paused by the user 14, 16 or 18 s into the set-off, half a second after a fix (the runner
    /// goes on; the flight stops 10 s later), in a few places with a few receivers: a seeded
    /// latitude and heading, each fix off by seeded white noise (σ 0.7 m an axis). The pause
    /// ends the leg before the set-off's lag is measured (20 s after it): what is measured then
    /// is credited to the leg, and the flight reads within 4 m of the path to the pause, as a
    /// set-off measured at 20 s does (`aSetOffIntoABendIsCreditedItsLagAlongTheTrack`); measured:
    /// ride −0.8 to +1.6 m, run −3.6 to −1.3 m. Before, the lag was lost: ride −24 m, run −20 m
    /// (receiver flight 127, a run paused 18 s into a set-off from an auto-paused stand, read
    /// 53.5 m of 70.3 m). Earlier pauses measure less of the lag: the run paused 10 to 13 s in
    /// reads −5.7 to −2.8 m (its filtered speed, 2.8 m/s at 10 s, caps the credit at `maxS`,
    /// and the filter's position still lags the runner's by about 3.5 m), the ride −3.7 to −0.8 m.
    @Test(arguments: [Activity.ride, .run])
    func aSetOffPausedBeforeItsLagIsMeasuredIsCreditedWhatWasMeasuredThen(_ activity: Activity) throws {
        let (v, accel) = activity == .ride ? (6.0, 1.0) : (3.5, 1.5)
        let c = StartLagTests.autoPaused(activity)
        for seed in UInt64(1)...3 {
            var place = SeededStraight(seed: seed)
            let (lat0, heading, metresNorth, metresEast) = (place.lat0, place.heading, place.metresNorth, place.metresEast)
            func noise() -> Double { place.noise(0.7) }
            for pauseAfterS in [14.0, 16.0, 18.0] {
                var d = Driver(c)
                try d.phase(.start, 0)
                var path = 0.0, speed = 0.0, atPause = Double.nan
                for i in 0...(60 + Int(pauseAfterS) + 10) {
                    if i > 60 {
                        for k in 0..<10 {   // (tenths of a second)
                            if k == 5 && Double(i - 61) == pauseAfterS { atPause = path; try d.phase(.pause, Double(i) - 0.5) }
                            speed = min(v, speed + accel * 0.1)
                            path += speed * 0.1
                        }
                    }
                    try d.fix(Double(i), lat0 + (path * cos(heading) + noise()) / metresNorth,
                              4 + (path * sin(heading) + noise()) / metresEast, hAcc: 5)
                }
                try d.phase(.stop, Double(60 + Int(pauseAfterS) + 10))
                #expect(abs(d.snapshot.distanceM - atPause) < 4, "\(activity), seed \(seed), paused \(pauseAfterS) s into the set-off: \(d.snapshot.distanceM) m of \(atPause) m")
            }
        }
    }
}

extension StartLagTests {
    /// The run of `aSetOffPausedBeforeItsLagIsMeasuredIsCreditedWhatWasMeasuredThen` (clean
    /// fixes), paused 16.5 s into the set-off and resumed 10 s later (the runner goes on), with
    /// manual laps at the fix 0.5 s before the pause and 0.3 s after the resume, stopped 33 s
    /// later: the second lap has 0.8 s of cruise. The lag measured at the pause (about 18 m)
    /// would make it faster than the speed cap (12 m/s: 19.8 m, 24.8 m/s); it takes what the
    /// cap allows over the lap up to its last fix (nothing: 1.8 m in 0.8 s), and the rest is
    /// paid out after the resume, so every lap keeps under the cap, and the flight reads
    /// within 4 m of the path in cruise (measured: −2.5 m, as without the bound). (Receiver
    /// flight 1042, a walk whose held steps and lag were credited at a pause 3 s into a lap
    /// that a manual lap closed 1 s after the resume, read 6.4 m/s against the cap of 6.)
    @Test func aLagCreditedAtAPauseKeepsTheLapRunningUnderTheSpeedCap() throws {
        let c = StartLagTests.autoPaused(.run)
        var d = Driver(c)
        try d.phase(.start, 0)
        var path = 0.0, speed = 0.0, counted = 0.0
        for i in 0...120 {
            if i > 60 {
                for k in 0..<10 {   // (tenths of a second)
                    let t = Double(i - 1) + Double(k) / 10
                    if t == 76.0 { try d.core.lap(at: t, wallClock: .nan, events: &d.events) }
                    if t == 76.5 { try d.phase(.pause, t) }
                    if t == 86.5 { try d.phase(.resume, t) }
                    if t == 86.8 { try d.core.lap(at: t, wallClock: .nan, events: &d.events) }
                    speed = min(3.5, speed + 1.5 * 0.1)
                    path += speed * 0.1
                    if t < 76.5 || t >= 86.5 { counted += speed * 0.1 }
                }
            }
            try d.fix(Double(i), 52 + degreesNorth(path), 4, hAcc: 5)
        }
        try d.phase(.stop, 120)
        let splits = d.events.compactMap { if case .split(let l) = $0.body { l } else { nil } }
        #expect(splits.count == 3)
        for l in splits where l.elapsedS > 0 {
            #expect(l.distanceM / l.elapsedS <= c.speedCapMps, "lap \(l.index): \(l.distanceM) m in \(l.elapsedS) s")
        }
        #expect(abs(d.snapshot.distanceM - counted) < 4, "\(d.snapshot.distanceM) m of \(counted) m")
    }
}

extension StartLagTests {
    /// The run of `aSetOffPausedBeforeItsLagIsMeasuredIsCreditedWhatWasMeasuredThen` (clean
    /// fixes), stopped (or paused and stopped) 16.5 s into the set-off: the lag measured then
    /// belongs to the leg up to its last fix, whose route point ends the route, so that point
    /// carries it, as it carries the flight's distance (within Float precision). Before, the
    /// route ended 17.6 m short of the flight: its point was kept before the lag was credited.
    @Test(arguments: [false, true])
    func aLagCreditedAtALegEndIsInTheRoutesLastPoint(paused: Bool) throws {
        let c = StartLagTests.autoPaused(.run)
        var d = Driver(c)
        try d.phase(.start, 0)
        var path = 0.0, speed = 0.0
        for i in 0...77 {
            if i > 60 {
                for _ in 0..<10 {   // (tenths of a second)
                    speed = min(3.5, speed + 1.5 * 0.1)
                    path += speed * 0.1
                }
            }
            try d.fix(Double(i), 52 + degreesNorth(path), 4, hAcc: 5)
        }
        if paused { try d.phase(.pause, 77.5) }
        try d.phase(.stop, 78)
        let route = d.core.recorder.route
        try #require(route.count > 0)
        let last = route.distanceM(route.count - 1), flight = d.snapshot.distanceM
        #expect(abs(last - flight) <= 1e-6 * flight + 1e-3, "paused \(paused): the route ends at \(last) m, the flight \(flight) m")
    }
}

extension StartLagTests {
    /// The profile's config with auto-pause on and no auto laps: the flights below stand
    /// auto-paused before their set-off.
    static func autoPaused(_ activity: Activity) -> EngineConfig {
        var c = EngineConfig(activity: activity)
        c.autoPause.enabled = true
        c.autoLapM = 0
        return c
    }
}

extension StartLagTests {
    /// A positions-only flight (a fix a second, `h_acc` 5 m, fixes off by seeded white noise of
    /// σ 0.7 m an axis) whose runner stands at the first fix, pauses the flight (a user's pause)
    /// 20.5 to 23.5 s after it, resumes 20 s later and sets off 5 s after the resume (a walk at
    /// 1 m/s² to 1.4 m/s, a run at 1.5 m/s² to 3.5 m/s, a ride at 1 m/s² to 6 m/s), on for 150 s,
    /// auto-pause on and off, six seeded places and headings. The filter has settled standing
    /// when the leg ends (judged at the step 20 s and 10 fixes after the first fix, whether or
    /// not that step sped up: a standing filter's speed rises at about every other step on noisy
    /// fixes): the segment waits for the set-off, and its lag is credited after the resume. Each flight reads
    /// within 4 m of the geodesic length of its path. Measured: worst walk −3.9 m, run −1.4 m,
    /// ride +2.0 m. (A settle rule that waited for a standing filter whose last step sped up, and
    /// let the leg's end close the credit meanwhile without a wait for the set-off, lost the
    /// set-off's lag: up to −10.4 m of a walk, −19.3 m of a run, −23.6 m of a ride, 36 of the
    /// 144 flights.)
    @Test(arguments: [Activity.walk, .run, .ride])
    func aUserPauseJustAfterAStandSettlesKeepsTheSetOffsLag(_ activity: Activity) throws {
        let (v, accel) = activity == .walk ? (1.4, 1.0) : activity == .run ? (3.5, 1.5) : (6.0, 1.0)
        var worst = (0.0, "")
        for autoPause in [false, true] {
            var c = EngineConfig(activity: activity)
            c.autoPause.enabled = autoPause
            c.autoLapM = 0
            for pauseAt in [20.5, 21.5, 22.5, 23.5] {
                let resumeAt = pauseAt + 20, setOff = resumeAt + 5
                for seed in UInt64(31)...36 {
                    var place = SeededStraight(seed: seed)
                    let (metresNorth, metresEast) = (place.metresNorth, place.metresEast)
                    func noise() -> Double { place.noise(0.7) }
                    func at(_ path: Double) -> (lat: Double, lon: Double) { place.at(path) }
                    var d = Driver(c)
                    try d.phase(.start, 0)
                    var path = 0.0, speed = 0.0, truth = 0.0
                    let end = Int(setOff) + 150
                    for i in 0...end {
                        if Double(i - 1) < pauseAt && pauseAt <= Double(i) { try d.phase(.pause, pauseAt) }
                        if Double(i - 1) < resumeAt && resumeAt <= Double(i) { try d.phase(.resume, resumeAt) }
                        for k in 0..<10 where Double(i - 1) + Double(k) / 10 >= setOff {   // (tenths of a second)
                            let from = at(path)
                            speed = min(v, speed + accel * 0.1)
                            path += speed * 0.1
                            let to = at(path)
                            truth += Geodesy.distance(lat1: from.lat, lon1: from.lon, lat2: to.lat, lon2: to.lon)
                        }
                        let p = at(path)
                        try d.fix(Double(i), p.lat + noise() / metresNorth, p.lon + noise() / metresEast, hAcc: 5)
                    }
                    try d.phase(.stop, Double(end))
                    let error = d.snapshot.distanceM - truth
                    if abs(error) > abs(worst.0) { worst = (error, "auto-pause \(autoPause), pause \(pauseAt) s, seed \(seed)") }
                    #expect(abs(error) < 4, "\(activity), auto-pause \(autoPause), pause at \(pauseAt) s, seed \(seed): \(d.snapshot.distanceM) m of \(truth) m")
                }
            }
        }
        print("\(activity): worst \(worst.0) m (\(worst.1))")
    }
}

extension StartLagTests {
    /// A positions-only flight on clean fixes (a fix a second, `h_acc` 5 m, three seeded places
    /// and headings) whose runner stands at the first fix, sets off 10, 14 or 18 s later (a run
    /// at 1.5 m/s² to 3 m/s for 10 s, a ride at 1.5 m/s² to 6 m/s for 6 s), stops, stands 30 s
    /// and sets off again, on for 150 s; auto-pause off. The first set-off's filter has not moved
    /// 12 s when the runner stops: the start's lag is credited 20 s after the first fix while the
    /// filter still moves, not lost to the stop. Measured on other seeds: run −7.5 to −4.0 m,
    /// ride −10.5 to −3.4 m; asserted: run within 9 m, ride within 12 m of the path's geodesic
    /// length (a rule that waited for 12 s of moving before crediting measured nothing before the
    /// stop and lost the lag: run 10.1–10.4 m short, ride 18.0–18.1 m short, every flight). A
    /// set-off 2–6 s in with the same stop reads worse (ride −19.9 m after 6 s set off at 6 s:
    /// the filter stands at 20 s, and the credit closes as for a stand; `docs/accuracy.md`), not
    /// asserted here.
    @Test(arguments: [Activity.run, .ride])
    func aLateSetOffStoppedBeforeItsFilterSettlesKeepsItsLag(_ activity: Activity) throws {
        let (v, moveS, bound) = activity == .run ? (3.0, 10.0, 9.0) : (6.0, 6.0, 12.0)
        var c = EngineConfig(activity: activity)
        c.autoPause.enabled = false
        c.autoLapM = 0
        for setOff in [10.0, 14.0, 18.0] {
            for seed in UInt64(41)...43 {
                let place = SeededStraight(seed: seed)
                func at(_ path: Double) -> (lat: Double, lon: Double) { place.at(path) }
                var d = Driver(c)
                try d.phase(.start, 0)
                var path = 0.0, speed = 0.0, truth = 0.0
                let end = Int(setOff + moveS + 30) + 150
                for i in 0...end {
                    for k in 0..<10 {   // (tenths of a second)
                        let tt = Double(i - 1) + Double(k) / 10
                        guard tt >= 0 else { continue }
                        let target = (tt >= setOff && tt < setOff + moveS) || tt >= setOff + moveS + 30 ? v : 0
                        speed = target > speed ? min(target, speed + 0.15) : max(target, speed - 0.15)
                        let from = at(path)
                        path += speed * 0.1
                        let to = at(path)
                        truth += Geodesy.distance(lat1: from.lat, lon1: from.lon, lat2: to.lat, lon2: to.lon)
                    }
                    let p = at(path)
                    try d.fix(Double(i), p.lat, p.lon, hAcc: 5)
                }
                try d.phase(.stop, Double(end))
                let error = d.snapshot.distanceM - truth
                #expect(abs(error) < bound, "\(activity), set-off \(setOff) s, seed \(seed): \(d.snapshot.distanceM) m of \(truth) m")
            }
        }
    }
}

/// A straight track in a seeded place (latitude within ±60°, longitude 4°) and heading, and the
/// seeded white noise of its fixes (the same generator, after the place's two draws).
struct SeededStraight {
    var rng: SeededRandom
    let lat0: Double, heading: Double
    let metresNorth = 111_250.0, metresEast: Double

    init(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        lat0 = Double.random(in: -60...60, using: &rng)
        heading = Double.random(in: 0..<(2 * .pi), using: &rng)
        metresEast = 111_320 * cos(lat0 * .pi / 180)
        self.rng = rng
    }

    /// The point `path` metres along the heading from the start.
    func at(_ path: Double) -> (lat: Double, lon: Double) {
        (lat0 + path * cos(heading) / metresNorth, 4 + path * sin(heading) / metresEast)
    }

    /// The next draw of white noise of σ `sigma` metres (Box–Muller).
    mutating func noise(_ sigma: Double) -> Double {
        let u1 = 1 - Double.random(in: 0..<1, using: &rng), u2 = Double.random(in: 0..<1, using: &rng)
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
