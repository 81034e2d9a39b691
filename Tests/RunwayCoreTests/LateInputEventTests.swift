import Testing
@testable import RunwayCore

/// The events of an input stamped before a tick (a phone's locations delivered in a batch after
/// the host's own tick, a GPS time behind the live clock's wall clock): a tick measures nothing,
/// so a phase change, a split or an alert the input causes is the one it causes without the
/// tick, stamped with that input's time (or, a split, its lap's end), before the tick's own `t`
/// (docs/events.md: `seq` orders the events, `t` says when each happened).
@Suite("Events of inputs stamped before a tick")
struct LateInputEventTests {
    /// A run with auto-pause: 60 s at 3 m/s, a device that records nothing while its runner
    /// stands 40 s (a gap crossed standing: auto-pause backdates the hold to its start, at the
    /// fix that confirms the gap), and on again at 3 m/s; delivered in 20 s batches, the host
    /// ticking at the batch's last second before it comes (when `ticked`). The phase and split
    /// events.
    func run(_ clock: EngineConfig.Clock, ticked: Bool) throws -> (FlightComputer, [String]) {
        var config = EngineConfig(); config.autoPause.enabled = true; config.autoLapM = 100; config.clock = clock
        var d = Driver(config)
        let t0 = 1_700_000_000.0
        try d.phase(.start, t0)
        var fixes: [(t: Double, northM: Double)] = (0..<60).map { (Double($0), 3 * Double($0)) }
        fixes += (100...160).map { (Double($0), 177 + 3 * Double($0 - 100)) }
        var delivered = 0
        for (i, f) in fixes.enumerated() {
            // (A batch of the fixes up to the next multiple of 20 s, after the host's tick there.)
            if ticked && i >= delivered {
                let batch = fixes[i...].prefix { $0.t < (f.t / 20).rounded(.down) * 20 + 20 }
                delivered = i + batch.count
                if let last = batch.last, t0 + last.t > d.core.now {
                    try d.core.tick(at: t0 + last.t, wallClock: .nan, events: &d.events)
                }
            }
            try d.fix(t0 + f.t, 52 + degreesNorth(f.northM), 4, speed: f.t < 60 || f.t > 100 ? 3 : 0, course: 0, hAcc: 4)
        }
        try d.phase(.stop, t0 + 161)
        let kept = d.events.compactMap { e -> String? in
            switch e.body {
            case .phase(let from, let to, let by): "phase \(from) -> \(to) \(by.map { "\($0)" } ?? "") at \(e.t - t0)"
            case .split(let lap): "split \(lap.index) at \(e.t - t0), \(lap.distanceM) m, \(lap.elapsedS) s"
            default: nil
            }
        }
        return (d.core, kept)
    }

    @Test(arguments: [EngineConfig.Clock.replay, .live])
    func aGapCrossedStandingPausesAtTheInputsOwnTime(_ clock: EngineConfig.Clock) throws {
        let (plain, a) = try run(clock, ticked: false)
        let (ticked, b) = try run(clock, ticked: true)
        // (Without the ticks: the hold begins at the gap, decided at the fix that confirms it.)
        #expect(a.contains("phase cruise -> holding auto at 101.0"), "\(a)")
        #expect(a == b, "without the ticks \(a), ticked \(b)")
        #expect(plain.summaryJSON() == ticked.summaryJSON())
    }
}
