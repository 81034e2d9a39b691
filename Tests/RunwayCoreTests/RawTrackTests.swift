import Testing
@testable import RunwayCore

@Suite("RawTrack: the measuring stage with the filters off")
struct RawTrackTests {
    private func track(filter: Double = 5, gapS: Double = 30) -> RawTrack {
        var config = EngineConfig()
        config.filters = false
        config.distanceFilterM = filter
        config.gapS = gapS
        return RawTrack(config: config)
    }

    private let origin = Coordinate(lat: 52, lon: 4)

    @Test func theFirstFixOfALegIsKeptWithNoDistance() {
        let m = track().measure(Fix(lat: 52, lon: 4), at: 0, lastKept: nil, previousT: nil)
        #expect(m.keep)
        #expect(m.step == Step(distanceM: 0, moving: false))
    }

    @Test func aFixCloserThanTheDistanceFilterToTheLastKeptPointAddsNothing() {
        let raw = track(filter: 5)
        let near = Fix(lat: 52 + degreesNorth(3), lon: 4)
        let m = raw.measure(near, at: 1, lastKept: origin, previousT: 0)
        #expect(!m.keep && m.step.distanceM == 0 && !m.step.moving)
    }

    @Test func theDistanceIsMeasuredFromTheLastKeptPointNotTheFixBefore() {
        let raw = track(filter: 5)
        // Three fixes 3 m apart: the second is not kept, the third is 6 m from the kept one.
        let second = raw.measure(Fix(lat: 52 + degreesNorth(3), lon: 4), at: 1, lastKept: origin, previousT: 0)
        #expect(!second.keep)
        let third = raw.measure(Fix(lat: 52 + degreesNorth(6), lon: 4), at: 2, lastKept: origin, previousT: 1)
        #expect(third.keep)
        #expect(abs(third.step.distanceM - 6) < 0.05)
        #expect(third.step.moving)
    }

    @Test func withAZeroFilterEveryFixIsKeptEvenAtTheSamePlace() {
        let raw = track(filter: 0)
        let same = raw.measure(Fix(lat: 52, lon: 4), at: 1, lastKept: origin, previousT: 0)
        #expect(same.keep && same.step.distanceM == 0)
        #expect(raw.measure(Fix(lat: 52 + degreesNorth(0.5), lon: 4), at: 1, lastKept: origin, previousT: 0).keep)
    }

    @Test func aFixLongerThanGapSAfterTheOneBeforeBeginsASegment() {
        let raw = track(gapS: 30)
        let after = raw.measure(Fix(lat: 52 + degreesNorth(100), lon: 4), at: 40, lastKept: origin, previousT: 9)
        #expect(after.step.newSegment)
        let within = raw.measure(Fix(lat: 52 + degreesNorth(100), lon: 4), at: 39, lastKept: origin, previousT: 9)
        #expect(!within.step.newSegment)
        // The first point of a leg begins nothing of its own.
        #expect(!raw.measure(Fix(lat: 52, lon: 4), at: 40, lastKept: nil, previousT: 9).step.newSegment)
    }

    @Test func aStepIsMovingUnlessTheFixSaysZeroSpeedOrIsTheFirst() {
        let raw = track()
        let to = Fix(lat: 52 + degreesNorth(10), lon: 4)
        #expect(raw.measure(to, at: 1, lastKept: origin, previousT: 0).step.moving)           // no speed: moving
        var standing = to; standing.speed = 0
        let zero = raw.measure(standing, at: 1, lastKept: origin, previousT: 0)
        #expect(!zero.step.moving && zero.keep && zero.step.distanceM > 9)                  // distance still counts
        var fast = to; fast.speed = 2
        #expect(raw.measure(fast, at: 1, lastKept: origin, previousT: 0).step.moving)
        #expect(!raw.measure(to, at: 1, lastKept: origin, previousT: nil).step.moving)     // no fix before
    }
}
