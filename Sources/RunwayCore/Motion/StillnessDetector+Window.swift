extension StillnessDetector {
    /// The last `windowS` seconds of samples, oldest first, without moving the array on every
    /// fix: dropping the oldest advances `head`, and the storage is compacted now and then.
    /// It also counts the samples whose Doppler speed is not a known, non-negative speed, so that
    /// the mean Doppler test can stop as soon as the answer is known when there are none.
    struct Window: Sendable {
        private var storage: [Sample] = []
        private var head = 0
        /// Samples in the window without a non-negative Doppler speed (NaN: unknown).
        private(set) var withoutDoppler = 0

        /// The samples, oldest first.
        var samples: ArraySlice<Sample> { storage[head...] }
        var first: Sample? { head < storage.count ? storage[head] : nil }
        var count: Int { storage.count - head }

        mutating func removeAll() {
            if !storage.isEmpty { storage.removeAll(keepingCapacity: true) }
            head = 0
            withoutDoppler = 0
        }

        mutating func append(_ s: Sample) {
            storage.append(s)
            if !(s.doppler >= 0) { withoutDoppler += 1 }
        }

        /// Drops the samples older than `t` (their time before it) from the front.
        @inline(__always)
        mutating func drop(before t: Double) {
            while head < storage.count, storage[head].t < t {
                if !(storage[head].doppler >= 0) { withoutDoppler -= 1 }
                head += 1
            }
            if head > 32 && head * 2 > storage.count {
                storage.removeFirst(head)
                head = 0
            }
        }

        /// The window's two ends at `t` (of its samples from `from` on): the distance between the
        /// mean positions of its first and its last `endS` seconds, the time between their mean
        /// times, and the mean position σ of those samples; nil when an end has no sample.
        func ends(at t: Double, endS: Double, from: Double = -.infinity) -> (distanceM: Double, spanS: Double, meanSigmaM: Double)? {
            guard let first = from > -.infinity ? samples.first(where: { $0.t >= from }) : first else { return nil }
            var a = (x: 0.0, y: 0.0, t: 0.0, n: 0.0), b = (x: 0.0, y: 0.0, t: 0.0, n: 0.0)
            var sigma = 0.0, n = 0.0
            for s in samples where s.t >= first.t {
                if s.t <= first.t + endS { a.x += s.x; a.y += s.y; a.t += s.t; a.n += 1 }
                if s.t >= t - endS { b.x += s.x; b.y += s.y; b.t += s.t; b.n += 1 }
                sigma += s.sigma
                n += 1
            }
            guard a.n > 0, b.n > 0 else { return nil }
            let dx = b.x / b.n - a.x / a.n, dy = b.y / b.n - a.y / a.n
            return ((dx * dx + dy * dy).squareRoot(), b.t / b.n - a.t / a.n, sigma / n)
        }

        /// Moves every sample by (−x, −y) metres: the local plane's origin moved.
        mutating func shift(x: Double, y: Double) {
            for i in head..<storage.count { storage[i].x -= x; storage[i].y -= y }
        }
    }
}
