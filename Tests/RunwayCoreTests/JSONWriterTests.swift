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
}
