/// The recorder's own interval between fixes, against which a wait for a fix is judged.
///
/// A phone gives a fix every second, but a watch saving power or a logger set to 30 or 60 s gives
/// one every half minute or minute. Each of its waits is longer than `gap_s`, so each of its
/// steps goes through the gap stage (its line waits for the next fix to bear it out, which keeps
/// a junk fix out as after a tunnel), but it is the recorder's rhythm, not a break in it: its line
/// is the route's and counts whatever `count_gaps` says. A wait is a **silence** (a break in the
/// rhythm) when it is longer than `gapIntervals` of the recorder's intervals (three: one or two
/// missed fixes are not a break). The recorder's interval is the lower median of the intervals
/// between the last `remembered + 1` fixes before the one judged (the wait being judged is not
/// among them), so a gap does not make itself the rhythm, and a recorder that changes its interval
/// is followed within three fixes. Before any interval is known (the second fix heard: a watch
/// usually has fixes before its start) every wait is a silence, so a wait longer than `gap_s` is a
/// gap as it always was: one fix and then ten minutes without one is not a rhythm, and with
/// `count_gaps` off its line must not count.
///
///     var c = FixCadence(gapS: 30)
///     for t in stride(from: 0.0, through: 240, by: 60) { c.hear(at: t) }
///     c.isSilence(afterS: 60)    // false: the recorder's interval is 60 s
///     c.isSilence(afterS: 200)   // true: more than three of them
///     c.isGap(afterS: 200)       // true: longer than gap_s too (filters off: a new segment)
public struct FixCadence: Sendable, Equatable {
    /// How many of the recorder's intervals a wait must exceed to be a gap or a silence.
    public static let gapIntervals = 3.0
    /// How many intervals the median is taken over.
    static let remembered = 5

    public let gapS: Double
    /// The last intervals (a ring of `remembered`; `count` of them are set), seconds. Inline
    /// storage: heard on every fix's path, it allocates nothing.
    private var intervals = SIMD8<Double>()
    private var next = 0, count = 0
    /// The time of the last fix heard (NaN: none).
    private var lastT = Double.nan

    public init(gapS: Double) { self.gapS = gapS }

    /// Notes a fix at `t` (after it was judged). Repeated or earlier times add no interval.
    public mutating func hear(at t: Double) {
        guard !lastT.isNaN else { lastT = t; return }
        guard t > lastT else { return }
        // (`next` stays below `remembered` and `count` at most it: no overflow to check; `& 7` keeps the
        // index within the SIMD8's lanes where the compiler sees it, so no bounds check either.)
        intervals[next & 7] = t - lastT
        next = next &+ 1 == FixCadence.remembered ? 0 : next &+ 1
        count = min(count &+ 1, FixCadence.remembered)
        lastT = t
    }

    /// The recorder's interval: the lower median of the remembered intervals (NaN: none yet).
    public var intervalS: Double {
        guard count > 0 else { return .nan }
        var known = (0..<count).map { intervals[$0] }
        known.sort()
        return known[(count - 1) / 2]
    }

    /// Whether a wait of `dt` seconds since the last fix is a break in the track: longer than
    /// `gap_s` and a silence.
    @inline(__always)
    public func isGap(afterS dt: Double) -> Bool {
        dt > gapS && isSilence(afterS: dt)
    }

    /// Whether a wait of `dt` seconds is longer than the recorder's rhythm explains (missed
    /// fixes); true before any interval is known.
    public func isSilence(afterS dt: Double) -> Bool {
        let interval = intervalS
        return interval.isNaN || dt > FixCadence.gapIntervals * interval
    }
}
