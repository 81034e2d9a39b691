#if canImport(Glibc)
import Glibc
#endif

/// The PFD's display strings, with the rules of the RunWay app.
public enum PFD {
    /// Pace as `m:ss`, rounded to the nearest second; `--:--` for NaN, ±inf and values ≤ 0.
    ///
    ///     PFD.pace(4 + 29.0 / 60)  // "4:29"
    public static func pace(_ minPerKm: Double) -> String {
        guard let seconds = wholeSeconds(minPerKm * 60, rounding: .toNearestOrAwayFromZero), seconds > 0 else {
            return "--:--"
        }
        return minutesSeconds(seconds)
    }

    /// The pace tape: the pace rounded to the nearest 15 s and two ticks either side.
    ///
    ///     PFD.paceTape(4 + 29.0 / 60)  // ["4:00", "4:15", "4:30", "4:45", "5:00"]
    public static func paceTape(_ minPerKm: Double) -> [String] {
        guard let s = wholeSeconds(minPerKm * 60 / 15, rounding: .toNearestOrAwayFromZero), s > 0 else { return [] }
        let centre = s * 15
        return (-2...2).map { k in
            let v = centre + k * 15
            return v > 0 ? minutesSeconds(v) : "--:--"
        }
    }

    static let points8 = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
    static let points4 = ["N", "E", "S", "W"]

    /// One of 8 compass points by 45° sectors centred on N (108.19° → "E"); `--` when unknown.
    public static func direction(_ heading: Double) -> String {
        guard let h = normalisedHeading(heading) else { return "--" }
        let sector = Int((h / 45).rounded(.toNearestOrAwayFromZero)) % 8
        return points8[sector]
    }

    /// The heading tape: the heading rounded to 90° with the neighbours at ±90° (["N","E","S"]).
    public static func headingTape(_ heading: Double) -> [String] {
        guard let h = normalisedHeading(heading) else { return [] }
        let q = Int((h / 90).rounded(.toNearestOrAwayFromZero)) % 4
        return [points4[(q + 3) % 4], points4[q], points4[(q + 1) % 4]]
    }

    /// Elapsed time as `HH:MM:SS` of whole seconds (floor); `--:--:--` when unknown or negative.
    public static func time(_ elapsed: Double) -> String {
        guard let s = wholeSeconds(elapsed, rounding: .down), s >= 0 else { return "--:--:--" }
        return pad2(s / 3600) + ":" + pad2(s / 60 % 60) + ":" + pad2(s % 60)
    }

    /// Distance in kilometres with two decimals ("5.03"); `--` when unknown.
    public static func distance(_ metres: Double) -> String {
        guard let hundredths = wholeSeconds(metres / 10, rounding: .toNearestOrAwayFromZero) else { return "--" }
        let sign = hundredths < 0 ? "-" : ""
        let a = abs(hundredths)
        return sign + String(a / 100) + "." + pad2(a % 100)
    }

    /// Altitude in whole metres ("123"); `--` when unknown.
    public static func altitude(_ metres: Double) -> String {
        guard let m = wholeSeconds(metres, rounding: .toNearestOrAwayFromZero) else { return "--" }
        return String(m)
    }

    /// Average pace with its prefix ("AVG 5:00").
    public static func averagePace(_ minPerKm: Double) -> String { "AVG " + pace(minPerKm) }

    /// A whole number for display ("148"); `--` when unknown.
    public static func whole(_ v: Double) -> String { altitude(v) }

    /// Rounds to an Int without trapping: nil for NaN, infinities and magnitudes beyond 1e12.
    static func wholeSeconds(_ v: Double, rounding: FloatingPointRoundingRule) -> Int? {
        guard v.isFinite, abs(v) < 1e12 else { return nil }
        return Int(v.rounded(rounding))
    }

    static func normalisedHeading(_ h: Double) -> Double? {
        guard h.isFinite else { return nil }
        var x = fmod(h, 360)
        if x < 0 { x += 360 }
        return x
    }

    static func minutesSeconds(_ seconds: Int) -> String { String(seconds / 60) + ":" + pad2(seconds % 60) }

    static func pad2(_ v: Int) -> String { v < 10 ? "0" + String(v) : String(v) }
}
