import Testing
@testable import RunwayCore
import RunwaySim

@Suite("Route simplification (Ramer–Douglas–Peucker)")
struct SimplifyTests {
    func route(_ points: [(Double, Double)], segmentAt: Int? = nil) -> Route {
        var r = Route()
        for (i, p) in points.enumerated() {
            if i == segmentAt { r.beginSegment() }
            r.append(lat: p.0, lon: p.1, alt: .nan, t: Double(i))
        }
        return r
    }

    @Test func aStraightLineKeepsOnlyItsEnds() {
        let r = route((0...100).map { (52 + degreesNorth(Double($0) * 3), 4.0) })
        #expect(Simplify.indices(of: r, toleranceM: 2) == [0, 100])
    }

    @Test func aCornerIsKeptAndNoDroppedPointIsFartherThanTheTolerance() {
        let run = sim(seed: 5, speed: false)
        var r = Route()
        for f in run.fixes { r.append(lat: f.lat, lon: f.lon, alt: f.alt, t: f.t) }
        let kept = Simplify.indices(of: r, toleranceM: 2)
        #expect(kept.count < r.count / 3, "\(kept.count) of \(r.count) kept")
        #expect(kept.first == 0 && kept.last == r.count - 1)
        // Every dropped point lies within 2 m of the polyline through the kept ones.
        for (a, b) in zip(kept, kept.dropFirst()) where b > a + 1 {
            #expect(Simplify.farthestPoint(r, a, b).1 <= 2 + 1e-9)
        }
    }

    @Test func segmentsAreSimplifiedSeparatelyAndKeepTheirEnds() {
        let pts = (0...20).map { (52 + degreesNorth(Double($0) * 3), 4.0) }
        let r = route(pts, segmentAt: 10)
        #expect(Simplify.indices(of: r, toleranceM: 2) == [0, 9, 10, 20])
    }

    @Test func theSummaryCarriesTheSimplifiedRouteBesideTheFullOne() throws {
        var d = Driver()
        try d.phase(.start, 0)
        for i in 0...100 { try d.fix(Double(i), 52 + degreesNorth(6 * Double(i)), 4, speed: 6, course: 0) }
        let text = d.core.summaryJSON()
        #expect(text.contains("\"simplify_m\":2.0"))
        #expect(text.contains("\"route_simplified\":[["))
    }
}

extension SimplifyTests {
    /// A zigzag whose farthest point is always at an end of the stretch (a swing of ±4 m shrinking
    /// to ±2 m, so that ties go to the first; 1 m on a point): plain RDP peels one point a
    /// pass, n²/2 measurements (2·10^8 here, 5·10^11 at the route limit). With the depth bound
    /// each point is measured at most `depthLimit` + log2(n) + 1 times, and no dropped point
    /// lies farther than the tolerance from the line through the kept ones.
    @Test func aZigzagIsSimplifiedInBoundedWorkAndWithinTheTolerance() {
        let n = 20_000
        let pts = (0..<n).map { i -> (Double, Double) in
            let swing = (i % 2 == 0 ? 1.0 : -1.0) * (4 - 1e-4 * Double(i))
            return (52 + degreesNorth(Double(i)), 4 + degreesEast(swing))
        }
        let r = route(pts)
        var work = 0
        let kept = Simplify.indices(of: r, toleranceM: 2, work: &work)
        let bound = n * (Simplify.depthLimit + (Int.bitWidth - n.leadingZeroBitCount) + 1)   // (⌊log2 n⌋ + 1 halvings, + 1)
        #expect(work <= bound, "\(work) points measured, bound \(bound) (plain RDP: about \(n * n / 2))")
        #expect(kept.first == 0 && kept.last == n - 1)
        for (a, b) in zip(kept, kept.dropFirst()) where b > a + 1 {
            #expect(Simplify.farthestPoint(r, a, b).1 <= 2 + 1e-9)
        }
    }
}
