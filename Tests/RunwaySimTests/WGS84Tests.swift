import Testing
@testable import RunwaySim
#if canImport(Glibc)
import Glibc
#endif

@Suite("WGS84 inside the simulator")
struct WGS84Tests {
    @Test func vincentyMatchesTheFlindersPeakToBuninyongReference() {
        // Vincenty (1975) worked example: 54 972.271 m, initial azimuth 306°52′05.37″.
        let lat1 = -(37 + 57 / 60.0 + 3.72030 / 3600), lon1 = 144 + 25 / 60.0 + 29.52440 / 3600
        let lat2 = -(37 + 39 / 60.0 + 10.15610 / 3600), lon2 = 143 + 55 / 60.0 + 35.38390 / 3600
        let g = WGS84.inverse(lat1: lat1, lon1: lon1, lat2: lat2, lon2: lon2)
        #expect(abs(g.distance - 54_972.271) < 0.001)
        #expect(abs(g.azimuth - (306 + 52 / 60.0 + 5.37 / 3600)) < 1 / 3600.0)
        #expect(abs(WGS84.distance(lat1: 0, lon1: 0, lat2: 0, lon2: 1) - 111_319.4908) < 0.001)
        #expect(abs(WGS84.distance(lat1: 0, lon1: 179.5, lat2: 0, lon2: -179.5) - 111_319.4908) < 0.001)
        #expect(WGS84.distance(lat1: 10, lon1: 20, lat2: 10, lon2: 20) == 0)
    }

    @Test func localOffsetsMoveTheRequestedDistance() {
        for lat in [-80.0, -33.9, 0, 52.37, 80] {
            for (east, north) in [(1000.0, 0.0), (0, 1000), (-700, 700), (3, -4)] {
                let p = WGS84.offset(lat: lat, lon: 179.999, east: east, north: north)
                let d = WGS84.distance(lat1: lat, lon1: 179.999, lat2: p.lat, lon2: p.lon)
                let wanted = (east * east + north * north).squareRoot()
                #expect(abs(d - wanted) < wanted * 2e-4, "lat \(lat) (\(east), \(north)): \(d)")
                #expect(p.lon >= -180 && p.lon < 180)
            }
        }
    }

    @Test func longitudesNormaliseIntoTheHalfOpenRange() {
        #expect(WGS84.normalisedLongitude(180) == -180)
        #expect(WGS84.normalisedLongitude(181) == -179)
        #expect(WGS84.normalisedLongitude(-540) == -180)
        #expect(WGS84.normalisedLongitude(4.89) == 4.89)
        #expect(WGS84.normalisedLongitude(364.89) == 364.89 - 360)           // exactly, no rounding
        #expect(WGS84.normalisedLongitude(-180) == -180)
    }
}
