#if canImport(Glibc)
import Glibc
#endif

/// The PFD's display strings, with the rules of the RunWay app.
///
/// Each text is written by one function straight into a `JSONWriter`'s bytes (the snapshot's
/// `pfd` object, no String made); the String functions below return the same text.
///
///     PFD.pace(4 + 29.0 / 60)       // "4:29"
///     w.key("pace"); PFD.write(.pace, 4 + 29.0 / 60, to: &w)   // "pace":"4:29"
public enum PFD {
    /// Which text of the PFD.
    public enum Text: Sendable { case pace, averagePace, direction, time, distance, whole }

    /// The longest text any `Text` writes ("AVG " and a pace of 10¹² s: 20 bytes).
    static let maxTextBytes = 24

    /// Writes the text for `v` as a JSON string.
    public static func write(_ text: Text, _ v: Double, to w: inout JSONWriter) {
        w.reserve(maxTextBytes &+ 3)
        ownedWrite(text, v, to: &w)
    }

    /// The same in a run of writes whose buffer is the writer's own (`JSONWriter.room`).
    @inline(__always)
    static func ownedWrite(_ text: Text, _ v: Double, to w: inout JSONWriter) {
        w.ownedPlainString(maxBytes: maxTextBytes) { put(text, v, to: &$0) }
    }

    /// Stores the text for `v` (room reserved: `maxTextBytes`).
    static func put(_ text: Text, _ v: Double, to w: inout JSONWriter) {
        switch text {
        case .pace: putPace(v, to: &w)
        case .averagePace:
            w.putStatic("AVG ")
            putPace(v, to: &w)
        case .direction:
            guard let h = normalisedHeading(v) else { return putStatic("--", to: &w) }
            putStatic(point8(roundedHalfAway(h / 45) % 8), to: &w)
        case .time:
            guard let s = wholeSeconds(v, rounding: .down), s >= 0 else { return putStatic("--:--:--", to: &w) }
            let u = UInt64(truncatingIfNeeded: s)
            w.putPadded2(u / 3600); w.put(UInt8(ascii: ":"))
            w.putPadded2(u / 60 % 60); w.put(UInt8(ascii: ":"))
            w.putPadded2(u % 60)
        case .distance:
            guard let hundredths = wholeSeconds(v / 10, rounding: .toNearestOrAwayFromZero) else { return putStatic("--", to: &w) }
            if hundredths < 0 { w.put(UInt8(ascii: "-")) }
            let a = hundredths.magnitude
            w.putDigits(UInt64(a / 100)); w.put(UInt8(ascii: ".")); w.putPadded2(UInt64(a % 100))
        case .whole:
            guard let m = wholeSeconds(v, rounding: .toNearestOrAwayFromZero) else { return putStatic("--", to: &w) }
            if m < 0 { w.put(UInt8(ascii: "-")) }
            w.putDigits(UInt64(m.magnitude))
        }
    }

    /// The text as a String.
    static func string(_ text: Text, _ v: Double) -> String {
        var w = JSONWriter(capacity: maxTextBytes)
        w.reserve(maxTextBytes)
        put(text, v, to: &w)
        return w.text
    }

    /// Pace as `m:ss`, rounded to the nearest second; `--:--` for NaN, ±inf and values ≤ 0.
    ///
    ///     PFD.pace(4 + 29.0 / 60)  // "4:29"
    public static func pace(_ minPerKm: Double) -> String { string(.pace, minPerKm) }

    /// The pace tape: the pace rounded to the nearest 15 s and two ticks either side.
    ///
    ///     PFD.paceTape(4 + 29.0 / 60)  // ["4:00", "4:15", "4:30", "4:45", "5:00"]
    public static func paceTape(_ minPerKm: Double) -> [String] {
        guard let centre = paceTapeCentre(minPerKm) else { return [] }
        return (-2...2).map { k in
            var w = JSONWriter(capacity: maxTextBytes)
            w.reserve(maxTextBytes)
            putTapeTick(centre + k * 15, to: &w)
            return w.text
        }
    }

    /// Writes the pace tape as a JSON array of strings.
    public static func writePaceTape(_ minPerKm: Double, to w: inout JSONWriter) {
        w.reserve(2)
        ownedWritePaceTape(minPerKm, to: &w)
    }

    /// The same in a run of writes whose buffer is the writer's own (`JSONWriter.room`).
    static func ownedWritePaceTape(_ minPerKm: Double, to w: inout JSONWriter) {
        w.room(2)
        w.putSeparator(); w.put(UInt8(ascii: "[")); w.needsComma = false
        if let centre = paceTapeCentre(minPerKm) {
            for k in -2...2 { w.ownedPlainString(maxBytes: maxTextBytes) { putTapeTick(centre + k * 15, to: &$0) } }
        }
        w.room(1)
        w.put(UInt8(ascii: "]")); w.needsComma = true
    }

    static func paceTapeCentre(_ minPerKm: Double) -> Int? {
        guard let s = wholeSeconds(minPerKm * 60 / 15, rounding: .toNearestOrAwayFromZero), s > 0 else { return nil }
        return s * 15
    }

    static func putTapeTick(_ v: Int, to w: inout JSONWriter) {
        if v > 0 { putMinutesSeconds(v, to: &w) } else { putStatic("--:--", to: &w) }
    }

    /// The 8 compass points from N clockwise (0...7).
    static func point8(_ i: Int) -> StaticString {
        switch i {
        case 0: return "N"
        case 1: return "NE"
        case 2: return "E"
        case 3: return "SE"
        case 4: return "S"
        case 5: return "SW"
        case 6: return "W"
        default: return "NW"
        }
    }

    /// The 4 cardinal points from N clockwise (0...3).
    static func point4(_ i: Int) -> StaticString {
        switch i {
        case 0: return "N"
        case 1: return "E"
        case 2: return "S"
        default: return "W"
        }
    }

    /// One of 8 compass points by 45° sectors centred on N (108.19° → "E"); `--` when unknown.
    public static func direction(_ heading: Double) -> String { string(.direction, heading) }

    /// The heading tape: the heading rounded to 90° with the neighbours at ±90° (["N","E","S"]).
    public static func headingTape(_ heading: Double) -> [String] {
        guard let q = headingQuadrant(heading) else { return [] }
        return [point4((q + 3) % 4), point4(q), point4((q + 1) % 4)].map { $0.description }
    }

    /// Writes the heading tape as a JSON array of strings.
    public static func writeHeadingTape(_ heading: Double, to w: inout JSONWriter) {
        w.reserve(2)
        ownedWriteHeadingTape(heading, to: &w)
    }

    /// The same in a run of writes whose buffer is the writer's own (`JSONWriter.room`).
    static func ownedWriteHeadingTape(_ heading: Double, to w: inout JSONWriter) {
        w.room(2 &+ 3 &* 5 &+ 1)
        w.putSeparator(); w.put(UInt8(ascii: "[")); w.needsComma = false
        if let q = headingQuadrant(heading) {
            w.putStatic("\""); w.putStatic(point4((q &+ 3) % 4))
            w.putStatic("\",\""); w.putStatic(point4(q))
            w.putStatic("\",\""); w.putStatic(point4((q &+ 1) % 4)); w.putStatic("\"")
        }
        w.put(UInt8(ascii: "]")); w.needsComma = true
    }

    static func headingQuadrant(_ heading: Double) -> Int? {
        guard let h = normalisedHeading(heading) else { return nil }
        return roundedHalfAway(h / 90) % 4
    }

    /// Elapsed time as `HH:MM:SS` of whole seconds (floor); `--:--:--` when unknown or negative.
    public static func time(_ elapsed: Double) -> String { string(.time, elapsed) }

    /// Distance in kilometres with two decimals ("5.03"); `--` when unknown.
    public static func distance(_ metres: Double) -> String { string(.distance, metres) }

    /// Altitude in whole metres ("123"); `--` when unknown.
    public static func altitude(_ metres: Double) -> String { string(.whole, metres) }

    /// Average pace with its prefix ("AVG 5:00").
    public static func averagePace(_ minPerKm: Double) -> String { string(.averagePace, minPerKm) }

    /// A whole number for display ("148"); `--` when unknown.
    public static func whole(_ v: Double) -> String { string(.whole, v) }

    /// Rounds to an Int without trapping: nil for NaN, infinities and magnitudes beyond 1e12.
    /// `.down` and `.toNearestOrAwayFromZero` (the PFD's) are worked out from the integer part
    /// here; `Double.rounded` would call the C library's floor or round.
    @inline(__always)
    static func wholeSeconds(_ v: Double, rounding: FloatingPointRoundingRule) -> Int? {
        guard v.isFinite, abs(v) < 1e12 else { return nil }
        switch rounding {
        case .toNearestOrAwayFromZero: return roundedHalfAway(v)
        case .down:
            let t = Int(v)
            return v < Double(t) ? t &- 1 : t
        default: return Int(v.rounded(rounding))
        }
    }

    /// `Int(v.rounded(.toNearestOrAwayFromZero))` for |v| < 10¹²: the integer part toward zero,
    /// moved one away from zero when what is left is at least ½ (v − t is exact: t holds v's
    /// integer bits, the difference its fraction bits).
    @inline(__always)
    static func roundedHalfAway(_ v: Double) -> Int {
        let t = Int(v)
        let rest = v - Double(t)
        return rest >= 0.5 ? t &+ 1 : (rest <= -0.5 ? t &- 1 : t)
    }

    /// The heading in [0, 360); a heading already there is returned as it is (`fmod` is exact,
    /// so the two agree).
    static func normalisedHeading(_ h: Double) -> Double? {
        guard h.isFinite else { return nil }
        if h >= 0, h < 360 { return h }
        var x = fmod(h, 360)
        if x < 0 { x += 360 }
        return x
    }

    static func putPace(_ minPerKm: Double, to w: inout JSONWriter) {
        guard let seconds = wholeSeconds(minPerKm * 60, rounding: .toNearestOrAwayFromZero), seconds > 0 else {
            return putStatic("--:--", to: &w)
        }
        putMinutesSeconds(seconds, to: &w)
    }

    static func putMinutesSeconds(_ seconds: Int, to w: inout JSONWriter) {
        let u = UInt64(truncatingIfNeeded: seconds)
        w.putDigits(u / 60); w.put(UInt8(ascii: ":")); w.putPadded2(u % 60)
    }

    @inline(__always)
    static func putStatic(_ s: StaticString, to w: inout JSONWriter) { w.putStatic(s) }
}
