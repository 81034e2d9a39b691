import Testing
@testable import RunwayCore

@Suite("ShownFix: what the display shows of the latest fix")
struct ShownFixTests {
    @Test func nothingIsShownBeforeAFix() {
        let shown = ShownFix()
        #expect(shown.lat.isNaN && shown.lon.isNaN && shown.alt.isNaN && shown.speed.isNaN && shown.course.isNaN)
    }

    @Test func theLatestFixIsShownAndAMissingAltitudeKeepsTheOneBefore() {
        var shown = ShownFix()
        shown.show(Fix(lat: 52, lon: 4, alt: 12, speed: 3, course: 90))
        #expect(shown.lat == 52 && shown.lon == 4 && shown.alt == 12 && shown.speed == 3 && shown.course == 90)
        shown.show(Fix(lat: 52.001, lon: 4.001))
        #expect(shown.lat == 52.001 && shown.lon == 4.001)
        #expect(shown.alt == 12)                                    // kept
        #expect(shown.speed.isNaN && shown.course.isNaN)            // a fix without speed shows none
        shown.show(Fix(lat: 52, lon: 4, alt: 15))
        #expect(shown.alt == 15)
    }
}
