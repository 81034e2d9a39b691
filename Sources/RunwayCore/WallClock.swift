#if canImport(Glibc)
import Glibc
#endif

/// The wall clock, for the live clock mode only (the core itself never reads it).
public enum WallClock {
    /// Unix seconds now.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
