/// Stretches of time in order, merged where they touch: what speed samples measured since the
/// latest fix (`SpeedSensorStage.measuredSincePositioned`). A gap's line, or a pause's leg end,
/// counts the cruise time they left unmeasured: summed over the spans as the clock has cruise
/// in them when the line is credited (a stand the sensor measured in a hold that stayed a
/// pause is no cruise; a hold a resume backdated over is).
///
///     var s = TimeSpans()
///     s.add(from: 100, to: 101); s.add(from: 101, to: 130)   // one span, 100 ... 130
///     s.sum { a, b in b - a }                                 // 30
struct TimeSpans: Sendable, Equatable {
    struct Span: Sendable, Equatable { var from: Double, to: Double }
    /// Room for the spans of one silence (a sensor that falls silent for longer than `gap_s`
    /// starts a new one); when full, the last takes the rest: the time between counts as
    /// measured, so a line counts less, never twice.
    static let capacity = 32
    private(set) var spans: [Span] = []

    var isEmpty: Bool { spans.isEmpty }

    mutating func add(from: Double, to: Double) {
        guard to > from else { return }
        if let last = spans.last, from <= last.to || spans.count == Self.capacity {
            spans[spans.count - 1].to = max(last.to, to)
            return
        }
        spans.append(Span(from: from, to: to))
    }

    mutating func add(_ other: TimeSpans) { for s in other.spans { add(from: s.from, to: s.to) } }

    mutating func clear() { if !spans.isEmpty { spans.removeAll(keepingCapacity: true) } }

    /// `seconds(from, to)` summed over the spans.
    func sum(_ seconds: (Double, Double) -> Double) -> Double { spans.reduce(0) { $0 + seconds($1.from, $1.to) } }
}
