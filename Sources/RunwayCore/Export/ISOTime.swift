/// Unix time as ISO 8601 UTC text (`2023-11-14T22:13:20.500Z`), without Foundation.
///
/// The civil date comes from Howard Hinnant's `civil_from_days` (proleptic Gregorian calendar,
/// exact for every day of years 0…9999). Times are rounded to the millisecond; the fraction is
/// written only when it is not zero, as three digits.
///
/// ```swift
/// ISOTime.string(0)              // "1970-01-01T00:00:00Z"
/// ISOTime.string(951_782_400)    // "2000-02-29T00:00:00Z"
/// ISOTime.string(1_700_000_000.5) // "2023-11-14T22:13:20.500Z"
/// ```
public enum ISOTime {
    /// The earliest and latest representable times: 0000-01-01T00:00:00Z and the last
    /// millisecond of 9999 (four-digit years only).
    static let minMs: Int64 = -62_167_219_200_000
    static let maxMs: Int64 = 253_402_300_799_999
    static let msPerDay: Int64 = 86_400_000

    /// `t` (unix seconds) as ISO 8601 UTC; nil when `t` is not finite or outside years 0…9999.
    public static func string(_ t: Double) -> String? {
        guard t.isFinite else { return nil }
        let scaled = (t * 1000).rounded()
        guard scaled >= Double(minMs), scaled <= Double(maxMs) else { return nil }
        let ms = Int64(scaled)   // in range: checked just above
        var days = ms / msPerDay
        var inDay = ms % msPerDay
        if inDay < 0 { inDay += msPerDay; days -= 1 }
        let date = civil(days: days)
        var out = ""
        out.reserveCapacity(24)
        pad(date.year, 4, &out); out += "-"
        pad(date.month, 2, &out); out += "-"
        pad(date.day, 2, &out); out += "T"
        pad(inDay / 3_600_000, 2, &out); out += ":"
        pad(inDay / 60_000 % 60, 2, &out); out += ":"
        pad(inDay / 1000 % 60, 2, &out)
        if inDay % 1000 != 0 { out += "."; pad(inDay % 1000, 3, &out) }
        out += "Z"
        return out
    }

    /// The date `days` after 1970-01-01 (negative before it), proleptic Gregorian.
    public static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468                      // days since 0000-03-01
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097                 // day of the 400-year era, 0…146096
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365   // 0…399
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)                   // 0…365, from March
        let mp = (5 * doy + 2) / 153                                        // 0 = March … 11 = February
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Appends `v` (≥ 0) with leading zeros to `width` digits.
    static func pad(_ v: Int64, _ width: Int, _ out: inout String) {
        let digits = String(v)
        if digits.count < width { out += String(repeating: "0", count: width - digits.count) }
        out += digits
    }
}
