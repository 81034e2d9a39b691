import Glibc
import Testing
@testable import RunwayCore
import RunwaySim

// A speed that drops out or stays out while the fixes move, and how the filter doubts it (the
// suite is TrackFilterTests.swift's).

extension TrackFilterTests {
    /// A speed that reads 0 m/s while the fixes move on (a wheel sensor's that drops out, in a FIT
    /// record; a host that passes 0 for a fix without a speed): for a minute, or for 6 s (ride)
    /// or 10 s (run) every 20 s; a ride at 6 m/s and a run at 3.3 m/s, at 1 Hz and 2 Hz, with the
    /// receiver's accuracy 4 m or 15 m, with and without a course. The stretch's standing is
    /// doubted once four fixes in a row are further from where the speed last said more than
    /// standing explains (the moving speed over the time and two σ) and still moving away; what
    /// its steps missed until then is paid out, and the positions measure it from there: the
    /// distance within 0.2 %, and each dropout misses no more moving time than it takes to move
    /// that far and four fixes more.
    /// Before, judged a step at a time, a dropout read as standing for as long as it lasted
    /// wherever one step moves less than a σ (a run at 1 Hz; anything at 2 Hz or with a 15 m
    /// accuracy) or the zero speed came with a course: 100 to 360 m short.
    @Test(arguments: [(6.0, 1.0, 4.0, 60, 0), (6, 1, 4, 6, 20), (3.3, 1, 4, 60, 0), (3.3, 1, 4, 10, 20),
                      (6, 2, 4, 60, 0), (6, 2, 4, 6, 20), (3.3, 2, 4, 60, 0), (3.3, 2, 4, 10, 20),
                      (6, 1, 15, 60, 0), (3.3, 1, 15, 60, 0)])
    func aSpeedThatDropsOutWhileTheFixesMoveIsLeftToThePositions(_ speed: Double, _ hz: Double, _ hAcc: Double, _ zeros: Int, _ every: Int) {
        let dropouts = every == 0 ? 1.0 : Double(500 / every)
        let dt = 1 / hz
        let settings = TrackFilter.Settings()
        // The time until the fixes have moved further than two σ and the moving speed explain,
        // and the fixes that confirm it.
        let missesS = 2 * hAcc / (speed - settings.movingSpeedMps) + Double(settings.doubtFixes) * dt
        for course in [Double.nan, 0] {
            var filter = TrackFilter()
            var total = 0.0, movingS = 0.0
            for k in 0...Int(600 * hz) {
                let s = Double(k) * dt   // the dropouts in whole seconds
                let dropped = every == 0 ? (100..<100 + zeros).contains(Int(s)) : (100..<600).contains(Int(s)) && (Int(s) - 100) % every < zeros
                let step = filter.update(Fix(lat: 52 + degreesNorth(speed * s), lon: 4, speed: dropped ? 0 : speed, course: course, hAcc: hAcc), t: s)
                total += step.distanceM + (filter.takeDoubt()?.shortfallM ?? 0)   // (what the flight pays out)
                if step.moving { movingS += dt }
            }
            let truth = Geodesy.distance(lat1: 52, lon1: 4, lat2: 52 + degreesNorth(600 * speed), lon2: 4)
            let what = "\(speed) m/s at \(hz) Hz, h_acc \(hAcc), course \(course): "
            #expect(abs(total - truth) <= 0.002 * truth, "\(what)\(total) m of \(truth) m")
            #expect(movingS >= 600 - 2 - dropouts * missesS, "\(what)\(movingS) s moving of 600")
        }
    }

    /// Ten minutes at 1.4, 3.3 or 6 m/s with the simulator's receiver (position error per axis
    /// Gauss–Markov σ 4 m, τ 60 s, plus 0.7 m white; Doppler noise 0.1 m/s an axis, with a
    /// course), round a circle of radius `radius` metres (0: a straight line east), and the
    /// speed `dropS` seconds at 0 m/s from `from`, with a course of 0° or none. Returns the
    /// distance measured and the truth.
    private func noisyDropout(seed: UInt64, speed v: Double, radius: Double, dropS: Int, from: Int = 200, course: Double, positionsOnly: Bool = false) -> (measured: Double, truth: Double) {
        var filter = TrackFilter()
        var rng = SimRandom(seed: seed, stream: 1)
        var errorEast = GaussMarkov(sigma: 4, tau: 60, rng: &rng), errorNorth = GaussMarkov(sigma: 4, tau: 60, rng: &rng)
        var total = 0.0
        for k in 0...600 {
            let s = v * Double(k), a = radius > 0 ? s / radius : 0
            let east = (radius > 0 ? radius * sin(a) : s) + errorEast.step(dt: 1, rng: &rng) + 0.7 * rng.gaussian()
            let north = (radius > 0 ? radius * (1 - cos(a)) : 0) + errorNorth.step(dt: 1, rng: &rng) + 0.7 * rng.gaussian()
            let ve = v * cos(a) + 0.1 * rng.gaussian(), vn = v * sin(a) + 0.1 * rng.gaussian()
            let dropped = (from..<from + dropS).contains(k)
            let fix = Fix(lat: 52 + degreesNorth(north), lon: 4 + degreesEast(east),
                          speed: positionsOnly ? .nan : dropped ? 0 : (ve * ve + vn * vn).squareRoot(),
                          course: dropped ? course : (atan2(ve, vn) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360), hAcc: 4)
            total += filter.update(fix, t: Double(k)).distanceM + (filter.takeDoubt()?.shortfallM ?? 0)
        }
        return (total, v * 600)
    }

    /// A minute's dropout in a noisy run (`noisyDropout`), walking, running and riding, on a
    /// straight line and round circles of 60 m (and of 30 m on foot), with and without a course:
    /// the dropout costs at most a fifth of its distance against the same run without it (before:
    /// all of it with a course, 40 to 100 % without on foot). On the seeds looked at while the
    /// doubt was built (1–6) and on seeds never looked at (700–705).
    @Test(arguments: [(1.4, 0.0), (1.4, 30), (1.4, 60), (3.3, 0), (3.3, 30), (3.3, 60), (6, 0), (6, 60)])
    func aNoisyRunsDropoutIsMeasuredByItsPositions(_ speed: Double, _ radius: Double) {
        for seed in Array(UInt64(1)...6) + Array(UInt64(700)...705) {
            for course in [Double.nan, 0] {
                let dropout = noisyDropout(seed: seed, speed: speed, radius: radius, dropS: 60, course: course)
                let without = noisyDropout(seed: seed, speed: speed, radius: radius, dropS: 0, course: course)
                #expect(abs(dropout.measured - without.measured) <= 0.2 * 60 * speed,
                        "seed \(seed), course \(course): \(dropout.measured) m with the dropout, \(without.measured) m without")
            }
        }
    }

    /// A host that passes 0 m/s for every fix (a phone API's speed where it has none), with a
    /// course of 0° or none (`noisyDropout` from the first fix): the flight is measured as its
    /// positions alone measure it, within 1 % of its length (measured: within 0.8 %; the
    /// difference is the start, whose displacement is paid out when the zeros are doubted).
    /// Before, with a course the zeros held the filtered speed down and the flight measured
    /// almost nothing.
    @Test(arguments: [(1.4, 0.0), (3.3, 0), (3.3, 60), (6, 60)])
    func aHostThatPassesZeroForEverySpeedIsMeasuredByThePositions(_ speed: Double, _ radius: Double) {
        for seed in Array(UInt64(1)...3) + Array(UInt64(710)...712) {
            for course in [Double.nan, 0] {
                let zeros = noisyDropout(seed: seed, speed: speed, radius: radius, dropS: 601, from: 0, course: course)
                let positions = noisyDropout(seed: seed, speed: speed, radius: radius, dropS: 0, course: .nan, positionsOnly: true)
                #expect(abs(zeros.measured - positions.measured) <= 0.01 * zeros.truth,
                        "seed \(seed), course \(course): \(zeros.measured) m, from positions only \(positions.measured) m, of \(zeros.truth) m")
            }
        }
    }

    /// A speed that stays out from a stop on (a three-minute stop whose fixes scatter 2 m, then
    /// 7 m/s with the zeros going on): judged against where the rider stood lately, not against
    /// a radius that grew with the whole stop, the zeros are doubted within 8 s of setting off,
    /// moving since within 3 s of it (`takeDoubt`), and the ride from the stop measures within
    /// 5 % (steps and the shortfall). Before, judged against the radius the stop had grown, the
    /// ride from it measured 10 % short.
    @Test func aSpeedThatStaysOutFromAStopIsDoubtedSoonAfterSettingOff() {
        for seed in UInt64(1)...6 {
            var random = SimRandom(seed: seed)
            var filter = TrackFilter()
            var doubted: Double? = nil, ridden = 0.0, owed = 0.0
            func wander() -> Double { 2 * random.gaussian() }
            for k in 0...20 { _ = filter.update(Fix(lat: 52 + degreesNorth(7 * Double(k)), lon: 4, speed: 7, course: 0, hAcc: 4), t: Double(k)) }
            for k in 21...240 {
                let along = 140 + 7 * Double(max(0, k - 200))
                let step = filter.update(Fix(lat: 52 + degreesNorth(along + wander()), lon: 4 + degreesNorth(wander()) / cos(52 * Double.pi / 180),
                                             speed: 0, course: 0, hAcc: 4), t: Double(k))
                let doubt = filter.takeDoubt()
                owed += doubt?.shortfallM ?? 0
                if k > 195 { ridden += step.distanceM + owed; owed = 0 }
                if doubted == nil, let doubt { doubted = doubt.from; #expect(Double(k) <= 208, "seed \(seed): doubted at \(k) s") }
            }
            let from = doubted ?? .nan
            #expect(abs(from - 200) <= 3, "seed \(seed): moving since \(from) s, set off at 200 s")
            #expect(abs(ridden - 7 * 40) <= 0.05 * 7 * 40, "seed \(seed): \(ridden) m measured of the 280 m ridden")
        }
    }

    /// A runner whose speed stays out stands a minute; the stretch's reference moves on to the
    /// last fix of it, which lies two σ back (a standing receiver's wander), and the runner sets
    /// off at 3.3 m/s: the first fix beyond lies 3.3 m and two σ from the reference a second
    /// after it moved. The zeros are doubted within five fixes and the 60 s run after the stop
    /// measures within 5 % (steps and the shortfall), with h_acc 3 and 4. Before, the pace at
    /// which that fix "got there" was taken since the reference moved (7 m in a second, an
    /// outlier's jump) rather than since the stretch began, and the run was never doubted: 0 m.
    @Test(arguments: [3.0, 4.0])
    func aRunThatSetsOffJustAfterTheReferenceMovedOnIsDoubted(_ hAcc: Double) {
        var filter = TrackFilter()
        let stop = 3.3 * 30
        for k in 0...30 { _ = filter.update(Fix(lat: 52 + degreesNorth(3.3 * Double(k)), lon: 4, speed: 3.3, course: 0, hAcc: hAcc), t: Double(k)) }
        for k in 31...90 { _ = filter.update(Fix(lat: 52 + degreesNorth(stop - (k == 90 ? 2 * hAcc : 0)), lon: 4, speed: 0, course: 0, hAcc: hAcc), t: Double(k)) }
        #expect(filter.reference.t == 90, "the reference moved on at \(filter.reference.t) s")
        var doubtedAt: Int? = nil, ran = 0.0
        for k in 91...150 {
            let step = filter.update(Fix(lat: 52 + degreesNorth(stop + 3.3 * Double(k - 90)), lon: 4, speed: 0, course: 0, hAcc: hAcc), t: Double(k))
            if let doubt = filter.takeDoubt() { doubtedAt = doubtedAt ?? k; ran += doubt.shortfallM }
            ran += step.distanceM
        }
        #expect((doubtedAt ?? .max) <= 95, "doubted at \(doubtedAt.map(String.init) ?? "none")")
        #expect(abs(ran - 3.3 * 60) <= 0.05 * 3.3 * 60, "\(ran) m of the 198 m run")
    }

    /// A ride whose speed stays out (zeros, doubted: the positions measure it) stops for a minute
    /// and rides on: the filtered speed lags the stop and runs on past it (its steps count about
    /// 28 m after the fixes stopped, at 8 m/s and 1 Hz); the stretch stands again and, when its
    /// fixes move on, owes only what they moved beyond what its steps counted since they stopped.
    /// The ride from 20 s before the stop to 40 s after it measures within 3 % of its 480 m, on a
    /// straight line with the simulator's receiver (seeds 1–3 and 720–722). Before, the run-on
    /// past the stop counted, and the ride after it was owed again from where the fixes stood.
    @Test func aDoubtedRideThatStopsIsNotCountedPastTheStop() {
        for seed in Array(UInt64(1)...3) + Array(UInt64(720)...722) {
            var filter = TrackFilter()
            var rng = SimRandom(seed: seed, stream: 1)
            var errorEast = GaussMarkov(sigma: 4, tau: 60, rng: &rng), errorNorth = GaussMarkov(sigma: 4, tau: 60, rng: &rng)
            var s = 0.0, measured = 0.0
            for k in 0...300 {
                if k > 0 && !(200..<260).contains(k) { s += 8 }
                let fix = Fix(lat: 52 + degreesNorth(errorNorth.step(dt: 1, rng: &rng) + 0.7 * rng.gaussian()),
                              lon: 4 + degreesEast(s + errorEast.step(dt: 1, rng: &rng) + 0.7 * rng.gaussian()), speed: 0, course: 90, hAcc: 4)
                let d = filter.update(fix, t: Double(k)).distanceM + (filter.takeDoubt()?.shortfallM ?? 0)
                if k > 180 { measured += d }
            }
            #expect(abs(measured - 480) <= 0.03 * 480, "seed \(seed): \(measured) m of the 480 m ridden")
        }
    }

    /// A gap or a jump starts the filter over (`reset(at:)`): a stretch doubted before it, and
    /// the shortfall not yet taken, do not carry over; standing fixes after it are standing.
    @Test func aResetForgetsADoubtedStretch() {
        var filter = TrackFilter()
        for k in 0...20 { _ = filter.update(Fix(lat: 52 + degreesNorth(3.3 * Double(k)), lon: 4, speed: 3.3, course: 0, hAcc: 4), t: Double(k)) }
        for k in 21...40 { _ = filter.update(Fix(lat: 52 + degreesNorth(3.3 * Double(k)), lon: 4, speed: 0, course: 0, hAcc: 4), t: Double(k)) }
        #expect(filter.standingDoubted && (filter.doubt?.shortfallM ?? 0) > 0)
        filter.reset(at: Fix(lat: 52.01, lon: 4, speed: 0, course: 0, hAcc: 4), t: 100)
        #expect(!filter.standingDoubted && filter.takeDoubt() == nil)
        var total = 0.0
        for k in 101...160 { total += filter.update(Fix(lat: 52.01, lon: 4, speed: 0, course: 0, hAcc: 4), t: Double(k)).distanceM }
        #expect(total == 0 && !filter.standingDoubted)
    }

    /// A runner who stops for two minutes with the simulator's receiver (as `noisyDropout`, in
    /// a straight line at 3.3 m/s; a standing Doppler speed of noise 0.2 m/s an axis), whose
    /// fixes from 2 s into the stop jump 6 to 40 m north and stay there for 1 to 10 fixes (an
    /// outlier, multipath): the stop's standing is never doubted, on 40 seeds (half of them never
    /// looked at while the doubt was built), with a course and without. An offset that jumps
    /// further than standing explains and stays is told from moving on by the pace at which the
    /// fixes beyond keep moving away.
    @Test(arguments: [6.0, 8, 12, 20, 40])
    func outliersAtAStopDoNotMakeItsStandingDoubted(_ shiftM: Double) {
        for seed in Array(UInt64(100)...119) + Array(UInt64(900)...919) {
            for outliers in [1, 2, 3, 4, 6, 10] {
                for withCourse in [false, true] {
                    var filter = TrackFilter()
                    var rng = SimRandom(seed: seed, stream: 1)
                    var errorEast = GaussMarkov(sigma: 4, tau: 60, rng: &rng), errorNorth = GaussMarkov(sigma: 4, tau: 60, rng: &rng)
                    var s = 0.0, doubted = 0
                    for k in 0...600 {
                        let stopped = (300..<420).contains(k)
                        if k > 0 && !stopped && !(300..<420).contains(k - 1) { s += 3.3 }
                        let east = s + errorEast.step(dt: 1, rng: &rng) + 0.7 * rng.gaussian()
                        let north = errorNorth.step(dt: 1, rng: &rng) + 0.7 * rng.gaussian() + ((302..<302 + outliers).contains(k) ? shiftM : 0)
                        let noise = stopped ? 0.2 : 0.1
                        let ve = (stopped ? 0 : 3.3) + noise * rng.gaussian(), vn = noise * rng.gaussian()
                        let fix = Fix(lat: 52 + degreesNorth(north), lon: 4 + degreesEast(east), speed: (ve * ve + vn * vn).squareRoot(),
                                      course: withCourse ? (atan2(ve, vn) * 180 / .pi + 360).truncatingRemainder(dividingBy: 360) : .nan, hAcc: 3)
                        _ = filter.update(fix, t: Double(k))
                        if stopped && filter.standingDoubted { doubted += 1 }
                    }
                    #expect(doubted == 0, "seed \(seed), \(outliers) fixes \(shiftM) m off, course \(withCourse): doubted at \(doubted) fixes of the stop")
                }
            }
        }
    }

    /// A receiver that reports 0 m/s for its first seconds while its fixes move: the positions
    /// measure those seconds, until its Doppler speed has shown movement; also after standing
    /// half a minute first, its standing Doppler noise reaching 0.5 m/s (above the standing
    /// threshold, below a walker's speed: not yet movement). After standing, the filtered speed
    /// that lets the positions speak lags the start by about 4 s (12 m); believing the zeros
    /// reads 340 m, 20 m short.
    @Test(arguments: [0, 30])
    func aDopplerThatReadsZeroAtTheStartLeavesItToThePositions(_ standingS: Int) {
        var filter = TrackFilter()
        var total = 0.0
        for k in 0..<standingS { total += filter.update(Fix(lat: 52, lon: 4, speed: k % 10 == 5 ? 0.5 : 0.1, hAcc: 4), t: Double(k)).distanceM }
        for k in 0...120 {
            let t = Double(standingS + k)
            total += filter.update(Fix(lat: 52 + degreesNorth(3 * Double(k)), lon: 4, speed: k < 8 ? 0 : 3, hAcc: 4), t: t).distanceM
        }
        #expect(total > 360 - (standingS > 0 ? 15 : 6) && total <= 360 + 1, "\(total) m of 360 m")
    }
}
