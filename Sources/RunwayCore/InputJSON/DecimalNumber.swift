/// A JSON number read from bytes and converted to the double `strtod` gives for it, or nothing
/// when the number is outside what the fast conversion is proven exact for.
///
/// Reading takes the strict JSON grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`),
/// at most 19 significant digits and 63 bytes (cJSON reads no more than 63 bytes of a number),
/// and an exponent of at most four digits. Conversion is exact:
/// - Clinger's fast path: a mantissa of at most 2^53 and |exponent| ≤ 22 is one IEEE
///   multiplication or division of two exact doubles, correctly rounded;
/// - a whole number that fits 64 bits: one integer-to-double conversion, correctly rounded;
/// - otherwise Eisel–Lemire (as in Go's `strconv` and `fast_float`): the mantissa times a 128-bit
///   power of ten (`PowersOfTen`), refused (nil) when the truncated product cannot decide the
///   rounding (exact ties, and numbers written out exactly with more than 2^53 as mantissa, such
///   as 1257.5999755859375), or the result would be subnormal, infinite, or the power is not in
///   the table.
/// Nil means "ask strtod" (the caller falls back to cJSON, which calls it).
///
///     var i = 0
///     let bytes: [UInt8] = Array("37.414756743237376,".utf8)
///     bytes.withUnsafeBytes { DecimalNumber.read($0, at: &i) }   // 37.414756743237376, i = 18
struct DecimalNumber {
    /// The significant digits as an integer (at most 19 of them).
    var mantissa: UInt64
    /// The power of ten the mantissa is scaled by.
    var exponent: Int
    var negative: Bool

    /// Reads a number at `i` (advancing `i` past it) and converts it; nil when the bytes are no
    /// strict JSON number or the conversion is not certain (then `i` is unspecified).
    @inline(__always)
    static func read(_ b: UnsafeRawBufferPointer, at i: inout Int) -> Double? {
        guard let n = scan(b, at: &i) else { return nil }
        return n.double
    }

    /// `read` where `b` holds, after `i`, a byte that is no digit, `.`, `-`, `e` or `E` (a
    /// `FlatInputParser` object's closing brace): the loops stop at that byte at the latest, and
    /// each byte looked at follows one of those, so no read needs a bound check. The common
    /// shape — at most 19 bytes of digits and point, no exponent, a mantissa of at most 2^53 —
    /// is converted in this one pass (Clinger: the mantissa over 10^(fraction digits), ≤ 10^17,
    /// one correctly rounded division); any other number is read again by `read`.
    @inline(__always)
    static func readBeforeDelimiter(_ b: UnsafeRawBufferPointer, at index: inout Int) -> Double? {
        var i = index
        let negative = b[i] == 0x2D                                    // -
        if negative { i &+= 1 }
        let digitsStart = i
        var mantissa = UInt64(b[i]) &- 0x30
        guard mantissa < 10 else { return nil }
        i &+= 1
        if mantissa != 0 {                                             // 0: no more integer digits
            while case let d = UInt64(b[i]) &- 0x30, d < 10 {
                mantissa = mantissa &* 10 &+ d
                i &+= 1
            }
        }
        var fraction = 0
        if b[i] == 0x2E {                                              // .
            i &+= 1
            let fractionStart = i
            while case let d = UInt64(b[i]) &- 0x30, d < 10 {
                mantissa = mantissa &* 10 &+ d
                i &+= 1
            }
            fraction = i &- fractionStart
            if fraction == 0 { return readAgain(b, at: &index) }       // "1." is not JSON
        }
        // At most 19 bytes of digits and point (so at most 19 digits, and at most 17 after the
        // point): the mantissa did not wrap, and 10^fraction is exact.
        guard i &- digitsStart <= 19, mantissa <= 1 << 53, b[i] | 0x20 != 0x65 else {   // e E
            return readAgain(b, at: &index)
        }
        index = i
        // fraction ≤ 17 < exactPowers.count (the guard above).
        let v = Double(mantissa) / exactPowers.withUnsafeBufferPointer { $0[fraction] }
        return negative ? -v : v
    }

    /// `read` from `index`: the numbers `readBeforeDelimiter` leaves (`index` is set only when
    /// a number is read, so the caller's index stays in a register). Out of line: rare.
    @inline(__always)
    static func readAgain(_ b: UnsafeRawBufferPointer, at index: inout Int) -> Double? {
        guard let (v, end) = readAgainOutOfLine(b, from: index) else { return nil }
        index = end
        return v
    }

    @inline(never)
    static func readAgainOutOfLine(_ b: UnsafeRawBufferPointer, from start: Int) -> (Double, Int)? {
        var i = start
        guard let v = read(b, at: &i) else { return nil }
        return (v, i)
    }

    /// Reads the digits of a number at `i`; nil for anything outside the strict grammar and the
    /// limits above.
    @inline(__always)
    static func scan(_ b: UnsafeRawBufferPointer, at index: inout Int) -> DecimalNumber? {
        var i = index   // a local index: the loops keep it in a register
        defer { index = i }
        let end = b.count
        let start = i
        var negative = false
        if i < end, b[i] == 0x2D { negative = true; i += 1 }  // -
        guard i < end else { return nil }
        var mantissa: UInt64 = 0
        var significant = 0   // digits in mantissa, leading zeros not counted
        var exponent = 0
        let first = b[i]
        if first == 0x30 {                                     // 0: no more integer digits
            i += 1
        } else if first >= 0x31, first <= 0x39 {
            let digitsStart = i
            let stop = min(end, i + 19)
            while i < stop, case let d = b[i] &- 0x30, d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            if i < end, b[i] &- 0x30 < 10 { return nil }      // a 20th significant digit
            significant = i - digitsStart
        } else {
            return nil
        }
        if i < end, b[i] == 0x2E {                             // .
            i += 1
            let fracStart = i
            if mantissa == 0 { while i < end, b[i] == 0x30 { i += 1 } }   // not significant
            let stop = min(end, i + (19 - significant))
            while i < stop, case let d = b[i] &- 0x30, d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            if i < end, b[i] &- 0x30 < 10 { return nil }      // a 20th significant digit
            guard i > fracStart else { return nil }            // "1." is not JSON
            exponent = fracStart - i
        }
        if i < end, b[i] | 0x20 == 0x65 {                      // e E
            i += 1
            var expNegative = false
            if i < end, b[i] == 0x2B || b[i] == 0x2D { expNegative = b[i] == 0x2D; i += 1 }
            let expStart = i
            var e = 0
            while i < end, case let d = b[i] &- 0x30, d < 10 {
                guard i - expStart < 4 else { return nil }
                e = e * 10 + Int(d)
                i += 1
            }
            guard i > expStart else { return nil }
            exponent += expNegative ? -e : e
        }
        guard i - start <= 63 else { return nil }
        // Trailing zeros of a long mantissa ("1210092981027128.0") in the exponent instead: a
        // shorter mantissa may take the exact paths.
        while mantissa > 1 << 53, mantissa % 10 == 0 {
            mantissa /= 10
            exponent += 1
        }
        return DecimalNumber(mantissa: mantissa, exponent: exponent, negative: negative)
    }

    /// The exact doubles 10^0 ... 10^22.
    static let exactPowers: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// The correctly rounded double, or nil when the fast methods cannot tell it.
    @inline(__always)
    var double: Double? {
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            let m = Double(mantissa)
            let v = exponent < 0 ? m / Self.exactPowers[-exponent] : m * Self.exactPowers[exponent]
            return negative ? -v : v
        }
        return slowPaths()
    }

    /// Whole numbers beyond 2^53 and Eisel–Lemire: out of line, as they are rare.
    @inline(never)
    func slowPaths() -> Double? {
        if exponent >= 0, exponent <= 19 {
            // A whole number that fits 64 bits: the conversion of an integer rounds correctly.
            let (whole, overflow) = mantissa.multipliedReportingOverflow(by: Self.exactIntegerPowers[exponent])
            if !overflow {
                let v = Double(whole)
                return negative ? -v : v
            }
        }
        return eiselLemire()
    }

    /// 10^0 ... 10^19 as integers.
    static let exactIntegerPowers: [UInt64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
                                               100_000_000, 1_000_000_000, 10_000_000_000, 100_000_000_000,
                                               1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
                                               1_000_000_000_000_000, 10_000_000_000_000_000,
                                               100_000_000_000_000_000, 1_000_000_000_000_000_000,
                                               10_000_000_000_000_000_000]

    /// Eisel–Lemire for a non-zero mantissa (Nigel Tao's formulation, Go `strconv.eiselLemire64`).
    func eiselLemire() -> Double? {
        guard exponent >= PowersOfTen.minExponent, exponent <= PowersOfTen.maxExponent, mantissa != 0 else { return nil }
        let index = exponent - PowersOfTen.minExponent
        let clz = mantissa.leadingZeroBitCount
        let man = mantissa << UInt64(clz)
        // ⌊log2(10) · exponent⌋ + 64 + bias − clz (217706 / 2^16 ≈ log2(10), exact over the table).
        var retExp2 = UInt64(bitPattern: Int64((217_706 * exponent) >> 16 + 64 + 1023)) &- UInt64(clz)
        var (xHi, xLo) = man.multipliedFullWidth(by: PowersOfTen.hi[index])
        if xHi & 0x1FF == 0x1FF, xLo &+ man < man {
            // The low bits may carry into the kept ones: take the next 64 bits of the power too.
            let (yHi, yLo) = man.multipliedFullWidth(by: PowersOfTen.lo[index])
            var mergedHi = xHi
            let mergedLo = xLo &+ yHi
            if mergedLo < xLo { mergedHi &+= 1 }
            if mergedHi & 0x1FF == 0x1FF, mergedLo &+ 1 == 0, yLo &+ man < man { return nil }
            xHi = mergedHi
            xLo = mergedLo
        }
        let msb = xHi >> 63
        var retMantissa = xHi >> (msb &+ 9)
        retExp2 = retExp2 &- (1 ^ msb)
        // Exactly half-way between two doubles in the truncated product: undecided.
        if xLo == 0, xHi & 0x1FF == 0, retMantissa & 3 == 1 { return nil }
        retMantissa = (retMantissa &+ (retMantissa & 1)) >> 1
        if retMantissa >> 53 > 0 {
            retMantissa >>= 1
            retExp2 &+= 1
        }
        // Zero (or wrapped): subnormal; 0x7FF or more: infinite. strtod decides those.
        guard retExp2 &- 1 < 0x7FF - 1 else { return nil }
        var bits = retExp2 << 52 | retMantissa & 0x000F_FFFF_FFFF_FFFF
        if negative { bits |= 1 << 63 }
        return Double(bitPattern: bits)
    }
}
