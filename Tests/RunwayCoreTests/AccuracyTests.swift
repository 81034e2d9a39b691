import Testing
@testable import RunwayCore
import RunwaySim

/// Replays a simulated run through a FlightComputer: start at the first fix, stop at the last.
struct Replay {
    var core: FlightComputer
    var events: [Event] = []
    /// (fix time, true trailing-window speed, engine ground speed) after each fix, once 15 s into
    /// the run; only when asked for (`pace`: a snapshot a fix is about a tenth of a debug replay's
    /// time).
    var paceSamples: [(t: Double, truth: Double, engine: Double)] = []
    /// For each k of `checkpoints`, the distance after the run's first k fixes, in flight and
    /// with the flight stopped there: what `Replay(run, upTo: k)` gives with `stopAtEnd` false
    /// (`inFlight[k]`) and true (`stopped[k]`), from this one replay (the engine is a value: a
    /// copy of it stops). With `upTo` too, a k beyond it gives the state at `upTo`.
    var inFlight: [Int: Double] = [:]
    var stopped: [Int: Double] = [:]

    /// `keep`: which of the run's fixes the receiver gives (the others lost: dropouts).
    /// `lapEveryS`: when positive, a manual lap at the first fix every that many seconds.
    init(_ run: SimRun, config: EngineConfig = EngineConfig(), stopAtEnd: Bool = true, upTo: Int? = nil,
         lapEveryS: Double = 0, pace: Bool = false, checkpoints: Set<Int> = [],
         keep: (SimFix) -> Bool = { _ in true }) throws {
        core = FlightComputer(config: config)
        let fixes = run.fixes.prefix(upTo ?? run.fixes.count).enumerated().filter { keep($0.element) }
        for k in checkpoints where k <= (fixes.first?.offset ?? Int.max) { (inFlight[k], stopped[k]) = (0, 0) }
        guard let first = fixes.first?.element else { return }
        try core.command(.start, at: first.t, wallClock: .nan, events: &events)
        var history: [(t: Double, d: Double)] = []
        var nextLap = first.t + lapEveryS
        for (j, (i, f)) in fixes.enumerated() {
            let fix = Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, speed: f.speed, course: f.course, hAcc: f.hAcc)
            try core.process(.fix(fix), wallClock: .nan, events: &events)
            if lapEveryS > 0, f.t >= nextLap {
                try core.lap(at: f.t, wallClock: .nan, events: &events)
                nextLap += lapEveryS
            }
            // Up to the next kept fix, a prefix ends at this one.
            let next = j + 1 < fixes.count ? fixes[j + 1].offset : Int.max
            for k in checkpoints where k > i && k <= next {
                inFlight[k] = core.distance
                var copy = core, ignored: [Event] = []
                try copy.command(.stop, at: f.t, wallClock: .nan, events: &ignored)
                stopped[k] = copy.distance
            }
            guard pace else { continue }
            history.append((f.t, f.truePathM))
            if f.t - first.t >= 15, let back = history.last(where: { $0.t <= f.t - config.paceWindowS }) {
                let truth = (f.truePathM - back.d) / (f.t - back.t)
                paceSamples.append((f.t, truth, core.snapshot.groundSpeedMps))
            }
        }
        if stopAtEnd, let last = fixes.last?.element { try core.command(.stop, at: last.t, wallClock: .nan, events: &events) }
        events.removeAll()
    }

    var distance: Double { core.distance }
}

func sim(seed: UInt64 = 1, speed: Bool = true, lat: Double = 52.37, lon: Double = 4.89,
         _ tweak: (inout SimConfig) -> Void = { _ in }) -> SimRun {
    var c = SimConfig()
    c.seed = seed
    c.centerLat = lat
    c.centerLon = lon
    c.includeSpeed = speed
    c.includeCourse = speed
    tweak(&c)
    return simulate(c)
}

func relativeError(_ measured: Double, _ truth: Double) -> Double { (measured - truth) / truth }

extension SimRun {
    /// When the runner starts slowing for the finish: the last fix at full steady speed (the
    /// simulated runner stops at the end of its last lap).
    var finishT: Double {
        let steady = fixes.map(\.trueSpeedMps).max() ?? 0
        return fixes.last { $0.trueSpeedMps >= steady * 0.999 }?.t ?? (fixes.last?.t ?? 0)
    }
}

/// Places in both hemispheres and across the antimeridian.
let places: [(lat: Double, lon: Double)] = [(52.37, 4.89), (-33.87, 151.21), (-16.5, 179.999), (64.1, -21.9)]

@Suite("Distance that survives GPS noise (simulated runs with known truth)")
struct AccuracyTests {
    /// The test helper's checkpoints: the same distances as replays cut at them, in flight and
    /// stopped, with fixes lost before and across a checkpoint too.
    @Test func aReplaysCheckpointsAreTheReplaysCutThere() throws {
        let run = sim()
        let t0 = run.fixes.first?.t ?? 0
        let keep: (SimFix) -> Bool = { !(0...5).contains($0.t - t0) && !(300...340).contains($0.t - t0) }
        let ks: Set<Int> = [0, 3, 7, 200, 301, 320, 345, run.fixes.count, run.fixes.count + 5]
        let whole = try Replay(run, checkpoints: ks, keep: keep)
        for k in ks {
            let inFlight = try Replay(run, stopAtEnd: false, upTo: k, keep: keep).distance
            let stopped = try Replay(run, upTo: k, keep: keep).distance
            #expect(whole.inFlight[k] == inFlight && whole.stopped[k] == stopped,
                    "\(k): \(String(describing: whole.inFlight[k])) \(String(describing: whole.stopped[k])), cut there \(inFlight) \(stopped)")
        }
        #expect(whole.stopped[run.fixes.count] == whole.distance)
    }

    @Test func rawAccumulationOfNoisyFixesReadsFarTooLong() throws {
        var raw = EngineConfig()
        raw.filters = false
        raw.distanceFilterM = 0
        let run = sim()
        let e = relativeError(try Replay(run, config: raw).distance, run.truthDistanceM)
        #expect(e > 0.05, "raw accumulation reads \(e * 100)% long: the noise model is what the tests claim")
    }

    @Test(arguments: places)
    func withDopplerSpeedTheTotalIsWithinHalfAPercentOfTheTruth(_ place: (lat: Double, lon: Double)) throws {
        for seed: UInt64 in 1...3 {
            let run = sim(seed: seed, lat: place.lat, lon: place.lon)
            let e = relativeError(try Replay(run).distance, run.truthDistanceM)
            #expect(abs(e) < 0.005, "seed \(seed) at \(place): \(e * 100)%")
        }
    }

    @Test(arguments: places)
    func withPositionsOnlyTheTotalIsWithinOneAndAHalfPercentOfTheTruth(_ place: (lat: Double, lon: Double)) throws {
        for seed: UInt64 in 1...3 {
            let run = sim(seed: seed, speed: false, lat: place.lat, lon: place.lon)
            let e = relativeError(try Replay(run).distance, run.truthDistanceM)
            #expect(abs(e) < 0.015, "seed \(seed) at \(place): \(e * 100)%")
        }
    }

    /// The same bounds for receivers the filter was not tuned on (position error per axis:
    /// Gauss–Markov σ and τ, plus white noise), over the tuning and the held-back trials.
    @Test(arguments: [true, false])
    func theDistanceBoundsHoldForOtherReceivers(_ speed: Bool) throws {
        let receivers: [(sigma: Double, tau: Double, white: Double)] = [(6, 120, 1), (2, 30, 1.5), (8, 300, 0.5)]
        for r in receivers {
            for trial in SimTrials.tuning + SimTrials.heldBack {
                var c = trial.config()
                c.includeSpeed = speed
                c.includeCourse = speed
                (c.gmSigmaM, c.gmTauS, c.whiteSigmaM) = r
                let run = simulate(c)
                let e = relativeError(try Replay(run).distance, run.truthDistanceM)
                #expect(abs(e) < (speed ? 0.005 : 0.015), "receiver \(r), \(trial), speed \(speed): \(e * 100)%")
            }
        }
    }

    @Test(arguments: [true, false])
    func aTwoMinuteStopAtACrossingChangesTheTotalByLessThanHalfAPercent(_ speed: Bool) throws {
        for seed: UInt64 in 1...3 {
            let plain = sim(seed: seed, speed: speed)
            let stopped = sim(seed: seed, speed: speed) { $0.stops = [SimStop(atDistanceM: 2000, durationS: 120)] }
            let a = try Replay(plain).distance, b = try Replay(stopped).distance
            #expect(abs(b - a) / a < 0.005, "seed \(seed) speed \(speed): \(a) m vs \(b) m with the stop")
        }
    }

    @Test(arguments: [true, false])
    func standingStillForTenMinutesAddsLessThanTenMetres(_ speed: Bool) throws {
        for seed: UInt64 in 1...3 {
            let run = sim(seed: seed, speed: speed) { $0.standStillBeforeS = 600 }
            let standing = run.fixes.prefix { $0.t < run.fixes[0].t + 600 }.count
            let replay = try Replay(run, stopAtEnd: false, upTo: standing)
            #expect(replay.distance < 10, "seed \(seed) speed \(speed): \(replay.distance) m in 10 min standing")
            #expect(replay.core.movingS < 60)
        }
    }

    @Test(arguments: [true, false])
    func aNullIslandFixAndA400mSpikeLeaveTheTotalWithinHalfAPercent(_ speed: Bool) throws {
        for seed: UInt64 in 1...3 {
            let clean = sim(seed: seed, speed: speed)
            let spiky = sim(seed: seed, speed: speed) {
                $0.spikes = [SimSpike(atIndex: 300, kind: .nullIsland), SimSpike(atIndex: 700, kind: .offsetM(400))]
            }
            let a = try Replay(clean).distance
            let replay = try Replay(spiky)
            #expect(abs(replay.distance - a) / a < 0.005, "seed \(seed): \(a) m clean, \(replay.distance) m with spikes")
            #expect(replay.core.filtered[.nullIsland] == 1)
            #expect(replay.core.filtered[.speed] >= 1)
        }
    }

    @Test(arguments: [true, false])
    func aJunkFirstFixDoesNotLockTheGateOut(_ speed: Bool) throws {
        let clean = sim(seed: 4, speed: speed)
        let junk = sim(seed: 4, speed: speed) { $0.spikes = [SimSpike(atIndex: 0, kind: .offsetM(400))] }
        let a = try Replay(clean).distance
        let replay = try Replay(junk)
        #expect(abs(replay.distance - a) / a < 0.005, "\(a) m clean, \(replay.distance) m after a junk first fix")
        // The junk point is not on the route, and fixes were only refused briefly.
        let first = replay.core.route
        #expect(first.count > 100)
        let d0 = Geodesy.distance(lat1: first.latitude(0), lon1: first.longitude(0), lat2: junk.fixes[1].trueLat, lon2: junk.fixes[1].trueLon)
        #expect(d0 < 50, "the route starts \(d0) m from the runner")
        #expect(replay.core.filtered[.speed] <= 5)
    }

    @Test(arguments: places)
    func currentPaceStaysWithinFivePercentOfTheTruePaceOnASteadyRun(_ place: (lat: Double, lon: Double)) throws {
        // The true pace is the true distance over the same trailing window the engine uses; the
        // run is steady from 15 s after the start until the runner slows for the finish.
        for seed: UInt64 in 1...3 {
            let run = sim(seed: seed, lat: place.lat, lon: place.lon) { $0.paceVariation = 0 }
            let errors = paceErrors(try Replay(run, pace: true), until: run.finishT)
            #expect(errors.count > 1000)
            #expect((errors.last ?? 1) < 0.05, "seed \(seed): worst current-pace error \((errors.last ?? 1) * 100)%")
        }
    }

    @Test func withPositionsOnlyCurrentPaceIsWithinFivePercentMostOfTheTime() throws {
        // Without Doppler speed the receiver's drift over a 10 s window is several percent of the
        // distance run (σ of the error difference ≈ 2.2 m against ~33 m): the figure here is the
        // median and the 90th percentile, not every sample. No linear unbiased estimator holds
        // ±5% at every sample from positions alone (benchmarks/pace_bound.py; docs/accuracy.md, "Measured").
        let run = sim(seed: 2, speed: false) { $0.paceVariation = 0 }
        let errors = paceErrors(try Replay(run, pace: true), until: run.finishT)
        #expect(errors.count > 1000)
        #expect(errors[errors.count / 2] < 0.03, "median \(errors[errors.count / 2] * 100)%")
        #expect(errors[errors.count * 9 / 10] < 0.08, "90th percentile \(errors[errors.count * 9 / 10] * 100)%")
    }

    @Test func theReportedAccuracyWeighsEachFix() throws {
        // Five minutes standing with a receiver whose positions scatter 10 m (white, per axis,
        // worse than the simulated receiver) and which says so (h_acc): each fix is trusted only
        // as far as it claims, so the scatter adds up far less than when the filter, without
        // h_acc, assumes 3 m; the worse the claimed accuracy, the less. A claimed accuracy that
        // explains the scatter (14 m: a standing receiver's RMS radius is then 20 m, the fixes'
        // 14 m) adds nothing: its fixes never moved beyond it (38.7 m before the stillness
        // decision asked; 8 m: 34.9 m, was 35.8; none: 620 m).
        func standing(hAcc: Double) throws -> Double {
            var rng = SimRandom(seed: 7)
            var d = Driver()
            try d.phase(.start, 0)
            for i in 0...300 {
                try d.fix(Double(i), 52 + degreesNorth(10 * rng.gaussian()), 4 + degreesEast(10 * rng.gaussian()), hAcc: hAcc)
            }
            return d.snapshot.distanceM
        }
        let unknown = try standing(hAcc: .nan), claimed8 = try standing(hAcc: 8)
        let claimed14 = try standing(hAcc: 14), claimed30 = try standing(hAcc: 30)
        #expect(claimed8 < unknown / 2, "\(claimed8) m with h_acc 8, \(unknown) m without")
        #expect(claimed14 < unknown / 2, "\(claimed14) m with h_acc 14, \(unknown) m without")
        #expect(claimed30 < claimed8 / 2, "\(claimed30) m with h_acc 30, \(claimed8) m with 8")
        #expect(claimed14 == 0 && claimed30 == 0, "\(claimed14) m with h_acc 14, \(claimed30) m with 30")
    }

    @Test func theDevicesOwnSpeedIsReportedAsItCame() throws {
        // The receiver's Doppler alternates 3.0 and 3.4 m/s: speed_mps is the last one as it
        // came, ground_speed_mps the engine's over its window (3.2).
        var d = Driver()
        try d.phase(.start, 0)
        for i in 0...31 { try d.fix(Double(i), 52 + degreesNorth(3.2 * Double(i)), 4, speed: i % 2 == 0 ? 3.0 : 3.4, course: 0, hAcc: 4) }
        #expect(d.snapshot.speedMps == 3.4)
        #expect(abs(d.snapshot.groundSpeedMps - 3.2) < 0.05, "ground speed \(d.snapshot.groundSpeedMps)")
        #expect(try JSONInput.object(d.snapshotJSON).contains { $0.key == "speed_mps" && $0.value == .number(3.4) })
    }

    @Test func theAntimeridianPlaceReallyCrossesIt() {
        // Fiji's loop must straddle 180°, or "across the antimeridian" tests nothing.
        let run = sim(lat: places[2].lat, lon: places[2].lon)
        #expect(run.fixes.contains { $0.trueLon > 179.9 } && run.fixes.contains { $0.trueLon < -179.9 })
    }

    @Test func withPositionsOnlyTheStartNoLongerShowsInThePaceAfterHalfAMinute() throws {
        // Until the pace window spans its length the engine shows the track filter's own speed;
        // a smoothed average of the start's short windows would drag the acceleration from a
        // standstill along for a minute (1.4× the true pace at 15 s, 17% off at 30 s). From 30 s
        // on, no sample may be further off than the steady running's own worst.
        for seed: UInt64 in 1...3 {
            let run = sim(seed: seed, speed: false) { $0.paceVariation = 0 }
            let replay = try Replay(run, pace: true)
            let t0 = run.fixes[0].t
            func errors(_ from: Double, _ to: Double) -> [Double] {
                replay.paceSamples.filter { $0.truth > 0 && $0.t - t0 >= from && $0.t - t0 < to }
                    .map { $0.engine > 0 ? abs($0.truth / $0.engine - 1) : 1 }   // no pace shown: off by all of it
            }
            let early = errors(30, 60), late = errors(60, run.finishT - t0)
            #expect(early.count >= 29 && late.count > 1000)
            let settling = early.max() ?? 1, steady = late.max() ?? 0
            #expect(settling <= steady, "seed \(seed): \(settling * 100)% off from 30 s, \(steady * 100)% at worst when steady")
        }
    }

    @Test func withPositionsOnlyThePaceInTheFirstHalfMinuteIsNoLongerTheStartsLag() throws {
        // Until 30 s after the start the window's distance still holds the track filter's lag
        // behind the runner's acceleration from a standstill: smoothed, it read 23% slow at
        // 10–20 s and 12% at 20–30 s (median, seeds 1–3). The filter's own speed is shown instead
        // until the window has filled twice over. Over six starts, the median error of the
        // samples from 15 s (the first the replay takes) to 30 s must be within the 90th
        // percentile of the same runs' steady running (a single start is as noisy as its drift).
        var early: [Double] = [], steady: [Double] = []
        for seed: UInt64 in 1...6 {
            let run = sim(seed: seed, speed: false) { $0.paceVariation = 0 }
            let replay = try Replay(run, pace: true)
            let t0 = run.fixes[0].t
            let start = replay.paceSamples.filter { $0.truth > 0 && $0.t - t0 < 30 }
            #expect(start.count >= 14)
            early += start.map { $0.engine > 0 ? abs($0.truth / $0.engine - 1) : 1 }
            steady += replay.paceSamples.filter { $0.truth > 0 && $0.t - t0 >= 60 && $0.t <= run.finishT }
                .map { $0.engine > 0 ? abs($0.truth / $0.engine - 1) : 1 }
        }
        early.sort(); steady.sort()
        let median = early[early.count / 2], p90 = steady[steady.count * 9 / 10]
        #expect(median <= p90, "median \(median * 100)% off at 15-30 s, 90th percentile \(p90 * 100)% from 60 s on")
    }

    /// The pace errors of the samples up to `end`, sorted.
    func paceErrors(_ replay: Replay, until end: Double = .infinity) -> [Double] {
        replay.paceSamples.filter { $0.truth > 0 && $0.t <= end }.map { s in
            let truePace = 1000 / (60 * s.truth), pace = 1000 / (60 * s.engine)
            return pace.isFinite ? abs(pace - truePace) / truePace : 1
        }.sorted()
    }
}
