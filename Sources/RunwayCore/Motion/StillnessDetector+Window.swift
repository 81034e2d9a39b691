extension StillnessDetector {
    /// The last `windowS` seconds of samples, oldest first, without moving the array on every
    /// fix: dropping the oldest advances `head`, and the storage is compacted now and then (once
    /// more than `compactAfter` samples are dropped, and they are over half of it: every few
    /// hundred fixes, not every few dozen, for some 12 kB more storage).
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

        /// The samples dropped from the front before the storage is compacted.
        static let compactAfter = 256

        /// Drops the samples older than `t` (their time before it) from the front.
        @inline(__always)
        mutating func drop(before t: Double) {
            var head = self.head   // (a local: not stored back on every sample)
            while head < storage.count, storage[head].t < t {
                if !(storage[head].doppler >= 0) { withoutDoppler -= 1 }
                head += 1
            }
            if head > Self.compactAfter && head * 2 > storage.count {
                storage.removeFirst(head)
                head = 0
            }
            self.head = head
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

        /// The mean position and mean σ of the samples from `t` on (their time `t` or later);
        /// nil when there is none.
        func mean(since t: Double) -> (x: Double, y: Double, sigma: Double)? {
            var x = 0.0, y = 0.0, sigma = 0.0, n = 0.0
            for s in samples where s.t >= t { x += s.x; y += s.y; sigma += s.sigma; n += 1 }
            return n > 0 ? (x / n, y / n, sigma / n) : nil
        }

        /// Moves every sample by (−x, −y) metres: the local plane's origin moved.
        mutating func shift(x: Double, y: Double) {
            for i in head..<storage.count { storage[i].x -= x; storage[i].y -= y }
        }
    }
}

/// What the window's positions show of movement beyond their accuracy.
extension StillnessDetector {
    /// The time over which positions of accuracy `sigma` show a walker: long enough for one at
    /// `movingDopplerMps` to move further than a standing receiver wanders (`stillRadiusSigmas`
    /// σ), with the window's ends averaged (`endS`); at least the window (`windowS`), no longer
    /// than `maxEvidenceS`. The window keeps its fixes that long.
    @inline(__always)
    func evidenceS(sigma: Double) -> Double {
        min(Self.maxEvidenceS, max(settings.windowS, settings.stillRadiusSigmas * sigma / settings.movingDopplerMps + settings.endS))
    }

    /// The longest the fixes are kept to show movement beyond their accuracy, seconds (fixes
    /// coarser than about 80 m show a walker only by `movedRadiusSigmas` from the still point).
    static let maxEvidenceS = 300.0

    /// Whether the fixes since `from` (as far as the window keeps them) moved beyond what their
    /// stated accuracy explains: the mean positions of their first and last `endS` further apart
    /// than a standing receiver wanders (`stillRadiusSigmas` σ), or their scatter round their mean
    /// wider than a standing receiver's (an RMS radius over √2 σ, σ an axis: laps of a tiny track).
    @inline(never)   // off a runner's path
    func positionsMoved(since from: Double, at t: Double) -> Bool {
        guard let ends = window.ends(at: t, endS: settings.endS, from: from) else { return false }
        if ends.distanceM > settings.stillRadiusSigmas * ends.meanSigmaM { return true }
        var x = 0.0, y = 0.0, xx = 0.0, yy = 0.0, n = 0.0
        guard let x0 = window.samples.last?.x, let y0 = window.samples.last?.y else { return false }
        for s in window.samples where s.t >= from {
            let dx = s.x - x0, dy = s.y - y0
            x += dx; y += dy; xx += dx * dx; yy += dy * dy; n += 1
        }
        guard n >= 3 else { return false }
        let spread = xx / n - (x / n) * (x / n) + yy / n - (y / n) * (y / n)
        return spread > 2 * ends.meanSigmaM * ends.meanSigmaM
    }
}
