import Glibc
import Testing
@testable import RunwayCore
import RunwaySim

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

    /// A runner or rider who stops, abruptly or braking, and stands a minute, with clean fixes
    /// whose Doppler speed has no course (as FIT and TCX recordings carry it): the steps end where
    /// the fixes do, and the standing ones count nothing. Before, the filtered speed, which a
    /// speed without a course does not correct, lagged the stop and its steps ran on past it:
    /// 4 to 34 m a stop, with 4 to 7 s of moving time.
    @Test(arguments: [(6.0, 0.0, 52.0), (6, 1, -33.9), (6, 2, 64.1), (3, 0, 1.3), (3, 1.5, 52), (1.4, 0, -16.5), (9, 3, 40.7)])
    func aStopWithoutACourseEndsWhereTheFixesDo(_ v: Double, _ braking: Double, _ lat: Double) {
        var filter = TrackFilter()
        let perDegree = Geodesy.distance(lat1: lat, lon1: 4, lat2: lat + 0.01, lon2: 4) / 0.01
        var s = 0.0, speed = v, total = 0.0, movingSteps = 0, truthMovingSteps = 0
        for k in 0...200 {
            if k > 0 {
                let next = k <= 100 ? v : (braking == 0 ? 0 : max(0, speed - braking))
                s += (speed + next) / 2
                if speed + next > 0 { truthMovingSteps += 1 }
                speed = next
            }
            let step = filter.update(Fix(lat: lat + s / perDegree, lon: 4, speed: speed, hAcc: 4), t: Double(k))
            total += step.distanceM
            if step.moving { movingSteps += 1 }
        }
        let truth = Geodesy.distance(lat1: lat, lon1: 4, lat2: lat + s / perDegree, lon2: 4)
        #expect(abs(total - truth) < 0.5, "\(total) m of \(truth) m")
        #expect(movingSteps == truthMovingSteps, "\(movingSteps) moving steps of \(truthMovingSteps)")
    }

    /// A device that stops recording while its rider stands (its own auto-pause): a step of 20 s
    /// whose Doppler says standing at both ends counts no further than its fixes moved, 5 m, and
    /// is no moving time (before, the filtered speed over the 20 s: over 100 m). One whose fixes
    /// moved 100 m (the rider rode on, the speed a sensor's that dropped out) is moving and
    /// counts most of them (the filtered speed over the step, which has slowed since the speed
    /// said 0).
    @Test(arguments: [(5.0, 0.0...5.01, false), (100, 75...100.01, true)])
    func aDevicesOwnPauseCountsWhatItsFixesMoved(_ movedM: Double, _ counts: ClosedRange<Double>, _ moving: Bool) {
        var filter = TrackFilter()
        for k in 0...60 { _ = filter.update(Fix(lat: 52 + degreesNorth(6 * Double(k)), lon: 4, speed: 6, hAcc: 4), t: Double(k)) }
        _ = filter.update(Fix(lat: 52 + degreesNorth(363), lon: 4, speed: 0, hAcc: 4), t: 61)
        let step = filter.update(Fix(lat: 52 + degreesNorth(363 + movedM), lon: 4, speed: 0, hAcc: 4), t: 81)
        #expect(counts.contains(step.distanceM) && step.moving == moving, "\(step.distanceM) m, moving \(step.moving)")
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

    /// The 4×4 filter's covariance algebra as generic matrix loops (x y vx vy, row-major): the
    /// reference the per-axis closed form must reproduce bit for bit.
    private struct MatrixFilter {
        var p: [Double]

        mutating func predict(_ dt: Double, q: Double) {
            var n = p
            for r in 0..<2 { for c in 0..<4 { n[r * 4 + c] = p[r * 4 + c] + dt * p[(r + 2) * 4 + c] } }
            var m = n
            for r in 0..<4 { for c in 0..<2 { m[r * 4 + c] = n[r * 4 + c] + dt * n[r * 4 + c + 2] } }
            let dt2 = dt * dt
            let qpp = q * dt2 * dt2 / 4, qpv = q * dt2 * dt / 2, qvv = q * dt2
            m[0] += qpp; m[5] += qpp; m[10] += qvv; m[15] += qvv
            m[2] += qpv; m[8] += qpv; m[7] += qpv; m[13] += qpv
            p = m
        }

        /// The scalar update of component `i`; returns the state's change (k·y).
        mutating func correct(_ i: Int, innovation y: Double, variance r: Double) -> [Double] {
            let s = p[i * 4 + i] + r
            guard s > 0, s.isFinite else { return [0, 0, 0, 0] }
            let k = (0..<4).map { p[$0 * 4 + i] / s }
            var n = p
            for a in 0..<4 { for b in 0..<4 { n[a * 4 + b] = p[a * 4 + b] - k[a] * p[i * 4 + b] } }
            p = n
            return k.map { $0 * y }
        }
    }

    @Test func theClosedFormPerAxisIsTheMatrixFilterBitForBit() {
        var rng = SeededRandom(seed: 20)
        for _ in 0..<50 {
            let sigma = Double.random(in: 1...30, using: &rng), velocityVar = Double.random(in: 0.01...25, using: &rng)
            var east = TrackFilter.Axis(pp: sigma * sigma, vv: velocityVar), north = east
            var matrix = MatrixFilter(p: [sigma * sigma, 0, 0, 0, 0, sigma * sigma, 0, 0,
                                          0, 0, velocityVar, 0, 0, 0, 0, velocityVar])
            for _ in 0..<200 {
                let dt = Double.random(in: 0.1...30, using: &rng), q = 0.09, dt2 = dt * dt
                let qpp = q * dt2 * dt2 / 4, qpv = q * dt2 * dt / 2, qvv = q * dt2
                east.predict(dt, qpp: qpp, qpv: qpv, qvv: qvv)
                north.predict(dt, qpp: qpp, qpv: qpv, qvv: qvv)
                matrix.predict(dt, q: q)
                let r = Double.random(in: 9...400, using: &rng), rv = Double.random(in: 0.0001...1, using: &rng)
                let ys = (0..<4).map { _ in Double.random(in: -20...20, using: &rng) }
                var got = [east.correctPosition(innovation: ys[0], variance: r),
                           north.correctPosition(innovation: ys[1], variance: r)]
                var want = [matrix.correct(0, innovation: ys[0], variance: r), matrix.correct(1, innovation: ys[1], variance: r)]
                if Bool.random(using: &rng) {   // a fix with Doppler speed and course
                    got += [east.correctVelocity(innovation: ys[2], variance: rv), north.correctVelocity(innovation: ys[3], variance: rv)]
                    want += [matrix.correct(2, innovation: ys[2], variance: rv), matrix.correct(3, innovation: ys[3], variance: rv)]
                }
                for (n, (g, w)) in zip(got, want).enumerated() {
                    let axis = n % 2   // 0 east (x, vx), 1 north (y, vy)
                    #expect(g.position == w[axis] && g.velocity == w[axis + 2])
                    #expect(w[1 - axis] == 0 && w[3 - axis] == 0)   // the other axis is untouched
                }
                #expect([east.pp, east.pv, east.vp, east.vv] == [matrix.p[0], matrix.p[2], matrix.p[8], matrix.p[10]])
                #expect([north.pp, north.pv, north.vp, north.vv] == [matrix.p[5], matrix.p[7], matrix.p[13], matrix.p[15]])
                // The 4×4 stays block diagonal: nothing couples east and north.
                #expect([1, 3, 4, 6, 9, 11, 12, 14].allSatisfy { matrix.p[$0] == 0 })
            }
        }
    }
}
