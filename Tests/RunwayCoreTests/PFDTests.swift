import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import RunwayCore

@Suite("PFD formatting")
struct PFDTests {
    @Test func paceIsMinutesAndSecondsRoundedToTheNearestSecond() {
        #expect(PFD.pace(4 + 29.0 / 60) == "4:29")
        #expect(PFD.pace(5.0) == "5:00")
        #expect(PFD.pace(4 + 59.6 / 60) == "5:00")
        #expect(PFD.pace(4 + 29.4 / 60) == "4:29")
        #expect(PFD.pace(12 + 5.0 / 60) == "12:05")
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 0, -3])
    func paceIsDashesWhenUnknown(_ v: Double) {
        #expect(PFD.pace(v) == "--:--")
        #expect(PFD.paceTape(v).isEmpty)
    }

    @Test func paceTapeIsTheNearest15SecondsAndTwoTicksEitherSide() {
        #expect(PFD.paceTape(4 + 29.0 / 60) == ["4:00", "4:15", "4:30", "4:45", "5:00"])
        #expect(PFD.paceTape(6 + 7.0 / 60) == ["5:30", "5:45", "6:00", "6:15", "6:30"])
    }

    @Test func directionUsesEightSectorsCentredOnNorth() {
        #expect(PFD.direction(108.19) == "E")
        #expect(PFD.direction(0) == "N")
        #expect(PFD.direction(22.4) == "N")
        #expect(PFD.direction(22.6) == "NE")
        #expect(PFD.direction(337.6) == "N")
        #expect(PFD.direction(200) == "S")
        #expect(PFD.direction(-90) == "W")
        #expect(PFD.direction(.nan) == "--")
    }

    @Test func headingTapeIsRoundedTo90WithNeighbours() {
        #expect(PFD.headingTape(108.19) == ["N", "E", "S"])
        #expect(PFD.headingTape(10) == ["W", "N", "E"])
        #expect(PFD.headingTape(260) == ["S", "W", "N"])
        #expect(PFD.headingTape(.nan).isEmpty)
    }

    @Test func timeIsFlooredWholeSeconds() {
        #expect(PFD.time(3725.9) == "01:02:05")
        #expect(PFD.time(0) == "00:00:00")
        #expect(PFD.time(59.999) == "00:00:59")
        #expect(PFD.time(360_000) == "100:00:00")
        #expect(PFD.time(.nan) == "--:--:--")
    }

    @Test func distanceIsKilometresWithTwoDecimalsAndAltitudeWholeMetres() {
        #expect(PFD.distance(5034) == "5.03")
        #expect(PFD.distance(5035) == "5.04")
        #expect(PFD.distance(0) == "0.00")
        #expect(PFD.distance(999) == "1.00")
        #expect(PFD.altitude(123.4) == "123")
        #expect(PFD.altitude(-2.6) == "-3")
        #expect(PFD.altitude(.nan) == "--")
        #expect(PFD.averagePace(5) == "AVG 5:00")
    }

    /// `wholeSeconds` rounds from the integer part itself (no call to the C library's round and
    /// floor); it must agree with `Double.rounded` everywhere, halves and their neighbours included.
    @Test func wholeSecondsRoundsAsDoubleRounded() {
        var rng = SystemRandomNumberGenerator()
        var values: [Double] = [0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
                                1e12.nextDown, -1e12.nextDown, 4503599627370495.5, 0.1, -0.1]
        for _ in 0..<100_000 {
            let half = Double(Int.random(in: -1_000_000_000...1_000_000_000, using: &rng)) + 0.5
            values += [half, half.nextUp, half.nextDown, Double.random(in: -1e12...1e12, using: &rng),
                       Double.random(in: -100...100, using: &rng)]
        }
        for v in values where abs(v) < 1e12 {
            #expect(PFD.wholeSeconds(v, rounding: .toNearestOrAwayFromZero) == Int(v.rounded(.toNearestOrAwayFromZero)), "\(v)")
            #expect(PFD.wholeSeconds(v, rounding: .down) == Int(v.rounded(.down)), "\(v)")
        }
        for v in [Double.nan, .infinity, -.infinity, 1e12, -1e12, 1e300] {
            #expect(PFD.wholeSeconds(v, rounding: .toNearestOrAwayFromZero) == nil)
            #expect(PFD.wholeSeconds(v, rounding: .down) == nil)
        }
    }

    /// Headings already in [0, 360) skip `fmod`; every heading's direction and tape must be those
    /// of the heading reduced by `fmod`.
    @Test func headingsInAndOutOfRangeAgree() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let h = Double.random(in: 0..<360, using: &rng)
            for turns in [-3.0, -1, 1, 7] {
                let other = h + 360 * turns
                guard fmod(other, 360) + (other < 0 ? 360 : 0) == h else { continue }
                #expect(PFD.direction(other) == PFD.direction(h), "\(h)")
                #expect(PFD.headingTape(other) == PFD.headingTape(h), "\(h)")
            }
        }
        #expect(PFD.direction(359.9) == "N" && PFD.direction(337.4) == "NW" && PFD.direction(360) == "N")
        #expect(PFD.headingTape(315) == ["W", "N", "E"] && PFD.headingTape(314.9) == ["S", "W", "N"])
    }

    @Test func hugeValuesDoNotTrap() {
        #expect(PFD.pace(1e300) == "--:--")
        #expect(PFD.time(1e300) == "--:--:--")
        #expect(PFD.distance(-1e300) == "--")
    }
}
