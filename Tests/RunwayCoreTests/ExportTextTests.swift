import Testing
@testable import RunwayCore

/// The text every export writes with: times, numbers, escaped XML; the format names.
@Suite("Exports: ISO 8601 times, number text, XML text, format names")
struct ExportTextTests {
    // MARK: ISO 8601

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_700_000_000.5, "2023-11-14T22:13:20.500Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (1_582_934_400, "2020-02-29T00:00:00Z"),
        (4_107_456_000, "2100-02-28T00:00:00Z"),
        (4_107_542_400, "2100-03-01T00:00:00Z"),
        (978_307_199.9996, "2001-01-01T00:00:00Z"),
        (1_700_000_000.0004, "2023-11-14T22:13:20Z"),
        (1_700_000_000.25, "2023-11-14T22:13:20.250Z"),
        (1e10, "2286-11-20T17:46:40Z"),
        (-62_167_219_200, "0000-01-01T00:00:00Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
    ] as [(Double, String)])
    func isoTimesAreTheCivilUTCDateWithMillisecondsOnlyWhenFractional(_ t: Double, _ iso: String) {
        #expect(ISOTime.string(t) == iso)
    }

    @Test func isoTimeRefusesWhatItCannotWrite() {
        #expect(ISOTime.string(.nan) == nil)
        #expect(ISOTime.string(.infinity) == nil)
        #expect(ISOTime.string(253_402_300_800) == nil)        // year 10000
        #expect(ISOTime.string(-62_167_219_201) == nil)        // year -1
        #expect(ISOTime.string(1e300) == nil)
    }

    @Test func civilDatesRoundTripEveryDayOfFourHundredYears() {
        // Day by day from 1900-01-01 the civil date advances by exactly one day.
        var (y, m, d) = (Int64(1900), Int64(1), Int64(1))
        let monthDays: [Int64] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        for days in Int64(-25_567)..<Int64(-25_567 + 146_097) {
            let c = ISOTime.civil(days: days)
            #expect(c.year == y && c.month == m && c.day == d, "day \(days)")
            if c.year != y || c.month != m || c.day != d { return }
            let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
            let length = m == 2 && leap ? 29 : monthDays[Int(m - 1)]
            d += 1
            if d > length { d = 1; m += 1 }
            if m > 12 { m = 1; y += 1 }
        }
    }

    // MARK: Number text

    @Test func decimalsAreRoundedAndTrimmedWithoutFoundation() {
        func fixed(_ v: Double, _ p: Int) -> String {
            var b = TextBuffer()
            b.write(fixed: v, p)
            return exportText(b.bytes)
        }
        #expect(fixed(12.3, 2) == "12.3")
        #expect(fixed(12.345, 2) == "12.35" || fixed(12.345, 2) == "12.34")   // binary 12.345 sits just below
        #expect(fixed(-0.004, 2) == "0")
        #expect(fixed(-3.5, 0) == "-4")
        #expect(fixed(1_700_000_000.25, 3) == "1700000000.25")
        #expect(fixed(0.0005, 3) == "0.001")
        #expect(fixed(-12.0625, 4) == "-12.0625")
        #expect(fixed(.nan, 2) == "")
        #expect(fixed(1e300, 2) == 1e300.description)
        func degrees(_ v: Int32) -> String {
            var b = TextBuffer()
            b.write(degreesE7: v)
            return exportText(b.bytes)
        }
        #expect(degrees(523_700_000) == "52.37")
        #expect(degrees(-338_700_001) == "-33.8700001")
        #expect(degrees(-1) == "-0.0000001")
        #expect(degrees(Int32.min) == "-214.7483648")
        #expect(degrees(0) == "0")
    }

    @Test func xmlTextIsEscapedAndForbiddenCharactersLeftOut() {
        var b = TextBuffer()
        b.write(xml: "a<b>&\"c'\u{01}\td\u{FFFE}é")
        #expect(exportText(b.bytes) == "a&lt;b&gt;&amp;&quot;c&apos;\tdé")
    }

    @Test func formatsAreNamedAsTheCABIPassesThem() throws {
        for f in ExportFormat.allCases { #expect(try ExportFormat.named(f.rawValue) == f) }
        #expect(throws: RunwayError.self) { try ExportFormat.named("GPX") }
        do { _ = try ExportFormat.named("kml") } catch { #expect(error.status == .argument && error.message.contains("gpx, tcx, fit, geojson, csv")) }
    }
}
