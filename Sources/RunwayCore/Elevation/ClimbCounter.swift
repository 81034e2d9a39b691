/// Counts elevation gain and loss from extreme to extreme: a climb runs from the last valley to the
/// next peak and counts whole once it exceeds the threshold (not only the part above a moving
/// reference), likewise a descent from peak to valley.
///
/// The altitudes are first averaged over a trailing window (a box mean of the samples of the last
/// `windowS` seconds, and of the last `windowM` metres when that is shorter): the mean of GPS
/// altitude over a few minutes does not wander by the threshold, while a climb that lasts longer
/// than the window keeps its full height (the mean lags, but reaches the top of a hill as long as
/// the hill's top lasts the window; a 27-minute sine loses about 3 % with a 300 s window, a climb to a plateau nothing).
///
///     var c = ClimbCounter()
///     c.configure(windowS: 0, windowM: .infinity, thresholdM: 3)
///     for alt in [10.0, 12, 11, 20, 18, 8] { c.add(alt: alt, t: 0, distanceM: 0) }
///     c.gainM   // 10: 10 → 20, the dip to 11 is under the threshold
///     c.lossM   // 12: 20 → 8
///
/// A climb in progress counts as soon as the mean is `thresholdM` above its valley, measured
/// ahead of the lagging mean to the latest quickly smoothed altitude by at most the threshold
/// (so the live gain and a lap's lag less, and noise adds at most the threshold); `gainM` never
/// goes down. `settle()` ends the count at the end of the flight: the last half window, which the
/// lagging mean has not reached, is counted on shorter and shorter means (see there). A plain
/// value: samples in time (and distance) order.
struct ClimbCounter: Sendable {
    /// The window and threshold in use (set by the source's trust, see ElevationTracker).
    private(set) var windowS = 0.0, windowM = Double.infinity, thresholdM = 3.0

    /// Gain and loss of the climbs and descents that have ended (turned by the threshold).
    private var doneGain = 0.0, doneLoss = 0.0
    /// The last confirmed extreme, the running extreme since it, and the direction (+1 climbing,
    /// −1 descending, 0 not yet known; then `low`/`high` are the range seen).
    private var lastExtreme = Double.nan, running = Double.nan, direction = 0
    /// The latest quickly smoothed altitude: the window's mean lags by half the window, so
    /// `settle()` measures the climb in progress to this when it is further.
    private var lead = Double.nan
    private var low = Double.nan, high = Double.nan
    /// The window: samples in `samples[head...]`, their sum.
    private var samples: [(t: Double, d: Double, alt: Double)] = []
    private var head = 0
    private var sum = 0.0

    /// Total climb, metres: ended climbs, and the climb in progress once above the threshold,
    /// never decreasing (see `add`).
    private(set) var gainM = 0.0
    /// Total descent, metres, likewise.
    private(set) var lossM = 0.0

    /// The climb and descent counted from the window's mean, the climb in progress measured
    /// ahead of the lagging mean to the quick altitude by at most the threshold.
    private var countedGain: Double {
        guard direction == 1 else { return doneGain }
        return doneGain + running + (lead.isNaN ? 0 : min(max(lead - running, 0), thresholdM)) - lastExtreme
    }
    private var countedLoss: Double {
        guard direction == -1 else { return doneLoss }
        return doneLoss + lastExtreme - running + (lead.isNaN ? 0 : min(max(running - lead, 0), thresholdM))
    }

    /// The share of the window that the end of the flight is still averaged over (see `settle`).
    static let tailShare = 0.1

    /// Ends the flight's count: the trailing mean lags by half its window, so the altitude of the
    /// last half window has not been measured yet (the last climb of a run that ends 4 minutes
    /// past a valley is still under the threshold on a 300 s mean, and was lost whole).
    ///
    /// The window is first let go of from its oldest sample on, down to the last `tailShare` of
    /// it (30 s of a 300 s window): each shorter mean is counted as the full ones were, so a
    /// climb under way turns and counts up to where the runner stopped, averaged over the last
    /// 30 s. The climb (or descent) in progress is then measured to the latest quick altitude
    /// when that is further. Gain and loss only grow; settling twice changes nothing, and a
    /// later sample is counted on the full window as before (the settled state is a copy).
    mutating func settle() {
        var tail = self
        tail.releaseWindow()
        if tail.lead.isFinite {
            if tail.direction == 1 && tail.lead > tail.running { tail.running = tail.lead }
            if tail.direction == -1 && tail.lead < tail.running { tail.running = tail.lead }
        }
        tail.publish()
        gainM = max(gainM, tail.gainM)
        lossM = max(lossM, tail.lossM)
    }

    /// Counts the means of the window's newer and newer samples, down to `tailShare` of it.
    private mutating func releaseWindow() {
        guard let newest = samples.last?.t else { return }
        let keep = windowS * Self.tailShare
        while samples.count - head > 1, newest - samples[head + 1].t >= keep {
            sum -= samples[head].alt
            head += 1
            count(sum / Double(samples.count - head))
        }
    }
    /// The window's mean, metres (NaN before any sample).
    var meanM: Double { samples.count > head ? sum / Double(samples.count - head) : .nan }

    mutating func configure(windowS: Double, windowM: Double, thresholdM: Double) {
        self.windowS = max(0, windowS)
        self.windowM = max(0, windowM)
        self.thresholdM = max(0, thresholdM)
    }

    /// Adds an altitude; `latest` is the quickly smoothed altitude at the same moment (NaN: none),
    /// which measures the climb in progress.
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
        if head > 64 && head * 2 > samples.count {
            samples.removeFirst(head)
            head = 0
            sum = samples.reduce(0) { $0 + $1.alt }   // no drift from long running sums
        }
        lead = latest.isFinite ? latest : .nan
        count(sum / Double(samples.count - head))
        publish()
    }

    /// The figures only grow: a climb measured ahead of the mean that turns on the mean's lower
    /// peak keeps what was shown (at most the threshold more than the mean's count, not summed
    /// over climbs: the next climb's count passes it first).
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
        lastExtreme = .nan; running = .nan; direction = 0; low = .nan; high = .nan; lead = .nan
        if !samples.isEmpty { samples.removeAll(keepingCapacity: true) }
        head = 0
        sum = 0
    }

    @inline(__always)
    private mutating func count(_ x: Double) {
        let threshold = max(thresholdM, 1e-9)   // a threshold of 0 still needs a turn to turn
        switch direction {
        case 1:
            if x > running { running = x } else if running - x >= threshold {
                doneGain += running - lastExtreme
                lastExtreme = running; running = x; direction = -1
            }
        case -1:
            if x < running { running = x } else if x - running >= threshold {
                doneLoss += lastExtreme - running
                lastExtreme = running; running = x; direction = 1
            }
        default:
            if !(x >= low) { low = x }
            if !(x <= high) { high = x }
            if high - low >= threshold {
                // The first turn: the range seen so far says which way the first climb went.
                direction = x == high ? 1 : -1
                lastExtreme = direction == 1 ? low : high
                running = x
            }
        }
    }
}
