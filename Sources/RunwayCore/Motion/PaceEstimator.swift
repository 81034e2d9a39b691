/// The current ground speed (and so the pace): distance over time across a window of recent
/// fixes, once the window spans enough of its length.
///
/// Before that: with Doppler speed, what the window's speeds say (their average over its time;
/// a window of one fix, that fix's speed), until half the window is spanned. The window's
/// distance cannot say it yet: the first metres of a leg are held back (the distance filter,
/// standing still) and counted a step or two later. Without Doppler speed, the track filter's
/// own speed is shown: positions a second apart differenced are their noise. The pace must have
/// settled (`settled`) before the window's speed is taken, and it is smoothed (an exponential
/// average over 10 s), since it carries the receiver's drift.
/// The window empties at the start, a resume and a gap: no pace across any of them.
/// A speed is as old as the fix or sample that measured it: it holds for the window's length
/// (or its last step, when longer) and is unknown after (`speaks(at:)`).
///
///     var pace = PaceEstimator(windowS: 30, speedCapMps: 12, filters: true)
///     pace.push(t: 10, distanceM: 30)
///     pace.update(at: 10, phase: .cruise, dopplerMps: 3, filterSpeedMps: 3)
///     pace.groundSpeedMps   // 3
public struct PaceEstimator: Sendable {
    /// A point of the window: a time, the flight's distance then, and the speed the fix or
    /// sample measured there (its Doppler speed; NaN without).
    struct Sample: Sendable, Equatable {
        var t: Double
        var d: Double
        var v = Double.nan
    }

    let windowS: Double
    let speedCapMps: Double
    let filters: Bool
    /// Seconds of the smoothing without Doppler speed.
    static let positionsOnlySmoothingS = 10.0

    /// The window's points but the newest, oldest first from `head` (the points before it are
    /// dropped, compacted away now and then); the newest is `newest` (nil: the window is empty,
    /// and so is this). The newest is kept out of the array so that the speed `update` gives it
    /// is no write to the array: no copy-on-write check a fix (the array is written once a point,
    /// when the next one is pushed). Point `i` of the window (`head` up to `window.count`) is
    /// `window[i]`, or `newest` at `window.count`.
    private var window: [Sample] = []
    private var head = 0
    private var newest: Sample? = nil
    /// The current ground speed, m/s (NaN when unknown; 0 while holding).
    public private(set) var groundSpeedMps = Double.nan
    /// Whether `groundSpeedMps` is measured across the window (or, filters off, the fix's own
    /// speed), not the track filter's stand-in while the window fills after a start, a resume or
    /// a gap: a filter that has seen one or two fixes since it started carries their noise.
    public private(set) var isMeasured = false
    /// Whether `groundSpeedMps` was measured in cruise since the window was last emptied (and
    /// the flight has not left cruise since): not the hold's 0 carried into a resume.
    private var measuredSinceReset = false
    private var lastSpeedT: Double? = nil
    /// The time of the latest fix or sample that updated the speed (NaN before any).
    public private(set) var updatedAt = Double.nan
    /// When the window began to fill since it was last emptied.
    private var since = Double.nan

    public init(windowS: Double, speedCapMps: Double, filters: Bool) {
        self.windowS = windowS
        self.speedCapMps = speedCapMps
        self.filters = filters
    }

    /// Adds the distance at `t`. The window keeps the points of the last `windowS` seconds, and
    /// always the one before `t` besides: a recorder slower than the window (a fix every 15 s
    /// against a 10 s window) has its pace over its last step, not none.
    @inline(never)   // (its own function, the append inlined in it: the composer called the array's growth checks out of line)
    mutating func push(t: Double, distanceM d: Double) {
        if let last = newest { window.append(last) } else { since = t }
        newest = Sample(t: t, d: d)
        // (The window's points are `window.count` + 1: all but the last two may go.)
        let from = t - windowS
        var head = self.head   // (a local: not stored back on every point)
        while head < window.count - 1, window[head].t < from { head += 1 }
        if head > 64 && head * 2 > window.count + 1 {
            window.removeFirst(head)
            head = 0
        }
        self.head = head
    }

    /// Empties the window (the start, a resume, a gap).
    mutating func reset() {
        window.removeAll(keepingCapacity: true)
        newest = nil
        head = 0
        measuredSinceReset = false
    }

    /// An auto-pause resumed at `t` on a sample of `speedMps` (NaN: unknown): the window is
    /// emptied (`reset`) and the ground speed is that sample's until a fix or sample in cruise
    /// measures it, not the hold's 0 (nor a measured one: no maximum counts it).
    mutating func resumed(at t: Double, speedMps: Double) {
        reset()
        groundSpeedMps = min(speedMps, speedCapMps)
        isMeasured = false
        updatedAt = t
    }

    /// The speed a route point carries: the ground speed once a fix or sample has measured it
    /// since the start, a resume or a gap; NaN before (unknown: not the hold's 0).
    var pointSpeedMps: Double { measuredSinceReset ? groundSpeedMps : .nan }

    /// Distance credited afterwards (what the filter's steps left out): the window's points take
    /// it, so the credit is no burst of speed.
    mutating func shift(by d: Double) {
        for i in head..<window.count { window[i].d += d }
        newest?.d += d
    }

    /// Metres credited to a stretch that ended at `t`, before the window's points after it (a
    /// leg's end before a pause, counted at the fix after a resume that speed samples measured
    /// from): those points carry it, so the window measures their own progress only.
    mutating func shift(by d: Double, after t: Double) {
        for i in head..<window.count where window[i].t > t { window[i].d += d }
        if let last = newest, last.t > t { newest?.d += d }
    }

    /// The fix after a gap joins the window when the gap is credited (`d`, the flight's distance
    /// with the gap's `creditM`): until then its distance is not known. After a break the window
    /// begins with it (it emptied at the gap); across a gap in the recorder's rhythm (a fix every
    /// 30 s or more), which empties nothing, it follows the point before the gap, and the window
    /// measures the gap's line. (Should a later point be in already, the points from `t` on take
    /// the credit instead.)
    mutating func gapCredited(at t: Double, distanceM d: Double, creditM: Double) {
        guard let last = newest, last.t >= t else { return push(t: t, distanceM: d) }
        for i in head..<window.count where window[i].t >= t { window[i].d += creditM }
        newest?.d += creditM   // (its time `last.t`, at `t` or later)
    }

    /// Steps credited afterwards (movement confirmed after the runner seemed to stand): the
    /// window's points take the distance covered by their time, so the credit is no burst.
    mutating func credit(_ steps: CreditedSteps) {
        guard !steps.isEmpty else { return }
        for i in head..<window.count { window[i].d += steps.distance(upTo: window[i].t) }
        if let last = newest { newest?.d += steps.distance(upTo: last.t) }
    }

    /// Distance over time across the window; NaN with fewer than two fixes in it.
    @inline(__always)
    func windowSpeed() -> Double {
        guard let last = newest, head < window.count else { return .nan }   // (two points or more)
        let first = window[head]
        let dt = last.t - first.t
        guard dt > 0 else { return .nan }
        return (last.d - first.d) / dt
    }

    /// Whether the pace has left the start (from a standstill, a resume or a gap) behind: once
    /// the window has filled since it was last emptied; without Doppler speed (filters on),
    /// twice over, since the first window holds the track filter's lag from a standstill.
    func settled(at t: Double, dopplerMps: Double) -> Bool {
        t - since >= (dopplerMps.isNaN && filters ? 2 : 1) * windowS
    }

    /// What the window's own speeds say: their trapezoid over the time between them (the
    /// distance they measure) divided by that time; a window of one speed, that speed; NaN when
    /// none of its points has one.
    func measuredSpeeds() -> Double {
        var area = 0.0, time = 0.0, latest = Double.nan
        var previous = Sample(t: .nan, d: 0)
        func take(_ s: Sample) {
            guard !s.v.isNaN else { previous.v = .nan; return }
            if !previous.v.isNaN, s.t > previous.t {
                area += (previous.v + s.v) / 2 * (s.t - previous.t)
                time += s.t - previous.t
            }
            previous = s
            latest = s.v
        }
        for i in head..<window.count { take(window[i]) }
        if let last = newest { take(last) }
        return time > 0 ? area / time : latest
    }

    /// Filters on: the ground speed after a fix (or a speed sample) at `t`, with its Doppler
    /// speed (the sample's speed) and the track filter's.
    @inline(__always)
    mutating func update(at t: Double, phase: FlightPhase, dopplerMps: Double, filterSpeedMps: Double) {
        isMeasured = false
        updatedAt = t
        measuredSinceReset = phase == .cruise
        guard phase == .cruise else { groundSpeedMps = phase == .holding ? 0 : .nan; return }
        guard let last = newest, head <= window.count else { groundSpeedMps = .nan; return }
        if last.t == t { newest?.v = dopplerMps }   // (the point this fix pushed)
        let span = last.t - (head < window.count ? window[head].t : last.t)
        let enough = dopplerMps.isNaN ? span > 0 && settled(at: t, dopplerMps: dopplerMps) : span >= windowS / 2
        // Until then, with Doppler speed the window's speeds; without, the filter's (from the
        // window's second point: one position says no speed). (Only then: the window's speeds
        // are a loop over it, not for every fix.)
        let measured = enough ? windowSpeed()
            : !dopplerMps.isNaN ? measuredSpeeds()
            : span > 0 ? (filterSpeedMps.isNaN ? windowSpeed() : filterSpeedMps) : .nan
        let raw = min(measured, speedCapMps)   // nothing faster than the gate believes
        let tau = dopplerMps.isNaN ? Self.positionsOnlySmoothingS : 0
        if tau > 0, enough, !groundSpeedMps.isNaN, !raw.isNaN, let prevT = lastSpeedT, t > prevT {
            let a = (t - prevT) / (tau + (t - prevT))
            groundSpeedMps += a * (raw - groundSpeedMps)
        } else {
            groundSpeedMps = raw
        }
        lastSpeedT = t
        isMeasured = enough && !groundSpeedMps.isNaN
    }

    /// How long a speed holds after the fix or sample that measured it: the window's length, or
    /// its last step when longer (a recorder slower than the window: its pace is over that step).
    var holdsForS: Double {
        guard let last = newest, head < window.count else { return windowS }   // (two points or more)
        return max(windowS, last.t - window[window.count - 1].t)
    }

    /// Whether the speed still speaks for `now`: the fix or sample that updated it is no older
    /// than `holdsForS` (true before any, and at an unknown time). Past it the receiver has gone
    /// quiet (lost, indoors, the app suspended): the window holds nothing of the time since.
    public func speaks(at now: Double) -> Bool { holds(from: updatedAt, at: now) }

    /// Whether something measured at `t` still speaks for `now` (`holdsForS`; true at an unknown
    /// time): the speed, or the latest fix the snapshot shows.
    public func holds(from t: Double, at now: Double) -> Bool {
        !(now - t > holdsForS)
    }

    /// The flight left cruise: 0 while holding, unknown after (until a fix in cruise measures it).
    mutating func left(for phase: FlightPhase) {
        if phase != .cruise { groundSpeedMps = phase == .holding ? 0 : .nan; isMeasured = false; measuredSinceReset = false }
    }

    /// Filters off: the fix's own speed, else the window's in cruise.
    mutating func updateRaw(fixSpeedMps: Double, cruising: Bool, at t: Double) {
        updatedAt = t
        groundSpeedMps = !fixSpeedMps.isNaN ? fixSpeedMps : (cruising ? windowSpeed() : .nan)
        isMeasured = !groundSpeedMps.isNaN
        measuredSinceReset = cruising   // (the fix's own speed, or none; before a start, no leg's)
    }
}
