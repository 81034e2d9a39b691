/// The first stage with the filters on: the fix gate, what it filtered, and accuracy warnings.
///
/// A filtered fix is counted by reason and noted in the log; an accepted one goes on to the
/// track filter, or to the gap stage when the gate says a gap or a re-anchor precedes it.
///
///     var stage = GateStage(config: EngineConfig())
///     switch stage.assess(fix, at: t, log: &log) {
///     case .accept(let newSegment, let reanchored): ...
///     case .filtered: break   // counted in stage.filtered (and in stage.profile when consistent)
///     }
public struct GateStage: Sendable {
    var gate: FixGate
    public private(set) var accuracy: AccuracyWatch
    /// Fixes the gate filtered, by reason.
    public private(set) var filtered = FilterCounts()
    /// Fixes refused as too fast that agree with each other (a ride pushed as a run).
    public private(set) var profile: ProfileCheck
    let speedCapMps: Double

    public init(config: EngineConfig) {
        gate = FixGate(settings: config.gateSettings)
        accuracy = AccuracyWatch(requiredM: config.requiredAccuracyM, warnAfterS: config.gateSettings.warnAfterS)
        speedCapMps = config.speedCapMps
        profile = ProfileCheck(activity: config.activity, capMps: config.speedCapMps)
    }

    /// Notes a fix's accuracy (every fix, in either mode).
    mutating func see(_ fix: Fix) { accuracy.see(fix) }

    /// Notes a fix's time in the recorder's rhythm, once the fix is judged (every fix, in either mode).
    @inline(__always)
    mutating func heard(at t: Double) { gate.cadence.hear(at: t) }

    /// The recorder's rhythm: which waits for a fix are breaks in it.
    var cadence: FixCadence { gate.cadence }

    /// The step the gate last measured (`FixGate.measured`).
    /// (Inlined: out of line, the fix's step in `FlightComputer.apply` copied the whole stage,
    /// 432 bytes, to read it.)
    var measured: Geodesy.Measured {
        @inline(__always) get { gate.measured }
    }

    /// Whether the last gap or jump came in the recorder's rhythm (`FixGate.gapInRhythm`).
    var gapInRhythm: Bool { gate.gapInRhythm }

    /// Filters off: whether the fix is accurate enough to count.
    mutating func raw(_ fix: Fix, log: inout EventLog) -> Bool { accuracy.raw(fix, log: &log) }

    /// The gate's verdict on a fix.
    @inline(__always)
    mutating func assess(_ fix: Fix, at t: Double, log: inout EventLog) -> FixGate.Verdict {
        let verdict = gate.assess(fix, at: t)
        accuracy.filtered(fix, at: t, gate: &gate, log: &log)
        profile.see(fix, at: t, verdict: verdict, log: &log)
        if case .filtered(let reason) = verdict { noteFiltered(reason, fix, at: t, log: &log) }
        return verdict
    }

    /// Counts a filtered fix and notes it in the log. (Out of line: the log line's text, built
    /// on every fix's path, cost every fix its registers and stack.)
    @inline(never)
    mutating func noteFiltered(_ reason: FixGate.Reason, _ fix: Fix, at t: Double, log: inout EventLog) {
        filtered[reason] += 1
        log.note(.info, "filtered fix at t \(t): \(reason.rawValue)\(detail(reason, fix))")
    }

    func detail(_ reason: FixGate.Reason, _ fix: Fix) -> String {
        switch reason {
        case .accuracy: return " (h_acc \(PFD.whole(fix.hAcc)) m > \(PFD.whole(accuracy.requiredM)) m)"
        case .speed: return " (implied speed above \(PFD.whole(speedCapMps)) m/s)"
        case .nullIsland, .repeatedTime: return ""
        }
    }
}
