import Testing
@testable import RunwayCore

@Suite("Route: the compact store of kept points")
struct RouteTests {
    @Test func positionsAreKeptToAboutACentimetre() {
        var r = Route()
        r.append(lat: 52.123456789, lon: -4.987654321, alt: 12.25, t: 1_700_000_000.5)
        #expect(abs(r.latitude(0) - 52.123456789) <= 0.5e-7)
        #expect(abs(r.longitude(0) - -4.987654321) <= 0.5e-7)
        #expect(r.altitude(0) == 12.25 && r.time(0) == 1_700_000_000.5)
    }

    @Test func unknownValuesStayUnknown() {
        var r = Route()
        r.append(lat: 52, lon: 4, alt: .nan, t: 0)
        #expect(r.altitude(0).isNaN && r.distanceM(0).isNaN && r.speedMps(0).isNaN)
        #expect(r.heartRate(0).isNaN && r.cadence(0).isNaN)
        r.append(lat: 52, lon: 4, alt: 1, t: 1, hr: 0.2, cadence: 300)   // out of a byte's range: unknown
        #expect(r.heartRate(1).isNaN && r.cadence(1).isNaN)
        r.append(lat: 52, lon: 4, alt: 1, t: 2, hr: 150.4, cadence: 171.6)
        #expect(r.heartRate(2) == 150 && r.cadence(2) == 172)
    }

    /// Speeds, power and bytes are rounded without libm's `round` (`Route.rounded`): the same
    /// integers as `rounded()` over their whole ranges, halves and their neighbours included.
    @Test func roundingWithoutLibmGivesRoundedsIntegers() {
        var values: [Double] = []
        for k in 0...131_070 {   // every half from 0 to 65 535, and the doubles either side of it
            let h = Double(k) / 2
            values += [h, h.nextDown, h.nextUp]
        }
        values += [-0.49999999999999994, -0.25, -0.0, 0.49999999999999994, 65_534.49999999999]
        var v = -0.4999
        while v < 65_535.5 { values.append(v); v += 1 / Double.pi }   // (fractions all over)
        for v in values where v > -0.5 && v < 65_535.5 {
            #expect(Route.rounded(v) == Int(v.rounded()), "\(v)")
        }
        for mps in [0.0, 0.0004999, 0.0005, 2.9995, 3.0005, 65.5345, 65.53449999] {
            #expect(Route.millimetres(mps) == UInt16((mps * 1000).rounded()), "\(mps)")
        }
    }

    @Test func segmentsBeginAtTheNextPointAndAnEmptyOneIsNotRepeated() {
        var r = Route()
        r.append(lat: 52, lon: 4, alt: 0, t: 0)
        r.append(lat: 52, lon: 4, alt: 0, t: 1)
        r.beginSegment()
        r.beginSegment()
        #expect(r.segmentStarts == [0, 2])
        r.append(lat: 52, lon: 4, alt: 0, t: 2)
        #expect(r.currentSegmentCount == 1)
        #expect((0..<3).map(r.segment(of:)) == [0, 0, 1])
    }

    @Test func removingTheLastPointOfASegmentRemovesTheSegment() {
        var r = Route()
        r.append(lat: 52, lon: 4, alt: 0, t: 0)
        r.beginSegment()
        r.append(lat: 53, lon: 4, alt: 0, t: 1)
        r.removeLast()
        #expect(r.count == 1 && r.segmentStarts == [0])
        #expect(r.currentSegmentCount == 1)
        r.removeLast()
        r.removeLast()                                         // on an empty route: nothing
        #expect(r.count == 0 && r.segmentStarts.isEmpty)
    }

    @Test func theLastPointsDistanceCanBeSetLater() {
        var r = Route()
        r.setLastDistance(5)                                   // no point: nothing
        r.append(lat: 52, lon: 4, alt: 0, t: 0, distanceM: 100)
        r.append(lat: 52, lon: 4, alt: 0, t: 1, distanceM: 103)
        r.setLastDistance(403)
        #expect(r.distanceM(0) == 100 && r.distanceM(1) == 403)
    }
}
