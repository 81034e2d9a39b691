import Testing
@testable import RunwayCore

@Suite("Heart rate and cadence statistics")
struct SensorStatsTests {
    @Test func theAverageIsWeightedByTimeNotBySampleCount() {
        var s = SensorStats()
        s.advance(to: 0, counting: true)
        // 60 s at 120 bpm from sparse, irregular samples (gaps up to 5 s)...
        for t in [0, 4, 7, 11, 15.5, 20, 24, 28, 33, 37, 41, 45, 49.5, 54, 58] as [Double] {
            s.advance(to: t, counting: true)
            s.heartRate(120, at: t)
        }
        // ...then 10 s at 180 bpm from a burst of 50 samples.
        for k in 0..<50 {
            let t = 60 + 0.2 * Double(k)
            s.advance(to: t, counting: true)
            s.heartRate(180, at: t)
        }
        s.advance(to: 70, counting: true)
        #expect(abs(s.avgHrBpm - (120 * 60 + 180 * 10) / 70) < 1e-9)   // 128.57, not the sample mean 164
        #expect(abs(s.hrCoveredS - 70) < 1e-9)
        #expect(abs(s.hrBeatsIntegral - (120 * 60 + 180 * 10)) < 1e-6)
        #expect(s.maxHrBpm == 180)
    }

    /// The last sample of a flight (at its stop) holds for no time, yet it was measured in it:
    /// it counts toward the maxima as power's does (a fenix 5 ride's last record, 114 bpm, read
    /// 111), not toward the averages; one while not counting (paused) counts toward neither.
    @Test func aSampleCountsTowardTheMaximumWhenItComes() {
        var s = SensorStats()
        s.advance(to: 0, counting: true)
        s.heartRate(150, at: 0)
        s.cadence(80, at: 0)
        s.heartRate(180, at: 10)
        s.cadence(95, at: 10)
        s.advance(to: 10, counting: false)           // the stop, at the last samples' time
        #expect(s.maxHrBpm == 180 && s.maxCadenceSpm == 95)
        #expect(s.avgHrBpm == 150 && s.hrCoveredS == 5)
        s.heartRate(190, at: 12)                      // after it: not counted
        s.cadence(120, at: 12)
        s.heartRate(.nan, at: 13)                     // absent: no maximum of NaN
        #expect(s.maxHrBpm == 180 && s.maxCadenceSpm == 95)
    }

    @Test func aSampleOlderThanFiveSecondsCountsAsAbsent() {
        var s = SensorStats()
        s.advance(to: 0, counting: true)
        s.heartRate(150, at: 0)
        s.advance(to: 20, counting: true)            // the strap falls silent for 20 s
        #expect(s.hrCoveredS == 5)
        #expect(s.hrBeatsIntegral == 750)
        #expect(s.countedS == 20)
        #expect(s.heartRate(at: 5) == 150)
        #expect(s.heartRate(at: 5.01).isNaN)
        s.heartRate(130, at: 20)
        s.advance(to: 22, counting: true)
        #expect(s.hrCoveredS == 7)
        #expect(abs(s.avgHrBpm - (750 + 260) / 7.0) < 1e-9)
    }

    @Test func zonesSplitCoveredTimeByFractionOfHRmax() {
        var s = SensorStats()                     // HRmax 190: zone bounds at 95, 114, 133, 152, 171
        var t = 0.0
        s.advance(to: t, counting: true)
        for bpm in [90.0, 100, 120, 140, 160, 175] {
            for _ in 0..<5 {
                s.heartRate(bpm, at: t)
                t += 2
                s.advance(to: t, counting: true)
            }
        }
        #expect(s.zoneSeconds == [10, 10, 10, 10, 10, 10])
        #expect(s.hrCoveredS == 60)
    }

    @Test func zonesAlwaysAddUpToTheCoveredTime() {
        var rng = SeededRandom(seed: 11)
        var s = SensorStats()
        var t = 0.0
        s.advance(to: t, counting: true)
        for _ in 0..<2000 {
            t += Double.random(in: 0.1...9, using: &rng)        // some gaps go stale
            let counting = Double.random(in: 0..<1, using: &rng) < 0.8
            s.advance(to: t, counting: counting)
            let bpm = Double.random(in: 0..<1, using: &rng) < 0.05 ? 0 : Double.random(in: 70...200, using: &rng)
            s.heartRate(bpm, at: t)
        }
        let zoneTotal = s.zoneSeconds.reduce(0, +)
        #expect(s.zoneSeconds.count == 6)
        #expect(abs(zoneTotal - s.hrCoveredS) < 1e-6)
        #expect(s.hrCoveredS > 0 && s.hrCoveredS < s.countedS && s.countedS < t)
    }

    @Test func aBoundBelongsToTheZoneItStarts() {
        let s = SensorStats(hrMax: 200)
        #expect(SensorStats.zoneBounds == [0.5, 0.6, 0.7, 0.8, 0.9])
        #expect([99.9, 100, 119.9, 120, 140, 160, 179.9, 180, 230].map(s.zone(of:)) == [0, 1, 1, 2, 3, 4, 4, 5, 5])
    }

    @Test func theHRmaxSettingChangesTheZones() {
        for (hrMax, zone) in [(190.0, 3), (160.0, 5)] {       // 150 bpm: 79% of 190, 94% of 160
            var s = SensorStats(hrMax: hrMax)
            s.advance(to: 0, counting: true)
            s.heartRate(150, at: 0)
            s.advance(to: 4, counting: true)
            var expected = [Double](repeating: 0, count: 6)
            expected[zone] = 4
            #expect(s.zoneSeconds == expected, "HRmax \(hrMax)")
        }
        #expect(SensorStats().hrMax == 190)
    }

    @Test func nothingCountsWhilePaused() {
        var s = SensorStats()
        s.advance(to: 0, counting: true)
        s.heartRate(140, at: 0)
        s.cadence(170, at: 0)
        s.advance(to: 4, counting: true)
        s.advance(to: 4, counting: false)          // paused at the lights, then a sprint's samples
        s.heartRate(195, at: 4)                    // (before the pause they count toward the maxima:
        s.cadence(200, at: 4)                      // aSampleCountsTowardTheMaximumWhenItComes)
        s.advance(to: 8, counting: false)
        s.heartRate(150, at: 8)
        s.cadence(172, at: 8)
        s.advance(to: 12, counting: true)          // resumed
        #expect(s.countedS == 8)
        #expect(s.hrCoveredS == 8)
        #expect(s.avgHrBpm == 145)
        #expect(s.maxHrBpm == 150, "the maximum comes only from counted time")
        #expect(s.maxCadenceSpm == 172)
        #expect(s.avgCadenceSpm == 171)
        #expect(s.zoneSeconds == [0, 0, 0, 8, 0, 0])           // 140 and 150 bpm: 74% and 79% of 190
    }

    @Test func samplesBetweenAdvancesKeepTheLatestCountingState() {
        var s = SensorStats()
        s.heartRate(100, at: 0)                    // before any advance: starts the clock
        s.advance(to: 2, counting: true)
        s.heartRate(110, at: 3)                    // the 100 holds 0...3, counted
        s.heartRate(120, at: 4)
        s.advance(to: 5, counting: false)          // 4...5 not counted
        s.heartRate(130, at: 7)
        #expect(s.countedS == 4)
        #expect(s.hrBeatsIntegral == 100 * 3 + 110)
        s.advance(to: 9, counting: true)           // 7...9 counted
        #expect(s.hrBeatsIntegral == 100 * 3 + 110 + 130 * 2)
    }

    @Test func zeroBpmMeansNoContactAndEndsTheHeldValue() {
        var s = SensorStats()
        s.advance(to: 0, counting: true)
        s.heartRate(150, at: 0)
        s.heartRate(0, at: 2)                      // strap lost contact
        s.advance(to: 10, counting: true)
        #expect(s.hrCoveredS == 2 && s.avgHrBpm == 150)
        #expect(s.heartRate(at: 3).isNaN)
        #expect(s.zoneSeconds.reduce(0, +) == 2)
        for bad in [-5, .nan, .infinity] as [Double] {
            s.heartRate(bad, at: 10)
            #expect(s.heartRate(at: 10).isNaN)
        }
    }

    @Test func zeroCadenceIsCurrentButLeftOutOfTheAverage() {
        var s = SensorStats()
        s.advance(to: 0, counting: true)
        s.cadence(170, at: 0)
        s.advance(to: 4, counting: true)
        s.cadence(0, at: 4)                        // standing at a crossing
        #expect(s.cadence(at: 5) == 0)
        for t in [8.0, 12, 16] { s.advance(to: t, counting: true); s.cadence(0, at: t) }
        s.cadence(180, at: 16)
        s.advance(to: 20, counting: true)
        #expect(s.cadenceCoveredS == 8)
        #expect(s.avgCadenceSpm == 175)
        #expect(s.maxCadenceSpm == 180)
        #expect(s.cadence(at: 25.5).isNaN)
    }

    @Test func aCadenceSampleOlderThanFiveSecondsIsAbsent() {
        var s = SensorStats()
        s.advance(to: 0, counting: true)
        s.cadence(172, at: 0)
        #expect(s.cadence(at: 5) == 172)
        #expect(s.cadence(at: 5.01).isNaN)
        s.advance(to: 12, counting: true)          // no sample since 0: only its 5 s count
        #expect(s.cadenceCoveredS == 5)
    }

    @Test func beforeAnySampleEverythingIsUnknown() {
        var s = SensorStats()
        s.advance(to: 0, counting: true)
        s.advance(to: 100, counting: true)
        #expect(s.avgHrBpm.isNaN && s.maxHrBpm.isNaN && s.avgCadenceSpm.isNaN && s.maxCadenceSpm.isNaN)
        #expect(s.heartRate(at: 100).isNaN && s.cadence(at: 100).isNaN)
        #expect(s.zoneSeconds == [0, 0, 0, 0, 0, 0] && s.hrCoveredS == 0)
        #expect(s.countedS == 100)
    }

    @Test func badTimesAndSettingsAreHarmless() {
        let bad = SensorStats(hrMax: 0, staleAfterS: .nan)
        #expect(bad.hrMax == 190 && bad.staleAfterS == 5)
        var s = SensorStats()
        s.advance(to: 10, counting: true)
        s.heartRate(150, at: 10)
        s.heartRate(90, at: 9)                     // older than the latest sample: ignored
        s.heartRate(90, at: .nan)
        s.advance(to: .nan, counting: true)
        s.advance(to: 5, counting: true)           // backwards: no totals change
        s.advance(to: 12, counting: true)
        #expect(s.hrBeatsIntegral == 300 && s.countedS == 2)
        #expect(s.heartRate(at: 12) == 150)
    }
}
