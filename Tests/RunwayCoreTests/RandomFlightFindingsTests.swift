import Testing
@testable import RunwayCore

/// What the random flights (`RandomFlightInvariantTests`) found, each the smallest flight that
/// shows it, through `InvariantCheck`.
@Suite("What the random flights found")
struct RandomFlightFindingsTests {
    /// A flight along a meridian: fix `k` a second after the one before it (`gaps[k]` seconds
    /// after a gap), `speeds[k]` m/s on from it, with Doppler; a manual lap half a second after
    /// each fix in `lapAt`.
    static func flight(_ name: String, _ speeds: [Double], gaps: [Int: Double] = [:], lapAt: Set<Int> = [],
                       config: EngineConfig) throws -> InvariantCheck {
        var c = InvariantCheck(name, config: config)
        var t = 1_700_000_000.0, north = 0.0
        for (k, v) in speeds.enumerated() {
            let dt = gaps[k] ?? 1
            t += dt
            north += v * dt
            c.push(try ValidatedInput(.fix(Fix(t: t, lat: 52 + degreesNorth(north), lon: 4, speed: v, course: 0, hAcc: 4))))
            if lapAt.contains(k) { c.lap(at: t + 0.5) }
        }
        return c
    }

    /// A lap cut while the runner slows to a stop, before auto-pause decides: the pause is not
    /// backdated into it (its split went out with that time), so the laps still add up to the
    /// flight. Before, the pause went back to the first slow fix, the lap kept the 1.5 s after it
    /// and the laps added up to 1.5 s more than the flight. Also a lap inside a gap crossed
    /// standing (the pause went back to the gap's start, 0.5 s before the lap).
    @Test func anAutoPauseIsNotBackdatedIntoALapAlreadyCut() throws {
        var config = EngineConfig(); config.autoPause.enabled = true
        let run = Array(repeating: 3.0, count: 60)
        var slowing = try Self.flight("a lap as the runner stops", run + Array(repeating: 0, count: 20), lapAt: [61], config: config)
        var gap = try Self.flight("a lap in a gap crossed standing", run + Array(repeating: 0, count: 20), gaps: [60: 40], lapAt: [59], config: config)
        for c in [slowing.finish(), gap.finish()] { #expect(c.isEmpty, "\(c)") }
        for c in [slowing, gap] { #expect(c.core.laps.laps.first?.trigger == .manual) }
    }
}
