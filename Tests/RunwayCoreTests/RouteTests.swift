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
