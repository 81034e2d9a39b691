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
        odo.noteSpeed(.nan)
        #expect(odo.maxSpeedMps.isNaN)
        odo.noteSpeed(3.1)
        odo.noteSpeed(.nan)                                         // NaN never replaces a speed
        #expect(odo.maxSpeedMps == 3.1)
        odo.noteSpeed(2)
        #expect(odo.maxSpeedMps == 3.1)
        odo.noteSpeed(4.5)
        #expect(odo.maxSpeedMps == 4.5)
    }
}
