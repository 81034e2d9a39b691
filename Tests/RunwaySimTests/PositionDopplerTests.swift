import Testing
@testable import RunwaySim
#if canImport(Glibc)
import Glibc
#endif

/// The honest standing receiver of issue #19, Doppler with a scale error, walk and ride motion,
/// and the places the accuracy tests run at.
@Suite("Simulated positions and Doppler: standing, scale error, motion, places")
struct PositionDopplerTests {
    /// Ten minutes standing with the noise: positions wander (Gauss–Markov σ 4 m, τ 60 s,
    /// plus 0.7 m white), Doppler is the magnitude of a normal noise vector, σ 0.2 m/s per axis.
    static func standing(_ change: (inout SimConfig) -> Void = { _ in }) -> SimRun {
        var c = SimConfig()
        c.laps = 0
        c.standStillBeforeS = 600
        c.standingDopplerSigmaMps = 0.2
        c.courseWhenSlow = true
        change(&c)
        return simulate(c)
    }

    @Test func standingDopplerIsSmallNoiseNeverZero() {
        let run = Self.standing()
        #expect(run.fixes.count == 601)
        #expect(run.fixes.allSatisfy { $0.trueSpeedMps == 0 && $0.speed > 0 })
        let sorted = run.fixes.map(\.speed).sorted()
        func quantile(_ q: Double) -> Double { sorted[Int(Double(sorted.count - 1) * q)] }
        // The magnitude of a 2-D normal with σ 0.2 per axis (Rayleigh): median σ·√(2 ln 2) =
        // 0.235, 5 % 0.064, 95 % 0.49 m/s.
        #expect(relative(quantile(0.5), to: 0.235) < 0.1, "median \(quantile(0.5))")
        #expect(quantile(0.05) > 0.03 && quantile(0.05) < 0.1, "5 % \(quantile(0.05))")
        #expect(quantile(0.95) > 0.4 && quantile(0.95) < 0.6, "95 % \(quantile(0.95))")
        #expect(sorted.last.map { $0 < 1 } == true)
    }

    @Test func standingCourseIsNoiseInEveryDirection() {
        let run = Self.standing()
        #expect(run.fixes.allSatisfy { !$0.course.isNaN })
        // The mean resultant length of uniformly random bearings over 601 fixes is ~0.04.
        let rad = run.fixes.map { $0.course * Double.pi / 180 }
        let c = mean(rad.map(cos)), s = mean(rad.map(sin))
        #expect((c * c + s * s).squareRoot() < 0.15)
        // Each quadrant gets its share.
        for q in 0..<4 {
            let n = run.fixes.filter { Int($0.course / 90) == q }.count
            #expect(n > 100, "quadrant \(q): \(n) of 601")
        }
    }

    @Test func standingPositionsWanderAsTheErrorModelSays() {
        let run = Self.standing()
        let errors = run.fixes.map(error(of:))
        let east = errors.map(\.east), north = errors.map(\.north)
        // Per axis σ √(4² + 0.7²) = 4.06 m over the whole stand (10 τ: a loose check), and the
        // wander is slow: 10 s apart the error is still correlated (e^-1/6 = 0.85 for the GM part;
        // a 10-τ sample reads it lower).
        for axis in [east, north] {
            #expect(standardDeviation(axis) > 2 && standardDeviation(axis) < 6.5)
            #expect(autocorrelation(axis, lag: 10) > 0.5)
        }
    }

    @Test func theStandingModelChangesOnlyTheStandingDoppler() {
        var plain = SimConfig()
        plain.stops = [SimStop(atDistanceM: 1000, durationS: 60)]
        var honest = plain
        honest.standingDopplerSigmaMps = 0.2
        let a = simulate(plain), b = simulate(honest)
        #expect(a.fixes.count == b.fixes.count)
        for (p, q) in zip(a.fixes, b.fixes) {
            #expect(p.lat == q.lat && p.lon == q.lon && p.alt == q.alt && p.hAcc == q.hAcc)
            if p.trueSpeedMps > 0 { #expect(p.speed == q.speed) }
        }
        let stood = zip(a.fixes, b.fixes).filter { $0.0.trueSpeedMps == 0 }
        #expect(stood.count >= 60)
        // Same draws, twice the σ: exactly twice the speed.
        #expect(stood.allSatisfy { abs($0.1.speed - 2 * $0.0.speed) < 1e-12 })
        // Left NaN (the default), the standing σ is the moving one: the runs are identical.
        var same = plain
        same.standingDopplerSigmaMps = plain.dopplerSigmaMps
        #expect(fingerprint(simulate(same)) == fingerprint(a))
    }

    @Test(arguments: [-0.05, 0.03])
    func aDopplerScaleErrorScalesTheSpeedOnly(k: Double) {
        let a = simulate(config { $0.laps = 2 })
        let b = simulate(config { $0.laps = 2; $0.dopplerScale = 1 + k })
        for (p, q) in zip(a.fixes, b.fixes) {
            #expect(p.lat == q.lat && p.lon == q.lon)
            #expect(abs(q.speed - p.speed * (1 + k)) < 1e-12)
        }
        // Integrated, the speed reads the truth × (1 + k).
        var integrated = 0.0
        for (p, q) in zip(b.fixes, b.fixes.dropFirst()) { integrated += (p.speed + q.speed) / 2 * (q.t - p.t) }
        #expect(relative(integrated, to: b.truthDistanceM * (1 + k)) < 0.005, "\(integrated) m")
        // Clamped to 0...10; NaN is no scale error.
        #expect(config { $0.dopplerScale = 30 }.sanitised().dopplerScale == 10)
        #expect(config { $0.dopplerScale = .nan }.sanitised().dopplerScale == 1)
    }

    @Test(arguments: SimMotion.allCases)
    func eachMotionKeepsItsPace(motion: SimMotion) {
        let run = simulate(SimConfig(motion: motion))
        let steady = 1000 / (motion.paceMinPerKm * 60)
        let moving = run.fixes.filter(\.isMoving)
        let meanSpeed = run.truthDistanceM / run.truthMovingS
        // Corners slow everyone a little, a rider more in absolute terms.
        #expect(meanSpeed < steady * 1.02 && meanSpeed > steady * 0.85, "\(motion): \(meanSpeed) m/s of \(steady)")
        #expect(relative(run.truthDistanceM, to: 5500) < 0.001)
        #expect(moving.count > 100)
        switch motion {
        case .run: #expect(relative(steady, to: 3.333) < 0.001)
        case .walk: #expect(steady > 1.4 && steady < 1.6)              // ~11 min/km
        case .ride: #expect(steady * 3.6 >= 25 && steady * 3.6 <= 30)  // 25–30 km/h
        }
        // Doppler follows the true speed whatever the motion.
        let fast = run.fixes.filter { $0.trueSpeedMps > steady * 0.8 }
        #expect(abs(mean(fast.map { $0.speed - $0.trueSpeedMps })) < 0.03)
    }

    @Test func theTrialPlacesSpanLatitudesAndTheSetsAreDisjoint() {
        let held = SimTrials.heldBack, tuning = SimTrials.tuning
        #expect(held.count >= 5 && tuning.count >= 3)
        #expect(Set(held.map(\.seed)).isDisjoint(with: tuning.map(\.seed)))
        #expect(held.contains { abs($0.lat) < 5 })                       // equator
        #expect(held.contains { $0.lat < -30 })                          // southern hemisphere
        #expect(held.contains { abs($0.lat) > 60 })                      // high latitude
        #expect(held.contains { abs($0.lon) > 179 })                     // the antimeridian
        for trial in held {
            let run = simulate(trial.config(config { $0.laps = 0.2 }))
            let d = WGS84.distance(lat1: run.fixes[0].trueLat, lon1: run.fixes[0].trueLon, lat2: trial.lat, lon2: trial.lon)
            #expect(d < 3000, "\(trial): the loop is at its place")
        }
    }
}
