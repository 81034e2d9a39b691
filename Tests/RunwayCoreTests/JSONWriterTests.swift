import Testing
@testable import RunwayCore

/// JSONWriter writes numbers without a String per number (`appendShortest`); the text must stay
/// exactly Swift's shortest round-trip form, the one the JSON shapes in docs/events.md show.
struct JSONWriterTests {
    static let values: [Double] = [
        0, -0.0, 1, -1, 0.1, 1.0 / 3, 2.5e-8, -123.456, .leastNonzeroMagnitude * 2000, .leastNonzeroMagnitude,
        .greatestFiniteMagnitude, 1e21, 1e22, 9007199254740992, 1700000012.3456788,
        46.0512345678, 14.123456789012345, 123456.78901234567, -0.000123456789,
    ]

    @Test func numbersAreTheShortestRoundTripForm() {
        for v in Self.values {
            var w = JSONWriter()
            w.number(v)
            #expect(w.text == v.description, "\(v)")
            #expect(Double(w.text) == v, "\(v) does not read back")
        }
    }

    @Test func numbersInAnObjectAreSeparatedAndNonFiniteIsNull() {
        var w = JSONWriter(capacity: 4)   // grows past its capacity while numbers are written
        w.beginObject()
        w.field("a", 1700000012.3456788)
        w.field("b", Double.nan)
        w.key("c"); w.beginArray(); w.number(-.infinity); w.number(0.5); w.number(12345.678901234567); w.endArray()
        w.field("d", 7)
        w.endObject()
        #expect(w.text == #"{"a":1700000012.3456788,"b":null,"c":[null,0.5,12345.678901234567],"d":7}"#)
    }

    @Test func manyLongNumbersKeepEveryByte() {
        var w = JSONWriter(capacity: 1)
        var expected = ""
        w.beginArray()
        for i in 0..<2000 {
            let v = 1700000000.0 + Double(i) * 0.1234567
            w.number(v)
            expected += (i == 0 ? "" : ",") + v.description
        }
        w.endArray()
        #expect(w.text == "[" + expected + "]")
    }

    /// Whole numbers below 10¹⁵ take the writer's own digit path; the text must still be
    /// `description`'s, on both sides of the boundary and for -0.0.
    @Test func wholeNumbersMatchDescription() {
        var rng = SystemRandomNumberGenerator()
        var values: [Double] = [-0.0, 0, 1, -1, 10, 1e14, 999_999_999_999_999, 1e15, -1e15, 1e15 + 1, 2e15, 1e16,
                                1700000000, 4503599627370496, -4503599627370497]
        for p in 0...15 { values.append(Double(sign: .plus, exponent: 0, significand: 1) * pow10(p)) }
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...16, using: &rng)
            let v = Double(UInt64.random(in: 0...UInt64(pow10(digits)), using: &rng))
            values.append(Bool.random(using: &rng) ? v : -v)
        }
        for v in values {
            var w = JSONWriter(capacity: 1)
            w.number(v)
            #expect(w.text == v.description, "\(v)")
        }
    }

    private func pow10(_ p: Int) -> Double { (0..<p).reduce(1.0) { a, _ in a * 10 } }

    @Test func integersMatchString() {
        let values: [Int] = [0, 1, -1, 9, 10, -10, 99, 100, Int.max, Int.min, 1_234_567_890, -987_654_321]
        for v in values {
            var w = JSONWriter(capacity: 1)
            w.integer(v)
            #expect(w.text == String(v))
        }
        var w = JSONWriter(capacity: 1)
        w.integer(UInt64.max)
        #expect(w.text == String(UInt64.max))
    }

    @Test func stringsAreEscaped() {
        var w = JSONWriter(capacity: 2)
        w.beginArray()
        w.string("plain é")
        w.string("q\"b\\n\nr\rt\t\u{01}\u{1f}")
        w.endArray()
        #expect(w.text == #"["plain é","q\"b\\n\nr\rt\t\u0001\u001f"]"#)
    }

    /// A copied writer has its own bytes (the buffer is copied on write, as an array's would be).
    @Test func aCopiedWriterKeepsItsOwnBytes() {
        var a = JSONWriter(capacity: 64)
        a.beginArray(); a.integer(1)
        var b = a
        b.integer(2); b.endArray()
        a.integer(3); a.endArray()
        #expect(a.text == "[1,3]")
        #expect(b.text == "[1,2]")
    }
}
