extension ClimbCounter {
    /// The running extreme of the box mean on one side (`sign` +1: the highest, −1: the lowest)
    /// and the stretch of means round it that noise could have put there: from after the last
    /// mean before the extreme that lies further inside it than the margin, up to before the
    /// first such mean after it. Its level is the average of the middle means over the stretch.
    /// The margin, `scale`·√(1/m + 1/n) for means of m and n samples: at a new extreme (which
    /// cuts the stretch's start) with the new extreme's n for both, after it with the extreme's
    /// and the later mean's. A stretch's start only moves forward.
    struct Stretch: Sendable {
        let sign: Double
        /// The extreme, as `sign` × box mean.
        private var best = -Double.infinity
        /// The means since the stretch's start that no later mean lies below (as `sign` × mean,
        /// rising), each with its index and the level sum through it, in `lows[bottom..<top]`
        /// (the storage past `top` is spare: a push overwrites, no array shrinks or moves per
        /// mean): a new extreme cuts the stretch after the last of them further inside than the
        /// margin. Every one of them is at most `best`.
        private var lows: [Low] = []
        private var bottom = 0, top = 0
        struct Low: Sendable {
            var v: Double, index: Int, sum: Double
        }
        /// The stretch: the means after `startIndex` up to `endIndex`, and the level sums
        /// through each; `closed` once a mean after the extreme left the margin.
        private var startIndex = 0, startSum = 0.0, endIndex = 0, endSum = 0.0
        private var closed = false
        /// The samples in the extreme's box mean.
        private var bestSamples = 1.0
        /// The average of the middle means over the stretch (NaN before any mean), worked out
        /// whenever the stretch changes.
        private(set) var level = Double.nan

        init(sign: Double) { self.sign = sign }

        /// The stretch now ends at the `index`th mean, the level sum through it.
        @inline(__always)
        private mutating func end(at index: Int, sum: Double) {
            endIndex = index; endSum = sum
            level = endIndex > startIndex ? (endSum - startSum) / Double(endIndex - startIndex) : .nan
        }

        /// Puts `low` on the deque at `k` (`bottom` ≤ `k` ≤ `top`; the ones from `k` on are gone).
        @inline(__always)
        private mutating func push(_ low: Low, at k: Int) {
            if k < lows.count { lows[k] = low } else { lows.append(low) }
            top = k + 1
        }

        /// Starts over with the mean `x`, the `index`th, the level sums before it and through it.
        @inline(never)
        mutating func begin(_ x: Double, samples n: Int, index: Int, sumBefore: Double, sum: Double) {
            best = -.infinity
            bottom = 0; top = 0
            startIndex = index - 1; startSum = sumBefore
            add(x, samples: n, index: index, sum: sum, noiseSum: 0, noiseCount: 0)
        }

        /// Adds the `index`th mean `x`, of `n` samples, with the level sum through it; the noise
        /// measured so far (see `noiseScale`).
        @inline(__always)
        mutating func add(_ x: Double, samples n: Int, index: Int, sum: Double, noiseSum: Double, noiseCount: Int) {
            let v = sign * x
            if v > best {
                extend(v, samples: n, index: index, sum: sum, noiseSum: noiseSum, noiseCount: noiseCount)
                return
            }
            // The means no longer lowest since go (a mean equal to this one too: it is later).
            var k = top
            while k > bottom, lows[k - 1].v >= v { k -= 1 }
            if k == bottom { bottom = 0; k = 0 }   // (none left: the storage starts over)
            push(Low(v: v, index: index, sum: sum), at: k)
            if !closed {
                let inverse = 1 / Double(max(n, 1))
                let scale = ClimbCounter.noiseScale(sum: noiseSum, count: noiseCount)
                let margin = scale > 0 ? scale * (1 / bestSamples + inverse).squareRoot() : 0
                if v < best - margin { closed = true } else { end(at: index, sum: sum) }
            }
        }

        /// A new extreme `v`: the stretch's start moves past the means further inside it than the
        /// margin, and it ends here.
        @inline(never)
        private mutating func extend(_ v: Double, samples n: Int, index: Int, sum: Double, noiseSum: Double, noiseCount: Int) {
            // (Every mean on the deque is at most the old extreme, so under `v`: none goes from
            // its end.)
            let inverse = 1 / Double(max(n, 1))
            best = v
            bestSamples = Double(max(n, 1))
            closed = false
            let scale = ClimbCounter.noiseScale(sum: noiseSum, count: noiseCount)
            let margin = scale > 0 ? scale * (2 * inverse).squareRoot() : 0
            // (The new mean itself is not below the margin: only the older ones are looked at.)
            while bottom < top, lows[bottom].v < best - margin {
                startIndex = lows[bottom].index; startSum = lows[bottom].sum
                bottom += 1
            }
            if bottom == top {
                bottom = 0; top = 0
            } else if bottom > 64 && bottom * 2 > top {
                for i in bottom..<top { lows[i - bottom] = lows[i] }
                top -= bottom
                bottom = 0
            }
            push(Low(v: v, index: index, sum: sum), at: top)
            end(at: index, sum: sum)
        }
    }
}
