import Testing
@testable import RunwaySim

/// The simulator's altitude for issue #19: hill shapes with exact truth, error models, the source.
@Suite("Simulated altitude: shapes, error models, source")
struct AltitudeModelTests {
    static func run(_ shape: SimHillShape, _ error: SimAltitudeError?, laps: Double = 1,
                    _ tweak: (inout SimConfig) -> Void = { _ in }) -> SimRun {
        var c = SimConfig()
        c.hillShape = shape
        c.altitudeAmplitudeM = 15
        c.altitudeError = error
        c.laps = laps
        tweak(&c)
        return simulate(c)
    }

    @Test(arguments: [SimHillShape.sine, .ramp, .stepped])
    func everyShapeClimbsTwiceItsAmplitudeALapAndClosesTheLoop(_ shape: SimHillShape) {
        for laps in [1.0, 3.0] {
            let run = AltitudeModelTests.run(shape, .clean, laps: laps)
            // Exact: 30 m up and 30 m down a lap (the sine's top falls between two fixes by
            // micrometres).
            #expect(abs(run.truthGainM - 30 * laps) < 1e-3, "\(shape): gain \(run.truthGainM)")
            #expect(abs(run.truthLossM - 30 * laps) < 1e-3, "\(shape): loss \(run.truthLossM)")
            let alts = run.fixes.map(\.trueAlt)
            #expect(abs((alts.max() ?? 0) - (alts.min() ?? 0) - 30) < 1e-3)
            if let first = run.fixes.first, let last = run.fixes.last {
                #expect(abs(first.trueAlt - last.trueAlt) < 1e-6, "\(shape): the loop closes in altitude")
            }
        }
    }

    @Test func theShapesAreWhatTheySay() {
        var rngForShapes = SimRandom(seed: 1, stream: 1)
        let h = HillProfile(amplitude: 15, loopLength: 6000, shape: .ramp, rng: &rngForShapes)
        #expect(abs(h.altitude(at: 0) - (23 - 15)) < 1e-9)        // base 5 + 1.2·15 = 23
        #expect(abs(h.altitude(at: 900) - 23) < 1e-9)             // halfway up the climb
        #expect(abs(h.altitude(at: 2400) - 38) < 1e-9)            // the plateau
        #expect(abs(h.altitude(at: 5400) - 8) < 1e-9)             // the flat bottom
        let s = HillProfile(amplitude: 15, loopLength: 6000, shape: .stepped, rng: &rngForShapes)
        #expect(abs(s.altitude(at: 500) - 18) < 1e-9)             // the first step's flat: −A + 2A/3
        #expect(abs(s.altitude(at: 1025) - 23) < 1e-9)            // halfway up the second step
        #expect(abs(s.altitude(at: 3500) - 28) < 1e-9)            // first step down: +A − 2A/3
        let sine = HillProfile(amplitude: 15, loopLength: 6000, shape: .sine, rng: &rngForShapes)
        #expect(abs(sine.altitude(at: 1500) - 38) < 1e-9 && abs(sine.altitude(at: 4500) - 8) < 1e-9)
    }

    @Test func theErrorModelsHaveTheirSpreads() {
        let clean = AltitudeModelTests.run(.sine, .clean)
        #expect(clean.fixes.allSatisfy { $0.alt == $0.trueAlt })
        let gps = AltitudeModelTests.run(.sine, .gps, laps: 10)
        let gpsErrors = gps.fixes.map { $0.alt - $0.trueAlt }
        #expect(abs(standardDeviation(gpsErrors) - (9.25).squareRoot()) < 0.15 * 3, "GPS σ \(standardDeviation(gpsErrors))")
        #expect(autocorrelation(gpsErrors, lag: 60) > 0.2, "the GPS error wanders slowly")
        let baro = AltitudeModelTests.run(.sine, .barometric, laps: 2)
        let steps = zip(baro.fixes.dropFirst(), baro.fixes).map { ($0.alt - $0.trueAlt) - ($1.alt - $1.trueAlt) }
        // Fix to fix, white 0.2 m twice over (√2·0.2) plus the drift's tiny step.
        #expect(abs(standardDeviation(steps) - 0.2 * 2.0.squareRoot()) < 0.03, "barometric step σ \(standardDeviation(steps))")
        let baroErrors = baro.fixes.map { $0.alt - $0.trueAlt }
        #expect(baroErrors.allSatisfy { abs($0) < 5 }, "a drift of metres, not tens, in an hour")
    }

    @Test func aBarometricSourceWritesAltimeterLinesAndFixesWithoutAlt() {
        let run = AltitudeModelTests.run(.ramp, .barometric) { $0.altitudeSource = .barometric; $0.maxFixes = 3 }
        let lines = run.jsonLines().split(separator: "\n")
        #expect(lines.count == 6)
        for (k, line) in lines.enumerated() {
            if k % 2 == 0 {
                #expect(line.hasPrefix("{\"type\":\"altimeter\",\"t\":") && line.contains("\"alt\":"), "\(line)")
            } else {
                #expect(line.contains("\"lat\":") && !line.contains("\"alt\":"), "\(line)")
            }
        }
        let gps = AltitudeModelTests.run(.ramp, .gps) { $0.includeVerticalAccuracy = true; $0.maxFixes = 2 }
        #expect(gps.jsonLines().split(separator: "\n").allSatisfy { $0.contains("\"alt\":") && $0.contains("\"v_acc\":") })
        #expect(gps.fixes.allSatisfy { abs($0.vAcc - (9.25).squareRoot()) < 1e-12 })
    }

    @Test func theDefaultsAreTheHarmonicHillsAsBefore() {
        var c = SimConfig()
        c.maxFixes = 500
        let before = simulate(c)
        c.hillShape = .harmonics
        c.altitudeError = nil
        let same = simulate(c)
        #expect(zip(before.fixes, same.fixes).allSatisfy { $0.alt == $1.alt && $0.trueAlt == $1.trueAlt })
        #expect(before.fixes.allSatisfy { $0.vAcc.isNaN })
    }
}
