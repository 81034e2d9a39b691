import Testing
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// Random flights, seeded and deterministic, through `InvariantCheck`: what no recording or
/// simulator scenario happens to combine. Each flight is one of five configs (a run, a run with
/// auto-pause, the filters off, a ride with a 40 m distance filter and an 8 s gap, a walk with no
/// distance filter and an 8 s gap) and 4 to 10 minutes of 1 Hz fixes: runs of moving and
/// standing, a 1 % chance a second of a 20–60 s gap and 2 % of a 2–10 s one, 0.5 % junk fixes
/// 600 m off, 10 % fixes without Doppler, 2 % speed-sensor samples, and pause, resume, manual lap
/// and stop commands, at a rate and with a position noise (1–5 m) of the flight's own. Three
/// flights in five have a power meter at 1, 2 or 4 Hz (samples in the second before each fix,
/// a tenth of them 0 W, a few spikes), and four in five a heart-rate strap and a footpod (a sample
/// of each a second), each drawn from a generator of its own: the other draws, and the flights'
/// motion and commands, are as without them.
struct RandomFlight {
    /// A 64-bit LCG (Knuth's MMIX constants): the flights are the same on every platform.
    struct LCG {
        var state: UInt64
        init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 &+ 1 }
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        /// Uniform in 0 ..< 1.
        mutating func uniform() -> Double { Double(next()) * 0x1.0p-53 }
        mutating func chance(_ p: Double) -> Bool { uniform() < p }
        mutating func between(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * uniform() }
        /// Roughly N(0, 1) (the sum of four uniforms, scaled).
        mutating func noise() -> Double { (uniform() + uniform() + uniform() + uniform() - 2) * 1.732 }
    }

    /// A runner wandering on a plane, the random flights' motion: moving or standing in stretches
    /// of random length at a random share of `cruise`, a drifting heading, and now and then a gap
    /// in the fixes (`gapS`) or a few seconds without one. (The draws, in this order, make the
    /// flights: the fuzz's list of known flights depends on them.)
    struct Walker {
        let cruise: Double
        var t: Double, north = 0.0, east = 0.0, heading: Double
        var moving: Bool, runLeft: Double, speed: Double
        /// The speed of the latest step.
        var v = 0.0

        /// Takes the next step (a second, or a gap's) and returns its length, seconds.
        mutating func step(_ rng: inout LCG, gapS: ClosedRange<Double>) -> Double {
            let dt = rng.chance(0.01) ? rng.between(gapS.lowerBound, gapS.upperBound).rounded()
                : rng.chance(0.02) ? rng.between(2, 10).rounded() : 1
            runLeft -= dt
            if runLeft <= 0 {
                moving.toggle()
                runLeft = moving ? rng.between(10, 120) : rng.between(3, 60)
                speed = cruise * rng.between(0.5, 1.4)
            }
            v = moving ? speed : 0
            heading += 0.1 * rng.noise()
            t += dt
            north += v * dt * cos(heading)
            east += v * dt * sin(heading)
            return dt
        }
    }

    static let configs: [(name: String, config: EngineConfig)] = {
        var autoPause = EngineConfig(); autoPause.autoPause.enabled = true
        var off = EngineConfig(); off.filters = false; off.distanceFilterM = 0; off.requiredAccuracyM = 100_000
        var ride = EngineConfig(activity: .ride); ride.distanceFilterM = 40; ride.gapS = 8
        var walk = EngineConfig(activity: .walk); walk.distanceFilterM = 0; walk.gapS = 8
        return [("run", EngineConfig()), ("run, auto-pause", autoPause), ("filters off", off),
                ("ride, distance filter 40 m, gap 8 s", ride), ("walk, no distance filter, gap 8 s", walk)]
    }()

    /// Flight `seed`'s problems (none when every invariant holds).
    static func problems(seed: UInt64, trace: Bool = false) -> [String] { flown(seed: seed, trace: trace).problems }

    /// Flight `seed`, flown and finished: its problems and the check that found them.
    static func flown(seed: UInt64, trace: Bool = false) -> (problems: [String], check: InvariantCheck) {
        var rng = LCG(seed: seed)
        let (name, config) = configs[Int(rng.next() % UInt64(configs.count))]
        let cruise = config.activity == .ride ? 7.0 : config.activity == .walk ? 1.3 : 3.2
        var c = InvariantCheck("random flight \(seed) (\(name))", config: config)
        func show(_ what: String) {
            guard trace else { return }
            let laps = c.core.laps.laps
            print("\(what) | \(c.core.phase) d \(c.core.distance) el \(c.core.elapsed) mov \(c.core.movingS) max \(c.core.maxSpeed) laps \(laps.count) Σel \(laps.reduce(0) { $0 + $1.elapsedS }) Σd \(laps.reduce(0) { $0 + $1.distanceM }) gapWait \(c.core.gaps.isWaiting) cur \(c.core.lapStage.counter.current.elapsedS)\(c.core.lapStage.counter.current.elapsedS > c.core.elapsed + 1e-9 ? " LAPS>FLIGHT" : "")")
        }
        let t0 = 1_700_000_000.0
        let heading0 = rng.between(0, 2 * Double.pi), moving0 = rng.chance(0.7), runLeft0 = rng.between(5, 90)
        var walker = Walker(cruise: cruise, t: t0, heading: heading0, moving: moving0, runLeft: runLeft0,
                            speed: cruise * rng.between(0.7, 1.3))
        var paused = false
        // The power meter: its own draws, so the flights move and command as before it came.
        var meter = LCG(seed: seed ^ 0x5057_4552)
        let powerHz = meter.chance(0.6) ? [1, 2, 4][Int(meter.next() % 3)] : 0
        func power(_ times: [Double]) {
            for at in times where c.core.phase != .preflight {
                let w = meter.chance(0.1) ? 0 : meter.chance(0.03) ? meter.between(600, 1200) : meter.between(50, 450)
                if let s = try? ValidatedInput(.sample(.power(watts: w.rounded(), t: at))) { c.push(s) }
            }
        }
        // A heart-rate strap and a footpod (cadence) in four flights of five, a sample of each in
        // the second before each fix: their own draws too.
        var strap = LCG(seed: seed ^ 0x4852_4341)
        let strapOn = strap.chance(0.8)
        func straps(at t: Double) {
            guard strapOn, c.core.phase != .preflight else { return }
            let bpm = strap.between(100, 190).rounded(), spm = strap.chance(0.1) ? 0 : strap.between(140, 190).rounded()
            if let s = try? ValidatedInput(.sample(.heartRate(bpm: bpm, t: t))) { c.push(s) }
            if let s = try? ValidatedInput(.sample(.cadence(spm: spm, t: t))) { c.push(s) }
        }
        // Per flight: how often commands come, how noisy the positions are.
        let commands = rng.between(0.3, 4), noiseM = rng.between(1, 5)
        let seconds = Int(rng.between(240, 600))
        for _ in 0..<seconds {
            // The next second (or a gap's), the runner moving or standing along a wandering heading.
            let dt = walker.step(&rng, gapS: 20...60)
            let (t, north, east, heading, moving, v) = (walker.t, walker.north, walker.east, walker.heading, walker.moving, walker.v)
            power(powerHz == 4 ? [t - 0.95, t - 0.7] : powerHz > 0 ? [t - 0.95] : [])
            straps(at: t - 0.6)
            // Commands between fixes.
            if rng.chance(0.005 * commands) { c.lap(at: t - 0.5); show("lap \(t - 0.5)") }
            if !paused, rng.chance(0.004 * commands) { c.command(.pause, at: t - 0.5); paused = true; show("pause \(t - 0.5)") }
            else if paused, rng.chance(0.05) { c.command(.resume, at: t - 0.5); paused = false; show("resume \(t - 0.5)") }
            if rng.chance(0.0005) { c.command(.stop, at: t - 0.5); show("stop"); break }
            if rng.chance(0.02) {
                if let s = try? ValidatedInput(.sample(.speed(mps: max(0, v + 0.1 * rng.noise()), t: t - 0.25))) { c.push(s); show("sensor \(s.input)") }
            }
            power(powerHz == 4 ? [t - 0.2, t - 0.1] : powerHz == 2 ? [t - 0.2] : [])
            let junk = rng.chance(0.005)
            let off = junk ? (n: 600 * cos(heading + 1), e: 600 * sin(heading + 1)) : (n: 0.0, e: 0.0)
            let n = north + off.n + noiseM * rng.noise(), e = east + off.e + noiseM * rng.noise()
            let doppler = rng.chance(0.1) ? Double.nan : max(0, v + (moving ? 0.15 : 0.1) * rng.noise())
            var course = (heading * 180 / .pi).truncatingRemainder(dividingBy: 360)
            if course < 0 { course += 360 }
            let fix = Fix(t: t, lat: 52 + degreesNorth(n), lon: 4 + degreesEast(e), alt: 10 + rng.noise(),
                          speed: doppler, course: doppler.isNaN ? .nan : course,
                          hAcc: rng.between(3, 12))
            if let input = try? ValidatedInput(.fix(fix)) { c.push(input); show("fix \(t) v \(v) dop \(doppler)\(junk ? " JUNK" : "") dt \(dt)") }
        }
        let p = c.finish()
        show("finish")
        return (p, c)
    }
}

/// A flight that stops with nothing left to lap: flight 6797 of the random flights, where an
/// auto-pause backdated to a manual lap's end ended the leg at the next fix, whose average
/// (8.05 m/s) and the heart rate and cadence counted before the backdating came after the last
/// lap's end. The last lap takes them (`LapStage.lastLapTakesTheRest`): before, no lap did, and
/// the laps' max speed was below the flight's. (Outside the default 500 flights, so here.)
@Suite("The last lap takes the maxima noted after its end when no final lap is cut")
struct LastLapTakesTheRestTests {
    @Test func aFlightThatStopsWithNothingLeftToLapKeepsItsMaximaInItsLaps() {
        #expect(RandomFlight.problems(seed: 6797) == [])
    }
}

@Suite("Random flights keep the invariants")
struct RandomFlightInvariantTests {
    /// The invariant that a split's power is the one the snapshot showed for its lap at its end
    /// (`InvariantCheck.compareLapPower`) is not idle: of the first 200 flights, many splits
    /// (manual laps asked for between fixes, cut at the next one, the meter gone back to their
    /// end) have a snapshot at their end time, and most of those with power show it (824 and
    /// 478 when written).
    @Test func splitsAreComparedWithTheLapPowerTheSnapshotShowed() {
        var compared = 0, withPower = 0, problems: [String] = []
        for seed in UInt64(1)...200 {
            let (p, c) = RandomFlight.flown(seed: seed)
            compared += c.lapPowerCompared
            withPower += c.lapPowerComparedWithPower
            problems += p.filter { $0.contains("the split's power") }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        #expect(withPower >= 200 && compared > withPower, "\(compared) splits compared, \(withPower) with power")
    }

    /// The kind of a problem: its words, the figures as `#`, without the flight's name and the
    /// parenthesised details.
    static func kind(_ problem: String) -> String {
        let text = problem.split(separator: "): ", maxSplits: 1).last ?? Substring(problem)
        return text.split(separator: " ").prefix { !$0.hasPrefix("(") }
            .map { $0.contains(where: \.isNumber) ? "#" : String($0) }.joined(separator: " ")
    }

    /// `RUNWAY_RANDOM_TRACE=<seed>`: one flight, a line for every input, command and lap with the
    /// flight's figures after it (for finding where an invariant broke).
    @Test(.enabled(if: getenv("RUNWAY_RANDOM_TRACE") != nil)) func trace() {
        let seed = getenv("RUNWAY_RANDOM_TRACE").flatMap { UInt64(String(cString: $0)) } ?? 1
        print(RandomFlight.problems(seed: seed, trace: true).joined(separator: "\n"))
    }

    /// Kinds of problem whose cause is known and not fixed yet, each its own known issue (none
    /// shows on the first 7000 flights; a lap's pace beyond the cap is no longer one of them:
    /// its last three, flights 4293, 4658 and 5556, were distance credited after a manual lap in
    /// no time of the lap it landed in: `HeldStepLapTests`, `LapInAutoPauseHoldTests`):
    /// - the max speed below the average or the average moving speed, or that above the cap: a
    ///   gap crossed slower than a walker while moving counts its line as distance but not its
    ///   time as moving time (crossed standing, it counts nothing), and a junk fix after a gap within reach
    ///   of where the runner was (the hairpin ambiguity) leaves both chords, to it and from it,
    ///   counted.
    static let knownOpen = ["max speed # below the average #", "max speed # below the average moving speed #",
                            "average moving speed # above the cap #"]

    /// Of the default 500 flights, how many show a `knownOpen` kind (none since a manual lap
    /// between fixes takes its share of the step it falls in, a junk fix out of reach after a
    /// gap goes and a gap crossed standing counts no line; 3 before): more is a regression
    /// inside a known kind, and fails. (On 7000: none.)
    static let openFlightsAtMost = 0

    /// Random flights (`RUNWAY_RANDOM_FLIGHTS`, default 500) keep every invariant but the kinds
    /// known to be open (`knownOpen`, recorded as known issues), and no more flights show those
    /// than when they were recorded.
    @Test func randomFlightsKeepTheInvariants() {
        let count = UInt64(getenv("RUNWAY_RANDOM_FLIGHTS").flatMap { Int(String(cString: $0)) } ?? 500)
        Self.expectOnlyKnownKinds(count: count, defaultCount: 500, knownOpen: Self.knownOpen,
                                  openFlightsAtMost: Self.openFlightsAtMost, problems: { RandomFlight.problems(seed: $0) })
    }

    /// Runs flights 1...`count` (`problems` of each seed): no problem of a kind outside
    /// `knownOpen`; those inside it recorded as a known issue, and at the default count no more
    /// flights than `openFlightsAtMost` showing one.
    static func expectOnlyKnownKinds(count: UInt64, defaultCount: UInt64, knownOpen: [String], openFlightsAtMost: Int,
                                     problems flight: (UInt64) -> [String]) {
        var problems: [String] = [], open: [String] = []
        var kinds: [String: Int] = [:]
        var openFlights = 0
        for seed in 1...count {
            var openHere = false
            for p in flight(seed) {
                let k = kind(p)
                kinds[k, default: 0] += 1
                if knownOpen.contains(k) { open.append(p); openHere = true } else { problems.append(p) }
            }
            if openHere { openFlights += 1 }
        }
        let summary = kinds.sorted { $0.value > $1.value }.map { "\($0.value) × \($0.key)" }.joined(separator: "\n")
        #expect(problems.isEmpty, "\(count) flights:\n\(summary)\n\(problems.prefix(60).joined(separator: "\n"))")
        if count == defaultCount { #expect(openFlights <= openFlightsAtMost, "\(openFlights) of \(count) flights show a known open kind") }
        // More flights than the default (a search): every open problem, and how many flights show one.
        let shown = count > defaultCount ? open : Array(open.prefix(20))
        withKnownIssue("open kinds (see knownOpen)", isIntermittent: true) {
            #expect(open.isEmpty, "\(openFlights) of \(count) flights show a known open kind:\n\(shown.joined(separator: "\n"))")
        }
    }
}
