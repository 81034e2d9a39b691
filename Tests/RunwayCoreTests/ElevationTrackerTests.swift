import Testing
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// A standard normal deviate (Box–Muller) from a seeded generator.
private func gaussian(_ rng: inout SeededRandom) -> Double {
    let u1 = Double.random(in: Double.leastNonzeroMagnitude..<1, using: &rng)
    let u2 = Double.random(in: 0..<1, using: &rng)
    return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
}

/// Every reading of a tracker, with NaN compared as equal to NaN.
private func readings(_ e: ElevationTracker) -> [UInt64] {
    [e.gainM, e.lossM, e.altitudeM, e.gradePct, e.verticalSpeedMps, e.minAltitudeM, e.maxAltitudeM].map(\.bitPattern)
}

/// Raw accumulation: every rise of the unsmoothed series counted, as a naive tracker does.
private func rawGain(_ alts: [Double]) -> Double {
    var gain = 0.0
    for i in alts.indices.dropFirst() where alts[i] > alts[i - 1] { gain += alts[i] - alts[i - 1] }
    return gain
}

@Suite("Elevation: gain, loss, grade, vertical speed")
struct ElevationTrackerTests {
    @Test func nothingIsKnownBeforeTheFirstAltitudeAndAMissingOneIsNeverZero() {
        var e = ElevationTracker()
        #expect(e.altitudeM.isNaN && e.gradePct.isNaN && e.verticalSpeedMps.isNaN)
        #expect(e.minAltitudeM.isNaN && e.maxAltitudeM.isNaN && e.source == nil)
        e.addGPS(alt: .nan, t: 0, distanceM: 0)
        #expect(e.altitudeM.isNaN && e.source == nil)
        e.addGPS(alt: 250, t: 1, distanceM: 3)
        e.addGPS(alt: .nan, t: 2, distanceM: 6)
        #expect(e.altitudeM == 250 && e.minAltitudeM == 250)
        #expect(e.gainM == 0 && e.lossM == 0)
    }

    @Test func theThresholdIsThreeMetresByDefaultScaledByHowFarTheSourceIsTrusted() {
        #expect(ElevationTracker().hysteresisM == 3)
        // A barometer: a third of it (1 m). Samples 100 m apart: the 60 m window holds one.
        var b = ElevationTracker(smoothingWindowS: 0)
        var d = 0.0
        func baro(_ alt: Double) { b.addBarometric(alt: alt, t: d, distanceM: d); d += 100 }
        baro(100)
        baro(100.9)
        #expect(b.gainM == 0)
        baro(101.1)
        #expect(abs(b.gainM - 1.1) < 1e-9)
        baro(100.2)                       // 0.9 below the peak
        #expect(b.lossM == 0)
        baro(100.0)                       // 1.1 below it
        #expect(abs(b.lossM - 1.1) < 1e-9)
        #expect(abs(b.gainM - 1.1) < 1e-9)
        // GPS at 3 m vertical accuracy: twice it (6 m). Samples 301 s apart: the 300 s window holds one.
        var g = ElevationTracker(smoothingWindowS: 0)
        var t = 0.0
        func gps(_ alt: Double) { g.addGPS(alt: alt, t: t, distanceM: t, vAcc: 3); t += 301 }
        gps(100)
        gps(105.9)
        #expect(g.gainM == 0)
        gps(106.1)
        #expect(abs(g.gainM - 6.1) < 1e-9)
    }

    @Test func aClimbCountsWholeFromValleyToPeakNotInSteps() {
        // The failure: a reference moving in 3 m steps lost up to 3 m at every turn.
        var e = ElevationTracker(smoothingWindowS: 0)
        var t = 0.0
        for alt in [100.0, 102, 101.5, 104, 105, 104, 103, 99, 100, 104.9] {
            e.addGPS(alt: alt, t: t, distanceM: t, vAcc: 0); t += 1    // exact: no window, 1 m
        }
        #expect(abs(e.gainM - (5 + 5.9)) < 1e-9, "gain \(e.gainM): 100 → 105, then 99 → 104.9")
        #expect(abs(e.lossM - 6) < 1e-9, "loss \(e.lossM): 105 → 99")
    }

    @Test func aNoisyFlatRoadGainsAFewMetresWhereRawSumsGainHundreds() {
        // 50 seeded runs of 10 minutes at 1 Hz on a flat road, GPS altitude noise σ 3 m.
        var gains: [Double] = [], losses: [Double] = []
        for seed in UInt64(1)...50 {
            var rng = SeededRandom(seed: seed)
            var e = ElevationTracker()
            var alts: [Double] = []
            for i in 0..<600 {
                let alt = 12 + 3 * gaussian(&rng)
                alts.append(alt)
                e.addGPS(alt: alt, t: 1_700_000_000 + Double(i), distanceM: 3 * Double(i))
            }
            #expect(rawGain(alts) > 800, "raw accumulation reads noise as climbing")
            #expect(e.gainM < 15 && e.lossM < 15, "seed \(seed): gain \(e.gainM) loss \(e.lossM)")
            gains.append(e.gainM)
            losses.append(e.lossM)
        }
        let meanGain = gains.reduce(0, +) / Double(gains.count)
        let meanLoss = losses.reduce(0, +) / Double(losses.count)
        #expect(meanGain < 5, "mean gain \(meanGain) m in 10 minutes of flat road")
        #expect(meanLoss < 5, "mean loss \(meanLoss) m in 10 minutes of flat road")
    }

    @Test func aSteadyClimbOf100mGainsWithin5PercentAndLosesNothing() {
        var e = ElevationTracker()
        for i in 0...1030 {                 // 0.1 m/s for 1000 s, then 30 s on the top
            let alt = 20 + 0.1 * Double(min(i, 1000))
            e.addGPS(alt: alt, t: Double(i), distanceM: 2 * Double(i))
        }
        e.settle()   // the flight ends: the climb in progress counts to the latest altitude
        #expect(abs(e.gainM - 100) <= 5, "gain \(e.gainM)")
        #expect(e.lossM == 0)
        #expect(abs(e.maxAltitudeM - 120) < 0.1 && e.minAltitudeM == 20)
    }

    @Test func aNoisyClimbOf100mGainsWithin5PercentOnAverage() {
        var gains: [Double] = [], losses: [Double] = []
        for seed in UInt64(100)...149 {
            var rng = SeededRandom(seed: seed)
            var e = ElevationTracker()
            for i in 0...1030 {
                let alt = 20 + 0.1 * Double(min(i, 1000)) + 3 * gaussian(&rng)
                e.addGPS(alt: alt, t: Double(i), distanceM: 2 * Double(i))
            }
            e.settle()
            gains.append(e.gainM)
            losses.append(e.lossM)
        }
        let meanGain = gains.reduce(0, +) / Double(gains.count)
        let meanLoss = losses.reduce(0, +) / Double(losses.count)
        #expect(abs(meanGain - 100) <= 5, "mean gain \(meanGain)")
        #expect(meanLoss < 3, "mean loss \(meanLoss)")
    }

    @Test func aDescentCountsAsLossNotGain() {
        var e = ElevationTracker()
        for i in 0...1060 {                 // 100 m down at 0.1 m/s, then 60 s at the bottom
            e.addGPS(alt: 130 - 0.1 * Double(min(i, 1000)), t: Double(i), distanceM: 3 * Double(i))
        }
        e.settle()
        #expect(abs(e.lossM - 100) <= 5, "loss \(e.lossM)")
        #expect(e.gainM == 0)
    }

    @Test func missingAltitudesChangeNothing() {
        var rng = SeededRandom(seed: 7)
        var clean = ElevationTracker(), gappy = ElevationTracker()
        for i in 0..<400 {
            let t = 1_700_000_000 + Double(i), d = 3 * Double(i)
            let alt = 30 + 0.05 * d + 3 * gaussian(&rng)
            if Double.random(in: 0..<1, using: &rng) < 0.3 {
                gappy.addGPS(alt: .nan, t: t - 0.5, distanceM: d - 1.5)
                #expect(readings(gappy) == readings(clean), "a missing altitude at \(i) changed a reading")
            }
            clean.addGPS(alt: alt, t: t, distanceM: d)
            gappy.addGPS(alt: alt, t: t, distanceM: d)
            #expect(readings(gappy) == readings(clean))
        }
        #expect(clean.gainM > 0)
    }

    @Test func barometricSamplesArePreferredOverWildlyWrongGPSAltitudes() {
        var e = ElevationTracker()
        for i in 0...560 {                  // 100 m up at 0.2 m/s, then 60 s on the top
            let t = Double(i), d = 3 * Double(i)
            e.addGPS(alt: i % 2 == 0 ? -40 : 400, t: t, distanceM: d)      // junk GPS altitude
            e.addBarometric(alt: 10 + 0.2 * Double(min(i, 500)), t: t + 0.5, distanceM: d + 1.5)
        }
        #expect(e.source == .barometric)
        #expect(abs(e.gainM - 100) <= 5, "gain \(e.gainM)")
        #expect(e.lossM == 0)
        #expect(abs(e.altitudeM - 110) < 0.5)
        #expect(e.minAltitudeM == 10 && abs(e.maxAltitudeM - 110) < 0.5)
        #expect(abs(e.gradePct - 0) < 0.5)
    }

    @Test func gpsTakesOverWhenTheBarometerFallsSilent() {
        var e = ElevationTracker()
        e.addBarometric(alt: 50, t: 0, distanceM: 0)
        e.addGPS(alt: 90, t: 10, distanceM: 30)          // barometer 10 s old: still preferred
        #expect(e.source == .barometric && e.altitudeM == 50)
        e.addGPS(alt: 90, t: 10.5, distanceM: 31)        // 10.5 s old: GPS now
        #expect(e.source == .gps && e.altitudeM == 90)
    }

    @Test func switchingSourcesMakesNoFakeStep() {
        // A barometer reading 40 m above GPS, coming and going: the offset is no climb.
        var e = ElevationTracker()
        var t = 0.0, d = 0.0
        for _ in 0..<60 { e.addGPS(alt: 100, t: t, distanceM: d); t += 1; d += 3 }
        for _ in 0..<60 { e.addBarometric(alt: 140, t: t, distanceM: d); t += 1; d += 3 }
        #expect(e.source == .barometric)
        #expect(e.gradePct == 0 && e.verticalSpeedMps == 0)
        for _ in 0..<60 { e.addGPS(alt: 100, t: t, distanceM: d); t += 1; d += 3 }
        #expect(e.source == .gps)
        for _ in 0..<60 { e.addBarometric(alt: 140, t: t, distanceM: d); t += 1; d += 3 }
        #expect(e.gainM == 0 && e.lossM == 0)
        #expect(e.gradePct == 0 && e.verticalSpeedMps == 0)
    }

    @Test func gradeOnA5PercentRampIsFive() {
        var e = ElevationTracker()
        for i in 0...200 {
            let d = 3.2 * Double(i)                     // 3.2 m/s
            e.addGPS(alt: 5 + 0.05 * d, t: 1_700_000_000 + Double(i), distanceM: d)
            if d < 10 { #expect(e.gradePct.isNaN, "no 10 m stretch yet at \(d) m") }
            if i >= 40 { #expect(abs(e.gradePct - 5) <= 0.5, "grade \(e.gradePct) at \(d) m") }
        }
        #expect(abs(e.gradePct - 5) < 1e-3)
    }

    @Test func gradeSpansAtLeastTenMetresOfTheLatestDistance() {
        var e = ElevationTracker(smoothingWindowS: 0)
        e.addGPS(alt: 0, t: 0, distanceM: 0)
        e.addGPS(alt: 0.4, t: 1, distanceM: 8)
        #expect(e.gradePct.isNaN)
        e.addGPS(alt: 1, t: 2, distanceM: 10)
        #expect(abs(e.gradePct - 10) < 1e-9)      // 1 m over 10 m
        e.addGPS(alt: 1, t: 3, distanceM: 100)    // a flat stretch after a long gap
        #expect(abs(e.gradePct - 0) < 1e-9)
        e.addGPS(alt: 1, t: 4, distanceM: 100)    // standing: the same stretch
        #expect(abs(e.gradePct - 0) < 1e-9)
    }

    @Test func verticalSpeedOnASteadyClimb() {
        var e = ElevationTracker()
        e.addGPS(alt: 100, t: 0, distanceM: 0)
        #expect(e.verticalSpeedMps.isNaN)
        e.addGPS(alt: 100.2, t: 1, distanceM: 3)
        #expect(e.verticalSpeedMps.isFinite)
        for i in 2...180 {
            e.addGPS(alt: 100 + 0.2 * Double(i), t: Double(i), distanceM: 3 * Double(i))
            if i >= 100 { #expect(abs(e.verticalSpeedMps - 0.2) < 1e-3, "vertical speed \(e.verticalSpeedMps)") }
        }
        for i in 181...300 { e.addGPS(alt: 136, t: Double(i), distanceM: 3 * Double(i)) }
        #expect(abs(e.verticalSpeedMps) < 1e-3)
    }

    @Test func samplesOutOfOrderAndBadSettingsAreHarmless() {
        let bad = ElevationTracker(hysteresisM: .nan, smoothingWindowS: -1, baroPreferenceS: .infinity,
                                   gradeStretchM: 0, verticalSpeedWindowS: .nan)
        #expect(bad.hysteresisM == 3 && bad.smoothingWindowS == 10 && bad.baroPreferenceS == 10)
        #expect(bad.gradeStretchM == 10 && bad.verticalSpeedWindowS == 10)
        var e = ElevationTracker()
        e.addGPS(alt: 10, t: 100, distanceM: 0)
        e.addGPS(alt: 500, t: 50, distanceM: 0)          // earlier than the latest: ignored
        e.addGPS(alt: 10, t: .nan, distanceM: 0)
        e.addBarometric(alt: .infinity, t: 101, distanceM: 0)
        #expect(e.altitudeM == 10 && e.source == .gps)
        e.addGPS(alt: 10, t: 102, distanceM: .nan)        // unknown distance: altitude still counts
        #expect(abs(e.altitudeM - 10) < 1e-9 && e.gradePct.isNaN)
    }
}

@Suite("Elevation across segments of track")
struct ElevationAcrossSegmentsTests {
    @Test func breakingTheStretchRestartsGradeAndVerticalSpeedButKeepsTheGain() {
        var e = ElevationTracker(smoothingWindowS: 0)
        for i in 0...20 { e.addGPS(alt: 50 + Double(i) * 0.2, t: Double(i), distanceM: Double(i) * 5) }
        let gain = e.gainM
        #expect(abs(e.gradePct - 4) < 1e-6)
        e.breakStretch()
        #expect(e.gradePct.isNaN && e.verticalSpeedMps.isNaN)
        // 34 m higher 20 minutes later, with no distance between: no slope, no vertical speed of it.
        for i in 0...10 { e.addGPS(alt: 88, t: 1300 + Double(i), distanceM: 100 + Double(i) * 5) }
        #expect(e.gradePct == 0 && e.verticalSpeedMps == 0)
        #expect(e.gainM > gain + 30)   // the smoothed altitude rose: gain is counted as before
    }

    /// A ride auto-paused at 49 m whose device records nothing for 21 minutes and then reads 83 m
    /// (a barometer after a long stop, as on the 79 km ELEMNT ride in ../shared/tracks): the first
    /// 30 m after setting off are no 111 % climb.
    @Test(arguments: [false, true])
    func aRideResumingAfterALongAutoPauseShowsNoGradeFromTheAltitudeChangeAcrossIt(doppler: Bool) throws {
        var c = EngineConfig(activity: .ride)
        c.clock = .replay
        var d = Driver(c)
        try d.phase(.start, 0)
        var north = 0.0, t = 0.0, maxGrade = 0.0
        func ride(_ seconds: Int, speed v: Double, alt: Double) throws {
            for _ in 0..<seconds {
                t += 1; north += v
                try d.fix(t, 31.2 + degreesNorth(north), 121.5, speed: doppler ? v : .nan, alt: alt)
                let g = d.snapshot.gradePct
                if g.isFinite { maxGrade = max(maxGrade, abs(g)) }
            }
        }
        try ride(120, speed: 6, alt: 49)
        try ride(60, speed: 0, alt: 49)        // stands: auto-pause
        #expect(d.snapshot.phase == .holding)
        t += 1264; north += 460                 // nothing recorded; moved 460 m, 34 m up
        try ride(60, speed: 0, alt: 83)
        try ride(120, speed: 4, alt: 83)        // sets off on the flat
        #expect(d.snapshot.phase == .cruise)
        #expect(maxGrade < 5, "grade \(maxGrade)%")
    }
}
