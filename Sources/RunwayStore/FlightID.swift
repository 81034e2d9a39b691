#if canImport(Glibc)
import Glibc
#endif

extension FlightStore {
    /// A new flight id: the UTC start time, then 24 random bits in hex.
    ///
    /// Ids sort by start time (as text) and do not collide in practice: two flights would have to
    /// start in the same second and draw the same 1-in-16.7-million suffix.
    ///
    ///     FlightStore.newFlightID(startT: 1_764_439_512)   // "20251129T180512Z-3fa9c2"
    ///
    /// - Parameter startT: unix seconds; NaN (a pending start) or a time outside 1970...5138
    ///   uses the current time.
    public static func newFlightID(startT: Double) -> String {
        var t = startT
        if !(t.isFinite && t >= 0 && t < 1e11) { t = realtimeNow() }
        if !(t.isFinite && t >= 0 && t < 1e11) { t = 0 }
        let seconds = Int64(t.rounded(.down))
        let c = civil(days: seconds / 86_400)
        let s = seconds % 86_400
        var g = SystemRandomNumberGenerator()  // getrandom(2) on Linux
        let suffix = g.next() & 0xFF_FFFF
        return pad(c.year, 4) + pad(c.month, 2) + pad(c.day, 2) + "T"
            + pad(s / 3600, 2) + pad(s % 3600 / 60, 2) + pad(s % 60, 2) + "Z-"
            + pad(Int64(suffix), 6, radix: 16)
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's
    /// `civil_from_days`), for days ≥ 0.
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097                                        // [0, 146096]
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365  // [0, 399]
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)                  // [0, 365]
        let mp = (5 * doy + 2) / 153                                       // [0, 11], March first
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func pad(_ v: Int64, _ width: Int, radix: Int = 10) -> String {
        let s = String(v, radix: radix)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func realtimeNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Nanoseconds of CLOCK_MONOTONIC: the clock the batched mode measures its second with.
    public static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(clamping: ts.tv_sec) &* 1_000_000_000 &+ UInt64(clamping: ts.tv_nsec)
    }
}
