/// Counts elevation gain and loss from extreme to extreme: a climb runs from the last valley to the
/// next peak and counts whole once it exceeds the threshold (not only the part above a moving
/// reference), likewise a descent from peak to valley.
///
/// Two means of the same samples: the turns are found on a trailing box mean (the samples of the
/// last `windowS` seconds, and of the last `windowM` metres when that is shorter), and each
/// extreme's level is the mean of the middle of that window (`innerShare` trimmed from each end,
/// by time) at the sample where the box mean made the extreme. The mean of GPS altitude over a
/// few minutes does not wander by the threshold, so noise makes no turn; the shorter middle mean
/// flattens a hill's top less (a step of the stepped profile whose flat is shorter than the
/// window: −3.7 % on the box mean alone, 0 % on the middle's). Both lag by half the window.
///
///     var c = ClimbCounter()
///     c.configure(windowS: 0, windowM: .infinity, thresholdM: 3)
///     for alt in [10.0, 12, 11, 20, 18, 8] { c.add(alt: alt, t: 0, distanceM: 0) }
///     c.gainM   // 10: 10 → 20, the dip to 11 is under the threshold
///     c.lossM   // 12: 20 → 8
///
/// A climb in progress counts as soon as the box mean is `thresholdM` above its valley, at the
/// middle mean's rise since the valley, lagging by half the window; `gainM` never goes down (a
/// climb counted on a peak that the box mean then passes counts on to the new peak). Nothing
/// measures a climb ahead of the means while it goes on: a quick altitude's noise at a hill's top
/// would stay in the count (the published gain cannot go back), +3 % on a run of three laps of
/// 30 m ramps with GPS-like altitude error. `settle()` ends the count at the end of the flight:
/// the last half window, which the lagging means have not reached, is counted on shorter and
/// shorter means, then measured to the latest quickly smoothed altitude (see there). A plain
/// value: samples in time (and distance) order.
struct ClimbCounter: Sendable {
    /// The window and threshold in use (set by the source's trust, see ElevationTracker).
    private(set) var windowS = 0.0, windowM = Double.infinity, thresholdM = 3.0

    /// Gain and loss of the climbs and descents that have ended (turned by the threshold).
    private var doneGain = 0.0, doneLoss = 0.0
    /// The direction (+1 climbing, −1 descending, 0 not yet known), the last confirmed extreme's
    /// level, and the running extreme since it: the box mean's (`running`, which turns) and the
    /// middle mean's at the same sample (`runningLevel`, which counts). Before the first turn,
    /// the range of box means seen (`low`, `high`) and their levels.
    private var direction = 0, lastLevel = Double.nan
    private var running = Double.nan, runningLevel = Double.nan
    private var low = Double.nan, high = Double.nan, lowLevel = Double.nan, highLevel = Double.nan
    /// The latest quickly smoothed altitude: `settle()` measures the climb in progress to it.
    private var lead = Double.nan
    /// The window: samples in `samples[head...]`, their sum; its middle in
    /// `samples[innerHead..<innerEnd]`, their sum.
    private var samples: [(t: Double, d: Double, alt: Double)] = []
    private var head = 0, innerHead = 0, innerEnd = 0
    private var sum = 0.0, innerSum = 0.0

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
            count(sum / Double(samples.count - head), level: innerMean())
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
        while innerHead < innerEnd, innerHead < head || samples[innerHead].t < oldest + cut {
            innerSum -= samples[innerHead].alt
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

    /// Adds an altitude; `latest` is the quickly smoothed altitude at the same moment (NaN: none),
    /// which `settle()` measures the climb in progress to.
    @inline(__always)
    mutating func add(alt: Double, t: Double, distanceM: Double, latest: Double = .nan) {
        guard alt.isFinite else { return }
        let d = distanceM.isFinite ? distanceM : (samples.last?.d ?? 0)
        samples.append((t, d, alt))
        sum += alt
        while samples.count - head > 1, t - samples[head].t >= windowS || d - samples[head].d >= windowM {
            sum -= samples[head].alt
            head += 1
        }
        lead = latest.isFinite ? latest : .nan
        count(sum / Double(samples.count - head), level: innerMean())
        publish()
        let first = min(head, innerHead)
        if first > 64 && first * 2 > samples.count {
            samples.removeFirst(first)
            head -= first; innerHead -= first; innerEnd -= first
            // (No drift from long running sums.)
            sum = samples[head...].reduce(0) { $0 + $1.alt }
            innerSum = samples[innerHead..<innerEnd].reduce(0) { $0 + $1.alt }
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
        low = .nan; high = .nan; lowLevel = .nan; highLevel = .nan; lead = .nan
        if !samples.isEmpty { samples.removeAll(keepingCapacity: true) }
        head = 0; innerHead = 0; innerEnd = 0
        sum = 0; innerSum = 0
    }

    /// Counts the box mean `x` (which turns) with the middle mean `level` at the same sample
    /// (which each extreme counts at).
    @inline(__always)
    private mutating func count(_ x: Double, level: Double) {
        let threshold = max(thresholdM, 1e-9)   // a threshold of 0 still needs a turn to turn
        switch direction {
        case 1:
            if x > running { running = x; runningLevel = level } else if running - x >= threshold {
                doneGain += max(0, runningLevel - lastLevel)
                lastLevel = runningLevel; running = x; runningLevel = level; direction = -1
            }
        case -1:
            if x < running { running = x; runningLevel = level } else if x - running >= threshold {
                doneLoss += max(0, lastLevel - runningLevel)
                lastLevel = runningLevel; running = x; runningLevel = level; direction = 1
            }
        default:
            if !(x >= low) { low = x; lowLevel = level }
            if !(x <= high) { high = x; highLevel = level }
            if high - low >= threshold {
                // The first turn: the range seen so far says which way the first climb went.
                direction = x == high ? 1 : -1
                lastLevel = direction == 1 ? lowLevel : highLevel
                running = x; runningLevel = level
            }
        }
    }
}
