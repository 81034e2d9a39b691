/// The GPWS and MINIMUMS call-outs of the RunWay app, judged on current (not average) values.
///
/// A pure state machine: the engine feeds it the current pace, heart rate and distance at each
/// update and emits an `alert` event for each `Alert` returned.
///
/// **GPWS** warns when the runner leaves the target:
/// - `GPWS_PACE_SLOW` ("SINK RATE") when the pace is slower than `targetPaceMax` (pace > max),
/// - `GPWS_PACE_FAST` ("OVERSPEED") when it is faster than `targetPaceMin` (pace < min),
/// - `GPWS_HR_HIGH` ("PULL UP") when the heart rate is above `hrCeiling`,
/// - `GPWS_POWER_LOW` ("TOO LOW") and `GPWS_POWER_HIGH` ("OVERTORQUE") when the power is below
///   `targetPowerMin` or above `targetPowerMax`: judged at power samples (`updatePower`,
///   `AlertMonitor+Power.swift`), not at fixes.
///
/// Each fires only once its condition has held continuously for `holdS` seconds (measured by
/// time, not by sample count), and then not again until it is re-armed by a known value back on
/// the good side of its limit: pace ≤ max re-arms the slow alert, pace ≥ min the fast one,
/// heart rate ≤ ceiling the heart-rate alert. So leaving the band on the other side re-arms too
/// (a runner who goes from too slow to too fast gets both call-outs). A limit that is NaN is off.
///
/// Unknown values (NaN, ±infinity, ≤ 0 — a pace of infinity is standing still, shown as `--:--`;
/// a heart rate of 0 is lost contact) break neither a hold nor a re-arm: they say nothing about
/// the runner, so a hold goes on counting time across them and a fired alert stays fired.
///
/// **MINIMUMS** calls out the remaining distance to `goalM` (NaN or ≤ 0: off):
/// - `MINIMUMS` once for each mark in `marksM` when `goal − distance` first becomes ≤ the mark,
/// - `MINIMUMS_GOAL` once when `distance ≥ goal`.
///
/// Marks (and the goal) already passed at the first update with a known distance are never called
/// out: a monitor started mid-run does not replay stale call-outs. When one update passes several
/// (a gap in the fixes), only the nearest is called — the one that says where the runner is now —
/// and the goal supersedes any mark: "1000 m to go" said with 300 m left would mislead.
/// Each mark and the goal fire at most once until `reset()`, even if the distance goes back.
///
/// Alerts from one update come in the order pace, heart rate, MINIMUMS, goal.
///
///     var m = AlertMonitor(settings: .init(targetPaceMin: 5.0, targetPaceMax: 5.5))
///     m.update(t: 0, paceMinPerKm: 5.8, hrBpm: .nan, distanceM: 0)  // [] (hold starts)
///     m.update(t: 5, paceMinPerKm: 5.8, hrBpm: .nan, distanceM: 15) // [GPWS_PACE_SLOW]
public struct AlertMonitor: Sendable {
    /// What to watch; every limit is off when NaN.
    public struct Settings: Sendable, Equatable {
        /// Fastest target pace, min/km: faster fires `GPWS_PACE_FAST`. NaN = off.
        public var targetPaceMin: Double
        /// Slowest target pace, min/km: slower fires `GPWS_PACE_SLOW`. NaN = off.
        public var targetPaceMax: Double
        /// Heart-rate ceiling, bpm: above fires `GPWS_HR_HIGH`. NaN = off.
        public var hrCeiling: Double
        /// Lowest target power, W: below fires `GPWS_POWER_LOW`. NaN = off.
        public var targetPowerMin: Double
        /// Highest target power, W: above fires `GPWS_POWER_HIGH`. NaN = off.
        public var targetPowerMax: Double
        /// Goal distance, m, for MINIMUMS. NaN (or ≤ 0) = off.
        public var goalM: Double
        /// Remaining distances (m) to call out; any order, non-finite and ≤ 0 ignored.
        public var marksM: [Double]
        /// How long a GPWS condition must hold before it fires, in seconds.
        public var holdS: Double

        public init(targetPaceMin: Double = .nan, targetPaceMax: Double = .nan, hrCeiling: Double = .nan,
                    targetPowerMin: Double = .nan, targetPowerMax: Double = .nan,
                    goalM: Double = .nan, marksM: [Double] = [1000, 400], holdS: Double = 5) {
            self.targetPaceMin = targetPaceMin
            self.targetPaceMax = targetPaceMax
            self.hrCeiling = hrCeiling
            self.targetPowerMin = targetPowerMin
            self.targetPowerMax = targetPowerMax
            self.goalM = goalM
            self.marksM = marksM
            self.holdS = holdS
        }

        // NaN != NaN, so synthesised equality would call two "off" settings different.
        public static func == (a: Settings, b: Settings) -> Bool {
            same(a.targetPaceMin, b.targetPaceMin) && same(a.targetPaceMax, b.targetPaceMax)
                && same(a.hrCeiling, b.hrCeiling) && same(a.goalM, b.goalM) && same(a.holdS, b.holdS)
                && same(a.targetPowerMin, b.targetPowerMin) && same(a.targetPowerMax, b.targetPowerMax)
                && a.marksM.count == b.marksM.count && zip(a.marksM, b.marksM).allSatisfy { same($0, $1) }
        }

        private static func same(_ x: Double, _ y: Double) -> Bool { x == y || (x.isNaN && y.isNaN) }
    }

    /// One call-out, for an `alert` event.
    public struct Alert: Sendable, Equatable {
        /// `GPWS_PACE_SLOW`, `GPWS_PACE_FAST`, `GPWS_HR_HIGH`, `GPWS_POWER_LOW`, `GPWS_POWER_HIGH`,
        /// `MINIMUMS` or `MINIMUMS_GOAL`.
        public var code: String
        /// Human-readable, in the app's aviation tone ("MINIMUMS — 400 m to go").
        public var message: String
        /// The time of the update that raised it.
        public var t: Double
        /// The values that triggered it (all finite), by JSON key:
        /// - pace: `pace_min_per_km`, `target_min_min_per_km` or `target_max_min_per_km`, `held_s`
        /// - heart rate: `hr_bpm`, `ceiling_bpm`, `held_s`
        /// - power: `power_w`, `target_min_w` or `target_max_w`, `held_s`
        /// - MINIMUMS: `remaining_m`, `mark_m`, `distance_m`, `goal_m`
        /// - MINIMUMS_GOAL: `distance_m`, `goal_m`
        public var values: [String: Double]

        public init(code: String, message: String, t: Double, values: [String: Double]) {
            self.code = code
            self.message = message
            self.t = t
            self.values = values
        }
    }

    public var settings: Settings {
        didSet { isWatching = Self.watches(settings); watchesPower = Self.watchesPower(settings) }
    }
    /// Whether any call-out judged at fixes is on (a pace or heart-rate limit, or a goal). With
    /// none, `update` returns no alert and changes nothing, so the composer skips it and the
    /// values it would judge.
    public private(set) var isWatching: Bool
    /// Whether a power limit is on: with none, the composer skips `updatePower`.
    public private(set) var watchesPower: Bool

    private var paceSlow = Excursion()
    private var paceFast = Excursion()
    private var hrHigh = Excursion()
    var powerLow = Excursion(), powerHigh = Excursion()
    /// The time of the latest power judgement (a gap longer than a sample holds ends the holds).
    var lastPowerT = -Double.infinity
    /// Marks not yet called out or passed, ascending (the next to pass last); nil until the first
    /// known distance.
    private var pendingMarks: [Double]?
    private var goalDone = false

    public init(settings: Settings) {
        self.settings = settings
        isWatching = Self.watches(settings)
        watchesPower = Self.watchesPower(settings)
    }

    static func watches(_ s: Settings) -> Bool {
        !s.targetPaceMax.isNaN || !s.targetPaceMin.isNaN || !s.hrCeiling.isNaN || (s.goalM.isFinite && s.goalM > 0)
    }

    /// A pace in an alert's message, to the whole second rounded `way`: the pace away from its
    /// target and the target the other way, so that the message never reads "pace 5:00 /km,
    /// above target 5:00" for 5:00.3 against 5:00 (the values keep the exact figures).
    static func shown(_ minPerKm: Double, _ way: FloatingPointRoundingRule) -> String {
        PFD.pace((minPerKm * 60).rounded(way) / 60)
    }

    /// Feeds the current values and returns the alerts they raise (often none, possibly several).
    ///
    /// - Parameters:
    ///   - t: time in seconds, non-decreasing from call to call; a non-finite `t` is ignored.
    ///   - paceMinPerKm: current pace; NaN when unknown.
    ///   - hrBpm: current heart rate; NaN (or 0, no contact) when unknown.
    ///   - distanceM: distance so far; NaN when unknown.
    public mutating func update(t: Double, paceMinPerKm: Double, hrBpm: Double, distanceM: Double) -> [Alert] {
        guard t.isFinite else { return [] }
        var alerts: [Alert] = []
        let pace = Self.known(paceMinPerKm)
        let hr = Self.known(hrBpm)
        let s = settings

        if !s.targetPaceMax.isNaN,
           let held = paceSlow.update(pace.map { $0 > s.targetPaceMax }, t: t, holdS: s.holdS), let pace {
            alerts.append(Alert(
                code: "GPWS_PACE_SLOW",
                message: "GPWS: SINK RATE — pace \(Self.shown(pace, .up)) /km, above target \(Self.shown(s.targetPaceMax, .down))",
                t: t, values: ["pace_min_per_km": pace, "target_max_min_per_km": s.targetPaceMax, "held_s": held]))
        }
        if !s.targetPaceMin.isNaN,
           let held = paceFast.update(pace.map { $0 < s.targetPaceMin }, t: t, holdS: s.holdS), let pace {
            alerts.append(Alert(
                code: "GPWS_PACE_FAST",
                message: "GPWS: OVERSPEED — pace \(Self.shown(pace, .down)) /km, below target \(Self.shown(s.targetPaceMin, .up))",
                t: t, values: ["pace_min_per_km": pace, "target_min_min_per_km": s.targetPaceMin, "held_s": held]))
        }
        if !s.hrCeiling.isNaN,
           let held = hrHigh.update(hr.map { $0 > s.hrCeiling }, t: t, holdS: s.holdS), let hr {
            alerts.append(Alert(
                code: "GPWS_HR_HIGH",
                message: "GPWS: PULL UP — heart rate \(PFD.whole(hr)) bpm, above ceiling \(PFD.whole(s.hrCeiling)) bpm",
                t: t, values: ["hr_bpm": hr, "ceiling_bpm": s.hrCeiling, "held_s": held]))
        }
        minimums(t: t, distanceM: distanceM, into: &alerts)
        return alerts
    }

    /// Forgets GPWS holds in progress but keeps what has fired; call when the run pauses or
    /// resumes, so time spent holding never completes a hold.
    public mutating func resetHolds() {
        paceSlow.since = nil
        paceFast.since = nil
        hrHigh.since = nil
        powerLow.since = nil
        powerHigh.since = nil
    }

    /// Starts over, as for a new run: every alert armed, no mark passed.
    public mutating func reset() {
        paceSlow = Excursion()
        paceFast = Excursion()
        hrHigh = Excursion()
        powerLow = Excursion()
        powerHigh = Excursion()
        lastPowerT = -.infinity
        pendingMarks = nil
        goalDone = false
    }

    private mutating func minimums(t: Double, distanceM: Double, into alerts: inout [Alert]) {
        let goal = settings.goalM
        guard goal.isFinite, goal > 0, distanceM.isFinite else { return }
        let remaining = goal - distanceM
        guard var marks = pendingMarks else {
            // First known distance: whatever is already passed is not called out.
            pendingMarks = Self.sortedMarks(settings.marksM).filter { remaining > $0 }.reversed()
            goalDone = distanceM >= goal
            return
        }
        guard !goalDone else { return }
        if distanceM >= goal {
            goalDone = true
            pendingMarks = []
            alerts.append(Alert(
                code: "MINIMUMS_GOAL",
                message: "MINIMUMS — GOAL \(PFD.distance(goal)) km reached",
                t: t, values: ["distance_m": distanceM, "goal_m": goal]))
            return
        }
        // Marks are ascending: the passed ones are a suffix, and the last popped is the nearest.
        // (Popped in place, O(1) a mark, once `pendingMarks` lets go of the array: each removal
        // from the front of a shared copy moved every mark: 20 000 fixes passing 66 000 of the
        // 140 000 marks a 1 MiB config holds took 0.84 s, now 0.03 s.)
        pendingMarks = nil
        var nearest: Double?
        while let mark = marks.last, remaining <= mark {
            nearest = mark
            marks.removeLast()
        }
        pendingMarks = marks
        if let mark = nearest {
            alerts.append(Alert(
                code: "MINIMUMS",
                message: "MINIMUMS — \(Self.markText(mark)) to go",
                t: t, values: ["remaining_m": remaining, "mark_m": mark, "distance_m": distanceM, "goal_m": goal]))
        }
    }

    /// A value usable for a judgement: finite and > 0; nil when unknown.
    private static func known(_ v: Double) -> Double? { v.isFinite && v > 0 ? v : nil }

    /// Finite positive marks, descending, without repeats.
    static func sortedMarks(_ marks: [Double]) -> [Double] {
        var out: [Double] = []
        for m in marks.filter({ $0.isFinite && $0 > 0 }).sorted(by: >) where out.last != m { out.append(m) }
        return out
    }

    /// "400 m", "1 km", "2.50 km".
    static func markText(_ m: Double) -> String {
        guard m >= 1000 else { return PFD.whole(m) + " m" }
        if m.truncatingRemainder(dividingBy: 1000) == 0 { return PFD.whole(m / 1000) + " km" }
        return PFD.distance(m) + " km"
    }
}

/// One GPWS condition: a hold that must last, and an arm that firing clears.
struct Excursion: Sendable {
    /// Time of the first sample of the current excursion; nil when none is in progress.
    var since: Double?
    /// Whether the alert may fire; cleared when it fires, set by a known value back inside.
    var armed = true

    /// Feeds one judgement: `true` outside the limit, `false` inside, nil unknown.
    /// - Returns: how long the excursion had lasted when the alert fires, else nil.
    mutating func update(_ outside: Bool?, t: Double, holdS: Double) -> Double? {
        guard let outside else { return nil }  // unknown: neither breaks the hold nor re-arms
        guard outside else {
            since = nil
            armed = true
            return nil
        }
        guard armed else { return nil }
        let start: Double
        if let since, since <= t { start = since } else { start = t }
        since = start
        let held = t - start
        guard held >= holdS else { return nil }
        since = nil
        armed = false
        return held
    }
}
