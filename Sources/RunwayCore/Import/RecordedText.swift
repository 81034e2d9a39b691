/// Numbers and times as XML recordings write them, parsed without Foundation and without the C
/// locale functions (`strtod` reads "52,1" in a German locale, and a host may set one).
enum RecordedText {
    /// A decimal number ("52.1", "-0.5", "1e3", "+4"); nil for anything else, including
    /// "nan", "inf", hexadecimal and numbers too large for a Double.
    static func number(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        var digits = 0
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): break
            default: return nil
            }
        }
        guard digits > 0, let v = Double(text), v.isFinite else { return nil }
        return v
    }

    /// An ISO 8601 / XML Schema date-time as unix seconds.
    ///
    /// Accepts `YYYY-MM-DDThh:mm:ss`, optional fractional seconds of any length, and `Z`, `±hh:mm`,
    /// `±hhmm` or `±hh`; without a zone the time is UTC (as GPX specifies). A leap second (`:60`)
    /// counts as the next second. Returns nil when the text is not such a time or a field is out
    /// of range.
    ///
    ///     RecordedText.unixTime("2020-12-27T15:59:36.250+01:00")  // 1609081176.25
    static func unixTime(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { unixTime(bytes: $0) }
    }

    /// `unixTime` of UTF-8 bytes.
    static func unixTime(bytes b: UnsafeBufferPointer<UInt8>) -> Double? {
        // `YYYY-MM-DDThh:mm:ss`: 19 bytes at fixed places.
        guard let p = b.baseAddress, b.count >= 19 else { return nil }
        let n = b.count
        /// The two digits at `k` as a number, or -1.
        @inline(__always)
        func two(_ k: Int) -> Int {
            let hi = p[k] &- 0x30, lo = p[k + 1] &- 0x30
            return hi < 10 && lo < 10 ? Int(hi) &* 10 &+ Int(lo) : -1
        }
        let century = two(0), yy = two(2), month = two(5), day = two(8)
        let hour = two(11), minute = two(14), second = two(17)
        guard century >= 0, yy >= 0, month >= 0, day >= 0, hour >= 0, minute >= 0, second >= 0,
              p[4] == 0x2D, p[7] == 0x2D, p[13] == 0x3A, p[16] == 0x3A,
              p[10] == 0x54 || p[10] == 0x74 || p[10] == 0x20  // T, t or a space
        else { return nil }
        let year = century * 100 + yy
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour <= 23 || (hour == 24 && minute == 0 && second == 0), minute <= 59, second <= 60
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < n, p[i] == 0x2E || p[i] == 0x2C {  // . or ,
            i += 1
            // Up to 15 digits as an integer over a power of ten (both exact in a Double).
            var value = 0, power = 1.0
            let start = i
            while i < n, p[i] &- 0x30 < 10 {
                if i - start < 15 { value = value * 10 + Int(p[i] - 0x30); power *= 10 }
                i += 1
            }
            guard i > start else { return nil }
            fraction = Double(value) / power
        }
        var offset = 0
        if i < n {
            if p[i] == 0x5A || p[i] == 0x7A {  // Z or z
                i += 1
            } else if p[i] == 0x2B || p[i] == 0x2D {  // + or -
                let sign = p[i] == 0x2D ? -1 : 1
                i += 1
                guard i + 2 <= n, case let oh = two(i), oh >= 0, oh <= 23 else { return nil }
                i += 2
                var om = 0
                if i < n {
                    if p[i] == 0x3A { i += 1 }
                    guard i + 2 <= n, case let m = two(i), m >= 0, m <= 59 else { return nil }
                    i += 2
                    om = m
                }
                offset = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == n else { return nil }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400
            + hour * 3600 + minute * 60 + second - offset
        return Double(seconds) + fraction
    }

    /// `number` of UTF-8 bytes (an element's text as `XMLStream` gives it): the same value.
    ///
    /// Plain decimals of up to 15 significant digits and 22 decimals (`52.3456789`, `-3`, `+4`)
    /// are converted here, exactly: the digits are an integer below 2^53 and the power of ten
    /// is exact in a Double, so one correctly rounded division is the correctly rounded value,
    /// what `strtod` gives (Clinger's fast path). Anything else goes through `number(String)`.
    static func number(bytes: UnsafeBufferPointer<UInt8>?) -> Double? {
        guard let bytes, let p = bytes.baseAddress, case let n = bytes.count, n > 0, n <= 64 else { return nil }
        var i = 0
        var negative = false
        if p[0] == UInt8(ascii: "-") || p[0] == UInt8(ascii: "+") {
            negative = p[0] == UInt8(ascii: "-")
            i = 1
        }
        // At most 64 bytes, so the counts cannot overflow; the mantissa wraps only past 19
        // significant digits, and any past 15 go to `slowNumber`.
        var mantissa: UInt64 = 0, digits = 0, significant = 0
        var dot = -1
        while i < n {
            let d = p[i] &- 0x30
            if d < 10 {
                digits &+= 1
                mantissa = mantissa &* 10 &+ UInt64(d)
                // Leading zeros are not significant: the mantissa is 0 until the first other digit.
                if mantissa != 0 { significant &+= 1 }
            } else if p[i] == UInt8(ascii: "."), dot < 0 {
                dot = i
            } else {
                return slowNumber(bytes)
            }
            i &+= 1
        }
        // Every byte after the dot is a digit.
        let decimals = dot < 0 ? 0 : n &- dot &- 1
        guard significant <= 15, digits > 0, decimals <= 22 else { return slowNumber(bytes) }
        let v = Double(mantissa) / powersOfTen[decimals]
        return negative ? -v : v
    }

    private static func slowNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        number(String(decoding: bytes, as: UTF8.self))
    }

    /// 1e0 ... 1e22, each exact in a Double.
    private static let powersOfTen: [Double] = {
        var p: [Double] = [1]
        for _ in 1...22 { p.append(p[p.count - 1] * 10) }
        return p
    }()

    /// The text of `bytes` without surrounding white space.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var lo = 0, hi = bytes.count
        while lo < hi, JSONInput.isSpace(bytes[lo]) { lo += 1 }
        while hi > lo, JSONInput.isSpace(bytes[hi - 1]) { hi -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[lo..<hi]), as: UTF8.self)
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400                                          // 0...399
        let mp = (month + 9) % 12                                         // March = 0
        let doy = (153 * mp + 2) / 5 + day - 1                            // 0...365
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy                   // 0...146096
        return era * 146_097 + doe - 719_468
    }
}
