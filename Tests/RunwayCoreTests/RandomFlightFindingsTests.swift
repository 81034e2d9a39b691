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

    /// A walk with an 8 s `gap_s` whose first fix is junk 600 m off, its fixes after it too noisy
    /// to agree on a re-anchor (4 m either side of the way, a walker's cap is 6 m/s): the gate stays
    /// anchored on the junk until `gap_s` passes and takes the next fix as the end of a gap. Its
    /// line, 600 m in 10 s, is faster than the cap: no movement, no distance. Before, the gap
    /// credited it: 657 m for a 64 m walk, an average moving speed of 13.4 m/s against the cap of 6.
    @Test func aGapFasterThanTheCapCreditsNoDistance() throws {
        var config = EngineConfig(activity: .walk); config.distanceFilterM = 0; config.gapS = 8
        var c = InvariantCheck("a walk from a junk first fix", config: config)
        for k in 0..<50 {
            let east = k == 0 ? 600.0 : k % 2 == 0 ? 4 : -4
            let fix = Fix(t: 1_700_000_000 + Double(k), lat: 52 + degreesNorth(1.3 * Double(k)), lon: 4 + degreesEast(east),
                          speed: 1.3, course: 0, hAcc: 5)
            c.push(try ValidatedInput(.fix(fix)))
        }
        let problems = c.finish()
        #expect(problems.isEmpty, "\(problems)")
        #expect(c.core.distance < 100)
    }
}
