import Testing
@testable import RunwayCore

@Suite("PaceEstimator: the window's speed, settling and smoothing")
struct PaceEstimatorTests {
    /// A pace estimator fed `speed` m/s at 1 Hz from `t0` to `t1`, starting at `d0` metres.
    private func fed(_ pace: inout PaceEstimator, _ t0: Int, _ t1: Int, speed: Double, d0: Double = 0,
                     doppler: Bool, filterSpeed: Double = .nan) {
        for s in t0...t1 {
            let t = Double(s)
            pace.push(t: t, distanceM: d0 + speed * (t - Double(t0)))
            pace.update(at: t, phase: .cruise, dopplerMps: doppler ? speed : .nan, filterSpeedMps: filterSpeed)
        }
    }

    @Test func theWindowSpeedIsDistanceOverTimeAcrossTheWindow() {
        var pace = PaceEstimator(windowS: 10, speedCapMps: 12, filters: true)
        #expect(pace.windowSpeed().isNaN)
        pace.push(t: 0, distanceM: 0)
        #expect(pace.windowSpeed().isNaN)                                    // one fix: no speed
        for s in 1...30 { pace.push(t: Double(s), distanceM: Double(s * s) / 10) }
        // Only the last 10 s count: (900 - 400) / 10 / 10.
        #expect(abs(pace.windowSpeed() - 5) < 1e-9)
    }

    /// Until half the window is spanned, a window with Doppler speeds says what they measured
    /// (their average over its time; one fix, its own), not the track filter's speed, which
    /// warms up from a standstill when the fixes carry no course (so Doppler cannot correct it:
    /// 1.0, 2.0, 2.5, 2.7 m/s for a runner at 3). Positions only, the filter's, as before.
    @Test func withDopplerTheWindowsSpeedsAreShownUntilHalfTheWindowIsFilled() {
        var pace = PaceEstimator(windowS: 10, speedCapMps: 12, filters: true)
        pace.push(t: 0, distanceM: 0)
        pace.update(at: 0, phase: .cruise, dopplerMps: 3, filterSpeedMps: 0)
        #expect(pace.groundSpeedMps == 3)                                     // one fix: its speed
        pace.push(t: 1, distanceM: 0)                                         // (the first metres held back)
        pace.update(at: 1, phase: .cruise, dopplerMps: 4, filterSpeedMps: 1)
        #expect(abs(pace.groundSpeedMps - 3.5) < 1e-12)                       // (3 + 4) / 2 over the second
        pace.push(t: 3, distanceM: 15)
        pace.update(at: 3, phase: .cruise, dopplerMps: 4, filterSpeedMps: 2)
        #expect(abs(pace.groundSpeedMps - 11.5 / 3) < 1e-12)                  // 3.5 + 8 m over 3 s
        #expect(!pace.isMeasured)                                             // (the max speed waits)
        fed(&pace, 5, 5, speed: 3, d0: 15, doppler: true, filterSpeed: 2.5)
        #expect(abs(pace.groundSpeedMps - 3) < 1e-9 && pace.isMeasured)       // 5 s of the window: the window's
        var positions = PaceEstimator(windowS: 10, speedCapMps: 12, filters: true)
        positions.push(t: 0, distanceM: 0)
        positions.update(at: 0, phase: .cruise, dopplerMps: .nan, filterSpeedMps: 0)
        #expect(positions.groundSpeedMps.isNaN)                               // one position: no speed
        fed(&positions, 1, 4, speed: 3, doppler: false, filterSpeed: 2.5)
        #expect(positions.groundSpeedMps == 2.5)                              // the filter's
    }

    @Test func thePaceIsSettledAfterOneWindowWithDopplerAndTwoWithout() {
        var pace = PaceEstimator(windowS: 10, speedCapMps: 12, filters: true)
        pace.push(t: 100, distanceM: 0)
        #expect(!pace.settled(at: 109, dopplerMps: 3))
        #expect(pace.settled(at: 110, dopplerMps: 3))
        #expect(!pace.settled(at: 119, dopplerMps: .nan))
        #expect(pace.settled(at: 120, dopplerMps: .nan))
        var raw = PaceEstimator(windowS: 10, speedCapMps: 12, filters: false)
        raw.push(t: 100, distanceM: 0)
        #expect(raw.settled(at: 110, dopplerMps: .nan))                       // filters off: one window
    }

    @Test func withoutDopplerTheSettledSpeedIsSmoothedOverTenSeconds() {
        var pace = PaceEstimator(windowS: 10, speedCapMps: 12, filters: true)
        fed(&pace, 0, 19, speed: 3, doppler: false, filterSpeed: 2)
        #expect(pace.groundSpeedMps == 2)                                     // not settled: the filter's
        fed(&pace, 20, 20, speed: 3, d0: 60, doppler: false, filterSpeed: 2)
        #expect(abs(pace.groundSpeedMps - (2 + 1.0 / 11)) < 1e-9)             // settled: 1/11 of the way to 3
        fed(&pace, 21, 300, speed: 3, d0: 63, doppler: false, filterSpeed: 2)
        #expect(abs(pace.groundSpeedMps - 3) < 1e-6)
        // A faster fix: the window's speed jumps, the shown speed moves 1/11 of the way at 1 s.
        let before = pace.groundSpeedMps
        pace.push(t: 301, distanceM: 900 + 30)
        let raw = pace.windowSpeed()
        pace.update(at: 301, phase: .cruise, dopplerMps: .nan, filterSpeedMps: 2)
        #expect(abs(pace.groundSpeedMps - (before + (raw - before) / 11)) < 1e-9)
        // With Doppler the same window is shown as it is.
        var doppler = PaceEstimator(windowS: 10, speedCapMps: 12, filters: true)
        fed(&doppler, 0, 300, speed: 3, doppler: true)
        doppler.push(t: 301, distanceM: 930)
        doppler.update(at: 301, phase: .cruise, dopplerMps: 3, filterSpeedMps: 2)
        #expect(abs(doppler.groundSpeedMps - doppler.windowSpeed()) < 1e-12)
    }

    @Test func aGapCreditedWhileTheWindowFillsIsNoBurstOfSpeed() {
        var pace = PaceEstimator(windowS: 10, speedCapMps: 100, filters: true)
        for s in 0...10 { pace.push(t: Double(s), distanceM: 3 * Double(s)) }
        pace.shift(by: 300)                                                    // 300 m credited
        pace.push(t: 11, distanceM: 33 + 300)
        #expect(abs(pace.windowSpeed() - 3) < 1e-9)
        var unshifted = PaceEstimator(windowS: 10, speedCapMps: 100, filters: true)
        for s in 0...10 { unshifted.push(t: Double(s), distanceM: 3 * Double(s)) }
        unshifted.push(t: 11, distanceM: 33 + 300)
        #expect(unshifted.windowSpeed() > 30)                                  // what the shift prevents
    }

    @Test func resetEmptiesTheWindowAndStartsSettlingAnew() {
        var pace = PaceEstimator(windowS: 10, speedCapMps: 12, filters: true)
        fed(&pace, 0, 30, speed: 3, doppler: true)
        pace.reset()
        #expect(pace.windowSpeed().isNaN)
        pace.push(t: 40, distanceM: 120)
        #expect(!pace.settled(at: 45, dopplerMps: 3))
        #expect(pace.settled(at: 50, dopplerMps: 3))
    }

    @Test func holdingShowsZeroAndPreflightShowsNothing() {
        var pace = PaceEstimator(windowS: 10, speedCapMps: 12, filters: true)
        fed(&pace, 0, 10, speed: 3, doppler: true)
        pace.update(at: 11, phase: .holding, dopplerMps: 3, filterSpeedMps: 3)
        #expect(pace.groundSpeedMps == 0)
        pace.update(at: 12, phase: .preflight, dopplerMps: 3, filterSpeedMps: 3)
        #expect(pace.groundSpeedMps.isNaN)
    }

    @Test func noSpeedAboveTheCapIsShown() {
        var pace = PaceEstimator(windowS: 10, speedCapMps: 5, filters: true)
        fed(&pace, 0, 10, speed: 8, doppler: true)
        #expect(pace.groundSpeedMps == 5)
    }

    @Test func filtersOffTheFixsOwnSpeedElseTheWindowsInCruise() {
        var pace = PaceEstimator(windowS: 10, speedCapMps: 12, filters: false)
        for s in 0...10 { pace.push(t: Double(s), distanceM: 2 * Double(s)) }
        pace.updateRaw(fixSpeedMps: 3.5, cruising: true, at: 10)
        #expect(pace.groundSpeedMps == 3.5)
        pace.updateRaw(fixSpeedMps: .nan, cruising: true, at: 10)
        #expect(abs(pace.groundSpeedMps - 2) < 1e-9)
        pace.updateRaw(fixSpeedMps: .nan, cruising: false, at: 10)
        #expect(pace.groundSpeedMps.isNaN)
    }
}

@Suite("The live pace of a sparse recorder")
struct SparsePaceTests {
    /// A runner at 3 m/s whose recorder keeps one fix every `dt` seconds (longer than the 10 s
    /// pace window, shorter than a gap), with and without Doppler speed: once settled the live
    /// ground speed is the runner's, measured over the step to the previous fix. The window held
    /// only the newest fix then: positions only, no pace at all; with Doppler, the track filter's
    /// stand-in, never measured.
    @Test(arguments: [12.0, 15.0, 25.0], [true, false])
    func aRecorderSlowerThanThePaceWindowShowsThePace(_ dt: Double, _ doppler: Bool) throws {
        var d = Driver()
        try d.phase(.start, 0)
        var t = 0.0, shown: [Double] = []
        while t <= 600 {
            try d.fix(t, 52 + degreesNorth(3 * t), 4, speed: doppler ? 3 : .nan, hAcc: 5)
            if t >= 120 { shown.append(d.snapshot.groundSpeedMps) }
            t += dt
        }
        #expect(!shown.isEmpty && shown.allSatisfy { abs($0 - 3) < 0.1 }, "dt \(dt) s: \(shown)")
        #expect(d.core.pace.isMeasured)
    }
}

@Suite("Raw accumulation: no pace across a gap")
struct RawGapPaceTests {
    /// Filters off, a runner at 3 m/s whose fixes stop for 120 s while they ride 3 km in a car:
    /// the first fix after the gap shows no ground speed (the window empties at a gap, as with
    /// the filters), so the gap's 25 m/s line is neither the shown speed nor the max. The window
    /// that always keeps the point before the newest held the fix before the gap: 25 m/s shown
    /// and taken as the max speed.
    @Test func theFirstFixAfterAGapShowsNoPaceAndSetsNoMax() throws {
        var d = Driver(Driver.config(filters: false))
        try d.phase(.start, 0)
        var x = 0.0
        for i in 0...60 { x = 3 * Double(i); try d.fix(Double(i), 52 + degreesNorth(x), 4, hAcc: 5) }
        x += 3000
        var shown: [Double] = []
        for i in 180...240 {
            try d.fix(Double(i), 52 + degreesNorth(x), 4, hAcc: 5)
            shown.append(d.snapshot.groundSpeedMps)
            x += 3
        }
        #expect(d.core.record.route.segmentStarts.count == 2, "the gap starts a segment")
        #expect(shown[0].isNaN, "the first fix after the gap: \(shown[0]) m/s")
        #expect(d.core.odometer.maxSpeedMps < 3.5, "max \(d.core.odometer.maxSpeedMps) m/s")
    }
}
