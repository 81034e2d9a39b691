// Decimal digits written straight into the writer's bytes: integers, the digits of the
// shortest doubles (`appendShortest`) and the PFD's clock texts, two digits at a time.
extension JSONWriter {
    /// The decimal digits of `v` (room reserved: 20 bytes).
    @inline(__always)
    mutating func putDigits(_ v: UInt64) { putDigits(v, count: JSONWriter.digitCount(v)) }

    /// Exactly `n` digits of `v` (< 10ⁿ), with leading zeros (room reserved: `n`), from the
    /// right: blocks of 8 cut into four pairs in 32-bit arithmetic, then pairs, then one digit.
    @inline(__always)
    mutating func putDigits(_ v: UInt64, count n: Int) {
        var rest = v
        var end = count &+ n
        var left = n
        while left >= 8 {
            let q = rest / 100_000_000
            putEight(UInt32(truncatingIfNeeded: rest &- q &* 100_000_000), at: end &- 8)
            rest = q; end &-= 8; left &-= 8
        }
        var r = UInt32(truncatingIfNeeded: rest)                // < 10^left ≤ 10⁷
        while left >= 2 {
            let q = r / 100
            putPair(r &- q &* 100, at: end &- 2)
            r = q; end &-= 2; left &-= 2
        }
        if left == 1 { base[end &- 1] = UInt8(truncatingIfNeeded: r) &+ 0x30 }
        count &+= n
    }

    /// The 8 digits of `v` (< 10⁸) at `i` (room reserved).
    @inline(__always)
    func putEight(_ v: UInt32, at i: Int) {
        let high = v / 10_000, low = v &- high &* 10_000
        let a = high / 100, c = low / 100
        putPair(a, at: i); putPair(high &- a &* 100, at: i &+ 2)
        putPair(c, at: i &+ 4); putPair(low &- c &* 100, at: i &+ 6)
    }

    /// The 2 digits of `v` (< 100) at `i` (room reserved), one load and one store.
    @inline(__always)
    func putPair(_ v: UInt32, at i: Int) {
        let pair = UnsafeRawPointer(JSONWriter.digitPairs.utf8Start)
            .loadUnaligned(fromByteOffset: Int(truncatingIfNeeded: v &<< 1), as: UInt16.self)
        UnsafeMutableRawPointer(base + i).storeBytes(of: pair, as: UInt16.self)
    }

    /// "00", "01", … "99".
    static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }

    /// How many decimal digits `v` has (1 for 0): from its bit length, ⌊bits·log₁₀2⌋ (1233/4096
    /// is close enough for 64 bits; JSONWriterTests check every power of ten), plus one when `v`
    /// reaches that power of ten.
    @inline(__always)
    static func digitCount(_ v: UInt64) -> Int {
        let odd = v | 1
        let t = ((64 &- odd.leadingZeroBitCount) &* 1233) &>> 12     // 0...19
        return odd >= ShortestDecimal.pow10(t) ? t &+ 1 : t
    }

    /// `v`'s digits with at least two of them ("07"), for the PFD's clock texts.
    @inline(__always)
    mutating func putPadded2(_ v: UInt64) {
        if v < 100 {
            putPair(UInt32(truncatingIfNeeded: v), at: count)
            count &+= 2
        } else {
            putDigits(v)
        }
    }
}
