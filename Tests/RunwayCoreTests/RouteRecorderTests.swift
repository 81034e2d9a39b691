import Testing
@testable import RunwayCore

@Suite("RouteRecorder: which fixes become route points")
struct RouteRecorderTests {
    private func point(_ north: Double, _ east: Double = 0, t: Double, d: Double = 0) -> RoutePoint {
        RoutePoint(lat: 52 + degreesNorth(north), lon: 4 + degreesEast(east), alt: 3, t: t, distanceM: d)
    }

    @Test func aPointIsKeptOnceItIsTheDistanceFilterFromTheLastKeptPoint() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        rec.keepIfFarEnough(point(0, t: 0))                    // the leg's first: kept however close
        for s in 1...10 { rec.keepIfFarEnough(point(2 * Double(s), t: Double(s))) }
        // 2 m a fix, measured from the last kept point: every third fix (6 m, 12 m, 18 m).
        #expect(rec.route.count == 4)
        #expect(rec.route.points.map(\.t) == [0, 3, 6, 9])
    }

    @Test func aForcedPointAndTheFirstOfALegAreKeptHoweverClose() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        rec.keep(point(0, t: 0))
        rec.keepIfFarEnough(point(1, t: 1), force: true)
        #expect(rec.route.count == 2)
        rec.startLeg()
        #expect(rec.lastKept == nil)
        rec.keepIfFarEnough(point(1, t: 2))
        #expect(rec.route.count == 3)
    }

    @Test func farEnoughAsksWhatKeepIfFarEnoughWouldKeepAndMeasuresIt() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        let first = point(0, t: 0)
        #expect(rec.farEnough(lat: first.lat, lon: first.lon)?.dx.isNaN == true)   // the leg's first: kept, not measured
        rec.keep(first)
        #expect(rec.farEnough(lat: first.lat + degreesNorth(3), lon: first.lon) == nil)
        #expect(rec.farEnough(lat: first.lat + degreesNorth(3), lon: first.lon, force: true)?.dx.isNaN == true)
        let far = point(4, 3, t: 1)
        let o = rec.farEnough(lat: far.lat, lon: far.lon) ?? (.nan, .nan)
        #expect(Geodesy.length(o) == Geodesy.distance(lat1: first.lat, lon1: first.lon, lat2: far.lat, lon2: far.lon))
        #expect(abs(o.dx - 3) < 0.01 && abs(o.dy - 4) < 0.01)
        // Keeping with the measured offset or without it comes to the same.
        var other = rec
        rec.keep(far, fromLast: o)
        other.keep(far)
        #expect(rec.segmentBearing == other.segmentBearing && rec.route.points.map(\.t) == other.route.points.map(\.t))
        #expect(rec.segmentBearing == Geodesy.bearing(lat1: first.lat, lon1: first.lon, lat2: far.lat, lon2: far.lon))
        #expect(abs(rec.segmentBearing - 36.87) < 0.1)
    }

    @Test func aFullRouteRefusesPointsAndFlagsTheRefusal() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 2)
        rec.keep(point(0, t: 0))
        rec.keep(point(10, t: 1))
        #expect(!rec.refusedPoint)
        rec.beginSegment()                                      // no segment that no point could fill
        rec.keepIfFarEnough(point(20, t: 2))
        #expect(rec.refusedPoint)
        #expect(rec.route.count == 2 && rec.route.segmentStarts == [0])
        #expect(rec.lastKept == Coordinate(lat: 52 + degreesNorth(10), lon: 4))
    }

    @Test func aNearPointOnAFullRouteIsNoRefusal() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1)
        rec.keep(point(0, t: 0))
        rec.keepIfFarEnough(point(1, t: 1))                    // would not have been kept anyway
        #expect(!rec.refusedPoint)
    }

    @Test func aJunkAnchorAloneInItsSegmentIsDropped() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        rec.keep(point(0, t: 0))
        rec.keep(point(10, t: 1))
        rec.beginSegment()
        let junk = point(0, 5000, t: 40)
        rec.keep(junk)
        #expect(rec.route.segmentStarts == [0, 2])
        rec.dropJunkAnchor(at: Coordinate(lat: junk.lat, lon: junk.lon))
        #expect(rec.route.count == 2 && rec.route.segmentStarts == [0])
    }

    @Test func aJunkAnchorIsKeptWhenItsSegmentHasMoreOrItIsElsewhere() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        rec.keep(point(0, t: 0))
        rec.keep(point(10, t: 1))
        rec.dropJunkAnchor(at: Coordinate(lat: 52 + degreesNorth(10), lon: 4))   // two in its segment
        #expect(rec.route.count == 2)
        rec.beginSegment()
        rec.keep(point(0, 5000, t: 40))
        rec.dropJunkAnchor(at: Coordinate(lat: 52, lon: 4))    // not the last point
        #expect(rec.route.count == 3)
    }

    @Test func aGapsCreditGoesToThePointKeptAtTheFixAfterIt() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        rec.keep(point(0, t: 100, d: 50))
        rec.keep(point(300, t: 200, d: 50))                    // the fix after the gap, its distance waiting
        rec.credit(300, toPointAt: 200)
        #expect(rec.route.distanceM(1) == 350)
        rec.credit(300, toPointAt: 150)                         // no point at that time: nothing changes
        #expect(rec.route.distanceM(1) == 350 && rec.route.distanceM(0) == 50)
    }

    @Test func theSegmentBearingFollowsTheLastTwoKeptPoints() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        rec.keep(point(0, t: 0))
        #expect(rec.segmentBearing.isNaN)
        rec.keep(point(0, 100, t: 30))                          // east
        #expect(abs(rec.segmentBearing - 90) < 0.1)
        rec.keep(point(100, 100, t: 60))                        // north
        #expect(abs(rec.segmentBearing) < 0.1 || abs(rec.segmentBearing - 360) < 0.1)
    }
}
