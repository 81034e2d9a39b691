import Testing
@testable import RunwayCore
import RunwaySim
#if canImport(Glibc)
import Glibc
#endif

/// Random flights with a receiver like a real one (issue #19), seeded and deterministic, through
/// `InvariantCheck` and against the truth they were made from. Unlike `RandomFlight`'s white
/// noise, the position error is a slowly wandering Gauss–Markov process per axis (σ 4 m, τ 60 s)
/// plus 0.7 m white noise; the Doppler speed is the magnitude of the true velocity plus noise of
/// 0.1 m/s an axis, 0.2 m/s standing (never exactly 0); the course is that noisy vector's bearing
/// (per flight: always, only from 0.5 m/s, or never). The person stands and moves in runs (walk,
/// run or ride speeds, braking and setting off at up to 1.5 m/s², turning corners), the fixes
/// drop out in bursts of 2–60 s, 0.3 % of them are junk 600 m off, and pause, resume, manual lap
/// and stop commands come at a rate of the flight's own. A quarter of the flights have no Doppler.
struct ReceiverFlight {
    typealias LCG = RandomFlight.LCG

    /// What the truth allows, kept while the flight is made.
    struct Truth {
        /// Path walked in cruise, seconds in cruise and of them moving (true speed above 0).
        var distanceM = 0.0, elapsedS = 0.0, movingS = 0.0
        /// Standing runs in cruise (each a stop and a set-off) and their seconds.
        var stops = 0, standingS = 0.0
        /// What no fix can measure: the path inside each dropout beyond its chord, and the
        /// difference of the receiver's errors at its two ends (3 σ of one axis).
        var dropoutM = 0.0
        var resumes = 0, dropouts = 0, junk = 0
        /// Moving seconds after the last fix before a stop.
        var unmeasuredS = 0.0
    }

    static let t0 = 1_700_000_000.0

    /// Flight `seed`'s problems: `InvariantCheck`'s, and (filters on) a distance or moving time
    /// the truth does not allow.
    static func problems(seed: UInt64, trace: Bool = false) -> [String] {
        var rng = LCG(seed: seed ^ 0x5245_4345_4956_4552)   // "RECEIVER": seeds of its own
        let (name, config) = RandomFlight.configs[Int(rng.next() % UInt64(RandomFlight.configs.count))]
        let doppler = rng.chance(0.75)
        let course = rng.uniform()   // < 0.4 always, < 0.8 from 0.5 m/s, else never
        var c = InvariantCheck("receiver flight \(seed) (\(name)\(doppler ? "" : ", positions only"))", config: config)
        var truth = Truth(), atLastInput = Truth()
        func show(_ what: String) {
            guard trace else { return }
            print("\(what) | \(c.core.phase) d \(c.core.distance) el \(c.core.elapsed) mov \(c.core.movingS) max \(c.core.maxSpeed) | truth d \(truth.distanceM) mov \(truth.movingS)")
        }
        // The person: speeds of the profile (a run also walks now and then).
        let speeds: (walk: ClosedRange<Double>, own: ClosedRange<Double>) =
            (1.1...1.7, config.activity == .ride ? 4...10 : config.activity == .walk ? 1.1...1.7 : 2.3...4.5)
        var trueLat = 52.0, trueLon = 4.0, heading = rng.between(0, 2 * .pi), turnRate = 0.0, turnLeft = 0.0
        var moving = rng.chance(0.5), runLeft = rng.between(5, 120), v = 0.0, target = 0.0
        func newTarget() -> Double {
            let r = config.activity == .run && rng.chance(0.2) ? speeds.walk : speeds.own
            return rng.between(r.lowerBound, r.upperBound)
        }
        if moving { target = newTarget(); v = target }
        // The receiver.
        let sigma = 4.0, tau = 60.0, white = 0.7
        let phi = exp(-1 / tau), drive = sigma * (1 - phi * phi).squareRoot()
        var errE = sigma * rng.gaussian(), errN = sigma * rng.gaussian(), accW = 0.15 * rng.gaussian()
        let hAccBase = (sigma * sigma + white * white).squareRoot()
        let dropoutRate = rng.between(1.0 / 600, 1.0 / 120), commands = rng.between(0.3, 4)
        // The last fix's true place, the path walked (in all, and in cruise) and time to it.
        var dropLeft = 0.0, travel = 0.0, lastFix: (lat: Double, lon: Double, travel: Double, path: Double, t: Double) = (52, 4, 0, 0, t0)
        var paused = false, stopped = false, standingCounted = false
        let seconds = Int(rng.between(480, 1200))
        var t = t0
        for k in 0...seconds {
            // The second before fix `k`, in ten steps (a command at its middle).
            if k > 0 {
                if dropLeft <= 0 { runLeft -= 1 }   // (the runner keeps what it did through a dropout)
                if runLeft <= 0 {
                    moving.toggle()
                    runLeft = moving ? rng.between(20, 300) : rng.chance(0.1) ? rng.between(300, 600) : rng.between(5, 90)
                    target = moving ? newTarget() : 0
                    standingCounted = false
                }
                if turnLeft <= 0, moving, rng.chance(1.0 / 45) {
                    turnLeft = rng.between(4, 8)
                    turnRate = (rng.chance(0.5) ? 1 : -1) * rng.between(0.5, 1.7) / turnLeft
                }
                let wander = 0.03 * rng.gaussian()
                for step in 0..<10 {
                    if step == 5, !stopped {
                        let tc = t + 0.5
                        if rng.chance(0.004 * commands) { c.lap(at: tc); show("lap \(tc)") }
                        if !paused, rng.chance(0.003 * commands) { c.command(.pause, at: tc); paused = true; show("pause \(tc)") }
                        else if paused, rng.chance(0.04) { c.command(.resume, at: tc); paused = false; truth.resumes += 1; show("resume \(tc)") }
                        if rng.chance(0.0005) { c.command(.stop, at: tc); stopped = true; show("stop \(tc)") }
                    }
                    let accel = config.activity == .ride ? 1.0 : 1.5
                    v = target > v ? min(target, v + accel * 0.1) : max(target, v - accel * 0.1)
                    heading += (turnLeft > 0 ? turnRate : 0) * 0.1 + wander * 0.1
                    let d = v * 0.1
                    (trueLat, trueLon) = WGS84.offset(lat: trueLat, lon: trueLon, east: d * sin(heading), north: d * cos(heading))
                    travel += d
                    if !paused, !stopped {
                        truth.distanceM += d
                        truth.elapsedS += 0.1
                        if v > 0 { truth.movingS += 0.1 } else {
                            truth.standingS += 0.1
                            if !standingCounted { truth.stops += 1; standingCounted = true }
                        }
                    }
                }
                turnLeft -= 1
                t += 1
                errE = phi * errE + drive * rng.gaussian()
                errN = phi * errN + drive * rng.gaussian()
                accW = exp(-1.0 / 30) * accW + 0.15 * (1 - exp(-2.0 / 30)).squareRoot() * rng.gaussian()
            }
            if stopped { break }
            // The fix, unless the sky is lost.
            if dropLeft > 0 { dropLeft -= 1; if dropLeft > 0 { continue } }
            else if k > 1, rng.chance(dropoutRate) {
                dropLeft = exp(rng.between(log(2), log(60))).rounded() - 1
                truth.dropouts += 1
                if dropLeft > 0 { continue }
            }
            if k > 0, rng.chance(0.02), c.core.phase != .preflight {
                if let s = try? ValidatedInput(.sample(.speed(mps: max(0, v + 0.1 * rng.gaussian()), t: t - 0.25))) { c.push(s); show("sensor \(s.input)") }
            }
            let junk = k > 0 && rng.chance(0.003)
            if junk { truth.junk += 1 }
            let offE = junk ? 600 * sin(heading + 1) : 0, offN = junk ? 600 * cos(heading + 1) : 0
            let e = errE + white * rng.gaussian() + offE, n = errN + white * rng.gaussian() + offN
            let (lat, lon) = WGS84.offset(lat: trueLat, lon: trueLon, east: e, north: n)
            let sd = v == 0 ? 0.2 : 0.1
            let ve = v * sin(heading) + sd * rng.gaussian(), vn = v * cos(heading) + sd * rng.gaussian()
            let speed = (ve * ve + vn * vn).squareRoot()
            var bearing = (atan2(ve, vn) * 180 / .pi + 3 * rng.gaussian()).truncatingRemainder(dividingBy: 360)
            if bearing < 0 { bearing += 360 }
            let withCourse = doppler && (course < 0.4 || (course < 0.8 && speed >= 0.5))
            let fix = Fix(t: t, lat: lat, lon: lon, alt: 10 + rng.gaussian(), speed: doppler ? speed : .nan,
                          course: withCourse ? bearing : .nan, hAcc: hAccBase * exp(accW))
            if let input = try? ValidatedInput(.fix(fix)) {
                c.push(input)
                if t - lastFix.t > 1 {
                    // A dropout's end, some of it in cruise: what the fixes either side cannot tell
                    // of the path between them (the person keeps moving or standing through it).
                    let dt = t - lastFix.t
                    let chord = WGS84.distance(lat1: lastFix.lat, lon1: lastFix.lon, lat2: trueLat, lon2: trueLon)
                    let ends = 3 * (2 * sigma * sigma * (1 - exp(-dt / tau)) + 2 * white * white).squareRoot()
                    if truth.distanceM > lastFix.path { truth.dropoutM += max(0, travel - lastFix.travel - chord) + ends }
                }
                lastFix = (trueLat, trueLon, travel, truth.distanceM, t)
                atLastInput = truth
                show("fix \(t) v \(v) dop \(speed)\(junk ? " JUNK" : "")\(paused ? " (paused)" : "")")
            }
        }
        if !stopped { c.command(.stop, at: t); show("stop \(t)") }
        // Stopped after the last fix: nothing measured the way since (a stop has no fix after it).
        truth.dropoutM += truth.distanceM - lastFix.path
        truth.unmeasuredS = truth.movingS - atLastInput.movingS
        var p = c.finish()
        show("finish")
        if config.filters { p += check(c, truth, config: config, doppler: doppler) }
        if trace { print("truth \(truth)") }
        return p
    }

    /// A distance or moving time the truth does not allow, the allowance made of what
    /// docs/accuracy.md claims for this receiver:
    /// - distance: with Doppler within 0.5 % of the path, positions only 1.5 % (the distance rows,
    ///   `AccuracyTests`); each stop 3 m (`aStopAtALightAddsUnderThreeMetres`: a stop and its
    ///   set-off; the flight's start and each resume count as one) and standing 5 m per 10 minutes
    ///   (`standingTenMinutesCountsUnderFiveMetres`, also with dropouts); each dropout while moving
    ///   what its two fixes cannot tell (the path beyond the chord, and 3 σ of the difference of
    ///   the receiver's errors at its ends);
    /// - moving time: 2 % (the dropout rows' "within 2 % of the true"), 3 s a stop, start or
    ///   resume and 10 s per 10 minutes standing (the same tests);
    /// - elapsed time, auto-pause off: the cruise time exactly.
    static func check(_ c: InvariantCheck, _ truth: Truth, config: EngineConfig, doppler: Bool) -> [String] {
        var problems: [String] = []
        let setOffs = Double(truth.stops + 1 + truth.resumes), standing10 = truth.standingS / 600
        let allowM = (doppler ? 0.005 : 0.015) * truth.distanceM + 3 * setOffs + 5 * standing10 + truth.dropoutM
        let offM = c.core.distance - truth.distanceM
        let detail = "(\(c.name): \(c.core.distance) m, truth \(truth.distanceM) m, \(truth.stops) stops \(Int(truth.standingS)) s, \(truth.dropouts) dropouts, \(truth.resumes) resumes, \(truth.junk) junk)"
        if abs(offM) > allowM {
            problems.append("\(c.name): distance \(offM > 0 ? "longer" : "shorter") than the truth allows by \(abs(offM) - allowM) m \(detail)")
        }
        let allowS = 0.02 * truth.movingS + 3 * setOffs + 10 * standing10 + truth.unmeasuredS
        let offS = c.core.movingS - truth.movingS
        if abs(offS) > allowS {
            problems.append("\(c.name): moving time \(offS > 0 ? "longer" : "shorter") than the truth allows by \(abs(offS) - allowS) s (\(c.core.movingS) s, truth \(truth.movingS) s) \(detail)")
        }
        if !config.autoPause.enabled, abs(c.core.elapsed - truth.elapsedS) > 1e-6 {
            problems.append("\(c.name): elapsed \(c.core.elapsed) s, truth \(truth.elapsedS) s \(detail)")
        }
        return problems
    }
}

extension RandomFlight.LCG {
    /// N(0, 1) by the Box–Muller transform (a receiver's error has tails).
    mutating func gaussian() -> Double {
        let u1 = 1 - uniform(), u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
