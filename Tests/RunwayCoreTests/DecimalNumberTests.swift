import Testing
import RunwaySim
@testable import RunwayCore
#if canImport(Glibc)
import Glibc
#endif

/// `DecimalNumber` against glibc's `strtod` (correctly rounded), the conversion cJSON uses.
@Suite("Exact decimal to double")
struct DecimalNumberTests {
    /// The fast conversion of `text` (nil: declined), read as a whole token.
    func fast(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBytes { b -> Double? in
            var i = 0
            guard let v = DecimalNumber.read(b, at: &i), i == b.count else { return nil }
            return v
        }
    }

    func strtodOf(_ text: String) -> Double { text.withCString { strtod($0, nil) } }

    /// Checks that a converted text gives strtod's bits; returns whether it was converted.
    @discardableResult
    func agrees(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let v = fast(text) else { return false }
        let ref = strtodOf(text)
        #expect(v.bitPattern == ref.bitPattern, "\(text): fast \(v) strtod \(ref)", sourceLocation: sourceLocation)
        return true
    }

    @Test func commonShapesConvertExactly() {
        for text in ["0", "-0", "0.0", "-0.0", "1", "-1", "52.3731234", "4.8897123", "1700000000.5", "0.1", "0.3",
                     "37.414756743237376", "-122.06888635642827", "-17.600000000000023",
                     "2.1999999999999886", "1e5", "1210092981027128.0", "1e19", "12345678901234567e2", "1E5", "1e+5", "1e-5", "123.456e-7", "9007199254740992",
                     "9007199254740993", "9007199254740995", "1e22", "4.35e-20",
                     "0.000000000000000000000000001", "1234567890123456789", "-0.5600000023841858"] {
            #expect(agrees(text), "\(text) was not converted")
        }
        // Exact ties and exactly written doubles beyond 2^53: declined or strtod's bits.
        for text in ["1e23", "1257.5999755859375", "1551636199872751.5", "8.98846567431158e307"] { agrees(text) }
        #expect(fast("-0")?.sign == .minus)
        #expect(fast("0e999")?.bitPattern == 0)
    }

    /// Outside the exact methods' reach the conversion declines (cJSON's strtod decides).
    @Test func declinesWhatItCannotProve() {
        for text in ["1e400", "-1e400", "1e-400", "5e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
                     "1e97", "1e-117", "12345678901234567890", "18446744073709551615", "1.2345678901234567890", "1e12345"] {
            #expect(fast(text) == nil, "\(text) should be declined")
        }
    }

    @Test func refusesWhatIsNotAJSONNumber() {
        for text in ["01", "-01", "1.", ".5", "+1", "1e", "1e+", "-", "--1", "1.e5", "e5", "0x10", "1ee5", "",
                     "0." + String(repeating: "0", count: 62) + "1"] {
            #expect(fast(text) == nil, "\(text) should be refused")
        }
        // It stops at the first byte outside the grammar; the caller requires a delimiter there.
        Array("1.5-2".utf8).withUnsafeBytes { b in
            var i = 0
            #expect(DecimalNumber.read(b, at: &i) == 1.5 && i == 3)
        }
    }

    /// Random digit strings of every shape: whatever converts has strtod's bits, and most do.
    @Test func generatedStringsAgreeWithStrtod() {
        var rng = SimRandom(seed: 20, stream: 1)
        var converted = 0
        let total = 200_000
        for _ in 0..<total {
            let digits = 1 + Int(rng.next() % 19)
            var mantissa = String(1 + rng.next() % 9)
            for _ in 1..<digits { mantissa.append(String(rng.next() % 10)) }
            let point = Int(rng.next() % UInt64(digits + 1))
            var text = rng.next() % 2 == 0 ? "" : "-"
            if point == 0 {
                text += "0." + String(repeating: "0", count: Int(rng.next() % 4)) + mantissa
            } else if point == digits {
                text += mantissa
            } else {
                text += mantissa.prefix(point) + "." + mantissa.dropFirst(point)
            }
            if rng.next() % 3 == 0 {
                let e = Int(rng.next() % 240) - 120
                text += (rng.next() % 2 == 0 ? "e" : "E") + (e >= 0 && rng.next() % 2 == 0 ? "+" : "") + String(e)
            }
            if agrees(text) { converted += 1 }
        }
        #expect(converted > total * 9 / 10, "only \(converted) of \(total) converted")
    }

    /// Random doubles written shortest (Swift's description, 17 digits at most) and with %.Ng:
    /// read back, the same bits as strtod's and, for the shortest form, the double itself.
    @Test func randomDoublesRoundTrip() {
        var rng = SimRandom(seed: 20, stream: 2)
        var converted = 0
        let total = 100_000
        for k in 0..<total {
            let d = Double(bitPattern: rng.next())
            guard d.isFinite, d != 0, abs(d.exponent) < 300 else { continue }
            let text = "\(d)"
            if let v = fast(text) {
                #expect(v.bitPattern == d.bitPattern, "\(text) read as \(v)")
                #expect(v.bitPattern == strtodOf(text).bitPattern, "\(text)")
                converted += 1
            }
            var buf = [CChar](repeating: 0, count: 64)
            _ = withVaList([d]) { vsnprintf(&buf, 64, "%.\(1 + k % 19)g", $0) }
            let printed = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            agrees(printed)
        }
        #expect(converted > 0)
        // Doubles a recording would hold (|x| from 1e-20 to 1e20), written shortest: converted
        // (but for exactly written ones beyond 2^53, about 1e15 with a half) and exact.
        var recorded = 0
        for _ in 0..<50_000 {
            let magnitude = Double(Int(rng.next() % 40) - 20)
            let d = Double(bitPattern: rng.next() & 0x000F_FFFF_FFFF_FFFF | 0x3FF0_0000_0000_0000) * pow(10, magnitude)
            let text = "\(d)"
            guard let v = fast(text) else { continue }
            #expect(v.bitPattern == d.bitPattern, "\(text) read as \(v)")
            recorded += 1
        }
        #expect(recorded >= 49_500, "only \(recorded) of 50000 converted")
    }

    /// Halfway cases: exact ties between two doubles round to even, as strtod does.
    @Test func tiesRoundToEven() {
        for text in ["9007199254740993", "9007199254740995", "4503599627370496.5", "4503599627370497.5",
                     "1.00000000000000011102230246251565404236316680908203125",
                     "18014398509481993", "18014398509481995"] {
            agrees(text)
        }
        #expect(fast("9007199254740993") == 9007199254740992)
        #expect(fast("9007199254740995") == 9007199254740996)
    }

    /// `readBeforeDelimiter` (the fast path's one-pass reading, a closing brace after the
    /// number): random numbers of every length up to 21 digits, with and without a fraction,
    /// sign and exponent, give strtod's bits and stop where `read` stops, or are declined as
    /// `read` declines them.
    @Test func readBeforeDelimiterAgreesWithStrtod() {
        var rng = SimRandom(seed: 20, stream: 4)
        var onePass = 0
        for k in 0..<300_000 {
            let digits = 1 + Int(rng.next() % 21)
            var text = rng.next() % 2 == 0 ? "" : "-"
            var body = ""
            for d in 0..<digits { body.append(String(d == 0 && digits > 1 && k % 7 != 0 ? 1 + rng.next() % 9 : rng.next() % 10)) }
            let point = Int(rng.next() % UInt64(digits + 1))
            if k % 5 == 0 {
                text += "0." + body                                  // leading zero, fraction only
            } else if point == 0 || point == digits {
                text += body
            } else {
                text += body.prefix(point) + "." + body.dropFirst(point)
            }
            if k % 11 == 0 { text += "e" + String(Int(rng.next() % 40) - 20) }
            if k % 13 == 0 { text += "." }                           // "1." and the like
            let bytes = Array((text + "}").utf8)
            bytes.withUnsafeBytes { b in
                var i = 0, j = 0
                let fast = DecimalNumber.readBeforeDelimiter(b, at: &i)
                let reference = DecimalNumber.read(b, at: &j)
                #expect(fast?.bitPattern == reference?.bitPattern, "\(text)")
                guard let v = fast else { return }
                #expect(i == j, "\(text)")
                if i == b.count - 1 {
                    #expect(v.bitPattern == strtodOf(text).bitPattern, "\(text): \(v)")
                    if digits <= 16 && k % 11 != 0 { onePass += 1 }
                }
            }
        }
        #expect(onePass > 50_000)
        // The edges of the one-pass branch: 19 digits, 2^53 and one more, every fraction length.
        for text in ["9007199254740992", "9007199254740993", "900719925474099.3", "0.9007199254740993",
                     "1234567890123456789", "0.1234567890123456789", "123456789.0123456789", "-0", "-0.0", "0.0000000000000000001",
                     "4.9406564584124654", "1797693134862315.7", "0.30000000000000004", "52.3731234", "1700000000.0"] {
            #expect(agreesBeforeDelimiter(text), "\(text)")
        }
    }

    /// Whether `readBeforeDelimiter` reads `text` (then followed by "}") as strtod does.
    func agreesBeforeDelimiter(_ text: String) -> Bool {
        Array((text + "}").utf8).withUnsafeBytes { b in
            var i = 0
            guard let v = DecimalNumber.readBeforeDelimiter(b, at: &i) else { return false }
            return i == b.count - 1 && v.bitPattern == strtodOf(text).bitPattern
        }
    }
}
