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

    /// ShortestDecimal's scale k = ⌈e·log₁₀2⌉ is the smallest with 10ᵏ ≥ 2ᵉ, for every e it takes:
    /// the shortest-digits argument needs the interval ≥ 1 wide at scale k and < 1 at k − 1.
    @Test func shortestDecimalScaleIsExactForEveryExponent() {
        for e in 3...62 {
            let k = ShortestDecimal.scale(e)
            #expect(UInt128(ShortestDecimal.pow10(k)) >= UInt128(1) << e, "e \(e)")
            #expect(UInt128(ShortestDecimal.pow10(k - 1)) < UInt128(1) << e, "e \(e)")
            #expect((1...19).contains(k), "e \(e)")
        }
        for k in 0...18 { #expect(ShortestDecimal.pow5(k) == (0..<k).reduce(UInt64(1)) { a, _ in a * 5 }) }
        for k in 0...19 { #expect(ShortestDecimal.pow10(k) == (0..<k).reduce(UInt64(1)) { a, _ in a * 10 }) }
    }

    /// The writer's own shortest form (`ShortestDecimal`, whole numbers, zero) against Swift's
    /// `description`, which it must equal byte for byte, on random bit patterns over all doubles
    /// and over the fast path's range, values in the ranges a snapshot holds, values with few
    /// decimals, powers of two and their neighbours, and the range's edges.
    @Test func shortestFormMatchesDescriptionEverywhere() {
        var rng = SystemRandomNumberGenerator()
        var values: [Double] = [-0.0, 0, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
                                0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 0.0001, 0.001, 1e-4, 1e15, 1e16, 1e22, 1e23, 0.5, 0.25]
        for e in -1074...1023 {                                  // powers of two and their neighbours
            let p = Double(sign: .plus, exponent: e, significand: 1)
            values += [p, p.nextUp, p.nextDown, 3 * p, p * 1.5, (p * 1.5).nextUp]
        }
        for p in -25...25 {                                      // powers of ten and their neighbours
            let v = Double("1e\(p)") ?? 1
            values += [v, v.nextUp, v.nextDown]
        }
        for _ in 0..<200_000 {                                   // any bit pattern
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)))
        }
        for _ in 0..<300_000 {                                   // any double of 2⁻¹² ≤ m < 2⁵²
            let biased = UInt64.random(in: 1011...1074, using: &rng)
            values.append(Double(bitPattern: biased << 52 | UInt64.random(in: 0..<(1 << 52), using: &rng)))
        }
        for _ in 0..<100_000 {                                   // what a snapshot holds
            values.append(Double.random(in: -90...90, using: &rng))            // latitude
            values.append(Double.random(in: -180...180, using: &rng))          // longitude
            values.append(Double.random(in: 0...100_000, using: &rng))         // metres
            values.append(Double.random(in: 0...15, using: &rng))              // m/s
            values.append(Double.random(in: 2...30, using: &rng))              // min/km
            values.append(Double.random(in: 0...1, using: &rng))
            values.append(Double.random(in: 0...0.01, using: &rng))
            values.append(1_700_000_000 + Double.random(in: 0...100_000, using: &rng))   // Unix time
        }
        for _ in 0..<200_000 {                                   // few decimals: n/10ᵏ, n·10⁻ᵏ
            let k = Int.random(in: 1...9, using: &rng)
            let n = Double(Int64.random(in: -10_000_000...10_000_000, using: &rng))
            values.append(n / pow10(k))
            values.append(n * (1 / pow10(k)))
            values.append(Double(Int.random(in: 0...100_000, using: &rng)) + Double(Int.random(in: 0...9, using: &rng)) / 10)
        }
        var fast = 0
        for v in values {
            var w = JSONWriter(capacity: 1)
            w.number(v)
            guard v.isFinite else { #expect(w.text == "null"); continue }
            #expect(w.text == v.description, "\(v) bits \(v.bitPattern)")
            var n = JSONWriter(capacity: 1)
            n.number(-v)
            #expect(n.text == (-v).description, "\(-v) bits \((-v).bitPattern)")
            if ShortestDecimal.digits(v.magnitude) != nil { fast += 1 }
        }
        // Most of these take the fast path (so the comparison above tests it, not the fallback).
        #expect(fast > values.count / 2, "\(fast) of \(values.count)")
    }

    /// Numbers a snapshot holds are almost all the fast path's, and what it declines is rare:
    /// powers of two, whole numbers and exact ties.
    @Test func typicalNumbersTakeTheFastPath() {
        var rng = SystemRandomNumberGenerator()
        var declined = 0
        for _ in 0..<100_000 {
            for v in [Double.random(in: 40...60, using: &rng), Double.random(in: 0.01...50_000, using: &rng),
                      Double.random(in: 0.001...1, using: &rng)] where ShortestDecimal.digits(v) == nil {
                declined += 1
            }
        }
        #expect(declined < 10, "\(declined) declined")
        #expect(ShortestDecimal.digits(0.5) == nil)      // a power of two
        #expect(ShortestDecimal.digits(3) == nil)        // whole
        #expect(ShortestDecimal.digits(0.0001) == nil)   // below 2⁻¹⁰
        #expect(ShortestDecimal.digits(-1.5) == nil)     // negative: the writer passes the magnitude
        #expect(ShortestDecimal.digits(1.5)! == (15, 1))
        #expect(ShortestDecimal.digits(0.1)! == (1, 1))
        #expect(ShortestDecimal.digits(48.85661234567891)! == (4885661234567891, 14))
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

    /// `digitCount` (bit length × log₁₀2, then one comparison) and the two-digits-at-a-time
    /// writer, on both sides of every power of ten up to UInt64.max.
    @Test func digitCountsAndDigitsOnEveryPowerOfTen() {
        var rng = SystemRandomNumberGenerator()
        var values: [UInt64] = [0, 1, 9, UInt64.max, UInt64.max - 1, 1 << 63, (1 << 63) - 1]
        var p: UInt64 = 1
        for _ in 0...19 {
            values += [p, p - 1, p + 1, p &* 2 &- 1]
            p = p &* 10
        }
        for _ in 0..<20_000 { values.append(UInt64.random(in: 0...UInt64.max, using: &rng) >> UInt64.random(in: 0...63, using: &rng)) }
        for v in values {
            #expect(JSONWriter.digitCount(v) == String(v).count, "\(v)")
            var w = JSONWriter(capacity: 1)
            w.integer(v)
            #expect(w.text == String(v))
            var padded = JSONWriter(capacity: 1)
            padded.reserve(24)
            padded.putPadded2(v)
            #expect(padded.text == (v < 10 ? "0" : "") + String(v))
        }
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
