/// The current ground speed (and so the pace): distance over time across a window of recent
/// fixes, once the window spans enough of its length.
///
/// Before that, the track filter's own speed is shown. With Doppler speed, half the window is
/// enough. Without it, the pace must have settled (`settled`) before the window's speed is taken,
/// and it is smoothed (an exponential average over 10 s), since it carries the receiver's drift.
/// The window empties at the start, a resume and a gap: no pace across any of them.
///
///     var pace = PaceEstimator(windowS: 30, speedCapMps: 12, filters: true)
///     pace.push(t: 10, distanceM: 30)
///     pace.update(at: 10, phase: .cruise, dopplerMps: 3, filterSpeedMps: 3)
///     pace.groundSpeedMps   // 3
public struct PaceEstimator: Sendable {
    /// A point of the window: a time and the flight's distance then.
    struct Sample: Sendable, Equatable {
        var t: Double
        var d: Double
    }

    let windowS: Double
    let speedCapMps: Double
    let filters: Bool
    /// Seconds of the smoothing without Doppler speed.
    static let positionsOnlySmoothingS = 10.0

    private var window: [Sample] = []
    private var head = 0
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
        if window.isEmpty { since = t }
        window.append(Sample(t: t, d: d))
        while head < window.count - 2, window[head].t < t - windowS { head += 1 }
        if head > 64 && head * 2 > window.count {
            window.removeFirst(head)
            head = 0
        }
    }

    /// Empties the window (the start, a resume, a gap).
    mutating func reset() {
        window.removeAll(keepingCapacity: true)
        head = 0
        measuredSinceReset = false
    }

    /// The speed a route point carries: the ground speed once a fix or sample has measured it
    /// since the start, a resume or a gap; NaN before (unknown: not the hold's 0).
    var pointSpeedMps: Double { measuredSinceReset ? groundSpeedMps : .nan }

    /// Distance credited afterwards (what the filter's steps left out): the window's points take
    /// it, so the credit is no burst of speed.
    mutating func shift(by d: Double) {
        for i in head..<window.count { window[i].d += d }
    }

    /// The fix after a gap joins the window when the gap is credited (`d`, the flight's distance
    /// with the gap's `creditM`): until then its distance is not known. After a break the window
    /// begins with it (it emptied at the gap); across a gap in the recorder's rhythm (a fix every
    /// 30 s or more), which empties nothing, it follows the point before the gap, and the window
    /// measures the gap's line. (Should a later point be in already, the points from `t` on take
    /// the credit instead.)
    mutating func gapCredited(at t: Double, distanceM d: Double, creditM: Double) {
        guard let last = window.last, last.t >= t else { return push(t: t, distanceM: d) }
        for i in head..<window.count where window[i].t >= t { window[i].d += creditM }
    }

    /// Steps credited afterwards (movement confirmed after the runner seemed to stand): the
    /// window's points take the distance covered by their time, so the credit is no burst.
    mutating func credit(_ steps: CreditedSteps) {
        guard !steps.isEmpty else { return }
        for i in head..<window.count { window[i].d += steps.distance(upTo: window[i].t) }
    }

    /// Distance over time across the window; NaN with fewer than two fixes in it.
    @inline(__always)
    func windowSpeed() -> Double {
        guard window.count - head >= 2, let last = window.last else { return .nan }
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

    /// Filters on: the ground speed after a fix at `t`.
    @inline(__always)
    mutating func update(at t: Double, phase: FlightPhase, dopplerMps: Double, filterSpeedMps: Double) {
        isMeasured = false
        measuredSinceReset = phase == .cruise
        guard phase == .cruise else { groundSpeedMps = phase == .holding ? 0 : .nan; return }
        guard window.count - head >= 2, let last = window.last else { groundSpeedMps = .nan; return }
        let span = last.t - window[head].t
        let enough = dopplerMps.isNaN ? settled(at: t, dopplerMps: dopplerMps) : span >= windowS / 2
        let measured = enough ? windowSpeed() : (filterSpeedMps.isNaN ? windowSpeed() : filterSpeedMps)
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

    /// The flight left cruise: 0 while holding, unknown after (until a fix in cruise measures it).
    mutating func left(for phase: FlightPhase) {
        if phase != .cruise { groundSpeedMps = phase == .holding ? 0 : .nan; isMeasured = false; measuredSinceReset = false }
    }

    /// Filters off: the fix's own speed, else the window's in cruise.
    mutating func updateRaw(fixSpeedMps: Double, cruising: Bool) {
        groundSpeedMps = !fixSpeedMps.isNaN ? fixSpeedMps : (cruising ? windowSpeed() : .nan)
        isMeasured = !groundSpeedMps.isNaN
        measuredSinceReset = cruising   // (the fix's own speed, or none; before a start, no leg's)
    }
}
