import Testing
@testable import RunwayCore

@Suite("RouteRecorder: which fixes become route points")
struct RouteRecorderTests {
    private func point(_ north: Double, _ east: Double = 0, t: Double, d: Double = 0) -> RoutePoint {
        RoutePoint(lat: 52 + degreesNorth(north), lon: 4 + degreesEast(east), alt: 3, t: t, distanceM: d)
    }

    @Test func aPointIsKeptOnceItIsTheDistanceFilterFromTheLastKeptPoint() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        rec.keepIfDue(point(0, t: 0))                    // the leg's first: kept however close
        for s in 1...10 { rec.keepIfDue(point(2 * Double(s), t: Double(s))) }
        // 2 m a fix, measured from the last kept point: every third fix (6 m, 12 m, 18 m).
        #expect(rec.route.count == 4)
        #expect(rec.route.points.map(\.t) == [0, 3, 6, 9])
    }

    @Test func aForcedPointAndTheFirstOfALegAreKeptHoweverClose() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        rec.keep(point(0, t: 0))
        rec.keepIfDue(point(1, t: 1), force: true)
        #expect(rec.route.count == 2)
        rec.startLeg()
        #expect(rec.lastKept == nil)
        rec.keepIfDue(point(1, t: 2))
        #expect(rec.route.count == 3)
    }

    @Test func dueAsksWhatKeepIfDueWouldKeepAndMeasuresIt() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        let first = point(0, t: 0)
        #expect(rec.due(lat: first.lat, lon: first.lon, at: 0)?.dx.isNaN == true)   // the leg's first: kept, not measured
        rec.keep(first)
        #expect(rec.due(lat: first.lat + degreesNorth(3), lon: first.lon, at: 1) == nil)
        #expect(rec.due(lat: first.lat + degreesNorth(3), lon: first.lon, at: 1, force: true)?.dx.isNaN == true)
        let far = point(4, 3, t: 1)
        let o = rec.due(lat: far.lat, lon: far.lon, at: far.t) ?? (.nan, .nan)
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
        rec.keepIfDue(point(20, t: 2))
        #expect(rec.refusedPoint)
        #expect(rec.route.count == 2 && rec.route.segmentStarts == [0])
        #expect(rec.lastKept == Coordinate(lat: 52 + degreesNorth(10), lon: 4))
    }

    @Test func aNearPointOnAFullRouteIsNoRefusal() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1)
        rec.keep(point(0, t: 0))
        rec.keepIfDue(point(1, t: 1))                    // would not have been kept anyway
        #expect(!rec.refusedPoint)
    }

    @Test func aRunnerWhoStandsLeavesAPointEveryHeartbeatWithoutTurningTheHeading() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000, heartbeatS: 15)
        rec.keepIfDue(point(0, t: 0))
        rec.keepIfDue(point(0, 20, t: 4))                       // 20 m east
        // A minute standing 1 m north of there, wandering by centimetres: a point every 15 s.
        for s in 5...64 { rec.keepIfDue(point(1 + 0.01 * Double(s % 3), 20, t: Double(s))) }
        #expect(rec.route.points.map(\.t) == [0, 4, 19, 34, 49, 64])
        #expect(abs(rec.segmentBearing - 90) < 0.1)             // still east: a stop's wander is no heading
        // The distance filter still measures from the last kept point.
        rec.keepIfDue(point(1, 26, t: 65))
        #expect(rec.route.count == 7 && abs(rec.segmentBearing - 90) < 0.1)
    }

    /// Where the fix's own speed crosses a walker's, the route keeps the fixes on both sides of
    /// the crossing, however close: the last moving and the first standing fix of a stop, the
    /// last standing and the first moving fix of a set-off (a file imported again integrates its
    /// speeds between the points it has).
    @Test func aStopAndASetOffKeepTheFixesOnBothSidesOfTheCrossing() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000, heartbeatS: 15, movingMps: 0.8)
        func fix(_ north: Double, t: Double, speed: Double) {
            var p = point(north, t: t, d: north)
            p.deviceSpeedMps = speed
            if let o = rec.due(lat: p.lat, lon: p.lon, at: t, speed: speed) { rec.keep(p, fromLast: o) } else if rec.holds(speed: speed) { rec.hold(p) }
        }
        fix(0, t: 0, speed: 3)
        fix(3, t: 1, speed: 3)                                  // 3 m: held
        fix(4, t: 2, speed: 0)                                  // stops: 3 m/s → 0 crosses
        for s in 3...9 { fix(4, t: Double(s), speed: 0.1) }     // standing: held, not kept
        fix(6, t: 10, speed: 3)                                 // sets off: 0.1 → 3 crosses
        #expect(rec.route.points.map(\.t) == [0, 1, 2, 9, 10])
        #expect(rec.route.points.map(\.dist) == [0, 3, 4, 4, 6])
    }

    /// Steps credited after a still spell reach a held fix too: kept later, its distance is the
    /// flight's at its time as counted now, and the route's distances never fall.
    @Test func aHeldFixTakesTheStepsCreditedBeforeItIsKept() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000, heartbeatS: 15, movingMps: 0.8)
        var kept = point(0, t: 0, d: 10)
        kept.deviceSpeedMps = 0
        rec.keep(kept)
        var held = point(1, t: 5, d: 10)                        // standing as counted then
        held.deviceSpeedMps = 0.2
        rec.hold(held)
        var steps = CreditedSteps()
        for s in 1...5 { steps.append(t: Double(s), d: 1, movingS: 1) }
        rec.credit(steps, before: 6)                            // movement confirmed at t 6: 5 m
        var moving = point(2, t: 6, d: 16)
        moving.deviceSpeedMps = 3
        rec.keep(moving)
        #expect(rec.route.points.map(\.t) == [0, 5, 6])
        #expect(rec.route.points.map(\.dist) == [10, 15, 16])
    }

    @Test func aPointForTimeAloneIsNoRefusalOnAFullRoute() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 2, heartbeatS: 15)
        rec.keep(point(0, t: 0))
        rec.keep(point(10, t: 1))
        rec.keepIfDue(point(10, t: 30))                         // due for time, but the route is full
        #expect(!rec.refusedPoint && rec.route.count == 2)
        rec.keepIfDue(point(20, t: 31))                         // due for distance: refused
        #expect(rec.refusedPoint)
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

    @Test func aJunkFixAfterAGapGoesAtItsTimeOrAloneInItsSegment() {
        var rec = RouteRecorder(distanceFilterM: 5, maxPoints: 1000)
        rec.keep(point(0, t: 0))
        let junk = point(0, 3000, t: 40)   // in a sparse recorder's rhythm: the same segment
        rec.keep(junk)
        rec.dropJunkFix(at: Coordinate(lat: junk.lat, lon: junk.lon), t: 39)   // not its time
        #expect(rec.route.count == 2)
        rec.dropJunkFix(at: Coordinate(lat: junk.lat, lon: junk.lon), t: 40)
        #expect(rec.route.count == 1 && rec.route.segmentStarts == [0])
        rec.beginSegment()
        rec.keep(point(0, 3000, t: 80))    // kept at a resume's time, alone in its segment
        rec.dropJunkFix(at: Coordinate(lat: junk.lat, lon: junk.lon), t: 85)
        #expect(rec.route.count == 1 && rec.route.segmentStarts == [0])
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

    /// A leg that ends before its first fix (resumed, then paused or stopped with no fix between)
    /// has no point: not the latest fix, which came while holding, before the leg.
    @Test(arguments: [PhaseCommand.pause, .stop])
    func aLegWithoutAFixEndsWithNoPointFromTheHoldBeforeIt(_ end: PhaseCommand) throws {
        var d = Driver(Driver.config())
        let t0 = 1_700_000_000.0
        try d.phase(.start, t0)
        for s in 0...60 { try d.fix(t0 + Double(s), 52 + degreesNorth(3 * Double(s)), 4, speed: 3, hAcc: 5) }
        try d.phase(.pause, t0 + 60)
        // Walks on 180 m while paused; the last of these fixes is 10 s before the resume.
        for s in 61...120 { try d.fix(t0 + Double(s), 52 + degreesNorth(3 * Double(s)), 4, speed: 3, hAcc: 5) }
        try d.phase(.resume, t0 + 130)
        try d.phase(end, t0 + 140)
        let r = d.core.route
        #expect(r.count == 31 && r.time(r.count - 1) == t0 + 60, "the route ends at \(r.time(r.count - 1) - t0) s, \(r.count) points")
    }
}
