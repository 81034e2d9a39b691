/// The power call-outs: `GPWS_POWER_LOW` ("TOO LOW") below `targetPowerMin`, `GPWS_POWER_HIGH`
/// ("OVERTORQUE") above `targetPowerMax`.
///
/// Judged on the current power (the 3 s mean, the snapshot's `power_w`) at each power sample's
/// time in cruise, once that second is over (`FlightComputer.judgePower`): the figure the rider
/// sees move, and with the 5 s hold on top of it an alert comes 5 to 7 s into an excursion. (The
/// 10 s mean would add up to 10 s of lag and keep an alert's excursion going that long after the
/// rider is back in the band.) Zero watts (coasting) is a
/// power like any other; no sample is no judgement: a dropout is not low power. The hold and
/// re-arm rules are the pace alert's (`Excursion`), and one more: a gap between two judgements
/// longer than a sample holds (`PowerMeter.staleAfterS`, a dropout) ends the hold in progress,
/// since the seconds in it were not measured; a fired alert stays fired across it.
///
///     var m = AlertMonitor(settings: .init(targetPowerMin: 200, targetPowerMax: 260))
///     m.updatePower(t: 0, powerW: 150)   // nil (hold starts)
///     m.updatePower(t: 5, powerW: 150)   // GPWS_POWER_LOW, held_s 5
extension AlertMonitor {
    static func watchesPower(_ s: Settings) -> Bool { !s.targetPowerMin.isNaN || !s.targetPowerMax.isNaN }

    /// Feeds the current power at a power sample's time `t` (non-decreasing; a non-finite `t` or
    /// a NaN power is ignored) and returns the alert it raises, if any (at most one: the band's
    /// two sides exclude each other).
    public mutating func updatePower(t: Double, powerW: Double) -> Alert? {
        guard t.isFinite, !powerW.isNaN, watchesPower else { return nil }
        if t - lastPowerT > PowerMeter.staleAfterS {   // (a dropout: what it held is unknown)
            powerLow.since = nil
            powerHigh.since = nil
        }
        lastPowerT = t
        let s = settings
        // (Both sides judged each time: the one inside re-arms even when the other fires.)
        let low = s.targetPowerMin.isNaN ? nil : powerLow.update(powerW < s.targetPowerMin, t: t, holdS: s.holdS)
        let high = s.targetPowerMax.isNaN ? nil : powerHigh.update(powerW > s.targetPowerMax, t: t, holdS: s.holdS)
        if let held = low {
            return Alert(code: "GPWS_POWER_LOW",
                         message: "GPWS: TOO LOW — power \(Self.watts(powerW, .down)) W, below target \(Self.watts(s.targetPowerMin, .up)) W",
                         t: t, values: ["power_w": powerW, "target_min_w": s.targetPowerMin, "held_s": held])
        }
        if let held = high {
            return Alert(code: "GPWS_POWER_HIGH",
                         message: "GPWS: OVERTORQUE — power \(Self.watts(powerW, .up)) W, above target \(Self.watts(s.targetPowerMax, .down)) W",
                         t: t, values: ["power_w": powerW, "target_max_w": s.targetPowerMax, "held_s": held])
        }
        return nil
    }

    /// Watts in a message, whole, rounded `way` (the power away from its target, the target the
    /// other way: never "power 200 W, below target 200 W"; the values keep the exact figures).
    static func watts(_ w: Double, _ way: FloatingPointRoundingRule) -> String { PFD.whole(w.rounded(way)) }
}
