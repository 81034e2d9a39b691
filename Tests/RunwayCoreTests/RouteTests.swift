import Testing
@testable import RunwayCore

@Suite("Route: the compact store of kept points")
struct RouteTests {
    /// A route of several chunks (`Route.chunkCapacity` points each) gives back every point, its
    /// segments and a removal across a chunk's boundary as one array did; its memory is its
    /// points and at most one chunk's room beyond them (a doubling array's could be nearly as
    /// much again), and a full chunk is never moved as the route grows.
    @Test func aRouteOfSeveralChunksKeepsEveryPointAndNeverMovesAFullChunk() {
        let c = Route.chunkCapacity
        let n = 2 * c + 1   // (a doubling array: room for 4c)
        let breaks: Set<Int> = [1, c - 1, c, 2 * c]
        var r = Route()
        var firstAddresses: [UInt] = []
        for i in 0..<n {
            if breaks.contains(i) { r.beginSegment() }
            r.append(lat: 52 + Double(i) * 1e-6, lon: 4, alt: Double(i % 100), t: Double(i), distanceM: Double(i) * 2.5,
                     hr: Double(100 + i % 100))
            if i == c { firstAddresses = r.chunkAddresses }
        }
        #expect(r.count == n && r.points.count == n)
        #expect(r.capacity - r.count < c, "\(r.capacity) for \(r.count) points")
        #expect(Array(r.chunkAddresses.prefix(2)) == firstAddresses)
        #expect(r.segmentStarts == [0, 1, c - 1, c, 2 * c])
        #expect(r.segmentRanges == [0..<1, 1..<(c - 1), (c - 1)..<c, c..<(2 * c), (2 * c)..<n])
        for i in 0..<n {
            #expect(r.time(i) == Double(i) && r.latE7(i) == Route.quantise(52 + Double(i) * 1e-6) && r.distanceM(i) == Double(i) * 2.5
                    && r.heartRate(i) == Double(100 + i % 100) && r.point(i) == r.points[i])
            let s = i < 1 ? 0 : i < c - 1 ? 1 : i < c ? 2 : i < 2 * c ? 3 : 4
            #expect(r.segment(of: i) == s)
        }
        // Down across the second chunk's boundary: its segment goes with its last point.
        r.removeLast()
        r.removeLast()
        #expect(r.count == 2 * c - 1 && r.last?.t == Double(2 * c - 2) && r.segmentStarts == [0, 1, c - 1, c])
        #expect(r.capacity - r.count < c)
        r.append(lat: 52, lon: 4, alt: 0, t: 9e9)
        r.append(lat: 52, lon: 4, alt: 0, t: 9e9 + 1)
        #expect(r.count == 2 * c + 1 && r.time(2 * c - 1) == 9e9 && r.time(2 * c) == 9e9 + 1 && r.segment(of: 2 * c) == 3)
        // Down to nothing and up again.
        while r.count > 0 { r.removeLast() }
        #expect(r.last == nil && r.segmentStarts.isEmpty && r.capacity == 0)
        r.append(lat: 52, lon: 4, alt: 0, t: 1)
        #expect(r.points.map(\.t) == [1] && r.segmentStarts == [0])
    }

    /// A copy of a route stays as it was while the original grows, shrinks and changes, and the
    /// two share their full chunks (the original copies only its last, not every chunk).
    @Test func aCopyIsUnchangedByTheOriginalAndSharesItsFullChunks() {
        let c = Route.chunkCapacity
        var r = Route()
        for i in 0..<(3 * c + 7) { r.append(lat: 52, lon: 4, alt: 0, t: Double(i), distanceM: Double(i)) }
        let copy = r
        let before = copy.points
        r.append(lat: 53, lon: 5, alt: 1, t: 1e6)
        r.setDistance(-1, at: 3 * c + 2)
        r.removeLast()
        r.removeLast()
        r.beginSegment()
        r.append(lat: 53, lon: 5, alt: 1, t: 2e6)
        #expect(copy.points == before && copy.count == 3 * c + 7 && copy.segmentStarts == [0])
        #expect(r.count == 3 * c + 7 && r.time(3 * c + 6) == 2e6 && r.distanceM(3 * c + 2) == -1 && r.segmentStarts == [0, 3 * c + 6])
        #expect(Array(r.chunkAddresses.prefix(3)) == Array(copy.chunkAddresses.prefix(3)))
        #expect(r.chunkAddresses[3] != copy.chunkAddresses[3])
    }

    /// A copy's first change in place (a distance credited, a junk fix removed) keeps the
    /// original's last chunk at its room: Array's own copy for a subscript set or `removeLast`
    /// has room for its points only, and the appends after it grew that chunk as a doubling
    /// array (a chunk moved, and past `chunkCapacity`).
    @Test func aChangeInPlaceAfterACopyKeepsTheLastChunksRoom() {
        let c = Route.chunkCapacity
        for change in 0..<3 {
            var r = Route()
            for i in 0..<(c + c / 2 + 100) { r.append(lat: 52, lon: 4, alt: 0, t: Double(i), distanceM: Double(i)) }
            let copy = r
            switch change {
            case 0: r.setLastDistance(1e6)
            case 1: r.setDistance(7, at: c + 5)
            default: r.removeLast()
            }
            let before = r.chunkAddresses
            while r.count < 2 * c { r.append(lat: 53, lon: 5, alt: 1, t: Double(r.count)) }
            #expect(r.chunkAddresses == before, "change \(change): the second chunk moved as it filled")
            #expect(r.capacity == 2 * c, "change \(change): \(r.capacity) for \(r.count) points")
            r.append(lat: 53, lon: 5, alt: 1, t: Double(r.count))
            #expect(r.capacity - r.count < c && copy.count == c + c / 2 + 100)
        }
    }

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
