import Testing
@testable import RunwayCore

/// The cumulative figures of a steady run `s` seconds after its start at `t0`: `speed` m/s,
/// heart rate `bpm` throughout, climbing 1 m per 100 m.
private func steady(_ s: Double, t0: Double = 1_700_000_000, speed: Double = 1000.0 / 240,
                    bpm: Double = 150) -> LapProgress {
    let d = speed * s
    return LapProgress(t: t0 + s, distanceM: d, elapsedS: s, gainM: d / 100, lossM: d / 400,
                       hrBeatsIntegral: bpm * s, hrCoveredS: s)
}

@Suite("Laps and splits")
struct LapCounterTests {
    @Test func aSteadyRunFedAtIrregularIntervalsGivesExactKilometreLaps() {
        var rng = SeededRandom(seed: 4)
        var counter = LapCounter()
        var returned: [Lap] = []
        returned += counter.update(steady(0))
        var s = 0.0
        while s < 1000 {                          // 4:00 min/km for 1000 s: 4 laps and a bit
            s += Double.random(in: 0.3...3.7, using: &rng)
            returned += counter.update(steady(s))
        }
        #expect(returned == counter.laps)
        #expect(counter.laps.count == 4)
        for (k, lap) in counter.laps.enumerated() {
            #expect(lap.index == k + 1 && lap.trigger == .auto)
            #expect(abs(lap.distanceM - 1000) < 1e-6)
            #expect(abs(lap.elapsedS - 240) < 1e-6)
            #expect(abs(lap.paceMinPerKm - 4) < 1e-9)
            // Absolute unix times: 1e-6 is a few ulps at 1.7e9 s.
            #expect(abs(lap.startT - (1_700_000_000 + 240 * Double(k))) < 1e-6)
            #expect(abs(lap.endT - (1_700_000_000 + 240 * Double(k + 1))) < 1e-6)
            #expect(abs(lap.avgHrBpm - 150) < 1e-9)
            #expect(abs(lap.gainM - 10) < 1e-9 && abs(lap.lossM - 2.5) < 1e-9)
        }
        #expect(abs(counter.current.distanceM - 4000) < 1e-9)
    }

    @Test func cruiseTimeWithdrawnShortensTheLapInProgressNeverBelowItsStart() {
        // A rider stands from `stood` s on; at the stop the flight's cruise time is `elapsed`.
        func stopped(_ elapsed: Double, stood: Double) -> LapProgress {
            var p = steady(elapsed)
            p.distanceM = steady(stood).distanceM
            return p
        }
        var counter = LapCounter()
        counter.update(steady(0))
        counter.update(steady(300))                  // lap 1 cut at 240 s, lap 2 from there
        counter.cruiseWithdrawn(to: 297)             // a pause backdated 3 s
        #expect(counter.finish(stopped(297, stood: 300))?.elapsedS == 57)
        #expect(abs(counter.laps.reduce(0) { $0 + $1.elapsedS } - 297) < 1e-9)
        var cut = LapCounter()
        cut.update(steady(0))
        cut.update(steady(241))                      // lap 1 cut at 240 s
        cut.cruiseWithdrawn(to: 238)                 // into the cut lap: the lap in progress keeps no time
        #expect(cut.finish(stopped(238, stood: 241))?.elapsedS == 0)
    }

    @Test func oneUpdateCrossingTwoBoundariesYieldsTwoLaps() {
        var counter = LapCounter()
        counter.update(LapProgress(t: 0))
        let laps = counter.update(LapProgress(t: 1000, distanceM: 2500, elapsedS: 1000))
        #expect(laps.count == 2)
        #expect(laps.map(\.index) == [1, 2])
        #expect(laps.map(\.distanceM) == [1000, 1000])
        #expect(laps.map(\.endT) == [400, 800])
        #expect(laps.map(\.elapsedS) == [400, 400])
        #expect(counter.current.t == 800 && counter.current.distanceM == 2000)
    }

    @Test func aBoundaryReachedExactlyEndsTheLapThere() {
        var counter = LapCounter()
        counter.update(LapProgress(t: 0))
        let laps = counter.update(LapProgress(t: 300, distanceM: 1000, elapsedS: 300))
        #expect(laps.count == 1 && laps.first?.endT == 300)
        #expect(counter.update(LapProgress(t: 301, distanceM: 1003, elapsedS: 301)).isEmpty)
    }

    @Test func aManualLapDoesNotMoveTheAutoBoundaries() throws {
        var counter = LapCounter()
        counter.update(steady(0))
        counter.update(steady(144))                        // 600 m
        let manual = counter.manualLap(steady(144))
        #expect(manual?.trigger == .manual && manual?.index == 1)
        #expect(abs((manual?.distanceM ?? 0) - 600) < 1e-9)
        var autos: [Lap] = []
        for s in stride(from: 145.0, through: 500, by: 1) { autos += counter.update(steady(s)) }
        #expect(autos.map(\.trigger) == [.auto, .auto])
        #expect(autos.map(\.index) == [2, 3])
        try #require(autos.count == 2)
        #expect(abs(autos[0].distanceM - 400) < 1e-6)        // up to 1000 m from the start
        #expect(abs(autos[0].elapsedS - 96) < 1e-6)
        #expect(abs(autos[1].distanceM - 1000) < 1e-6)       // 1000 → 2000 m
        #expect(abs(autos[1].endT - steady(480).t) < 1e-6)
    }

    @Test func aManualLapWithNothingSinceTheLastLapIsNil() {
        var counter = LapCounter()
        #expect(counter.manualLap(LapProgress(t: 0)) == nil)
        counter.update(LapProgress(t: 10, distanceM: 30, elapsedS: 10))
        #expect(counter.manualLap(LapProgress(t: 10, distanceM: 30, elapsedS: 10)) != nil)
        #expect(counter.manualLap(LapProgress(t: 10, distanceM: 30, elapsedS: 10)) == nil)
        // Standing in a pause: wall time passes, but there is no distance and no cruise time.
        #expect(counter.manualLap(LapProgress(t: 50, distanceM: 30, elapsedS: 10)) == nil)
        #expect(counter.laps.count == 1)
    }

    @Test func aManualLapKeepsAnAutoBoundaryCrossedSinceTheLastUpdate() {
        var counter = LapCounter()
        counter.update(LapProgress(t: 0))
        counter.update(LapProgress(t: 270, distanceM: 900, elapsedS: 270))
        let manual = counter.manualLap(LapProgress(t: 330, distanceM: 1100, elapsedS: 330))
        #expect(counter.laps.map(\.trigger) == [.auto, .manual])
        #expect(counter.laps.first?.endT == 300)
        #expect(abs((manual?.distanceM ?? 0) - 100) < 1e-9)
        #expect(manual?.index == 2)
    }

    @Test func theFinalLapIsThePartialLapAtStop() {
        var counter = LapCounter()
        counter.update(steady(0))
        for s in stride(from: 5.0, through: 550, by: 5) { counter.update(steady(s)) }   // 2291.7 m
        let final = counter.finish(steady(552))                                        // 2300 m
        #expect(final?.trigger == .final && final?.index == 3)
        #expect(abs((final?.distanceM ?? 0) - 300) < 1e-6)
        #expect(abs((final?.elapsedS ?? 0) - 72) < 1e-6)
        #expect(abs((final?.paceMinPerKm ?? 0) - 4) < 1e-9)
        #expect(counter.laps.map(\.trigger) == [.auto, .auto, .final])
        #expect(counter.finished)
        // After the stop nothing changes.
        #expect(counter.finish(steady(600)) == nil)
        #expect(counter.update(steady(900)).isEmpty)
        #expect(counter.manualLap(steady(900)) == nil)
        #expect(counter.laps.count == 3)
    }

    @Test func aStopExactlyOnABoundaryAddsNoEmptyFinalLap() {
        var counter = LapCounter()
        counter.update(LapProgress(t: 0))
        #expect(counter.finish(LapProgress(t: 250, distanceM: 1000, elapsedS: 250)) == nil)
        #expect(counter.laps.map(\.trigger) == [.auto])
    }

    @Test func lapHeartRateIsTheAverageOfItsOwnIntegrals() throws {
        var counter = LapCounter(autoLapM: 1000)
        counter.update(LapProgress(t: 0))
        // Lap 1: 200 s at 140 bpm. Lap 2: 100 s at 160 bpm, then 100 s without a strap.
        // Lap 3: no heart rate at all.
        counter.update(LapProgress(t: 200, distanceM: 1000, elapsedS: 200, hrBeatsIntegral: 28_000, hrCoveredS: 200))
        counter.update(LapProgress(t: 300, distanceM: 1500, elapsedS: 300, hrBeatsIntegral: 44_000, hrCoveredS: 300))
        counter.update(LapProgress(t: 400, distanceM: 2000, elapsedS: 400, hrBeatsIntegral: 44_000, hrCoveredS: 300))
        counter.update(LapProgress(t: 600, distanceM: 3000, elapsedS: 600, hrBeatsIntegral: 44_000, hrCoveredS: 300))
        let hr = counter.laps.map(\.avgHrBpm)
        try #require(hr.count == 3)
        #expect(hr[0] == 140 && hr[1] == 160 && hr[2].isNaN)
    }

    @Test func lapTimeExcludesPausesButItsClockDoesNot() {
        var counter = LapCounter()
        counter.update(LapProgress(t: 0))
        counter.update(LapProgress(t: 120, distanceM: 500, elapsedS: 120))
        counter.update(LapProgress(t: 180, distanceM: 500, elapsedS: 120))   // a 60 s pause
        let laps = counter.update(LapProgress(t: 300, distanceM: 1000, elapsedS: 240))
        #expect(laps.first?.elapsedS == 240)
        #expect(laps.first?.endT == 300 && laps.first?.startT == 0)
        #expect(laps.first?.paceMinPerKm == 4)
    }

    @Test func autoLapZeroGivesOnlyManualAndFinalLaps() {
        var counter = LapCounter(autoLapM: 0)
        counter.update(steady(0))
        for s in stride(from: 1.0, through: 1200, by: 1) { #expect(counter.update(steady(s)).isEmpty) }
        #expect(counter.laps.isEmpty)
        #expect(counter.manualLap(steady(1200)) != nil)
        #expect(counter.finish(steady(1500)) != nil)
        #expect(counter.laps.map(\.trigger) == [.manual, .final])
        #expect(abs((counter.laps.first?.distanceM ?? 0) - 5000) < 1e-6)
        #expect(LapCounter(autoLapM: -5).autoLapM == 0 && LapCounter(autoLapM: .nan).autoLapM == 0)
    }

    @Test func aLateFirstProgressDatesTheStartBackByItsCruiseTime() {
        var counter = LapCounter()
        #expect(counter.current.t.isNaN)
        let laps = counter.update(LapProgress(t: 50, distanceM: 1200, elapsedS: 300))
        #expect(laps.count == 1)
        #expect(laps.first?.startT == -250 && laps.first?.endT == 0)   // 300 cruise seconds before t 50
        #expect(laps.first?.distanceM == 1000)
        #expect(laps.first?.elapsedS == 250)
    }

    @Test func unknownOrBackwardFiguresNeverMakeANegativeOrNaNLap() {
        var counter = LapCounter()
        counter.update(LapProgress(t: 0))
        counter.update(LapProgress(t: 100, distanceM: 400, elapsedS: 100, gainM: 5))
        counter.update(LapProgress(t: .nan, distanceM: .nan, elapsedS: .infinity, gainM: .nan))
        counter.update(LapProgress(t: 150, distanceM: 300, elapsedS: 150, gainM: 2))   // distance went back
        let laps = counter.update(LapProgress(t: 260, distanceM: 1040, elapsedS: 260, gainM: 9))
        #expect(laps.count == 1)
        let lap = laps.first
        #expect(lap?.distanceM == 1000)
        #expect(lap.map { $0.elapsedS.isFinite && $0.endT.isFinite && $0.gainM >= 5 } == true)
    }

    @Test func aFlightHasAtMostMaxLapsAndAutoLapsStopOneBeforeForTheFinalLap() {
        let max = LapCounter.maxLaps
        // A FIT export numbers laps (message_index, num_laps) in 16 bits, 0xFFFF being "invalid".
        #expect(max <= 0xFFFE)
        var counter = LapCounter(autoLapM: 10)
        counter.update(LapProgress(t: 0))
        var t = 0.0, d = 0.0
        // Auto laps, 100 an update (each step ends on a boundary), up to two short of the limit.
        while counter.laps.count < max - 2 {
            t += 100
            d += Double(min(100, max - 2 - counter.laps.count)) * 10
            counter.update(LapProgress(t: t, distanceM: d, elapsedS: t))
        }
        #expect(counter.laps.count == max - 2 && !counter.isFull)
        // At the limit: one more lap (a manual one here) fills the flight but for its final lap.
        t += 1; d += 5
        #expect(counter.manualLap(LapProgress(t: t, distanceM: d, elapsedS: t))?.index == max - 1)
        let manualAt = d
        #expect(counter.isFull && !counter.autoLapsStopped)
        // Past it: no auto lap however far the flight goes, and no manual lap.
        t += 100; d += 1000
        #expect(counter.update(LapProgress(t: t, distanceM: d, elapsedS: t)).isEmpty)
        #expect(counter.autoLapsStopped)
        #expect(counter.manualLap(LapProgress(t: t + 1, distanceM: d + 5, elapsedS: t + 1)) == nil)
        #expect(counter.laps.count == max - 1)
        // The final lap is the last, from the manual lap to the end.
        let final = counter.finish(LapProgress(t: t + 2, distanceM: d + 10, elapsedS: t + 2))
        #expect(final?.index == max && final?.trigger == .final)
        #expect(final?.distanceM == d + 10 - manualAt)
        #expect(counter.laps.count == max)
    }

    @Test func aTinyLapDistanceAgainstAHugeJumpCannotHang() {
        var counter = LapCounter(autoLapM: 0.001)
        counter.update(LapProgress(t: 0))
        let laps = counter.update(LapProgress(t: 10, distanceM: 1e9, elapsedS: 10))
        #expect(laps.count == LapCounter.maxLapsPerUpdate)
        #expect(counter.update(LapProgress(t: 11, distanceM: 1e9, elapsedS: 11)).isEmpty)
    }
}
