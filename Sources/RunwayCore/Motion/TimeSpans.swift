/// Stretches of time in order, merged where they touch: what speed samples measured since the
/// latest fix (`SpeedSensorStage.measuredSincePositioned`). A gap's line, or a pause's leg end,
/// counts the cruise time they left unmeasured: summed over the spans as the clock has cruise
/// in them when the line is credited (a stand the sensor measured in a hold that stayed a
/// pause is no cruise; a hold a resume backdated over is).
///
///     var s = TimeSpans()
///     s.add(from: 100, to: 101); s.add(from: 101, to: 130)   // one span, 100 ... 130
///     s.sum { a, b in b - a }                                 // 30
///
/// A plain value of fixed size: no storage of its own to retain or release.
struct TimeSpans: Sendable, Equatable {
    struct Span: Sendable, Equatable { var from = 0.0, to = 0.0 }
    /// Room for the spans of one silence (a sensor that falls silent for longer than `gap_s`
    /// starts a new one); when full, the last takes the rest: the time between counts as
    /// measured, so a line counts less, never twice.
    static let capacity = 4
    private var s0 = Span(), s1 = Span(), s2 = Span(), s3 = Span()
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    private func at(_ i: Int) -> Span {
        switch i {
        case 0: return s0
        case 1: return s1
        case 2: return s2
        default: return s3
        }
    }

    private mutating func set(_ i: Int, _ span: Span) {
        switch i {
        case 0: s0 = span
        case 1: s1 = span
        case 2: s2 = span
        default: s3 = span
        }
    }

    mutating func add(from: Double, to: Double) {
        guard to > from else { return }
        if count > 0, from <= at(count - 1).to || count == Self.capacity {
            var last = at(count - 1)
            last.to = max(last.to, to)
            set(count - 1, last)
            return
        }
        set(count, Span(from: from, to: to))
        count += 1
    }

    mutating func add(_ other: TimeSpans) {
        for i in 0..<other.count { let s = other.at(i); add(from: s.from, to: s.to) }
    }

    mutating func clear() { count = 0 }

    /// `seconds(from, to)` summed over the spans.
    func sum(_ seconds: (Double, Double) -> Double) -> Double {
        var total = 0.0
        for i in 0..<count { let s = at(i); total += seconds(s.from, s.to) }
        return total
    }
}
