/// The parts of a route the exports walk: its segments, or its points by the flight's timer
/// legs, as index ranges.
extension Route {
    /// Each segment's points as a range of indices, in order; empty segments are left out.
    ///
    /// Tolerates a `segmentStarts` that is out of order or out of range (a stored route read
    /// back from disk): starts are clamped into the route and kept only while they increase.
    var segmentRanges: [Range<Int>] {
        guard count > 0 else { return [] }
        var starts = [0]
        for s in segmentStarts where s > starts[starts.count - 1] && s < count { starts.append(s) }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(starts.count)
        for (k, s) in starts.enumerated() { ranges.append(s..<(k + 1 < starts.count ? starts[k + 1] : count)) }
        return ranges
    }

    /// The route's points by the timer leg they were recorded in, as ranges of indices, in order;
    /// empty ranges are left out.
    ///
    /// A point belongs to the latest leg that has started by its time: one at exactly a leg's
    /// start (a resume) begins that leg's range, and one between a leg's end and the next leg's
    /// start (recorded while paused) stays with the earlier leg, as do points before the first
    /// leg. So the ranges break only where the timer stopped and started again, never at a gap
    /// or jump inside a leg (a new route segment). A leg whose start is unknown (not finite)
    /// breaks nothing, and a start earlier than the one before it breaks nothing either (a
    /// stored record read back out of order). With no leg known (`legs` empty, or no start
    /// finite) the ranges are `segmentRanges`.
    func legRanges(_ legs: [TimerLeg]) -> [Range<Int>] {
        let starts = TimerLeg.breakingStarts(legs)
        guard !starts.isEmpty else { return segmentRanges }
        guard count > 0 else { return [] }
        var ranges: [Range<Int>] = []
        var begin = 0, next = 1   // `next`: the first leg not yet started at the point's time
        for i in 0..<count {
            let t = time(i)
            var started = false
            while next < starts.count, starts[next] <= t {
                next += 1
                started = true
            }
            if started && i > begin {
                ranges.append(begin..<i)
                begin = i
            }
        }
        ranges.append(begin..<count)
        return ranges
    }
}

extension TimerLeg {
    /// The starts of `legs` that break a route by time (`Route.legRanges`): the finite ones, each
    /// later than the one before.
    static func breakingStarts(_ legs: [TimerLeg]) -> [Double] {
        var starts: [Double] = []
        for leg in legs where leg.start.isFinite && (starts.last.map { leg.start > $0 } ?? true) { starts.append(leg.start) }
        return starts
    }
}
