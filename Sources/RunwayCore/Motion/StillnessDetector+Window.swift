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

        /// Moves every sample by (−x, −y) metres: the local plane's origin moved.
        mutating func shift(x: Double, y: Double) {
            for i in head..<storage.count { storage[i].x -= x; storage[i].y -= y }
        }
    }
}
