/// Whether the fixes are accurate enough to count, and the log lines that say when that changes.
///
/// With the filters on, the gate judges accuracy and `filtered(_:at:gate:)` follows it: a warning
/// once fixes have been too inaccurate for the gate's `warnAfterS`, a note when accuracy is back.
/// With the filters off, `raw(_:)` judges each fix itself and warns at once.
///
///     var watch = AccuracyWatch(requiredM: 20, warnAfterS: 10)
///     watch.raw(Fix(lat: 52, lon: 4, hAcc: 65), log: &log)   // false, and a warning noted
public struct AccuracyWatch: Sendable {
    public let requiredM: Double
    public let warnAfterS: Double
    /// The latest fix's horizontal accuracy, metres (NaN before any fix gave one).
    public private(set) var hAccM = Double.nan
    /// Whether any fix gave its accuracy.
    public private(set) var sawAccuracy = false
    /// Whether fixes are currently too inaccurate to count.
    public private(set) var reduced = false

    public init(requiredM: Double, warnAfterS: Double) {
        self.requiredM = requiredM
        self.warnAfterS = warnAfterS
    }

    /// Notes the accuracy a fix gives (every fix, whether it counts or not).
    @inline(__always)
    mutating func see(_ fix: Fix) {
        if !fix.hAcc.isNaN { sawAccuracy = true; hAccM = fix.hAcc }
    }

    /// Filters off: whether the fix is accurate enough to count.
    mutating func raw(_ fix: Fix, log: inout EventLog) -> Bool {
        let accurate = fix.hAcc.isNaN || fix.hAcc <= requiredM
        if !accurate && !reduced {
            reduced = true
            log.note(.warning, "reduced accuracy: h_acc \(PFD.whole(fix.hAcc)) m > \(PFD.whole(requiredM)) m; fixes not counted")
        } else if accurate && reduced && !fix.hAcc.isNaN {
            reduced = false
            log.note(.info, "accuracy restored: h_acc \(PFD.whole(fix.hAcc)) m")
        }
        return accurate
    }

    /// Filters on: follows the gate's judgement after it assessed `fix`.
    @inline(__always)
    mutating func filtered(_ fix: Fix, at t: Double, gate: inout FixGate, log: inout EventLog) {
        if gate.accuracyWarningDue(at: t) { noteReduced(fix, log: &log) }
        let was = reduced
        reduced = gate.accuracyIsBad
        if was && !reduced { noteRestored(fix, log: &log) }
    }

    // (The log lines, out of line: their text, built on every fix's path, cost every fix.)
    @inline(never)
    func noteReduced(_ fix: Fix, log: inout EventLog) {
        log.note(.warning, "reduced accuracy for \(PFD.whole(warnAfterS)) s: h_acc \(PFD.whole(fix.hAcc)) m > \(PFD.whole(requiredM)) m; fixes not counted")
    }

    @inline(never)
    func noteRestored(_ fix: Fix, log: inout EventLog) {
        log.note(.info, fix.hAcc.isNaN ? "accuracy restored: a fix without h_acc counts" : "accuracy restored: h_acc \(PFD.whole(fix.hAcc)) m")
    }
}
