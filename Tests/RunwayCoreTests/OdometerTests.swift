import Testing
@testable import RunwayCore

@Suite("Odometer: distance, moving time and max speed")
struct OdometerTests {
    @Test func stepsAddTheirDistanceAndOnlyMovingStepsAddTime() {
        var odo = Odometer()
        odo.add(Step(distanceM: 3, moving: true), over: 1)
        odo.add(Step(distanceM: 0.2, moving: false), over: 5)       // drift while standing
        odo.add(Step(distanceM: 4, moving: true, newSegment: true), over: 2)
        #expect(abs(odo.distanceM - 7.2) < 1e-12)
        #expect(odo.movingS == 3)
    }

    @Test func creditsAddDistanceAndMovingTimeMeasuredEarlier() {
        var odo = Odometer()
        odo.credit(distanceM: 300)                                  // a gap: no moving time of its own
        #expect(odo.distanceM == 300 && odo.movingS == 0)
        odo.credit(distanceM: 3, movingS: 1)                        // a held step an auto-resume credits
        #expect(odo.distanceM == 303 && odo.movingS == 1)
        #expect(odo.maxSpeedMps.isNaN)                              // (a stretch's speed is noted apart)
    }

    /// A stretch (a credit of distance and moving time, a leg) counts toward the max at its
    /// average speed, capped, so a flight whose distance all came as credits has a max at least
    /// its average. Distance or moving time alone has no speed.
    @Test func aStretchsAverageSpeedCountsTowardTheMax() {
        var odo = Odometer()
        odo.noteStretch(distanceM: 300, movingS: 0, capMps: 12, at: 0)
        odo.noteStretch(distanceM: 0, movingS: 3, capMps: 12, at: 0)
        #expect(odo.maxSpeedMps.isNaN)
        odo.noteStretch(distanceM: 33, movingS: 10, capMps: 12, at: 0)    // movement confirmed at the stop
        #expect(odo.maxSpeedMps == 3.3)
        odo.noteSpeed(3.1, at: 0)
        #expect(odo.maxSpeedMps == 3.3)
        odo.noteStretch(distanceM: 150, movingS: 10, capMps: 12, at: 0)   // faster than the cap: the cap
        #expect(odo.maxSpeedMps == 12)
        odo.noteStretch(distanceM: 150, movingS: 10, capMps: .infinity, at: 0)   // filters off: nothing capped
        #expect(odo.maxSpeedMps == 15)
    }

    /// A leg's distance over its moving time counts at its end; the next leg is measured apart.
    @Test func aLegsAverageSpeedCountsAtItsEnd() {
        var odo = Odometer()
        odo.beginLeg()
        odo.add(Step(distanceM: 20, moving: true), over: 10)
        odo.credit(distanceM: 13)                                   // start lag paid out: no time of its own
        odo.endLeg(capMps: 12, at: 0)
        #expect(odo.maxSpeedMps == 3.3)
        odo.add(Step(distanceM: 5, moving: true), over: 10)         // while paused: no leg
        odo.beginLeg()
        odo.add(Step(distanceM: 25, moving: true), over: 10)
        odo.endLeg(capMps: 12, at: 0)
        #expect(odo.maxSpeedMps == 3.3)
    }

    @Test func distanceNeverDecreases() {
        var rng = SeededRandom(seed: 3)
        var odo = Odometer()
        var before = odo.distanceM, movingBefore = odo.movingS
        for _ in 0..<1000 {
            if Bool.random(using: &rng) {
                odo.add(Step(distanceM: Double.random(in: 0...10, using: &rng), moving: Bool.random(using: &rng)),
                        over: Double.random(in: 0...5, using: &rng))
            } else {
                odo.credit(distanceM: Double.random(in: 0...100, using: &rng), movingS: Double.random(in: 0...3, using: &rng))
            }
            #expect(odo.distanceM >= before && odo.movingS >= movingBefore)
            before = odo.distanceM; movingBefore = odo.movingS
        }
    }

    @Test func maxSpeedKeepsTheFastestAndIgnoresNaN() {
        var odo = Odometer()
        #expect(odo.maxSpeedMps.isNaN)
        odo.noteSpeed(.nan, at: 0)
        #expect(odo.maxSpeedMps.isNaN)
        odo.noteSpeed(3.1, at: 0)
        odo.noteSpeed(.nan, at: 0)                                         // NaN never replaces a speed
        #expect(odo.maxSpeedMps == 3.1)
        odo.noteSpeed(2, at: 0)
        #expect(odo.maxSpeedMps == 3.1)
        odo.noteSpeed(4.5, at: 0)
        #expect(odo.maxSpeedMps == 4.5)
    }

    /// Each speed counts toward the lap it was noted in; a lap cut after its end (at 15 s, cut
    /// after the speed noted at 20 s) leaves the later speeds to the next lap.
    @Test func aLapsMaxIsOfTheSpeedsNotedInIt() {
        var odo = Odometer()
        odo.noteSpeed(3, at: 10)
        odo.noteSpeed(4, at: 12)
        odo.noteSpeed(5, at: 20)
        #expect(odo.endLap(at: 15) == 4)
        odo.noteSpeed(2, at: 25)
        #expect(odo.endLap(at: 30) == 5)
        #expect(odo.endLap(at: 40).isNaN)
        #expect(odo.maxSpeedMps == 5)
    }
}
