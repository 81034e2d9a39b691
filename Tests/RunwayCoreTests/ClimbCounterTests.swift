import Testing
@testable import RunwayCore

@Suite("ClimbCounter: extreme to extreme over a trailing window")
struct ClimbCounterTests {
    static func counter(windowS: Double = 0, windowM: Double = .infinity, threshold: Double = 3) -> ClimbCounter {
        var c = ClimbCounter()
        c.configure(windowS: windowS, windowM: windowM, thresholdM: threshold)
        return c
    }

    @Test func theDocExample() {
        var c = ClimbCounterTests.counter()
        for alt in [10.0, 12, 11, 20, 18, 8] { c.add(alt: alt, t: 0, distanceM: 0) }
        #expect(c.gainM == 10 && c.lossM == 12)
    }

    /// A run of five 12 m hills at 3 m/s (flat 90 s, up 120 s, a top of 60 s, down 120 s), its
    /// altitude a barometer's: every second with white noise of σ 0.3 m, on the barometer's
    /// window (60 m or 60 s, threshold 1 m). Read at the highest and lowest box means, each top
    /// and valley keeps the noise that lay furthest out there; read over the stretch that the
    /// noise measured on the samples explains, the gain is the climb's. The same flights thinned
    /// to every second sample (the route's points of an export, read back) measure the same noise
    /// and widen the margin for their shorter means: the same gain.
    @Test func aNoisyBarometersGainIsTheClimbsAtAnyRate() {
        func profile(_ t: Double) -> Double {
            let phase = t.truncatingRemainder(dividingBy: 390), hills = (t / 390).rounded(.down)
            guard hills < 5 else { return 0 }
            switch phase {
            case ..<90: return 0
            case ..<210: return (phase - 90) * 0.1
            case ..<270: return 12
            default: return 12 - (phase - 270) * 0.1
            }
        }
        func gain(seed: UInt64, every step: Int) -> Double {
            var c = ClimbCounter(), rng = ClimbCounterReferenceTests.SplitMix(state: seed)
            c.configure(windowS: 60, windowM: 60, thresholdM: 1)
            for i in 0..<2100 {
                // (a sum of 12 uniforms less 6: nearly Gaussian, σ 1)
                let e = (0..<12).reduce(0.0) { s, _ in s + rng.unit() } - 6
                guard i % step == 0 else { continue }
                c.add(alt: profile(Double(i)) + 0.3 * e, t: Double(i), distanceM: 3 * Double(i))
            }
            c.settle()
            return c.gainM
        }
        var full = 0.0, thinned = 0.0
        for seed in 1...20 as ClosedRange<UInt64> {
            let g = gain(seed: seed, every: 1), h = gain(seed: seed, every: 2)
            full += g / 20; thinned += h / 20
            #expect(abs(h - g) <= 0.02 * g, "seed \(seed): \(g) m every second, \(h) m every 2 s")
        }
        #expect(abs(full - 60) <= 0.6, "mean gain \(full) m every second")
        #expect(abs(thinned - 60) <= 0.6, "mean gain \(thinned) m every 2 s")
    }

    @Test func aClimbCountsWholeOnceOverTheThresholdAndNeverInSteps() {
        var c = ClimbCounterTests.counter()
        var t = 0.0
        for alt in stride(from: 0.0, through: 30, by: 0.5) { c.add(alt: alt, t: t, distanceM: t); t += 1 }
        #expect(c.gainM == 30, "the whole 30 m, not the part above a step")
        for alt in stride(from: 30.0, through: 0, by: -0.5) { c.add(alt: alt, t: t, distanceM: t); t += 1 }
        #expect(c.gainM == 30 && c.lossM == 30)
    }

    @Test func wiggleUnderTheThresholdCountsNothing() {
        var c = ClimbCounterTests.counter()
        for (k, alt) in [5.0, 7.9, 5.1, 7.8, 5.0, 7.99].enumerated() { c.add(alt: alt, t: Double(k), distanceM: 0) }
        #expect(c.gainM == 0 && c.lossM == 0)
    }

    @Test func theWindowAveragesByTimeAndByDistanceWhicheverIsShorter() {
        // Alternating ±4 m around 100 every second: a 10 s window's mean stays within 0.4 m once
        // full (within 4 m from the first sample), under a 5 m threshold that the swings pass.
        var byTime = ClimbCounterTests.counter(windowS: 10, threshold: 5)
        for k in 0..<600 { byTime.add(alt: 100 + (k % 2 == 0 ? 4 : -4), t: Double(k), distanceM: 3 * Double(k)) }
        #expect(byTime.gainM == 0 && byTime.lossM == 0)
        #expect(abs(byTime.meanM - 100) <= 0.4 + 1e-9)
        // The same with a 1 m distance window (3 m a sample): one sample, so the swings count.
        var byDistance = ClimbCounterTests.counter(windowS: 10, windowM: 1, threshold: 5)
        for k in 0..<10 { byDistance.add(alt: 100 + (k % 2 == 0 ? 4 : -4), t: Double(k), distanceM: 3 * Double(k)) }
        #expect(byDistance.gainM >= 3 * 8 && byDistance.lossM >= 3 * 8)
    }

    @Test func aClimbInProgressCountsAtTheMeansLagAndSettlingMeasuresItToTheLatestQuickAltitude() {
        // A 300 s window lags a steady climb by 150 s; the quick altitude does not.
        var c = ClimbCounterTests.counter(windowS: 300)
        var shown: [Double] = []
        for k in 0...1000 {
            let alt = 0.1 * Double(k)
            c.add(alt: alt, t: Double(k), distanceM: 0, latest: alt)
            shown.append(c.gainM)
        }
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 <= $1 }, "the gain never goes down")
        // Live: the means lag by half the window (15 m); nothing counts ahead of them (a quick
        // altitude's noise would stay in the count).
        #expect(abs(c.gainM - 85) < 0.1, "live: \(c.gainM)")
        c.settle()
        #expect(abs(c.gainM - 100) < 1e-9, "settled: \(c.gainM)")
        c.settle()
        #expect(abs(c.gainM - 100) < 1e-9)
    }

    @Test func aClimbThatFillsALapCountsAboutTwoFifthsOfItByTheLapsEnd() {
        // Flat for 10 minutes, then a steady 2 % climb that fills a 250 s lap (20 m at 0.08 m/s),
        // then flat: by the lap's end the 300 s means have counted 8.1 m of the 20 (accuracy.md,
        // Elevation: the rest counts in the next lap), 150 s later 17.6 m, and all of it once
        // the window is past the top.
        var c = ClimbCounterTests.counter(windowS: 300, threshold: 6)
        var t = 0.0
        func add(_ alt: Double) { c.add(alt: alt, t: t, distanceM: 4 * t, latest: alt); t += 1 }
        for _ in 0..<600 { add(0) }
        for k in 1...250 { add(0.08 * Double(k)) }
        #expect(abs(c.gainM - 8.10) < 0.01, "at the lap's end: \(c.gainM)")
        for _ in 0..<150 { add(20) }
        #expect(abs(c.gainM - 17.62) < 0.01, "150 s later: \(c.gainM)")
        for _ in 0..<150 { add(20) }
        #expect(abs(c.gainM - 20) < 1e-9, "past the top: \(c.gainM)")
    }

    @Test func settlingCountsALastClimbThatTheLaggingMeanHasNotTurnedYet() {
        // Down from 20 m to a valley at 0, flat for 10 minutes, then 250 s up at 0.05 m/s to
        // 12.5 m when the runner stops: the 300 s mean is then only about 5 m above the valley,
        // under the 6 m threshold, so the climb has not turned on it.
        var c = ClimbCounterTests.counter(windowS: 300, threshold: 6)
        var t = 0.0
        func add(_ alt: Double) { c.add(alt: alt, t: t, distanceM: 3 * t, latest: alt); t += 1 }
        for k in 0..<200 { add(20 - 0.1 * Double(k)) }
        for _ in 0..<600 { add(0) }
        for k in 1...250 { add(0.05 * Double(k)) }
        #expect(c.gainM == 0 && abs(c.lossM - 20) < 1, "before settling: \(c.gainM) \(c.lossM)")
        c.settle()
        // The last 30 s averaged (11.75 m), then measured to the latest altitude: the whole 12.5 m.
        #expect(abs(c.gainM - 12.5) < 1e-9, "settled: \(c.gainM)")
        let settled = (c.gainM, c.lossM)
        c.settle()
        #expect(c.gainM == settled.0 && c.lossM == settled.1, "settling twice changes nothing")
        // A later sample is counted on the full window: the figures never go down.
        add(12.5)
        #expect(c.gainM >= settled.0 && c.lossM >= settled.1)
    }

    @Test func whileCountingTheQuickAltitudePlaysNoPart() {
        // The 3-sample window's means reach the plateau's 20: the climb counts 20, the descent
        // 20, and the shown gain never goes down. A quick altitude far ahead changes nothing of
        // the live count (its wander at a hilltop would stay in a gain that cannot go back).
        func shown(lead: Double) -> (shown: [Double], gain: Double, loss: Double) {
            var c = ClimbCounterTests.counter(windowS: 3)
            var shown: [Double] = []
            for (k, alt) in [0.0, 0, 0, 10, 20, 20, 20, 10, 0, 0, 0].enumerated() {
                c.add(alt: alt, t: Double(k), distanceM: 0, latest: alt + lead)
                shown.append(c.gainM)
            }
            return (shown, c.gainM, c.lossM)
        }
        let plain = shown(lead: 0)
        #expect(zip(plain.shown, plain.shown.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(plain.gain == 20 && plain.loss == 20, "\(plain.shown)")
        #expect(shown(lead: 2.5).shown == plain.shown)
    }

    @Test func restartKeepsWhatWasCountedAndDropsTheWindow() {
        var c = ClimbCounterTests.counter()
        for (k, alt) in [0.0, 10, 5].enumerated() { c.add(alt: alt, t: Double(k), distanceM: 0) }
        #expect(c.gainM == 10 && c.lossM == 5)
        c.restart()
        #expect(c.gainM == 10 && c.lossM == 5 && c.meanM.isNaN)
        c.add(alt: 50, t: 4, distanceM: 0)     // a new source's level: no climb from 5 to 50
        #expect(c.gainM == 10)
    }

    @Test func missingAltitudesAndAZeroThresholdAreHarmless() {
        var c = ClimbCounterTests.counter(threshold: 0)
        c.add(alt: .nan, t: 0, distanceM: 0)
        #expect(c.meanM.isNaN && c.gainM == 0)
        for (k, alt) in [1.0, 1, 1, 2, 2, 1].enumerated() { c.add(alt: alt, t: Double(k), distanceM: .nan) }
        #expect(c.gainM == 1 && c.lossM == 1)
    }
}
