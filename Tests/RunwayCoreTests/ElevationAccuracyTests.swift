import Testing
@testable import RunwayCore
import RunwaySim

/// Gain and loss against the simulator's truth (issue #19), over the tuning trials and the
/// held-back ones: hill shapes sine, ramp and stepped, altitude clean, GPS-like and barometric.
@Suite("Elevation gain against the truth (simulated runs)")
struct ElevationAccuracyTests {
    struct Outcome: CustomStringConvertible {
        var trial: SimTrial, shape: SimHillShape, gain: Double, loss: Double, truthGain: Double, truthLoss: Double
        var gainError: Double { (gain - truthGain) / truthGain }
        var lossError: Double { (loss - truthLoss) / truthLoss }
        var description: String {
            "\(shape) \(trial): gain \(gain) of \(truthGain) (\(gainError * 100) %), loss \(loss) of \(truthLoss) (\(lossError * 100) %)"
        }
    }

    static let trials = SimTrials.tuning + SimTrials.heldBack
    static let shapes: [SimHillShape] = [.sine, .ramp, .stepped]

    /// The loop (5.5 km, hills of 30 m from bottom to top), `laps` times round, replayed
    /// through the engine from the simulator's JSON Lines.
    static func replay(_ trial: SimTrial, _ shape: SimHillShape, _ error: SimAltitudeError,
                       source: SimAltitudeSource, vAcc: Bool, laps: Double) throws -> Outcome {
        var base = SimConfig()
        base.hillShape = shape
        base.altitudeAmplitudeM = 15
        base.altitudeError = error
        base.altitudeSource = source
        base.includeVerticalAccuracy = vAcc
        base.laps = laps
        let run = simulate(trial.config(base))
        var core = FlightComputer()
        var events: [Event] = []
        var started = false
        for line in run.jsonLines().split(separator: "\n") {
            let input = try Array(line.utf8).withUnsafeBytes { buf throws(RunwayError) in try InputDecoder.decode(buf) }
            if !started { try core.command(.start, at: input.t, wallClock: .nan, events: &events); started = true }
            try core.process(input, wallClock: .nan, events: &events)
            events.removeAll(keepingCapacity: true)
        }
        try core.command(.stop, at: .nan, wallClock: .nan, events: &events)
        return Outcome(trial: trial, shape: shape, gain: core.elevation.gainM, loss: core.elevation.lossM,
                       truthGain: run.truthGainM, truthLoss: run.truthLossM)
    }

    static func outcomes(_ error: SimAltitudeError, source: SimAltitudeSource, vAcc: Bool, laps: Double) throws -> [Outcome] {
        var out: [Outcome] = []
        for trial in trials { for shape in shapes { out.append(try replay(trial, shape, error, source: source, vAcc: vAcc, laps: laps)) } }
        return out
    }

    @Test func theTrialsAreTheTuningAndTheHeldBackSets() {
        #expect(ElevationAccuracyTests.trials.count == SimTrials.tuning.count + SimTrials.heldBack.count)
        #expect(ElevationAccuracyTests.trials.count >= 8)
    }

    /// A clean profile on the fixes, each fix stating its vertical accuracy (0: exact): the whole
    /// climb from valley to peak counts (the loop read 21.2 of 30 m with a moving step).
    @Test func aCleanProfileOnTheFixesGainsWithinTwoPercent() throws {
        for o in try ElevationAccuracyTests.outcomes(.clean, source: .gps, vAcc: true, laps: 1) {
            #expect(abs(o.gainError) <= 0.02 && abs(o.lossError) <= 0.02, "\(o)")
        }
    }

    /// A clean profile as barometric samples (the most trusted source).
    @Test func aCleanProfileFromABarometerGainsWithinTwoPercent() throws {
        for o in try ElevationAccuracyTests.outcomes(.clean, source: .barometric, vAcc: false, laps: 1) {
            #expect(abs(o.gainError) <= 0.02 && abs(o.lossError) <= 0.02, "\(o)")
        }
    }

    /// Barometric error (0.2 m white noise and a drift of 1 m/√h), as altimeter samples.
    @Test func aBarometricAltitudeGainsWithinFivePercent() throws {
        for o in try ElevationAccuracyTests.outcomes(.barometric, source: .barometric, vAcc: false, laps: 1) {
            #expect(abs(o.gainError) <= 0.05, "\(o)")
        }
    }

    /// GPS-like error (Gauss–Markov σ 3 m, τ 60 s, plus 0.5 m white) on fixes without `v_acc`.
    /// Over one lap the error of a single climb's two ends is itself σ ≈ 4 m (14 % of 30 m), so
    /// the figure is over three laps (90 m of climbing, six turns). Each run ends 409 s past its
    /// last valley: the end of the flight must be counted (`ClimbCounter.settle`), or the last
    /// climb, still under the threshold on the lagging 300 s mean, is lost whole (it was: −23 %
    /// held back). Measured: tuning worst +12.5 %, mean +5.1 % (9 runs); held back worst −13.3 %,
    /// mean −3.8 % (15 runs). The spread of one run is about 5 % (σ), so 15 % is about 2.5 σ: on
    /// three other sets of 60 seeds a shape 8 of the 540 runs miss it (one sine of 180, −21.7 %;
    /// 7 ramps of 180, worst +23.1 %: ramps run +3.7 to +5.4 % high on average, the highest
    /// 300 s mean over a 330 s plateau picking the wander up; no stepped run);
    /// benchmarks/accuracy_figures.py prints those (`wide:`), docs/accuracy.md has them.
    @Test func aGPSAltitudeGainsWithinFifteenPercentOverThreeLaps() throws {
        let outcomes = try ElevationAccuracyTests.outcomes(.gps, source: .gps, vAcc: false, laps: 3)
        let table = outcomes.map(\.description).joined(separator: "\n")
        for o in outcomes { #expect(abs(o.gainError) <= 0.15, "\(o)\n\(table)") }
        let mean = outcomes.reduce(0) { $0 + $1.gainError } / Double(outcomes.count)
        #expect(abs(mean) <= 0.05, "mean error \(mean * 100) %: the wander must not bias the gain\n\(table)")
    }

    /// A flat loop with GPS-like altitude error: its wander is not read as climbing. In metres
    /// there is no bound to assert: the 300 s mean's wander turns the 6 m threshold about once in
    /// the 82 minutes (on 60 other seeds the larger of gain and loss was 11.9 m on average, 26.9 m
    /// at worst; benchmarks/accuracy_figures.py, `wide:`).
    @Test func aFlatLoopWithGPSAltitudeGainsAlmostNothing() throws {
        for trial in ElevationAccuracyTests.trials {
            var base = SimConfig()
            base.altitudeAmplitudeM = 0
            base.altitudeError = .gps
            base.laps = 3
            let run = simulate(trial.config(base))
            var core = FlightComputer()
            var events: [Event] = []
            guard let first = run.fixes.first else { continue }
            try core.command(.start, at: first.t, wallClock: .nan, events: &events)
            var rawRises = 0.0
            for (f, previous) in zip(run.fixes, [run.fixes[0]] + run.fixes.dropLast()) {
                rawRises += max(0, f.alt - previous.alt)
                try core.process(.fix(Fix(t: f.t, lat: f.lat, lon: f.lon, alt: f.alt, speed: f.speed)), wallClock: .nan, events: &events)
                events.removeAll(keepingCapacity: true)
            }
            try core.command(.stop, at: .nan, wallClock: .nan, events: &events)
            let e = core.elevation
            // The raw sum of rises is thousands of metres; the engine's figure under 2 % of it.
            #expect(rawRises > 1000 && e.gainM < 0.02 * rawRises && e.lossM < 0.02 * rawRises,
                    "flat \(trial): gain \(e.gainM) loss \(e.lossM), raw rises \(rawRises)")
        }
    }
}
