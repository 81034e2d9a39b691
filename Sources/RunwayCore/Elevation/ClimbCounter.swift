/// Counts elevation gain and loss from extreme to extreme: a climb runs from the last valley to the
/// next peak and counts whole once it exceeds the threshold (not only the part above a moving
/// reference), likewise a descent from peak to valley.
///
/// Two means of the same samples: the turns are found on a trailing box mean (the samples of the
/// last `windowS` seconds, and of the last `windowM` metres when that is shorter), and the levels
/// are read on the mean of the middle of that window (`innerShare` trimmed from each end, by
/// time). The mean of GPS altitude over a few minutes does not wander by the threshold, so noise
/// makes no turn; the shorter middle mean flattens a hill's top less (a step of the stepped
/// profile whose flat is shorter than the window: −3.7 % on the box mean alone, 0 % on the
/// middle's). Both lag by half the window.
///
///     var c = ClimbCounter()
///     c.configure(windowS: 0, windowM: .infinity, thresholdM: 3)
///     for alt in [10.0, 12, 11, 20, 18, 8] { c.add(alt: alt, t: 0, distanceM: 0) }
///     c.gainM   // 10: 10 → 20, the dip to 11 is under the threshold
///     c.lossM   // 12: 20 → 8
///
/// An extreme's level is not the middle mean at the one sample where the box mean made the
/// extreme: that is the sample whose noise happened to lie furthest out (highest on a top,
/// lowest in a valley), so every extreme read there is biased outward, and gain too high. It is
/// the average of the middle means over the stretch of samples round it whose box means lie
/// within what noise explains of the extreme: no further inside it than twice the standard
/// deviation of their difference (`spreadZ`; σ·√(1/m + 1/n) for means of m and n samples). The
/// stretch is contiguous: from after the last box mean before the extreme beyond the margin to
/// before the first such after it. Kept incrementally (`Stretch`): O(1) amortised a sample.
///
/// The noise σ is measured on the samples themselves, whatever their rate: each sample's
/// distance from the line through its two neighbours in time, when the three lie within
/// `noiseSpanM` metres and `noiseSpanS` seconds (a slope cancels out; a hill bends by centimetres
/// over 20 m), has variance σ²(1 + α² + β²) for the line's weights α, β of the neighbours
/// (σ²·3/2 at an even rate); σ² is the mean of those squares so scaled. Samples every 1.7 s (a
/// barometric flight's route points, exported and read back) measure the σ that every second
/// does, and their shorter means get a wider margin: the same flight's gain either way. Until
/// `noiseMinimum` such triples are measured since the source began the noise is not trusted
/// (ten samples say little, and clean altitudes jagged by the terrain read as noise): each
/// extreme then reads at its own mean, as it does with samples too far apart to measure any (a
/// bike's every 7 s, 100 m: a hill's curvature would read as noise). Clean altitudes measure
/// centimetres at the terrain's bends: their stretches are the extreme and the means equal to it
/// or within those centimetres. The measure is a plain mean of squares: an altitude spike that
/// the altitude gate lets through (up to 10 m + 5 m/s) widens the margins until enough samples
/// dilute it (a known limit; a robust measure such as a median of the squares would not). A
/// barometer's white noise (0.2 m, 20 samples a window) gives a margin of 0.13 m between full
/// windows. A drift slower than the window is no noise by this measure (nothing in the samples
/// tells it from the terrain), so its wander over a long flat top is still read near its highest.
///
/// A climb in progress counts as soon as the box mean is `thresholdM` above its valley, at the
/// rise of its running top's level (its stretch's, so far) over the valley's, lagging by half the
/// window; `gainM` never goes down (a climb counted on a peak that the box mean then passes
/// counts on to the new peak). Nothing measures a climb ahead of the means while it goes on: a
/// quick altitude's noise at a hill's top would stay in the count (the published gain cannot go
/// back), +3 % on a run of three laps of 30 m ramps with GPS-like altitude error. `settle()`
/// ends the count at the end of the flight: the last half window, which the lagging means have
/// not reached, is counted on shorter and shorter means, then measured to the latest quickly
/// smoothed altitude (see there). A plain value: samples in time (and distance) order.
struct ClimbCounter: Sendable {
    /// The window and threshold in use (set by the source's trust, see ElevationTracker).
    private(set) var windowS = 0.0, windowM = Double.infinity, thresholdM = 3.0

    /// Gain and loss of the climbs and descents that have ended (turned by the threshold).
    private var doneGain = 0.0, doneLoss = 0.0
    /// The direction (+1 climbing, −1 descending, 0 not yet known), the last confirmed extreme's
    /// level, and the running extreme since it: the box mean's (`running`, which turns) and its
    /// level (`runningLevel`, which counts: the stretch's, see `Stretch`). Before the first
    /// turn, the range of box means seen (`low`, `high`).
    private var direction = 0, lastLevel = Double.nan
    private var running = Double.nan, runningLevel = Double.nan
    private var low = Double.nan, high = Double.nan
    /// The stretches round the running highest box mean (`upper`: climbing, and before the first
    /// turn) and lowest (`lower`: descending, and before the first turn).
    private var upper = Stretch(sign: 1), lower = Stretch(sign: -1)
    /// The means counted since the window began (`restart`), and the sum of their middle means.
    private var counted = 0, levelSum = 0.0
    /// The altitude's noise: the last two samples (time, distance, altitude), the sum of the
    /// squared distances of samples from their neighbours' line, scaled to σ², and how many
    /// (see `noiseSpanM`).
    private var previous = (t: Double.nan, d: Double.nan, alt: Double.nan)
    private var beforePrevious = (t: Double.nan, d: Double.nan, alt: Double.nan)
    private var noiseSum = 0.0, noiseCount = 0
    /// The latest quickly smoothed altitude: `settle()` measures the climb in progress to it.
    private var lead = Double.nan
    /// The window: samples in `samples[head...]`, their sum; its middle in
    /// `samples[innerHead..<innerEnd]`, their sum.
    ///
    /// The samples before `origin` are let go of (see `add`): the sums are worked out afresh
    /// whenever that happens (no drift from long running sums), but the storage drops them only
    /// once there are `dropMinimum` of them and twice as many as are kept: the live samples are
    /// moved to the front of the array (a memmove of the whole window) every thousand-odd
    /// samples instead of every window's worth (or 65 samples, when the window holds fewer), for
    /// at most `dropMinimum` samples (24 kB) more, or twice the window, held.
    private var samples: [(t: Double, d: Double, alt: Double)] = []
    private var origin = 0, head = 0, innerHead = 0, innerEnd = 0
    private var sum = 0.0, innerSum = 0.0
    static let dropMinimum = 1024

    /// Total climb, metres: ended climbs, and the climb in progress once above the threshold,
    /// never decreasing (see `add`).
    private(set) var gainM = 0.0
    /// Total descent, metres, likewise.
    private(set) var lossM = 0.0

    /// The climb and descent counted: the ended ones, and the one in progress.
    private var countedGain: Double { direction == 1 ? doneGain + max(0, runningLevel - lastLevel) : doneGain }
    private var countedLoss: Double { direction == -1 ? doneLoss + max(0, lastLevel - runningLevel) : doneLoss }

    /// The share of the window, by time, left out of the middle mean at each end: the middle 80 %.
    static let innerShare = 0.1

    /// The share of the window that the end of the flight is still averaged over (see `settle`).
    static let tailShare = 0.1

    /// How many standard deviations of the difference of two independent box means a box mean
    /// may lie inside its extreme and still be read as the extreme's level (see `Stretch`).
    static let spreadZ = 2.0

    /// The widest triple of samples, metres and seconds, whose middle's distance from the line
    /// through the other two is read as noise (see the type's comment): over 20 m a hill's
    /// curvature reads as a few centimetres; 7 s and 100 m apart on a bike, as 0.3 m or more
    /// (a real ride, fitparse__2015-10-13: its tops then read averaged with the samples either
    /// side, 16.8 % under the device's ascent instead of 9.2 %).
    static let noiseSpanM = 20.0, noiseSpanS = 5.0

    /// How many triples measure the noise before it is trusted.
    static let noiseMinimum = 30

    /// `spreadZ` times the altitude's white noise σ (see `noiseSpanM`), from the sum of the
    /// scaled squares and their count; a mean of m samples and one of n then differ by noise of
    /// σ·√(1/m + 1/n). 0 until `noiseMinimum` triples are measured: each extreme reads at its own
    /// mean. (Worked out only where a margin is needed: most samples need none.)
    @inline(__always)
    static func noiseScale(sum: Double, count: Int) -> Double {
        count >= noiseMinimum ? spreadZ * (sum / Double(count)).squareRoot() : 0
    }

    /// Ends the flight's count: the trailing means lag by half their window, so the altitude of
    /// the last half window has not been measured yet (the last climb of a run that ends 4
    /// minutes past a valley is still under the threshold on a 300 s mean, and was lost whole).
    ///
    /// The window is first let go of from its oldest sample on, down to the last `tailShare` of
    /// it (30 s of a 300 s window): each shorter window is counted as the full ones were, so a
    /// climb under way turns and counts up to where the runner stopped, averaged over the last
    /// 30 s. The climb (or descent) in progress is then measured to the latest quick altitude
    /// when that is further. Gain and loss only grow; settling twice changes nothing, and a
    /// later sample is counted on the full window as before (the settled state is a copy).
    mutating func settle() {
        var tail = self
        tail.releaseWindow()
        if tail.lead.isFinite {
            if tail.direction == 1 && tail.lead > tail.runningLevel { tail.runningLevel = tail.lead }
            if tail.direction == -1 && tail.lead < tail.runningLevel { tail.runningLevel = tail.lead }
        }
        tail.publish()
        gainM = max(gainM, tail.gainM)
        lossM = max(lossM, tail.lossM)
    }

    /// Counts the windows of newer and newer samples, down to `tailShare` of the window.
    private mutating func releaseWindow() {
        guard let newest = samples.last?.t else { return }
        let keep = windowS * Self.tailShare
        while samples.count - head > 1, newest - samples[head + 1].t >= keep {
            sum -= samples[head].alt
            head += 1
            let n = samples.count - head
            count(sum / Double(n), level: innerMean(), samples: n)
        }
    }
    /// The window's mean, metres (NaN before any sample).
    var meanM: Double { samples.count > head ? sum / Double(samples.count - head) : .nan }

    /// The mean of the window's middle: its samples from `innerShare` of its time span after the
    /// oldest to as much before the newest (the whole window's mean when none is there). Both
    /// ends only move forward: O(1) amortised.
    @inline(__always)
    private mutating func innerMean() -> Double {
        let oldest = samples[head].t, newest = samples[samples.count - 1].t
        let cut = (newest - oldest) * Self.innerShare
        if innerEnd < head { innerHead = head; innerEnd = head; innerSum = 0 }   // (fell out whole)
        while innerEnd < samples.count, samples[innerEnd].t <= newest - cut {
            innerSum += samples[innerEnd].alt
            innerEnd += 1
        }
        while innerHead < innerEnd {
            let sample = samples[innerHead]   // (read once: one bounds check)
            guard innerHead < head || sample.t < oldest + cut else { break }
            innerSum -= sample.alt
            innerHead += 1
        }
        let n = innerEnd - innerHead
        return n > 0 ? innerSum / Double(n) : sum / Double(samples.count - head)
    }

    mutating func configure(windowS: Double, windowM: Double, thresholdM: Double) {
        self.windowS = max(0, windowS)
        self.windowM = max(0, windowM)
        self.thresholdM = max(0, thresholdM)
    }

    /// Measures the noise on the sample before `alt`: its distance from the line through its
    /// neighbours in time (both weights ½ at one time), squared and scaled to σ², when the three
    /// lie within `noiseSpanM` and `noiseSpanS` (see there).
    @inline(__always)
    private mutating func measureNoise(t: Double, d: Double, alt: Double) {
        // (Before two samples the times are NaN: no triple.)
        if t - beforePrevious.t <= Self.noiseSpanS, abs(d - beforePrevious.d) <= Self.noiseSpanM {
            let span = t - beforePrevious.t
            let after = span > 0 ? (previous.t - beforePrevious.t) / span : 0.5, before = 1 - after
            let off = previous.alt - before * beforePrevious.alt - after * alt
            noiseSum += off * off / (1 + before * before + after * after)
            noiseCount += 1
        }
        beforePrevious = previous
        previous = (t, d, alt)
    }

    /// Adds an altitude; `latest` is the quickly smoothed altitude at the same moment (NaN: none),
    /// which `settle()` measures the climb in progress to.
    @inline(__always)
    mutating func add(alt: Double, t: Double, distanceM: Double, latest: Double = .nan) {
        guard alt.isFinite else { return }
        let d = distanceM.isFinite ? distanceM : (samples.last?.d ?? 0)
        measureNoise(t: t, d: d, alt: alt)
        samples.append((t, d, alt))
        sum += alt
        while samples.count - head > 1 {
            let oldest = samples[head]   // (read once: one bounds check)
            guard t - oldest.t >= windowS || d - oldest.d >= windowM else { break }
            sum -= oldest.alt
            head += 1
        }
        lead = latest.isFinite ? latest : .nan
        let n = samples.count - head
        count(sum / Double(n), level: innerMean(), samples: n)
        publish()
        // The samples before both means are let go of once they are more than 64 and than the
        // ones after them (counted from `origin`: the sums are worked out afresh at the very
        // samples, over the very samples, as when they went from the array at once).
        let first = min(head, innerHead) - origin
        if first > 64 && first * 2 > samples.count - origin {
            origin += first
            // (No drift from long running sums.)
            sum = samples[head...].reduce(0) { $0 + $1.alt }
            innerSum = samples[innerHead..<innerEnd].reduce(0) { $0 + $1.alt }
            if origin >= Self.dropMinimum && origin > 2 * (samples.count - origin) {
                samples.removeFirst(origin)
                head -= origin; innerHead -= origin; innerEnd -= origin
                origin = 0
            }
        }
    }

    /// The figures only grow: a climb counted on a running peak whose level the next peak of the
    /// box mean does not reach keeps what was shown (at most the difference of the two means,
    /// not summed over climbs: the next climb's count passes it first).
    @inline(__always)
    private mutating func publish() {
        gainM = max(gainM, countedGain)
        lossM = max(lossM, countedLoss)
    }

    /// Ends the window (a change of source: the old source's level must not mix into the mean)
    /// and the climb in progress, keeping what was counted.
    mutating func restart() {
        doneGain = gainM
        doneLoss = lossM
        direction = 0; lastLevel = .nan; running = .nan; runningLevel = .nan
        low = .nan; high = .nan; lead = .nan
        upper = Stretch(sign: 1); lower = Stretch(sign: -1)
        counted = 0; levelSum = 0
        previous = (.nan, .nan, .nan); beforePrevious = (.nan, .nan, .nan); noiseSum = 0; noiseCount = 0
        if !samples.isEmpty { samples.removeAll(keepingCapacity: true) }
        origin = 0; head = 0; innerHead = 0; innerEnd = 0
        sum = 0; innerSum = 0
    }

    /// Counts the box mean `x` (which turns) of the window's `n` samples with the middle mean
    /// `level` at the same sample (which the extremes' stretches average).
    @inline(__always)
    private mutating func count(_ x: Double, level: Double, samples n: Int) {
        let threshold = max(thresholdM, 1e-9)   // a threshold of 0 still needs a turn to turn
        let sumBefore = levelSum
        counted += 1
        levelSum += level
        switch direction {
        case 1:
            if x > running { running = x }
            if running - x >= threshold {
                turn(x, samples: n, sumBefore: sumBefore)
            } else {
                upper.add(x, samples: n, index: counted, sum: levelSum, noiseSum: noiseSum, noiseCount: noiseCount)
                runningLevel = upper.level
            }
        case -1:
            if x < running { running = x }
            if x - running >= threshold {
                turn(x, samples: n, sumBefore: sumBefore)
            } else {
                lower.add(x, samples: n, index: counted, sum: levelSum, noiseSum: noiseSum, noiseCount: noiseCount)
                runningLevel = lower.level
            }
        default:
            countBeforeTurn(x, samples: n, threshold: threshold)
        }
    }

    /// The box mean `x` turned the climb (or descent) in progress: it ends at the running
    /// extreme's level, and the stretch of the other side starts at `x`.
    @inline(never)
    private mutating func turn(_ x: Double, samples n: Int, sumBefore: Double) {
        if direction == 1 {
            doneGain += max(0, runningLevel - lastLevel)
            lastLevel = runningLevel; running = x; direction = -1
            lower.begin(x, samples: n, index: counted, sumBefore: sumBefore, sum: levelSum)
            runningLevel = lower.level
        } else {
            doneLoss += max(0, lastLevel - runningLevel)
            lastLevel = runningLevel; running = x; direction = 1
            upper.begin(x, samples: n, index: counted, sumBefore: sumBefore, sum: levelSum)
            runningLevel = upper.level
        }
    }

    /// Before the first turn: both stretches, and the range of box means seen.
    @inline(never)
    private mutating func countBeforeTurn(_ x: Double, samples n: Int, threshold: Double) {
        if !(x >= low) { low = x }
        if !(x <= high) { high = x }
        upper.add(x, samples: n, index: counted, sum: levelSum, noiseSum: noiseSum, noiseCount: noiseCount)
        lower.add(x, samples: n, index: counted, sum: levelSum, noiseSum: noiseSum, noiseCount: noiseCount)
        if high - low >= threshold {
            // The first turn: the range seen so far says which way the first climb went.
            direction = x == high ? 1 : -1
            lastLevel = direction == 1 ? lower.level : upper.level
            running = x; runningLevel = direction == 1 ? upper.level : lower.level
        }
    }
}
