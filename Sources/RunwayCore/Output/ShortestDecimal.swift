/// The shortest round-trip decimal of a double, computed exactly with 128-bit integers, for the
/// magnitudes a snapshot's numbers have: 2⁻¹⁰ ≤ m < 2⁵⁰ (about 0.00098 to 1.1·10¹⁵), where Swift's
/// `description` writes plain decimals ("48.85661234567891", "0.0123"). `JSONWriter` writes
/// these digits itself and leaves everything else (and the rare cases below) to
/// `Double.write(to:)`; JSONWriterTests compare the two on millions of values.
///
/// The method (the one Ryu and Schubfach rest on, done here with exact integers because the
/// range is small): m = M·2⁻ᵉ with M < 2⁵³ and 3 ≤ e ≤ 62. The decimals that read back as m are
/// those strictly inside (m − 2⁻ᵉ⁻¹, m + 2⁻ᵉ⁻¹) (the ends are midpoints between doubles, which
/// have more fraction digits than any candidate here, so never a tie). Scaled by 10ᵏ the interval
/// is 10ᵏ·2⁻ᵉ wide; with k = ⌈e·log₁₀2⌉ it is at least 1 wide at scale k and less than 1 at k − 1.
/// - At k − 1 it holds at most one integer n: if it holds one, n·10^(1−k) is the shortest (any
///   shorter candidate, padded with zeros, would be that same n) and the only one of its length.
/// - Otherwise the shortest have k fraction digits, and the closest to m is m·10ᵏ rounded to the
///   nearest integer (inside, as the interval reaches at least ½ either side). Should m·10ᵏ lie
///   exactly halfway, the caller falls back (Swift's choice between two equally close ones is
///   its own).
/// Both scales are computed exactly: 4M·5^(k−1) < 2⁵⁵·5¹⁸ < 2⁹⁷, and the powers of two are shifts.
enum ShortestDecimal {
    /// The digits `n` and fraction-digit count `k` (≥ 1) of `m`'s shortest round-trip decimal,
    /// n·10⁻ᵏ, with no trailing zero; nil when `m` is outside 2⁻¹⁰ ≤ m < 2⁵⁰, is a power of two
    /// (its interval is lopsided), is whole, or m·10ᵏ is a tie.
    @inline(__always)
    static func digits(_ m: Double) -> (n: UInt64, k: Int)? {
        let bits = m.bitPattern
        let biased = Int(truncatingIfNeeded: bits &>> 52)   // the sign bit makes it ≥ 2048: refused
        guard biased >= 1013, biased <= 1072 else { return nil }
        let fraction = bits & 0x000F_FFFF_FFFF_FFFF
        guard fraction != 0 else { return nil }
        let e = 1075 &- biased                                  // m = M·2⁻ᵉ, 3 ≤ e ≤ 62
        let k = scale(e)                                        // 1 ≤ k ≤ 19
        let c = (fraction | (1 << 52)) &<< 2                    // 4M < 2⁵⁵
        let p = pow5(k &- 1)                                    // ≤ 5¹⁸ < 2⁴²
        let mid = UInt128(c) &* UInt128(p)                      // 4m·10^(k−1)·2^t, t below
        let half = UInt128(p) &<< 1                             // half the interval, same scale
        let t = e &+ 3 &- k                                     // 5 ≤ t ≤ 46
        let lo = (mid &- half) &>> t, hi = (mid &+ half) &>> t
        if hi != lo {
            // hi is the one integer above the lower end and below the upper (neither end is a
            // multiple of 2^t: both are 2·odd·5^(k−1)).
            var n = UInt64(truncatingIfNeeded: hi), f = k &- 1
            while f > 0, n % 10 == 0 { n /= 10; f &-= 1 }
            return f > 0 ? (n, f) : nil
        }
        let x = mid &* 5                                        // 4m·10ᵏ·2^(t−1) < 2¹⁰⁰
        let s = t &- 1
        let rest = x & ((1 &<< s) &- 1), halfUnit = UInt128(1) &<< (s &- 1)
        var n = UInt64(truncatingIfNeeded: x &>> s)             // < 10·2⁵³
        if rest > halfUnit { n &+= 1 } else if rest == halfUnit { return nil }
        return (n, k)
    }

    /// ⌈e·log₁₀2⌉ for 3 ≤ e ≤ 62 (the smallest k with 10ᵏ ≥ 2ᵉ; JSONWriterTests check every e).
    @inline(__always)
    static func scale(_ e: Int) -> Int { (e &* 78913 &+ (1 &<< 18) &- 1) &>> 18 }

    /// 5ᵏ for 0 ≤ k ≤ 18.
    @inline(__always)
    static func pow5(_ k: Int) -> UInt64 {
        switch k {
        case 0: return 1
        case 1: return 5
        case 2: return 25
        case 3: return 125
        case 4: return 625
        case 5: return 3125
        case 6: return 15625
        case 7: return 78125
        case 8: return 390625
        case 9: return 1953125
        case 10: return 9765625
        case 11: return 48828125
        case 12: return 244140625
        case 13: return 1220703125
        case 14: return 6103515625
        case 15: return 30517578125
        case 16: return 152587890625
        case 17: return 762939453125
        default: return 3814697265625
        }
    }

    /// 10ᵏ for 0 ≤ k ≤ 19.
    @inline(__always)
    static func pow10(_ k: Int) -> UInt64 {
        switch k {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1000
        case 4: return 10000
        case 5: return 100000
        case 6: return 1000000
        case 7: return 10000000
        case 8: return 100000000
        case 9: return 1000000000
        case 10: return 10000000000
        case 11: return 100000000000
        case 12: return 1000000000000
        case 13: return 10000000000000
        case 14: return 100000000000000
        case 15: return 1000000000000000
        case 16: return 10000000000000000
        case 17: return 100000000000000000
        case 18: return 1000000000000000000
        default: return 10000000000000000000
        }
    }
}
