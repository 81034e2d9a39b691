import Testing
@testable import RunwayCore

@Suite("TrackFilter: distance from fixes, Doppler and standing still")
struct TrackFilterTests {
    /// Uniform position noise of up to `m` metres each way on both axes.
    private func jitter(_ m: Double, _ rng: inout SeededRandom) -> (north: Double, east: Double) {
        (Double.random(in: -m...m, using: &rng), Double.random(in: -m...m, using: &rng))
    }

    @Test func aStraightLineAtConstantSpeedWithDopplerMeasuresItsLength() {
        var rng = SeededRandom(seed: 16)
        var filter = TrackFilter()
        var total = 0.0, movingSteps = 0
        let speed = 3.0
        for s in 0...300 {
            let t = Double(s)
            let e = jitter(4, &rng)                       // noisy positions, clean Doppler
            let fix = Fix(lat: 52 + degreesNorth(speed * t + e.north), lon: 4 + degreesEast(e.east),
                          speed: speed, course: 0, hAcc: 5)
            let step = filter.update(fix, t: t)
            total += step.distanceM
            if step.moving { movingSteps += 1 }
            #expect(!step.newSegment)
        }
        // 300 s at 3 m/s: 900 m; the Doppler trapezoid ignores the position noise.
        #expect(abs(total - 900) < 1)
        #expect(movingSteps == 300)
        #expect(abs(filter.speedMps - speed) < 0.1)
    }

    @Test func aStraightLineWithoutDopplerMeasuresItsLengthWithinAFewPercent() {
        var filter = TrackFilter()
        var total = 0.0
        for s in 0...300 {
            let t = Double(s)
            total += filter.update(Fix(lat: 52 + degreesNorth(3 * t), lon: 4, hAcc: 5), t: t).distanceM
        }
        // The filter starts from a standstill, so it loses a little at the start, never gains.
        #expect(total <= 900 + 1)
        #expect(total > 900 * 0.97)
    }

    @Test func standingWithDopplerZeroAddsNothing() {
        var rng = SeededRandom(seed: 7)
        var filter = TrackFilter()
        var total = 0.0, moving = 0
        for s in 0...600 {                                // ten minutes at a red light
            let e = jitter(5, &rng)
            let fix = Fix(lat: 52 + degreesNorth(e.north), lon: 4 + degreesEast(e.east), speed: 0, course: 0, hAcc: 8)
            let step = filter.update(fix, t: Double(s))
            total += step.distanceM
            if step.moving { moving += 1 }
        }
        #expect(total < 5)
        #expect(moving < 5)
    }

    @Test func aDopplerSpeedBelowTheStationaryThresholdCountsAsStanding() {
        var filter = TrackFilter()
        var total = 0.0
        for s in 0...60 {
            total += filter.update(Fix(lat: 52, lon: 4, speed: 0.3, course: 90, hAcc: 5), t: Double(s)).distanceM
        }
        #expect(total < 1)
    }

    @Test func noStepIsFasterThanTheSpeedCap() {
        var settings = TrackFilter.Settings()
        settings.speedCapMps = 5
        var filter = TrackFilter(settings: settings)
        _ = filter.update(Fix(lat: 52, lon: 4, speed: 20, course: 0), t: 0)
        let step = filter.update(Fix(lat: 52 + degreesNorth(20), lon: 4, speed: 20, course: 0), t: 1)
        #expect(step.distanceM <= 5)
    }

    @Test func theFirstFixAndARepeatedTimeAddNothing() {
        var filter = TrackFilter()
        #expect(!filter.isStarted && filter.speedMps.isNaN)
        #expect(filter.update(Fix(lat: 52, lon: 4, speed: 3, course: 0), t: 0) == Step(distanceM: 0, moving: false))
        #expect(filter.isStarted)
        #expect(filter.update(Fix(lat: 52 + degreesNorth(3), lon: 4, speed: 3, course: 0), t: 0) == Step(distanceM: 0, moving: false))
    }

    @Test func resetStartsOverAtTheFixWithNoDistanceFromBefore() {
        var filter = TrackFilter()
        for s in 0...20 {
            _ = filter.update(Fix(lat: 52 + degreesNorth(3 * Double(s)), lon: 4, speed: 3, course: 0), t: Double(s))
        }
        // A jump of 2 km east (after a gap): the filter starts over there, standing.
        let far = Fix(lat: 52, lon: 4 + degreesEast(2000), speed: 0, course: 0)
        filter.reset(at: far, t: 100)
        #expect(filter.speedMps < 0.01)
        let next = filter.update(Fix(lat: 52, lon: 4 + degreesEast(2000)), t: 101)
        #expect(next.distanceM < 1)
        // With a Doppler speed and course, the reset takes them as its velocity.
        filter.reset(at: Fix(lat: 52, lon: 4, speed: 4, course: 90), t: 200)
        #expect(abs(filter.speedMps - 4) < 1e-9)
    }
}
