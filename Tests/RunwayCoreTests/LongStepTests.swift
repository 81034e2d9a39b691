import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// Steps longer than `TrackFilter.Settings.longStepS` (5 s) without a Doppler speed.
@Suite("Long steps without Doppler")
struct LongStepTests {
    /// The profile's configuration with auto-pause on or off.
    static func config(_ activity: Activity, autoPause: Bool) -> EngineConfig {
        var config = EngineConfig(activity: activity)
        config.autoPause.enabled = autoPause
        return config
    }

    /// Issue #19's receiver standing (positions only), its fixes out for 27 s (under `gap_s`:
    /// one step), two fixes after it, and the flight stopped: under 5 m and 10 s of moving time,
    /// every profile, auto-pause off and on, tuning and held-back trials, three places in the
    /// stand. The step from a filter that stood counts no further than its fixes moved: the
    /// filter's speed after it is the step's own chord speed and the velocity correction's
    /// overshoot (receiver flight 1987: 29.5 m counted for a 7 m chord, which the stop credited
    /// as a set-off's, with 28 s of moving time).
    @Test(arguments: Activity.allCases, [false, true])
    func aStandingReceiversLongStepCountsNoFurtherThanItsFixesMoved(activity: Activity, autoPause: Bool) throws {
        let config = LongStepTests.config(activity, autoPause: autoPause)
        for trial in StandingStillTests.trials {
            let run = StandingStillTests.honest(trial, motion: StandingStillTests.motion(activity), doppler: false) { $0.standStillBeforeS = 600 }
            guard let t0 = run.fixes.first?.t else { continue }
            for out in [200.0, 350, 500] {
                let r = try Replay(run, config: config) { f in f.t - t0 < out || (f.t - t0 >= out + 27 && f.t - t0 < out + 29) }
                #expect(r.distance < 5, "\(activity), auto-pause \(autoPause), \(trial), out at \(out) s: \(r.distance) m standing")
                #expect(r.core.movingS < 10, "\(activity), auto-pause \(autoPause), \(trial), out at \(out) s: \(r.core.movingS) s moving")
            }
        }
    }
}

/// Steps longer than `TrackFilter.Settings.longStepS` with a Doppler speed at each end.
@Suite("Long steps with Doppler")
struct LongDopplerStepTests {
    /// A dropout of 20 s (under `gap_s`: one step) across a stop, its fix before it at half the
    /// runner's speed or more and its fix after it standing; or across the set-off, the other
    /// way round: the step counts no further than its fixes moved, not the trapezoid of its end
    /// speeds (a runner who stopped a second after the last fix read 33 m for 2.7: receiver
    /// flight 335). Against the same flight with every fix: within 3 σ of the difference of the
    /// receiver's errors at the dropout's ends (what `ReceiverFlight` allows a dropout), tuning
    /// and held-back trials. Stops: every profile, auto-pause off and on (before: +11 to +19 m
    /// walking, +18 to +26 m running, +31 to +36 m riding). Set-offs: run and ride with
    /// auto-pause off (before: +20 to +28 m, +33 to +42 m). Not asserted, see
    /// docs/accuracy.md: a walker's set-off from a fix whose standing Doppler noise reads over
    /// the walk profile's moving speed (0.6 m/s) is the trapezoid still (+18 m on one trial),
    /// and with auto-pause on a set-off inside the dropout loses up to 10 m riding (as before).
    /// In every case the max speed is no faster than the fastest Doppler speed of the fixes: the
    /// held steps credited after a set-off across the dropout are a stretch over the time they
    /// took, the long step's 21 s too (over their moving time alone, the long step's chord without
    /// its time, they set maxima of 4.6–6.9 m/s running at 3.5, 6 m/s walking at 1.6).
    @Test(arguments: Activity.allCases, [false, true])
    func aDropoutAcrossAStopOrASetOffCountsWhatItsFixesMoved(activity: Activity, autoPause: Bool) throws {
        let config = LongStepTests.config(activity, autoPause: autoPause)
        let outS = 20.0
        let sigma = 4.0, tau = 60.0, white = 0.7   // the receiver's (SimConfig's defaults)
        let ends: Double = 3 * (2 * sigma * sigma * (1 - exp(-outS / tau)) + 2 * white * white).squareRoot()
        for trial in StandingStillTests.trials {
            let run = StandingStillTests.honest(trial, motion: StandingStillTests.motion(activity), doppler: true) {
                $0.stops = [SimStop(atDistanceM: 600, durationS: 90)]
                $0.laps = 1500 / $0.loopLengthM
            }
            // The stop's first and last standing fix, and the last fix at half the speed or more
            // before it (the runner brakes and stops in the next seconds), the first after it.
            guard let first = run.fixes.firstIndex(where: { !$0.isMoving && $0.truePathM > 100 }),
                  let last = run.fixes[first...].firstIndex(where: { $0.isMoving }).map({ $0 - 1 }), last - first > 60,
                  case let brisk = run.fixes[first - 30].trueSpeedMps / 2,
                  let before = run.fixes[..<first].lastIndex(where: { $0.trueSpeedMps >= brisk }),
                  let after = run.fixes[last...].firstIndex(where: { $0.trueSpeedMps >= brisk })
            else { Issue.record("\(trial): no stop"); continue }
            let whole = try Replay(run, config: config).distance
            let outs = [("stop", run.fixes[before].t, run.fixes[before].t + outS + 1),
                        ("set-off", run.fixes[after].t - outS - 1, run.fixes[after].t)]
            for (what, from, to) in outs {
                let keep = { (f: SimFix) in f.t <= from || f.t >= to }
                let r = try Replay(run, config: config, keep: keep)
                if what == "stop" || activity != .walk && !autoPause {
                    #expect(abs(r.distance - whole) <= ends,
                            "\(activity), auto-pause \(autoPause), \(trial), \(what): \(r.distance) m, \(whole) m with every fix (±\(ends))")
                }
                let fastest = run.fixes.filter(keep).map(\.speed).max() ?? 0
                #expect(r.core.maxSpeed <= fastest,
                        "\(activity), auto-pause \(autoPause), \(trial), \(what): max \(r.core.maxSpeed) m/s, the fastest Doppler \(fastest)")
            }
        }
    }

    /// A ride at 1.55 m/s (a climb at walking pace: the ride profile's moving speed, 1.5 m/s,
    /// within its Doppler noise and its pace's wander), one fix every 7 s, for an hour: many of
    /// its steps move at one end only, and a bound one counts its chord. The Doppler check leaves
    /// those steps out (`TrackFilter.lastStepMeasuredBySpeed`): it keeps the Doppler speed, and
    /// the distance is within 1 % of the truth, tuning and held-back trials (−0.1 to −0.5 %; −0.8
    /// to −2.5 % while every such step counted the shorter of its noisy chord and the trapezoid,
    /// not only one whose trapezoid its chord and a σ cannot explain). Before, the check took the
    /// bound steps for the speed's, read it 5.1 to 5.6 % short
    /// of the positions over a window on 4 of the 8 trials and measured the rest of the flight by
    /// the positions, whose filtered speed at 1.55 m/s is under the moving speed as often as
    /// over: −16 % of the distance and −25 % of the moving time (seeds 1 and 7219).
    @Test func aSlowSparseRideKeepsItsDopplerSpeed() throws {
        var config = EngineConfig(activity: .ride)
        config.autoPause.enabled = false
        for trial in StandingStillTests.trials {
            var c = trial.config(SimConfig())
            c.paceMinPerKm = 1000 / 1.55 / 60
            c.paceVariation = 0.1
            c.hz = 1.0 / 7
            c.laps = 1.55 * 3600 / c.loopLengthM
            let run = simulate(c)
            guard let truth = run.fixes.last?.truePathM else { Issue.record("\(trial): no fixes"); continue }
            let r = try Replay(run, config: config)
            #expect(r.core.dopplerCheck.disagreement == nil, "\(trial): \(String(describing: r.core.dopplerCheck.disagreement))")
            #expect(abs(r.distance / truth - 1) <= 0.01, "\(trial): \(r.distance) m of \(truth) m, moving \(r.core.movingS) s")
        }
    }
}
