import Testing
import RunwayStore

@Suite("Flight ids") struct FlightIDTests {
    @Test func anIDIsTheUTCStartTimeThenSixHexDigits() {
        let cases: [(Double, String)] = [
            (0, "19700101T000000Z"),
            (1_764_439_512.999, "20251129T180512Z"),   // seconds are floored
            (951_782_400, "20000229T000000Z"),          // a century leap day
            (1_709_164_800, "20240229T000000Z"),
            (4_102_444_799, "20991231T235959Z"),
            (99_999_999_999, "51381116T094639Z"),       // the last time an input may carry
        ]
        for (t, stamp) in cases {
            let id = FlightStore.newFlightID(startT: t)
            #expect(id.hasPrefix(stamp + "-"), "\(t) → \(id)")
            #expect(Self.wellFormed(id), "\(id)")
        }
    }

    @Test func idsOfTheSameSecondDifferInTheirRandomPart() {
        let ids = Set((0..<16).map { _ in FlightStore.newFlightID(startT: 1_764_439_512) })
        #expect(ids.count > 1)
    }

    @Test func aPendingOrImpossibleStartUsesTheCurrentTime() {
        for t in [Double.nan, .infinity, -1, 1e12] {
            let id = FlightStore.newFlightID(startT: t)
            #expect(Self.wellFormed(id), "\(id)")
            #expect(id >= "2024", "\(id)")
        }
    }

    @Test func idsSortByStartTimeAcrossDaysMonthsAndYears() {
        // Every day for 500 years: each day's id is after the previous day's, and the date is a
        // valid calendar date (month lengths, leap years).
        var previous = ""
        var t = 0.0
        while t < 500 * 366 * 86_400 {
            let stamp = String(FlightStore.newFlightID(startT: t + 86_399).prefix(16))
            #expect(stamp > previous)
            let y = Int(stamp.prefix(4)) ?? 0, m = Int(stamp.dropFirst(4).prefix(2)) ?? 0
            let d = Int(stamp.dropFirst(6).prefix(2)) ?? 0
            let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
            let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            if !((1...12).contains(m) && (1...days[max(0, min(11, m - 1))]).contains(d)) {
                Issue.record("invalid date \(stamp)")
                return
            }
            #expect(stamp.hasSuffix("T235959Z"))
            previous = stamp
            t += 86_400
        }
    }

    static func wellFormed(_ id: String) -> Bool {
        let b = Array(id.utf8)
        guard b.count == 23, b[8] == UInt8(ascii: "T"), b[15] == UInt8(ascii: "Z"), b[16] == UInt8(ascii: "-") else { return false }
        let digits = b[0..<8] + b[9..<15]
        return digits.allSatisfy { (0x30...0x39).contains($0) }
            && b[17...].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
