/// The parts of a route the exports walk: its segments as index ranges.
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
}
