import Testing
@testable import RunwayCore
import RunwaySim

/// Issue #19's standing receiver, replayed through the whole engine for each profile, with
/// Doppler and positions only, over the tuning and the held-back trials.
@Suite("Standing still: the honest receiver, every profile, every trial")
struct StandingStillTests {
    static let trials = SimTrials.tuning + SimTrials.heldBack

    /// The issue's receiver: position wander GM σ 4 m, τ 60 s + 0.7 m white (the defaults),
    /// Doppler the magnitude of noise with σ 0.2 m/s per axis and a course that is noise.
    static func honest(_ trial: SimTrial, motion: SimMotion, doppler: Bool,
                       _ change: (inout SimConfig) -> Void = { _ in }) -> SimRun {
        var c = trial.config(SimConfig(motion: motion))
        c.standingDopplerSigmaMps = 0.2
        c.courseWhenSlow = true
        c.includeSpeed = doppler
        c.includeCourse = doppler
        change(&c)
        return simulate(c)
    }

    static func motion(_ activity: Activity) -> SimMotion {
        switch activity {
        case .run: .run
        case .walk: .walk
        case .ride: .ride
        }
    }

    /// Ten minutes standing: under 5 m and 10 s of moving time, every profile, with Doppler
    /// and positions only, on every trial (held back too). Rides also with auto-pause off, so
    /// the figure is the standing decision's and not auto-pause's. The standing Doppler's σ is
    /// 0.2 m/s per axis and also 0.2 m/s in all (0.141 per axis), both readings of the issue,
    /// and 0.35 m/s per axis, a receiver noisier than the Doppler thresholds were set for (they
    /// scale to the noise measured while standing; before they did, 0.35 read up to 30 m on
    /// other seeds); the position error is the
    /// issue's and also a receiver that wanders more and more slowly (Gauss–Markov σ 6 m, τ 120 s,
    /// plus 1 m white).
    @Test(arguments: Activity.allCases, [true, false])
    func standingTenMinutesCountsUnderFiveMetresAndTenSeconds(activity: Activity, doppler: Bool) throws {
        var configs = [EngineConfig(activity: activity)]
        if activity == .ride {
            var off = EngineConfig(activity: .ride)
            off.autoPause.enabled = false
            configs.append(off)
        }
        let sigmas = doppler ? [0.2, 0.2 / 2.0.squareRoot(), 0.35] : [0.2]
        let wander: [(sigma: Double, tau: Double, white: Double)] = [(4, 60, 0.7), (6, 120, 1)]
        for config in configs {
            for trial in Self.trials {
                for sigma in sigmas {
                    for w in wander {
                        let run = Self.honest(trial, motion: Self.motion(activity), doppler: doppler) {
                            $0.laps = 0
                            $0.standStillBeforeS = 600
                            $0.standingDopplerSigmaMps = sigma
                            ($0.gmSigmaM, $0.gmTauS, $0.whiteSigmaM) = w
                        }
                        #expect(run.fixes.count == 601)
                        let r = try Replay(run, config: config, stopAtEnd: false)
                        let what = "\(activity) (auto-pause \(config.autoPause.enabled)) doppler \(doppler) σ \(sigma), wander \(w), \(trial)"
                        #expect(r.distance < 5, "\(what): \(r.distance) m")
                        #expect(r.core.movingS < 10, "\(what): \(r.core.movingS) s moving")
                    }
                }
            }
        }
    }

    /// The same stand with the receiver losing the sky three times (35, 45 and 60 s without a
    /// fix; `gap_s` 30 and 8): each gap's line is the receiver's wander across it, and counted
    /// as distance it added 8.8–19.5 m (run and walk; rides auto-pause) to a runner who never
    /// moved (the random-flight fuzz's "max speed 0 below the average"). Under 5 m and 10 s,
    /// every profile, every trial.
    @Test(arguments: Activity.allCases, [true, false])
    func standingTenMinutesWithDropoutsCountsUnderFiveMetres(activity: Activity, doppler: Bool) throws {
        let lost: [ClosedRange<Double>] = [100...134, 250...294, 420...479]
        for gapS in [30.0, 8.0] {
            var config = EngineConfig(activity: activity)
            config.gapS = gapS
            for trial in Self.trials {
                let run = Self.honest(trial, motion: Self.motion(activity), doppler: doppler) {
                    $0.laps = 0
                    $0.standStillBeforeS = 600
                }
                let t0 = run.fixes.first?.t ?? 0
                let r = try Replay(run, config: config, stopAtEnd: false) { f in !lost.contains { $0.contains(f.t - t0) } }
                let what = "\(activity) doppler \(doppler) gap_s \(gapS), \(trial)"
                #expect(r.distance < 5, "\(what): \(r.distance) m")
                #expect(r.core.movingS < 10, "\(what): \(r.core.movingS) s moving")
            }
        }
    }

    /// A receiver whose standing Doppler is 0.45 m/s an axis (its magnitude 0.56 m/s on average,
    /// above the 0.5 m/s a standing window is allowed at the design noise): with the thresholds
    /// fixed it read 100 to 270 m and minutes of moving time in ten minutes. The thresholds
    /// follow the noise measured, so at most one false start, in the seconds before the noise
    /// is measured (2 × `endS` of window), counts: under 20 m and 30 s, however long the stand.
    @Test(arguments: [Activity.run, .walk])
    func aNoisierDopplerIsMeasuredAndAddsAtMostOneFalseStart(activity: Activity) throws {
        for trial in Self.trials {
            let run = Self.honest(trial, motion: Self.motion(activity), doppler: true) {
                $0.laps = 0
                $0.standStillBeforeS = 600
                $0.standingDopplerSigmaMps = 0.45
            }
            let r = try Replay(run, config: EngineConfig(activity: activity), stopAtEnd: false)
            #expect(r.distance < 20 && r.core.movingS < 30, "\(activity), \(trial): \(r.distance) m, \(r.core.movingS) s")
            #expect(r.core.stillness.dopplerScale > 1.8, "\(activity), \(trial): scale \(r.core.stillness.dopplerScale)")
        }
    }

    /// Without the standing decision, the same receiver adds metres and moving time: the test
    /// above measures the mechanism, not a receiver too clean to matter.
    @Test func withoutTheDecisionTheSameReceiverAddsDistance() throws {
        var config = EngineConfig(activity: .walk)
        config.stillness.enabled = false
        let run = Self.honest(SimTrials.tuning[0], motion: .walk, doppler: true) { $0.laps = 0; $0.standStillBeforeS = 600 }
        let r = try Replay(run, config: config, stopAtEnd: false)
        #expect(r.distance > 20 && r.core.movingS > 60, "\(r.distance) m, \(r.core.movingS) s")
    }

    /// Standing 10 minutes before a lap, or 2 minutes at a crossing, with the honest receiver,
    /// against the same fixes with the standing decision off (both up to the finish's braking
    /// below a walker's speed): the decision takes away at most what the stand itself added there,
    /// from where the runner slowed below a walker's speed (the start of real movement is
    /// credited, nothing of the lap is lost) and adds nothing; the moving time counts the stand's
    /// seconds only until it is judged standing (10 s at most for the stand before the start,
    /// which begins still; the window's 20 s and the braking at a stop).
    @Test(arguments: Activity.allCases, [true, false])
    func standingBeforeOrDuringALapLosesNothing(activity: Activity, doppler: Bool) throws {
        var off = EngineConfig(activity: activity)
        off.stillness.enabled = false
        for trial in Self.trials {
            let plainRun = Self.honest(trial, motion: Self.motion(activity), doppler: doppler)
            let plain = try Replay(plainRun, config: EngineConfig(activity: activity))
            let plainExtra = plain.core.movingS - plainRun.truthMovingS
            let stands: [(String, Double, (inout SimConfig) -> Void)] = [
                ("10 min before", 10, { $0.standStillBeforeS = 600 }),
                ("2 min at 2 km", 30, { $0.stops = [SimStop(atDistanceM: 2000, durationS: 120)] }),
            ]
            for (name, bound, change) in stands {
                let run = Self.honest(trial, motion: Self.motion(activity), doppler: doppler, change)
                let what = "\(activity) doppler \(doppler), \(trial), \(name)"
                // What the stand added with the decision off: its distance across the standing
                // fixes, from where the runner slowed below a walker's speed (steps slower than a
                // walker at both ends wait for the decision, which drops them with the stand).
                let walker = EngineConfig(activity: activity).stillness.movingDopplerMps
                let standing = run.fixes.indices.filter {
                    run.fixes[$0].trueSpeedMps == 0 && $0 < run.fixes.count - 1 && (name.hasPrefix("10") ? run.fixes[$0].truePathM == 0 : run.fixes[$0].truePathM > 1000)
                }
                guard var first = standing.first, let last = standing.last, last - first > 100 else { Issue.record("\(what): no stand"); continue }
                while first > 0 && run.fixes[first - 1].trueSpeedMps < walker { first -= 1 }
                // The distances up to the finish's braking below a walker's speed, likewise.
                let finish = (run.fixes.lastIndex { $0.trueSpeedMps >= walker } ?? run.fixes.count - 1) + 1
                let on = try Replay(run, config: EngineConfig(activity: activity), checkpoints: [finish])
                let offReplay = try Replay(run, config: off, checkpoints: [first + 1, last + 1, finish])
                let added = try #require(offReplay.inFlight[last + 1]) - (first > 0 ? try #require(offReplay.inFlight[first + 1]) : 0)
                let onToFinish = try #require(on.stopped[finish]), without = try #require(offReplay.stopped[finish])
                #expect(onToFinish <= without + 0.5, "\(what): \(onToFinish) m, \(without) m with the decision off")
                #expect(without - onToFinish <= added + 0.5, "\(what): \(onToFinish) m, \(without) m off, of which the stand \(added) m")
                let extra = on.core.movingS - run.truthMovingS
                #expect(extra - plainExtra < bound, "\(what): \(extra) s more than the truth, \(plainExtra) s without the stand")
            }
        }
    }

    /// Eight stops of 30 s at lights, with the honest receiver, against the same run without
    /// them, every profile, on every trial: each stop adds under 3 m and 3 s of moving time, with
    /// Doppler (with a course, as a phone gives it, and without, as a FIT or TCX recording carries
    /// it) and positions only; and without a course a stop's moving time is the same as with one,
    /// within a second. Measured with Doppler: run −0.4 to 1.5 m and −0.3 to 0.9 s a stop, walk
    /// −0.6 to 1.2 m and −0.3 to 0.7 s. Before the steps slower than a walker waited for the
    /// standing decision, its 20 s window let a standing Doppler noisy enough to read as a walk
    /// count: 1.5 to 4 m and 3.5 to 6 s a stop for a run, 1.7 to 5.3 m and 7.4 to 10.5 s for a
    /// walk; and before a Doppler speed without a course was believed when it said standing,
    /// 11 to 13 m and 4 s more a stop for a run.
    @Test(arguments: Activity.allCases)
    func aStopAtALightAddsUnderThreeMetres(activity: Activity) throws {
        var config = EngineConfig(activity: activity)
        config.autoPause.enabled = false   // the figure is the standing decision's
        let stops = (1...8).map { SimStop(atDistanceM: Double($0) * 600, durationS: 30) }
        let n = Double(stops.count)
        for trial in Self.trials {
            var movingS: [Bool: Double] = [:]
            for (doppler, course) in [(true, true), (true, false), (false, false)] {
                let plainRun = Self.honest(trial, motion: Self.motion(activity), doppler: doppler) { $0.includeCourse = course }
                let run = Self.honest(trial, motion: Self.motion(activity), doppler: doppler) {
                    $0.includeCourse = course
                    $0.stops = stops
                }
                let plain = try Replay(plainRun, config: config), stopped = try Replay(run, config: config)
                let added = (stopped.distance - run.truthDistanceM) - (plain.distance - plainRun.truthDistanceM)
                let extraS = (stopped.core.movingS - run.truthMovingS) - (plain.core.movingS - plainRun.truthMovingS)
                let what = "\(activity), Doppler \(doppler), course \(course), \(trial)"
                #expect(added < 3 * n, "\(what): \(added) m for \(stops.count) stops")
                #expect(abs(extraS) < 3 * n, "\(what): \(extraS) s moving for \(stops.count) stops")
                if doppler { movingS[course] = extraS }
            }
            if let with = movingS[true], let without = movingS[false] {
                #expect(abs(without - with) < n, "\(activity), \(trial): \(without) s without a course, \(with) s with one")
            }
        }
    }
}

extension StandingStillTests {
    /// Positions only, a runner who stands 10 minutes at the start and then sets off reads as the
    /// same fixes from the set-off on (a flight started at the last standing fix, whose start lag
    /// is credited), within 5 m (the difference of two positions' errors, as the credit is),
    /// every profile, with auto-pause and without (auto-paused through the stand, the filter's
    /// steps in the hold count toward what the credit leaves out), tuning and held-back trials:
    /// the filtered speed lags the set-off as it lags a start, and that lag is credited once the
    /// filter has converged (`StartLag`). Before, only a start's lag was: the runner stood at
    /// the start 20 s after the first fix, and the set-off's lag was lost: run 15 to 20 m, walk
    /// 6 to 11 m, ride 22 to 31 m. (Measured: −2.5 to +3.2 m; −2.5 to +3.3 m while the set-off was measured by its chord.)
    @Test(arguments: Activity.allCases, [false, true])
    func positionsOnlyAStandingStartLosesNothingOfTheSetOff(activity: Activity, autoPause: Bool) throws {
        var config = EngineConfig(activity: activity)
        config.autoPause.enabled = autoPause
        for trial in Self.trials {
            let run = Self.honest(trial, motion: Self.motion(activity), doppler: false) { $0.standStillBeforeS = 600 }
            guard let setOff = run.fixes.lastIndex(where: { $0.truePathM == 0 }), setOff > 500 else { Issue.record("\(trial): no stand"); continue }
            let stood = try Replay(run, config: config)
            let fromSetOff = try Replay(run, config: config) { $0.t >= run.fixes[setOff].t }
            let lost = fromSetOff.distance - stood.distance
            #expect(abs(lost) < 5, "\(activity), \(trial): \(lost) m lost against the same fixes from the set-off")
        }
    }
}

extension StandingStillTests {
    /// A runner stops, and the receiver loses the sky a few seconds into the stand, before the
    /// 20 s window can tell the stop from a slow walk (6 to 14 s in), for 20 to 45 s, with a
    /// `gap_s` shorter than the dropout (receiver flight 275). When the slow steps before it read
    /// as a standing receiver's Doppler noise, they and the gap's line wait through it for the
    /// window to judge the fixes after it, which sees the stand. Against the same stop without
    /// the dropout (run and walk with Doppler, auto-pause off so the figure is the standing
    /// decision's; tuning and held-back trials): no moving time added (under 1 s a stand), no
    /// max speed above the fastest Doppler speed, and the wander added over the 32 stands of
    /// an activity under 50 m (measured: run 40.7 m, 4 stands a metre or more, their slow steps'
    /// Doppler above the bound; walk 9.5 m, 2). Before, the steps were credited at the fix after
    /// the gap and its line counted as a slow walk's: run 177.5 m (31 stands a metre or more),
    /// walk 162.5 m (32), and 1 to 9 s of moving time in 58 stands of 64, whose average speed
    /// could then set the max.
    @Test(arguments: [Activity.run, .walk])
    func aDropoutEarlyInAStandAddsLittle(activity: Activity) throws {
        var config = EngineConfig(activity: activity)
        config.autoPause.enabled = false
        config.gapS = 8
        let stopAtM = 600.0
        var wanderM = 0.0, metreOrMore = 0
        for trial in Self.trials {
            let run = Self.honest(trial, motion: Self.motion(activity), doppler: true) {
                $0.laps = 0.25
                $0.stops = [SimStop(atDistanceM: stopAtM, durationS: 150)]
            }
            guard let stopT = run.fixes.first(where: { $0.truePathM >= stopAtM })?.t else { Issue.record("no stop"); continue }
            let plain = try Replay(run, config: config)
            let fastestDoppler = run.fixes.map(\.speed).filter(\.isFinite).max() ?? 0
            for (into, lostS) in [(6.0, 28.0), (8.0, 20.0), (10.0, 45.0), (14.0, 33.0)] {
                let lost = (stopT + into)...(stopT + into + lostS)
                let r = try Replay(run, config: config) { !lost.contains($0.t) }
                let what = "\(activity), \(trial), lost \(into)–\(into + lostS) s into the stand"
                wanderM += abs(r.distance - plain.distance)
                if abs(r.distance - plain.distance) >= 1 { metreOrMore += 1 }
                #expect(abs(r.core.movingS - plain.core.movingS) < 1, "\(what): \(r.core.movingS - plain.core.movingS) s")
                #expect(r.core.maxSpeed <= fastestDoppler, "\(what): max \(r.core.maxSpeed) above \(fastestDoppler)")
            }
        }
        #expect(wanderM < 50, "\(activity): \(wanderM) m of wander added, \(metreOrMore) stands a metre or more")
    }
}
